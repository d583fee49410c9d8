"""The limiter's counts: in the site's database by default, once for every process (two `serve` processes on one
database count together), and the in-memory storage under requests that arrive at the same instant."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import sys
import threading
from urllib.parse import urlsplit

import pytest
from limits.storage import storage_from_string
from sqlalchemy import event

from companion.ops.server import granian_available
from companion.web.core.app import create_app
from companion.web.core.db import Base, db
from companion.web.core.ratelimit import (
    ACTING,
    CHANGING_METHODS,
    DEALING,
    MEMORY_STORAGE_URI,
    DatabaseStorage,
    RateLimitCount,
    SerializedMemoryStorage,
    UnlimitedRoute,
    check_every_route_spends_a_budget,
    limiter,
    rate_budget,
)
from tests.helpers import REPO
from tests.helpers.serving import SERVE, free_port, running_server

pytestmark = pytest.mark.postgresql  # the database is the point of every test here


THREADS = 16
ROUNDS = 400


def test_the_site_counts_in_its_database_unless_told_otherwise(monkeypatch):
    create_app({"TESTING": True, "SECRET_KEY": "k" * 32})
    assert isinstance(limiter.storage, DatabaseStorage)
    monkeypatch.setenv("COMPANION_RATE_LIMIT_STORAGE", MEMORY_STORAGE_URI)
    create_app({"TESTING": True, "SECRET_KEY": "k" * 32})
    assert isinstance(limiter.storage, SerializedMemoryStorage)


def test_counts_at_the_same_instant_never_fail_and_are_all_kept(monkeypatch):
    """Sixteen threads count at once, round after round, each round just after the storage's expiry timer has
    ended, so all of them race to start the next one. With limits' own MemoryStorage (5.8) this fails in
    nearly every run: a count raises RuntimeError (the same timer started twice; HTTP 500 for a vote), or one
    timer is started twice in two threads, or counts are lost."""
    storage = storage_from_string(MEMORY_STORAGE_URI)
    failures: list[BaseException] = []
    # A timer started twice concurrently fails inside its second new thread, not in the caller.
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: failures.append(unraisable.exc_value))
    round_starts, round_ends = threading.Barrier(THREADS + 1), threading.Barrier(THREADS + 1)

    def count() -> None:
        for _ in range(ROUNDS):
            round_starts.wait()
            try:
                storage.incr("phone", 60)
            except Exception as exc:  # noqa: BLE001 - collected and asserted below
                failures.append(exc)
            round_ends.wait()

    threads = [threading.Thread(target=count) for _ in range(THREADS)]
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns every few bytecodes, so the race is met in most rounds
    try:
        for thread in threads:
            thread.start()
        for _ in range(ROUNDS):
            storage.timer.cancel()  # the expiry timer ends now rather than in 10 ms
            storage.timer.join()
            round_starts.wait()
            round_ends.wait()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch_interval)
    assert failures == []
    assert storage.get("phone") == THREADS * ROUNDS


def test_database_counts_start_again_when_their_window_ends(fresh_database_app):
    """The storage itself, on each database: counts add up within a window, a new window starts from 1."""
    with fresh_database_app.app_context():
        storage = DatabaseStorage()
        assert [storage.incr("a", 60) for _ in range(3)] == [1, 2, 3]
        assert storage.get("a") == 3 and storage.get("b") == 0
        assert storage.incr("b", 0) == 1  # a window of no length: over at once
        assert storage.incr("b", 60) == 1 and storage.get_expiry("b") > storage.get_expiry("nothing")
        storage.clear("a")
        assert storage.get("a") == 0


def test_a_limited_answer_tells_its_window_from_the_count_it_made(fresh_database_app):
    """A vote's answer says what is left of its address's budget and when the window ends (X-RateLimit-*), read
    from the count the request made: one statement on the counts' table a request, the count itself, on each
    database. Before, the headers read the window back twice more."""
    fresh_database_app.config.update(RATE_LIMIT_ACTIONS="5 per minute", WTF_CSRF_ENABLED=False)
    client = fresh_database_app.test_client()
    seat = urlsplit(client.post("/api/tables", json={"players": 3}).get_json()["seats"][0]["url"]).path
    statements: list[str] = []

    def on_counts(conn, cursor, statement, parameters, context, executemany):
        if RateLimitCount.__tablename__ in statement:
            statements.append(statement.split()[0].upper())

    with fresh_database_app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", on_counts)
    try:
        answers = [client.post(seat + "/votes/hint" + ("/withdraw" if turn % 2 else "")) for turn in range(6)]
    finally:
        event.remove(engine, "before_cursor_execute", on_counts)
    assert [answer.status_code for answer in answers] == [303] * 5 + [429]
    assert [answer.headers["X-RateLimit-Remaining"] for answer in answers] == ["4", "3", "2", "1", "0", "0"]
    assert len({answer.headers["X-RateLimit-Reset"] for answer in answers}) == 1  # one window
    assert int(answers[-1].headers["Retry-After"]) > 0
    assert statements == ["INSERT"] * 6


@pytest.mark.slow
@pytest.mark.skipif(not granian_available(), reason="granian runs on Linux and macOS here")
def test_two_processes_count_one_limit_together(database_url, tmp_path):
    """Two `serve` processes on one database: 5 new games a minute from one address are 5 for the whole site,
    wherever each request lands."""
    if not database_url.startswith("sqlite"):
        with create_app({"TESTING": True, "SECRET_KEY": "k" * 32, "SQLALCHEMY_DATABASE_URI": database_url}).app_context():
            Base.metadata.drop_all(db.engine)
    environment = dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path), COMPANION_RATE_LIMIT_NEW_GAMES="5 per minute",
                       COMPANION_SECRET_KEY="t" * 40)
    if not database_url.startswith("sqlite"):
        environment["DATABASE_URL"] = database_url
    ports = [free_port(), free_port()]
    with contextlib.ExitStack() as servers:
        for port in ports:
            command = [*SERVE, "--host", "127.0.0.1", "--port", str(port),
                       "--workers", "1", "--threads", "8"]
            servers.enter_context(running_server(command, port, cwd=REPO, env=environment))
        statuses = []
        for attempt in range(12):
            connection = http.client.HTTPConnection("127.0.0.1", ports[attempt % 2], timeout=30)
            connection.request("POST", "/api/tables", body=json.dumps({"players": 3}),
                               headers={"Content-Type": "application/json"})
            statuses.append(connection.getresponse().status)
            connection.close()
    assert statuses.count(201) == 5 and statuses.count(429) == 7, statuses


# The dealing routes a person or a program uses, named here apart from the code's marks: if one of them stopped
# spending the dealing budget (as /solo once did), the tests below would not see it in the URL map's list.
KNOWN_DEALING = {"/", "/solo", "/api/tables", "/decrypto/new", "/h/<token>/next"}


def budgets_of(app) -> dict[str, list[str]]:
    """{budget: [path, ...]} for every route that accepts a changing method, its variable parts filled in (the
    limit is checked before the view reads them)."""
    found: dict[str, list[str]] = {}
    for rule in app.url_map.iter_rules():
        if rule.methods & CHANGING_METHODS:
            found.setdefault(rate_budget(app, rule.endpoint), []).append(re.sub(r"<(?:\w+:)?\w+>", "x0", rule.rule))
    return found


def rules_spending(app, budget: str) -> set[str]:
    return {rule.rule for rule in app.url_map.iter_rules() if rule.methods & CHANGING_METHODS
            and rate_budget(app, rule.endpoint) == budget}


def test_every_route_that_changes_something_spends_one_of_the_two_budgets(app):
    assert set(budgets_of(app)) == {DEALING, ACTING}
    assert KNOWN_DEALING <= rules_spending(app, DEALING)
    assert not KNOWN_DEALING & rules_spending(app, ACTING)


def test_a_site_with_a_route_that_spends_no_budget_does_not_start(app):
    app.add_url_rule("/deal-more", "deal_more", lambda: "", methods=["POST"])
    with pytest.raises(UnlimitedRoute, match="POST /deal-more"):
        check_every_route_spends_a_budget(app)


def test_one_dealing_budget_per_address_for_every_game_form_and_the_api(app, client):
    """Three deals through the API spend the address's whole budget: every dealing route of the URL map then
    answers 429 (before reading anything), while acting routes and other addresses are not held back."""
    app.config["RATE_LIMIT_NEW_GAMES"] = "3 per minute"
    routes = budgets_of(app)
    assert [client.post("/api/tables", json={"players": 3}).status_code for _ in range(3)] == [201] * 3
    for path in routes[DEALING]:
        assert client.post(path).status_code == 429, path
    for path in routes[ACTING]:
        assert client.post(path).status_code != 429, path
    assert client.post("/solo", data={"solo-opponents": "2", "solo-level": "solid"},
                       environ_base={"REMOTE_ADDR": "192.0.2.9"}).status_code == 303


def test_one_action_budget_per_address_for_every_table_of_every_game(app, client):
    app.config["RATE_LIMIT_ACTIONS"] = "3 per minute"
    routes = budgets_of(app)
    seat = client.post("/api/tables", json={"players": 3}).get_json()["seats"][0]["url"].rpartition("/s/")[2]
    assert [client.post(f"/api/seats/{seat}/play", json={"action": "name", "name": "Ann"}).status_code
            for _ in range(3)] == [200] * 3
    for path in routes[ACTING]:
        assert client.post(path).status_code == 429, path
    for path in routes[DEALING]:
        assert client.post(path).status_code != 429, path
