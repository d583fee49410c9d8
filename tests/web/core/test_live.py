"""Live updates are pushed: a change wakes the long polls waiting on its table at once, in the process that made
it (its commit) and, on PostgreSQL, in every other process (NOTIFY); the watcher's tick is only the fallback.
The tick is set to an hour here, so a waiting poll answers with the new version only if the push woke it."""

from __future__ import annotations

import threading
import time

import pytest

from companion.web.core import live
from companion.web.core.db import db
from companion.web.core.store import on_commit_of_changes, stamp_of, touch
from tests.helpers import empty_database, make_app


pytestmark = pytest.mark.postgresql  # the database is the point of every test here


@pytest.fixture
def no_tick(monkeypatch):
    monkeypatch.setattr(live, "TICK_SECONDS", 3600.0)


@pytest.fixture
def two_apps(database_url, tmp_path):  # noqa: F811
    """Two app instances on one fresh database, as two server processes have."""
    apps = [make_app(database_url, tmp_path) for _ in range(2)]
    empty_database(apps[0])
    for app in apps:
        app.config.update(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=False)
    yield apps
    for app in apps:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


def waiting_poll(app, code: str, version: int) -> tuple[threading.Thread, list]:
    """A phone's long poll of the table's public state, waiting in a thread; its answer lands in the list."""
    answers = []
    thread = threading.Thread(target=lambda: answers.append(
        app.test_client().get(f"/api/tables/{code}/play?wait={version}").get_json()))
    watcher = app.extensions["live_watcher"]
    before = watcher.waiting.get(code, 0)
    thread.start()
    hang = time.monotonic() + 60  # bounds a hang only
    while watcher.waiting.get(code, 0) <= before:
        assert time.monotonic() < hang
        time.sleep(0.01)
    return thread, answers


def deal(app) -> tuple[str, str, int]:
    client = app.test_client()
    table = client.post("/api/tables", json={"players": 3}).get_json()
    version = client.get(f"/api/tables/{table['code']}/play").get_json()["version"]
    return table["code"], table["seats"][0]["url"].rpartition("/s/")[2], version


def test_a_change_wakes_the_polls_of_its_own_process_at_once(two_apps, no_tick):
    app = two_apps[0]
    code, seat, version = deal(app)
    thread, answers = waiting_poll(app, code, version)
    assert app.test_client().post(f"/api/seats/{seat}/play", json={"action": "leave"}).status_code == 200
    thread.join()
    assert answers[0]["version"] == version + 1  # not the unchanged state a 25-second wait would end with


def test_a_commit_tells_the_watcher_the_row_its_tick_will_read(two_apps):
    """The commit hands its table's row to the watcher, so the next tick reads the same row and wakes nobody:
    a phone that began to wait since, on the new version, is not woken for a change it has already seen."""
    app = two_apps[0]
    code, seat, version = deal(app)
    watcher = app.extensions["live_watcher"]
    # Watched throughout, as by a phone that waits again at once: the tick forgets the stamp of a table nobody
    # waits on, and would forget this one between the poll's answer and the look below.
    with watcher.watching(code):
        thread, answers = waiting_poll(app, code, version)
        assert app.test_client().post(f"/api/seats/{seat}/play", json={"action": "leave"}).status_code == 200
        thread.join()
        assert answers[0]["version"] == version + 1
        with app.app_context():
            seen = watcher.stamp(code)
            read = db.session.execute(live.select(live.TableRecord.last_activity, live.TableRecord.changes)
                                      .where(live.TableRecord.code == code)).one()
    assert seen == stamp_of(*read)


@pytest.mark.parametrize("returning", [True, False])  # False: SQLite before 3.35, which some Linux systems ship
def test_a_commit_hands_on_the_stamp_it_left(two_apps, monkeypatch, returning):
    app = two_apps[0]
    code, _, _ = deal(app)
    stamps = []
    on_commit_of_changes(app, lambda code, stamp: stamps.append(stamp))
    with app.app_context():
        monkeypatch.setattr(db.engine.dialect, "insert_returning", returning)
        touch(code)
        db.session.commit()
        read = db.session.execute(live.select(live.TableRecord.last_activity, live.TableRecord.changes)
                                  .where(live.TableRecord.code == code)).one()
        assert stamps == [stamp_of(*read)]


def test_a_rolled_back_change_wakes_nobody(two_apps):
    app = two_apps[0]
    code, _, _ = deal(app)
    woken = []
    on_commit_of_changes(app, lambda code, stamp: woken.append(code))
    with app.app_context():
        touch(code)
        db.session.rollback()
        db.session.commit()
        assert woken == []
        touch(code)
        db.session.commit()
    assert woken == [code]


def test_a_change_in_another_process_wakes_the_polls_at_once_on_postgresql(two_apps, no_tick, database_url):
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite has no notifications: other processes hear a change at the watcher's tick")
    waiter, mover = two_apps
    code, seat, version = deal(mover)
    thread, answers = waiting_poll(waiter, code, version)
    # The listener thread starts with the first waiter: a move made before it listens would wake nobody.
    hang = time.monotonic() + 60
    while not waiter.extensions["live_watcher"].listening.is_set():
        assert time.monotonic() < hang
        time.sleep(0.01)
    assert mover.test_client().post(f"/api/seats/{seat}/play", json={"action": "leave"}).status_code == 200
    thread.join()
    assert answers[0]["version"] == version + 1
