"""The HTTP client every load command drives the site with, against a small real server on loopback."""

import json
import select
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from companion.ops.load import Client, Site, Tally, run_together, server_under_load


class Site_(BaseHTTPRequestHandler):
    """Answers what the load clients rely on: cookies, forms and JSON, ETags, error statuses."""

    protocol_version = "HTTP/1.1"  # keep-alive, as the real server
    cut_asked = 0  # how many times /cut was asked (the fixture starts it at 0)

    def do_GET(self):
        if self.path == "/cookies":
            self._answer(200, b"set", [("Set-Cookie", "session=abc.def; Path=/; HttpOnly"), ("Set-Cookie", "lang=el")])
        elif self.path == "/panel":
            if self.headers.get("If-None-Match") == '"v1"':
                self._answer(304, b"")
            else:
                self._answer(200, b"panel", [("ETag", '"v1"')])
        elif self.path == "/echo":
            self._echo(b"")
        elif self.path == "/then-close":  # answered, then the connection closed, as an idle timeout closes it
            self._echo(b"")
            self.close_connection = True
        elif self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"5\r\nchunk\r\n7;name=x\r\ned body\r\n0\r\nX-Trailer: t\r\n\r\n")
        elif self.path == "/cut":  # a length promised, the connection closed after part of it
            Site_.cut_asked += 1
            self.send_response(200)
            self.send_header("Content-Length", "10")
            self.end_headers()
            self.wfile.write(b"par")
            self.close_connection = True
        elif self.path == "/until-close":  # no length: the body ends where the connection does
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"all of it")
            self.close_connection = True
        else:
            self._answer(404, b"missing")

    def do_POST(self):
        self._echo(self.rfile.read(int(self.headers["Content-Length"])))

    def _echo(self, body: bytes):
        seen = {
            "client_port": self.client_address[1],
            "host": self.headers.get("Host"),
            "cookie": self.headers.get("Cookie"),
            "content_type": self.headers.get("Content-Type"),
            "body": body.decode(),
        }
        self._answer(200, json.dumps(seen).encode())

    def _answer(self, status: int, body: bytes, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def site():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Site_)
    Site_.cut_asked = 0
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    port = server.server_address[1]
    yield Site(f"http://127.0.0.1:{port}", "127.0.0.1", port)
    server.shutdown()
    server.server_close()
    thread.join()


def test_a_client_keeps_one_connection_and_sends_back_the_cookies_it_was_set(site):
    client = Client(site, Tally())
    first = client.request("GET", "/echo").json()
    assert first["cookie"] is None
    assert client.request("GET", "/cookies").ok
    second = client.request("GET", "/echo").json()
    assert second["cookie"] == "session=abc.def; lang=el"
    assert second["client_port"] == first["client_port"]


def test_forms_and_json_are_sent_as_a_browser_and_a_phone_send_them(site):
    client = Client(site, Tally())
    form = client.request("POST", "/echo", form={"csrf_token": "t o", "players": 5}).json()
    assert form["content_type"] == "application/x-www-form-urlencoded" and form["body"] == "csrf_token=t+o&players=5"
    move = client.request("POST", "/echo", json_body={"action": "name", "name": "P1"}).json()
    assert move["content_type"] == "application/json" and json.loads(move["body"]) == {"action": "name", "name": "P1"}


def test_a_connection_the_server_closed_is_not_reused_for_the_next_request(site):
    """The server may close a kept-alive connection between requests (serve does after 10 silent seconds): the
    next request, a body included, goes on a new connection instead of into a broken pipe."""
    tally = Tally()
    client = Client(site, tally)
    first = client.request("GET", "/then-close").json()
    select.select([client.connection.sock], [], [], 10)  # until the server's close has arrived (bounds a hang)
    move = client.request("POST", "/echo", json_body={"action": "name", "name": "P1"})
    assert move.ok and json.loads(move.json()["body"]) == {"action": "name", "name": "P1"}
    assert move.json()["client_port"] != first["client_port"]
    assert tally.errors == []


def test_an_etag_sent_back_is_answered_304(site):
    client = Client(site, Tally())
    panel = client.request("GET", "/panel")
    assert (panel.status, panel.text) == (200, "panel")
    again = client.request("GET", "/panel", headers={"If-None-Match": panel.headers["etag"]}, expect=(200, 304))
    assert (again.status, again.body, again.ok) == (304, b"", True)


def test_every_request_is_timed_and_every_unexpected_status_is_an_error(site):
    tally = Tally()
    client = Client(site, tally)
    assert client.request("GET", "/echo").ok
    missing = client.request("GET", "/nowhere")
    assert (missing.status, missing.ok, missing.text) == (404, False, "missing")
    assert client.request("GET", "/nowhere", expect=(404,)).ok
    assert len(tally.latencies) == 3 and all(seconds >= 0 for seconds in tally.latencies)
    assert tally.errors == ["GET /nowhere: HTTP 404"]


@pytest.mark.parametrize("untimed", [{"long_poll": True}, {"timed": False}], ids=["long poll", "winding down"])
def test_a_long_poll_or_the_runs_winding_down_is_not_a_latency_but_its_errors_count(site, untimed):
    tally = Tally()
    client = Client(site, tally)
    assert client.request("GET", "/echo", **untimed).ok
    assert client.request("GET", "/nowhere", **untimed).status == 404
    assert tally.latencies == [] and tally.errors == ["GET /nowhere: HTTP 404"]


def test_no_answer_is_status_0_and_an_error():
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    tally = Tally()
    refused = Client(Site(f"http://127.0.0.1:{port}", "127.0.0.1", port), tally).request("GET", "/")
    assert (refused.status, refused.ok, refused.body) == (0, False, b"")
    assert len(tally.errors) == 1 and tally.errors[0].startswith("GET /: ConnectionRefusedError")


def test_a_server_named_by_url_is_used_as_it_is(site):
    with server_under_load(f"http://localhost:{site.port}/") as named:
        assert (named.host, named.port) == ("localhost", site.port)
        assert Client(named, Tally()).request("GET", "/echo").ok


def test_run_together_runs_every_call_to_its_end():
    done = []
    run_together(lambda number=number: done.append(number) for number in range(20))
    assert sorted(done) == list(range(20))


def test_every_way_an_answer_may_end_is_read_whole(site):
    """A length, chunks (with an extension and a trailer) or the connection's close; the kept-alive connection
    carries on after the first two, a new one after the close."""
    client = Client(site, Tally())
    first = client.request("GET", "/echo").json()
    assert first["host"] == f"127.0.0.1:{site.port}"
    assert client.request("GET", "/chunked").text == "chunked body"
    assert client.request("GET", "/echo").json()["client_port"] == first["client_port"]
    assert client.request("GET", "/until-close").text == "all of it"
    assert client.request("GET", "/echo").json()["client_port"] != first["client_port"]


def test_an_answer_cut_short_is_an_error_and_its_request_is_not_sent_again(site):
    """Only a request nothing was answered to goes again on a new connection: one answered in part may have acted."""
    tally = Tally()
    client = Client(site, tally)
    assert client.request("GET", "/echo").ok  # the connection is kept alive, so the next request reuses it
    cut = client.request("GET", "/cut")
    assert (cut.status, cut.ok) == (0, False) and len(tally.errors) == 1
    assert Site_.cut_asked == 1
