"""The shipped deployment, for real: Debian's nginx (deploy/nginx.conf) in front of two app processes sharing
one PostgreSQL database. A refereed game and a vote are played through the proxy, live updates included, and
the proxy's log shows both back ends served them (and no token)."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from tests.helpers import REPO
from tests.helpers.serving import SERVE

DEPLOY = REPO / "deploy"
pytestmark = pytest.mark.slow  # nginx in front of two app processes on PostgreSQL


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _needs(thing: str, found) -> None:
    if not found:
        message = f"the deployment test needs {thing} (see .ci/run)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def _wait_for_port(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"process exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"nothing listens on {port}")


@pytest.fixture
def proxied(tmp_path, request):
    """The base URL of nginx in front of two app processes on one PostgreSQL database, and nginx's access log.
    Parametrized indirectly, a dict of lines of the shipped configuration and what to put in their place."""
    database = os.environ.get("TEST_DATABASE_URL")
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    _needs("PostgreSQL (TEST_DATABASE_URL)", database)
    _needs("nginx", nginx)
    backends = [_free_port(), _free_port()]
    environment = dict(os.environ, DATABASE_URL=database, COMPANION_SECRET_KEY="d" * 64, COMPANION_TRUST_PROXY="1",
                       COMPANION_INSTANCE_PATH=str(tmp_path / "instance"))
    environment.pop("COMPANION_PUBLIC_URL", None)
    processes = [
        subprocess.Popen([*SERVE, "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
                         env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for port in backends
    ]
    listen = _free_port()
    log = tmp_path / "access.log"
    shipped = (DEPLOY / "nginx.conf").read_text()
    site = (shipped.replace("server 127.0.0.1:5001;", f"server 127.0.0.1:{backends[0]};")
            .replace("server 127.0.0.1:5002;", f"server 127.0.0.1:{backends[1]};")
            .replace("listen 80;", f"listen 127.0.0.1:{listen};")
            .replace("/var/log/nginx/cryptid-companion.log cryptid_redacted", f"{log} cryptid_test")
            .replace("/var/log/nginx/cryptid-companion.error.log", str(tmp_path / "site-error.log")))
    for line, replacement in getattr(request, "param", {}).items():
        assert line in site, "the shipped configuration changed shape"
        site = site.replace(line, replacement)
    assert site.count(str(backends[0])) == 1 and str(log) in site, "the shipped configuration changed shape"
    (tmp_path / "nginx.conf").write_text(
        f"daemon off; pid {tmp_path}/nginx.pid; error_log {tmp_path}/error.log; worker_processes 1;\n"
        "events { worker_connections 1024; }\n"
        f"http {{ client_body_temp_path {tmp_path}/body; proxy_temp_path {tmp_path}/proxy;"
        f" fastcgi_temp_path {tmp_path}/fcgi; uwsgi_temp_path {tmp_path}/uwsgi; scgi_temp_path {tmp_path}/scgi;\n"
        "log_format cryptid_test '$upstream_addr \"$request_method $cryptid_loggable_uri\" $status';\n"

        f"{site}\n}}\n"
    )
    try:
        for port, process in zip(backends, processes):
            _wait_for_port(port, process)
        proxy = subprocess.Popen([nginx, "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _wait_for_port(listen, proxy)
            yield f"http://127.0.0.1:{listen}", log, backends, processes
        finally:
            proxy.terminate()
            proxy.wait(timeout=10)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=40)  # the server lets running long polls finish first
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class Browser:
    """A tiny client with a cookie jar, as one phone."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(self, method: str, path: str, body=None, form=None, headers=None) -> tuple[int, str]:
        data = json.dumps(body).encode() if body is not None else (urllib.parse.urlencode(form).encode() if form else None)
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers or {})
        if body is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with self.opener.open(request, timeout=40) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()


