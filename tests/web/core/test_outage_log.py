"""A database outage in the logs: one line when it starts and one when it ends for each part of the site (the
requests, the live-update watcher, the computer players), however many tries fail meanwhile; loops wait longer
and longer between tries."""

from __future__ import annotations

import logging

import pytest

from companion.web.core import outage as outage_module
from companion.web.core.app import create_app
from companion.web.core.computers import POLL_SECONDS, Worker
from companion.web.core.db import db
from companion.web.core.outage import LONGEST_PAUSE_SECONDS, Outage

STARTS, ENDS = "cannot reach the database", "the database answers again"


def test_one_line_when_an_outage_starts_one_when_it_ends_and_growing_pauses(caplog, monkeypatch):
    monkeypatch.setattr(outage_module, "SETTLED_SECONDS", 0)
    log = logging.getLogger("test.outage")
    outage = Outage("a part", log)
    with caplog.at_level(logging.WARNING, logger="test.outage"):
        outage.succeeded()
        pauses = [outage.failed(ConnectionError("refused\nmore lines")) for _ in range(12)]
        outage.succeeded()
        outage.succeeded()
    assert pauses == sorted(pauses) and pauses[0] < pauses[1] and pauses[-1] == LONGEST_PAUSE_SECONDS
    assert [record.getMessage() for record in caplog.records] == [
        "a part: cannot reach the database (ConnectionError: refused); trying again, less and less often, until it answers",
        f"a part: the database answers again, after {caplog.records[1].args[1]:.1f} s and 12 failed tries"]


@pytest.fixture
def site_on_a_file(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    app = create_app({"TESTING": True, "SECRET_KEY": "k" * 32, "RATELIMIT_ENABLED": False,
                      "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder / 'site.sqlite3'}"})
    yield app, folder
    with app.app_context():
        db.engine.dispose()


def away(app, folder):
    """The database file's folder moves away: no new connection can open it (an outage, as a server's would be)."""
    folder.rename(folder.with_name("away"))
    with app.app_context():
        db.engine.dispose()


def back(folder):
    folder.with_name("away").rename(folder)


def test_requests_during_an_outage_log_one_line_each_way(site_on_a_file, caplog, monkeypatch):
    monkeypatch.setattr(outage_module, "SETTLED_SECONDS", 0)
    app, folder = site_on_a_file
    client = app.test_client()
    code = client.post("/api/tables", json={"players": 3}).get_json()["code"]
    away(app, folder)
    with caplog.at_level(logging.WARNING):
        statuses = {client.get(f"/api/tables/{code}/play").status_code for _ in range(25)}
        back(folder)
        assert client.get(f"/api/tables/{code}/play").status_code == 200
    assert statuses == {503}
    lines = [record.getMessage() for record in caplog.records if record.name == app.logger.name]
    assert len(lines) == 2 and lines[0].startswith(f"requests: {STARTS}") and lines[1].startswith(f"requests: {ENDS}")
    assert not any(record.exc_info for record in caplog.records)


def test_the_computer_players_log_one_line_and_look_less_often_while_the_database_is_away(site_on_a_file, caplog,
                                                                                           monkeypatch):
    monkeypatch.setattr(outage_module, "SETTLED_SECONDS", 0)
    app, folder = site_on_a_file
    worker = Worker(app)
    worker.step()
    assert worker.wait == POLL_SECONDS
    away(app, folder)
    waits = []
    with caplog.at_level(logging.WARNING):
        for _ in range(8):
            worker.step()
            waits.append(worker.wait)
        back(folder)
        worker.step()
    assert waits == sorted(waits) and waits[-1] == LONGEST_PAUSE_SECONDS and worker.wait == POLL_SECONDS
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 2 and STARTS in lines[0] and ENDS in lines[1]
    assert not any(record.exc_info for record in caplog.records)
