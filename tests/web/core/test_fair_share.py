"""One client address cannot take every thread: caps on its requests in progress and on its bodies being read,
and what the site answers when its database is away (503, Retry-After) or it is served over HTTPS (HSTS)."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import create_engine, event

from companion.web.core.db import POOL_SIZE, db
from companion.web.core.errors import MESSAGES
from companion.web.core.fairshare import WorkSlots
from companion.web.core.i18n import COOKIE
from tests.helpers import GOLDEN, make_app

CODE = GOLDEN[2]["code"]


def refereed_table(client) -> dict:
    answer = client.post("/api/tables", json={"players": 3})
    assert answer.status_code == 201
    return answer.get_json()


def test_an_address_holding_its_share_gets_a_429_at_once_and_others_do_not(app):
    """Held live updates count: with the share full, one more request from that address is refused at once
    (connection closed, Retry-After), a request from another address is answered, and a share given back is
    free again."""
    app.config["REQUESTS_PER_ADDRESS"] = 2
    client = app.test_client()
    table = refereed_table(client)
    code = table["code"]
    version = client.get(f"/api/tables/{code}/play").get_json()["version"]
    shares = app.extensions["companion.fair_share"]
    waiting = [threading.Thread(target=client.get, args=(f"/api/tables/{code}/play?wait={version}",)) for _ in range(2)]
    for thread in waiting:
        thread.start()
    try:
        hang = time.monotonic() + 60  # bounds a hang only
        while shares.counts["requests", "127.0.0.1"] < 2:  # both are waiting
            assert time.monotonic() < hang
            time.sleep(0.01)
        refused = client.get("/")
        assert refused.status_code == 429 and refused.headers["Connection"] == "close"
        assert int(refused.headers["Retry-After"]) > 0
        assert "Too many requests" in refused.get_data(as_text=True)
        other = client.get("/", environ_base={"REMOTE_ADDR": "10.0.0.7"})
        assert other.status_code == 200
    finally:  # a move (from another address: this one's share is full) ends both waits at once
        seat = table["seats"][0]["url"].rpartition("/s/")[2]
        moved = client.post(f"/api/seats/{seat}/play", json={"action": "leave"}, environ_base={"REMOTE_ADDR": "10.0.0.9"})
        assert moved.status_code == 200
        for thread in waiting:
            thread.join()
    assert client.get("/").status_code == 200
    assert not shares.counts


def test_a_burst_on_postgresql_opens_no_connection_beyond_those_the_pool_keeps(postgresql_url, tmp_path):
    """Requests at work (and the live watcher) fit in the connections a worker keeps open: a burst of requests
    at once opens none to be closed again after its request (with 15 at work, a minute of attack opened over
    200), whatever the number waiting their turn."""
    app = make_app(postgresql_url, tmp_path)
    client = app.test_client()
    code = refereed_table(client)["code"]
    opened = []
    with app.app_context():
        event.listen(db.engine, "connect", lambda *_: opened.append(1))
        db.engine.dispose()  # from here on, every connection is opened under the burst
    answers = []
    burst = [threading.Thread(target=lambda: answers.append(app.test_client().get(f"/api/tables/{code}/play").status_code))
             for _ in range(60)]
    for thread in burst:
        thread.start()
    for thread in burst:
        thread.join()
    assert answers == [200] * 60
    assert 1 <= len(opened) <= POOL_SIZE


def test_a_waiting_live_update_gives_its_work_slot_to_others(app):
    """With one work slot, a long poll waiting for a change lets another request be answered meanwhile (and takes
    its slot back to answer when the change comes): held live updates take no turns from those at work."""
    app.config["WORKING_REQUESTS"] = 1
    app.wsgi_app = type(app.wsgi_app)(app, app.wsgi_app.site)  # a fair share built with that one slot
    client = app.test_client()
    table = refereed_table(client)
    code = table["code"]
    version = client.get(f"/api/tables/{code}/play").get_json()["version"]
    shares = app.extensions["companion.fair_share"] = app.wsgi_app.shares
    answers = []
    waiting = threading.Thread(target=lambda: answers.append(client.get(f"/api/tables/{code}/play?wait={version}")))
    waiting.start()
    hang = time.monotonic() + 60  # bounds a hang only
    while not app.extensions["live_watcher"].waiting.get(code):  # the poll is waiting
        assert time.monotonic() < hang
        time.sleep(0.01)
    assert client.get("/").status_code == 200
    assert waiting.is_alive() and shares.counts["requests", "127.0.0.1"] == 1  # answered while the poll waits
    seat = table["seats"][0]["url"].rpartition("/s/")[2]
    assert client.post(f"/api/seats/{seat}/play", json={"action": "leave"}).status_code == 200
    waiting.join()
    assert answers[0].status_code == 200 and answers[0].get_json()["version"] > version


def test_a_refusal_speaks_the_language_each_request_asks_for(app):
    """Refusals are remembered by the headers that chose their language: each request still gets its own."""
    app.config["REQUESTS_PER_ADDRESS"] = 0  # every request from this address is over its share
    client = app.test_client()
    expected = {}
    for language in ("de", "fr", "ja"):
        with app.test_request_context(headers={"Accept-Language": language}):
            expected[language] = str(MESSAGES[429])
    for _ in range(2):  # the second time from memory
        for language in ("de", "fr"):
            page = client.get("/", headers={"Accept-Language": f"{language},en;q=0.5"})
            assert page.status_code == 429 and f'lang="{language}"' in page.get_data(as_text=True)
            answer = client.get("/api/tables/ABC/play", headers={"Accept-Language": language})
            assert answer.get_json() == {"error": expected[language], "status": 429}
    client.set_cookie(COOKIE, "ja")  # the phone's own choice wins over its browser's
    answer = client.get("/api/tables/ABC/play", headers={"Accept-Language": "de"})
    assert answer.get_json()["error"] == expected["ja"]


def served_in_order(requests: list[tuple[str, str, bool]]) -> list[str]:
    """With the one work slot at work, each request (address, name, woken live update?) queues for it in the
    order given; then the slot is given back, and the names come out in the order the requests were served."""
    slots = WorkSlots(1)
    slots.take("10.0.0.1")  # the only slot is at work
    served = []

    def request(address: str, name: str, later: bool) -> None:
        slots.take(address, later=later)
        served.append(name)
        slots.give_back()

    threads = []
    for address, name, later in requests:
        threads.append(threading.Thread(target=request, args=(address, name, later)))
        threads[-1].start()
        hang = time.monotonic() + 60  # bounds a hang only
        while sum(map(len, [*slots.waiting.values(), *slots.waiting_later.values()])) < len(threads):
            time.sleep(0.001)  # queued in this order
            assert time.monotonic() < hang
    slots.give_back()
    for thread in threads:
        thread.join()
    assert slots.free == 1 and not slots.waiting and not slots.waiting_later
    return served


def test_work_slots_go_to_addresses_in_turn():
    """One address's burst waiting for the work slots delays another address's request by one of its own, not by
    all of them: a slot given back goes to the next address in the rotation."""
    served = served_in_order([("10.0.0.66", "burst 1", False), ("10.0.0.66", "burst 2", False),
                              ("10.0.0.66", "burst 3", False), ("10.0.0.7", "phone", False)])
    assert served == ["burst 1", "phone", "burst 2", "burst 3"]


def test_a_woken_live_update_waits_behind_the_requests_people_wait_on():
    """Live updates a change woke queue behind taps and pages, whichever came first; among themselves, in turn."""
    served = served_in_order([("10.0.0.5", "update 1", True), ("10.0.0.6", "update 2", True),
                              ("10.0.0.7", "tap", False), ("10.0.0.5", "update 3", True)])
    assert served == ["tap", "update 1", "update 2", "update 3"]


def test_bodies_being_read_are_capped_per_address(app):
    app.config["BODIES_PER_ADDRESS"] = 0  # as if this address already had its share of bodies trickling in
    client = app.test_client()
    refused = client.post("/api/tables", json={"players": 3})
    assert refused.status_code == 429 and refused.headers["Connection"] == "close"
    assert client.get("/").status_code == 200  # no body: not counted against it
    assert client.post("/api/tables", json={"players": 3}, environ_base={"REMOTE_ADDR": "10.0.0.8"}).status_code == 429
    app.config["BODIES_PER_ADDRESS"] = 1
    assert client.post("/api/tables", json={"players": 3}).status_code == 201


@pytest.fixture
def unreachable_database_app(app):
    """The site with its database gone: every connection is refused (as while PostgreSQL restarts)."""
    with app.app_context():
        db.engines[None] = create_engine("postgresql+psycopg://nobody@127.0.0.1:9/none", pool_pre_ping=True)
    return app


def test_a_database_outage_is_a_503_to_retry(unreachable_database_app):
    client = unreachable_database_app.test_client()
    for path, json_answer in [(f"/games/{CODE}", False), (f"/api/tables/{CODE}/play", True)]:
        answer = client.get(path)
        assert answer.status_code == 503, path
        assert int(answer.headers["Retry-After"]) > 0
        text = answer.get_data(as_text=True)
        assert ("cannot reach its database" in text) and ("Traceback" not in text)
        assert answer.is_json == json_answer


def test_strict_transport_security_over_https_only(tmp_path, monkeypatch):
    from companion.web.core.app import create_app

    plain = create_app({"TESTING": True, "SECRET_KEY": "s"}).test_client()
    assert "Strict-Transport-Security" not in plain.get("/").headers
    assert plain.get("/", base_url="https://localhost").headers["Strict-Transport-Security"] == "max-age=31536000"
    # Behind a proxy, only when the operator trusts it to say the phone came over HTTPS.
    assert "Strict-Transport-Security" not in plain.get("/", headers={"X-Forwarded-Proto": "https"}).headers
    proxied = create_app({"TESTING": True, "SECRET_KEY": "s", "TRUST_PROXY": 1}).test_client()
    assert "Strict-Transport-Security" in proxied.get("/", headers={"X-Forwarded-Proto": "https"}).headers
