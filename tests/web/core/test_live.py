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
    return waiting(app, code, lambda: app.test_client().get(f"/api/tables/{code}/play?wait={version}").get_json())


def waiting(app, code: str, ask) -> tuple[threading.Thread, list]:
    """`ask()` in a thread, returned once the watcher counts it waiting on the table `code`; its answer lands in
    the list."""
    answers = []
    thread = threading.Thread(target=lambda: answers.append(ask()))
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


def box_table(app) -> tuple[str, list[str]]:
    """A box-game table of 4 players: its code and its seats' page paths."""
    from companion.web.cryptid.tokens import seat_token

    game = app.extensions["dealer"].new_game(4, "normal")
    with app.test_request_context():
        return game.code, [f"/s/{seat_token(game.code, seat)}" for seat in range(1, 5)]


def counting_head_reads(monkeypatch) -> dict:
    """How many times each thread read a table's head from the database."""
    from companion.web.cryptid import head

    reads: dict[int, int] = {}
    read = head._read_head

    def counted(code):
        reads[threading.get_ident()] = reads.get(threading.get_ident(), 0) + 1
        return read(code)

    monkeypatch.setattr(head, "_read_head", counted)
    return reads


def waiting_panel(app, code: str, path: str, etag: str) -> tuple[threading.Thread, list]:
    """A seat page's script waiting on its panel (If-None-Match: the panel it shows), in a thread; its thread and
    answer land in the list."""
    return waiting(app, code, lambda: (threading.get_ident(), app.test_client().get(
        path + "/table?wait=1", headers={"If-None-Match": etag})))


def test_a_waiting_panel_reads_its_table_only_once_it_changed(two_apps, no_tick, monkeypatch):
    """While the watcher's stamp still gives the panel's version, a poll waits without reading the table; the
    change that wakes it is read for the answer."""
    app = two_apps[0]
    code, seats = box_table(app)
    client = app.test_client()
    watcher = app.extensions["live_watcher"]
    waiting = threading.Event()
    wait = watcher.wait
    monkeypatch.setattr(watcher, "wait", lambda *args: (waiting.set(), wait(*args)))
    with watcher.watching(code):  # another phone waits on the table throughout, as at a game night
        assert client.post(seats[1] + "/votes/hint").status_code == 303  # the watcher learns the stamp
        etag = client.get(seats[0] + "/table").headers["ETag"]
        reads = counting_head_reads(monkeypatch)
        thread, answers = waiting_panel(app, code, seats[0], etag)
        assert waiting.wait(timeout=60)  # bounds a hang only
        assert sum(reads.values()) == 0
        assert client.post(seats[2] + "/votes/hint").status_code == 303
        thread.join()
    poller, answer = answers[0]
    assert answer.status_code == 200 and answer.headers["ETag"] != etag
    # Once, or twice on PostgreSQL when the notification wakes the poll before the vote's own commit has told
    # this process's request caches that the table changed.
    assert 1 <= reads[poller] <= 2


def test_a_watcher_behind_the_panel_asks_the_table_and_waits(two_apps, no_tick, monkeypatch):
    """A stamp older than the panel's (a change the watcher has not heard of yet) is no change: the poll reads the
    table, finds its panel current and waits, rather than answering at once and being asked again at once."""
    app = two_apps[0]
    app.config["LIVE_WAIT_SECONDS"] = 0.3
    code, seats = box_table(app)
    client = app.test_client()
    watcher = app.extensions["live_watcher"]
    with watcher.watching(code):
        assert client.post(seats[1] + "/votes/hint").status_code == 303
        behind = watcher.stamp(code)
        assert client.post(seats[2] + "/votes/hint").status_code == 303
        etag = client.get(seats[0] + "/table").headers["ETag"]
        with watcher.lock:
            watcher.stamps[code] = behind  # as another process's change before its tick
        reads = counting_head_reads(monkeypatch)
        thread, answers = waiting_panel(app, code, seats[0], etag)
        thread.join()
    poller, answer = answers[0]
    assert answer.status_code == 304
    assert reads[poller] == 2  # before the wait, and when its time was up