def test_a_refereed_game_and_a_vote_through_nginx_and_two_back_ends(proxied):
    base, log, backends, _ = proxied
    host = Browser(base)
    status, text = host.call("POST", "/api/tables", {"players": 3, "advanced": False})
    assert status == 201
    table = json.loads(text)
    seats = [urllib.parse.urlsplit(s["url"]).path.rsplit("/", 1)[1] for s in table["seats"]]
    phones = [Browser(base) for _ in seats]
    play = [f"/api/seats/{token}/play" for token in seats]
    # A quiet table nobody plays at: a long poll on it answers only when its wait runs out (~25 s). One is
    # held from before each move, so a long poll the move answers before it was woken by the move, not by
    # running out of time itself.
    status, text = host.call("POST", "/api/tables", {"players": 3, "advanced": False})
    assert status == 201
    quiet = json.loads(text)
    quiet_seat = "/api/seats/" + urllib.parse.urlsplit(quiet["seats"][0]["url"]).path.rsplit("/", 1)[1] + "/play"
    quiet_version = json.loads(host.call("GET", f"/api/tables/{quiet['code']}/play")[1])["version"]
    for round_ in range(8):
        state = json.loads(phones[0].call("GET", play[0])[1])
        if state["phase"] == "turns":
            break
        mover = state["turn"]
        waiter = next(i for i in range(3) if i + 1 != mover)
        idle: list = []
        held = threading.Thread(target=lambda: idle.append(host.call("GET", f"/api/tables/{quiet['code']}/play?wait={quiet_version}")))
        held.start()
        woke: list = []
        thread = threading.Thread(target=lambda: woke.append(phones[waiter].call("GET", f"{play[waiter]}?wait={state['version']}")))
        thread.start()
        time.sleep(0.3)  # the waiting requests are in place on the back ends...
        cube = next(h for h in range(108) if not any(c["row"] * 12 + c["col"] == h for c in state["cubes"]))
        # ...and the move goes through the proxy to either: try hexes until one is legal for the mover.
        for hex_index in range(cube, 108):
            status, _ = phones[mover - 1].call("POST", play[mover - 1], {"action": "cube", "hex": {"row": hex_index // 12, "col": hex_index % 12}})
            if status == 200:
                break
        assert status == 200, _
        thread.join(timeout=40)  # bounds a hang only: a long poll answers within ~25 s whatever happens
        assert woke, "the long poll did not answer"
        (wait_status, wait_text), = woke
        assert wait_status == 200 and json.loads(wait_text)["version"] == state["version"] + 1
        assert held.is_alive() and not idle, "the move reached the other phone only when its long poll ran out"
        # A name at the quiet table ends its long poll now, so that no request outlives the round.
        status, _ = host.call("POST", quiet_seat, {"action": "name", "name": f"Round {round_}"})
        assert status == 200, _
        quiet_version += 1
        held.join(timeout=40)
        (idle_status, idle_text), = idle
        assert idle_status == 200 and json.loads(idle_text)["version"] == quiet_version
    assert state["phase"] == "turns"  # the whole opening went through the proxy
    # A vote through the proxy: the seat page's form, with its CSRF token and session cookie.
    status, page = phones[1].call("GET", f"/s/{seats[1]}")
    assert status == 200
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    status, _ = phones[1].call("POST", f"/s/{seats[1]}/votes/hint", form={"csrf_token": token})
    assert status == 200  # followed the 303 back to the seat page
    status, panel = phones[2].call("GET", f"/s/{seats[2]}/table")
    assert "1 of 3 wants it" in panel
    served = log.read_text()
    for port in backends:
        assert f"127.0.0.1:{port}" in served, "both back ends served the game"
    for token in seats:
        assert token not in served, "a seat token reached the proxy's log"


TOKEN_LINK = re.compile(r"/(?:s|h|decrypto/[hpj])/([A-Za-z0-9._-]{8,64})")


def _csrf(page: str) -> str:
    return re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)


def test_the_logs_hold_no_token_after_a_game_of_each_kind(proxied, tmp_path):
    """A refereed Cryptid game, a box game and a Decrypto table through nginx, with every page, live update,
    help link (?back=), language switch (?next=) and error a phone may ask for; then a back end goes down. No
    token is in the access log or the error logs, and the access log still says what was asked."""
    base, log, _, processes = proxied
    host = Browser(base)
    tokens: set[str] = set()
    status, text = host.call("POST", "/api/tables", {"players": 3, "advanced": False})
    assert status == 201
    tokens |= set(TOKEN_LINK.findall(text))
    status, page = host.call("GET", "/")
    status, page = host.call("POST", "/", form={"players": 4, "how": "box", "csrf_token": _csrf(page)})
    assert status == 200
    tokens |= set(TOKEN_LINK.findall(page))
    status, page = host.call("GET", "/decrypto/new")
    status, page = host.call("POST", "/decrypto/new", form={"white": 2, "black": 2, "keywords": "site", "language": "en",
                                                             "csrf_token": _csrf(page)})
    assert status == 200
    decrypto = set(TOKEN_LINK.findall(page))
    assert decrypto
    tokens |= decrypto
    for token in sorted(tokens):
        for kind in ("s", "h", "decrypto/h", "decrypto/p", "decrypto/j"):
            host.call("GET", f"/{kind}/{token}")
            host.call("GET", f"/{kind}/{token}/live")
        host.call("GET", f"/api/seats/{token}/play")
        host.call("DELETE", f"/s/{token}")  # 405
        host.call("GET", f"/help/setup?back=/s/{token}")
        host.call("GET", f"/language?lang=el&next=/s/{token}")
        host.call("GET", f"/games/X?next=/h/{token}&back=/s/{token}")
    processes[0].terminate()  # a back end goes away: nginx sends everything to the other one
    processes[0].wait(timeout=40)
    for token in sorted(tokens)[:4]:
        host.call("GET", f"/s/{token}")
        host.call("GET", f"/decrypto/p/{token}")
    logged = log.read_text()
    errors = "".join(path.read_text() for path in tmp_path.glob("*error.log"))
    assert "/s/<token>" in logged and "/decrypto/h/<token>" in logged and "/help/setup?<query>" in logged
    for token in tokens:
        assert token not in logged, "a token reached the proxy's access log"
        assert token not in errors, "a token reached the proxy's error log"


def _hold(base: str, path: str, etag: str | None = None) -> socket.socket:
    """A request sent and left unread: a live update held open, as a phone holds one."""
    connection = socket.create_connection(("127.0.0.1", urllib.parse.urlsplit(base).port), timeout=40)
    known = f"If-None-Match: {etag}\r\n" if etag else ""
    connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{known}\r\n".encode())
    return connection


@pytest.mark.parametrize("proxied", [{"limit_conn cryptid_live_updates 300;": "limit_conn cryptid_live_updates 2;"}],
                         indirect=True)
def test_nginx_caps_the_live_updates_one_address_holds_and_nothing_else(proxied):
    """The shipped per-address cap on held live updates (300; here 2): the next one is refused by nginx itself
    with a 429 and Retry-After, never reaching the app, while pages and moves from that address still answer."""
    base, log, _, _ = proxied
    host = Browser(base)
    status, text = host.call("POST", "/api/tables", {"players": 3, "advanced": False})
    assert status == 201
    table = json.loads(text)
    play = "/api/seats/" + urllib.parse.urlsplit(table["seats"][0]["url"]).path.rsplit("/", 1)[1] + "/play"
    version = json.loads(host.call("GET", play)[1])["version"]
    public_live = f"/games/{table['code']}/live"
    with urllib.request.urlopen(base + public_live, timeout=40) as fragment:
        etag = fragment.headers["ETag"]
    held = [_hold(base, f"{play}?wait={version}"), _hold(base, public_live, etag)]
    try:
        assert host.call("GET", play)[0] == 200  # answered after nginx took in the held requests before it
        public_wait = f"/api/tables/{table['code']}/play?wait={version}"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + public_wait, timeout=40)
        assert refused.value.code == 429 and refused.value.headers["Retry-After"] == "5"
        assert host.call("GET", f"{play}?wait={version}")[0] == 429
        host_live = "/h/" + urllib.parse.urlsplit(table["host_url"]).path.rsplit("/", 1)[1] + "/live"
        assert host.call("GET", host_live)[0] == 429
        panel_wait = f"/games/{table['code']}/table?wait=1"  # a table panel's long poll counts too
        assert host.call("GET", panel_wait)[0] == 429
        assert host.call("GET", f"/games/{table['code']}")[0] == 200  # a page is no live update
        assert host.call("GET", f"/games/{table['code']}/table")[0] == 200  # nor a panel asked without ?wait
        status, _ = host.call("POST", play, {"action": "name", "name": "Ana"})  # a move, which ends the held waits
        assert status == 200
        for connection in held:
            assert connection.recv(12) == b"HTTP/1.1 200"
    finally:
        for connection in held:
            connection.close()
    # Refused by nginx itself (no upstream address in the log line), and only those four.
    refusals = [line for line in log.read_text().splitlines() if line.endswith(" 429")]
    assert sorted(refusals) == sorted([f'- "GET {public_wait}" 429', f'- "GET /api/seats/<token>/play?wait={version}" 429',
                                       '- "GET /h/<token>/live" 429', f'- "GET {panel_wait}" 429'])


@pytest.mark.parametrize("proxied", [{"rate=60r/s;": "rate=1r/m;",
                                      "limit_req zone=cryptid_live_asks burst=300": "limit_req zone=cryptid_live_asks burst=1"}],
                         indirect=True)
def test_nginx_refuses_live_updates_asked_too_often_from_one_address(proxied):
    """The shipped rate of live updates per address (60 a second, a burst of 300; here 1 a minute, a burst of 1):
    past it nginx answers 429 with Retry-After itself, while the address's other requests still answer."""
    base, log, _, _ = proxied
    host = Browser(base)
    status, text = host.call("POST", "/api/tables", {"players": 3, "advanced": False})
    assert status == 201
    live = f"/games/{json.loads(text)['code']}/live"  # without If-None-Match: answered at once
    assert [host.call("GET", live)[0] for _ in range(2)] == [200, 200]
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(base + live, timeout=40)
    assert refused.value.code == 429 and refused.value.headers["Retry-After"] == "5"
    assert host.call("GET", live.removesuffix("/live"))[0] == 200
    assert [line for line in log.read_text().splitlines() if line.endswith(" 429")] == [f'- "GET {live}" 429']
