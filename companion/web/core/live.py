"""Live updates across any number of server processes, with nothing shared but the database.

A page that wants to hear about changes long-polls: its request waits (up to WAIT_SECONDS) until what it shows
is out of date, then answers at once. Every change to a table touches its row in `tables` (time and change
count) in the same transaction (store.touch), and the change is pushed:

- in the process that made it, the commit itself wakes the requests waiting on that table (`changed`);
- on PostgreSQL, the same transaction sends a NOTIFY on the channel NOTIFY_CHANNEL, delivered at its commit, and
  one listener thread per process wakes the requests waiting there;
- as the fallback, for SQLite across processes (the computer players' worker, several granian workers) and for a
  listener that lost its connection, one watcher thread per process reads the stamps of every table someone
  waits on, a few times a second, and wakes exactly those requests. One small query per tick, however many
  phones wait.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Callable, TypeVar

from flask import Flask, current_app, make_response, request
from sqlalchemy import select

from . import store
from .db import TableRecord, db
from .fairshare import waiting_without_work_slot
from .outage import Outage

WAIT_SECONDS = 25.0  # under common proxy read timeouts (nginx: 60 s), so a waiting phone never looks dead
NO_SCRIPT_REFRESH_SECONDS = 10  # a live page without JavaScript reloads itself this often (<meta http-equiv>)
# The fallback tick: how often a process reads the stamps of the tables its requests wait on. It is the way
# changes travel between processes on SQLite (the laptop default runs two), so it is short there: one primary-key
# read of those tables, 20 a second, costs a fraction of a millisecond each. While PostgreSQL's notifications are
# heard it only covers a listener that lost its connection, and runs slower.
TICK_SECONDS = 0.05
LISTENING_TICK_SECONDS = 0.5
NOTIFY_CHANNEL = "companion_tables"  # PostgreSQL's channel for table changes; the payload: "<code> <stamp>"
LISTEN_RETRY_SECONDS = 5.0
LISTEN_IDLE_SECONDS = 5.0  # how often the listener looks whether anyone still waits (else it stops)


class Watcher:
    """Wakes the requests waiting on a table when its row in `tables` changes (any process may change it).

    Each table has its own condition (all sharing one lock), so a change wakes only the requests waiting on
    that table, not the hundreds waiting on others."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.lock = threading.Lock()
        self.waiting: dict[str, int] = {}  # code -> requests waiting on it
        self.conditions: dict[str, threading.Condition] = {}
        self.stamps: dict[str, object] = {}
        self.thread: threading.Thread | None = None
        self.listener: threading.Thread | None = None
        self.listening = threading.Event()  # set while the listener's LISTEN stands

    @contextmanager
    def watching(self, code: str):
        """Have the watcher read the table `code` while the block runs."""
        with self.lock:
            self._ensure_running()
            self.waiting[code] = self.waiting.get(code, 0) + 1
            if code not in self.conditions:
                self.conditions[code] = threading.Condition(self.lock)
        try:
            yield
        finally:
            with self.lock:
                self.waiting[code] -= 1
                if not self.waiting[code]:
                    del self.waiting[code], self.conditions[code]

    def stamp(self, code: str) -> object:
        """The table's last change as the watcher last read it (None before its first read)."""
        with self.lock:
            return self.stamps.get(code)

    def changed(self, code: str, stamp: str | None = None) -> None:
        """The table `code` changed, to `stamp` (a commit of this process, or a notification of any process's):
        wake the requests waiting on it now. They read the table again. A stamp already known wakes nobody:
        neither this process's own notification after its commit, nor the next tick reading the same stamp.
        Without a stamp (a notification from an older version), every waiter is woken once more, to no harm."""
        with self.lock:
            if code in self.conditions and (stamp is None or self.stamps.get(code) != stamp):
                self.stamps[code] = stamp if stamp is not None else object()  # unlike the stamp before
                self.conditions[code].notify_all()

    def wait(self, code: str, stamp: object, seconds: float) -> None:
        """Block until the watcher reads a stamp other than `stamp` for `code`, or `seconds` pass (only
        while watching `code`)."""
        with self.lock:
            self.conditions[code].wait_for(lambda: self.stamps.get(code) != stamp, timeout=seconds)

    def _ensure_running(self) -> None:
        # Started by the first waiter, so each worker process (after a fork) runs its own.
        if self.thread is None or not self.thread.is_alive():
            self.thread = threading.Thread(target=self._run, name="live-watcher", daemon=True)
            self.thread.start()
        if (self.listener is None or not self.listener.is_alive()) and self._database_url().startswith("postgresql"):
            self.listener = threading.Thread(target=self._listen, name="live-listener", daemon=True)
            self.listener.start()

    def _database_url(self) -> str:
        return self.app.config.get("SQLALCHEMY_DATABASE_URI", "")

    def _listen(self) -> None:
        """Wake waiters on the tables PostgreSQL notifies about, on a connection of its own (outside the pool),
        until nobody has waited for a while (the next waiter starts it again); after a failure, listen again a
        few seconds later, while the tick covers the gap."""
        import psycopg
        from sqlalchemy.engine import make_url

        url = make_url(self._database_url()).set(drivername="postgresql").render_as_string(hide_password=False)
        while True:
            try:
                with psycopg.connect(url, autocommit=True) as connection:
                    connection.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.listening.set()
                    while True:
                        for notice in connection.notifies(timeout=LISTEN_IDLE_SECONDS):
                            code, _, stamp = notice.payload.partition(" ")
                            self.changed(code, stamp or None)
                        with self.lock:
                            if not self.waiting:  # forgotten under the lock: the next waiter starts another
                                self.listening.clear()
                                self.listener = None
                                return
            except Exception as error:  # the database restarts or is away: the tick keeps waking waiters
                self.listening.clear()
                self.app.logger.warning("live-update listener lost its connection (%s); listening again soon",
                                        type(error).__name__)
            time.sleep(LISTEN_RETRY_SECONDS)

    def _run(self) -> None:
        outage = Outage("live-update watcher", self.app.logger)
        pause = TICK_SECONDS
        with self.app.app_context():
            while True:
                time.sleep(pause)
                pause = LISTENING_TICK_SECONDS if self.listening.is_set() else TICK_SECONDS
                with self.lock:
                    codes = list(self.waiting)
                if not codes:
                    continue
                try:
                    found = select(TableRecord.code, TableRecord.last_activity, TableRecord.changes)
                    rows = {code: store.stamp_of(at, changes)
                            for code, at, changes in db.session.execute(found.where(TableRecord.code.in_(codes)))}
                    db.session.commit()
                except Exception as error:  # a database outage: waiters time out and retry; keep watching, slower
                    try:
                        db.session.rollback()
                    except Exception:  # the connection is gone; the next try opens another
                        pass
                    pause = max(TICK_SECONDS, outage.failed(error))
                    continue
                outage.succeeded()
                with self.lock:
                    for code in codes:
                        stamp = rows.get(code, "absent")
                        if self.stamps.get(code) != stamp:
                            self.stamps[code] = stamp
                            if code in self.conditions:
                                self.conditions[code].notify_all()
                    for code in [c for c in self.stamps if c not in self.waiting]:
                        del self.stamps[code]


def wait_for_change(code: str, known: str | None, current: Callable[[], str], seconds: float | None = None,
                    from_stamp: Callable[[str], str] | None = None) -> str:
    """Long poll: the current version of what the caller shows, as soon as it differs from `known` (or after
    `seconds`, unchanged: by default the app's LIVE_WAIT_SECONDS, else WAIT_SECONDS). `current()` reads it from
    the database; it runs once, then after each wake-up.

    A version that follows from the table's stamp alone (`from_stamp`) needs no read while the stamp the watcher
    holds still gives `known`: that stamp is the table's as this process's last commit, the last notification or
    the last tick left it, never newer than the database's, so a change it has not seen yet ends the wait when it
    does. Any other stamp is checked against the database, which alone decides that something changed. At 300
    tables that leaves one read per live update, not two or three."""
    if seconds is None:
        seconds = current_app.config.get("LIVE_WAIT_SECONDS", WAIT_SECONDS)
    deadline = time.monotonic() + seconds
    watcher: Watcher = current_app.extensions["live_watcher"]
    with watcher.watching(code):
        while True:
            # The stamp is read before the state: a change after the read moves the stamp and ends the wait.
            stamp = watcher.stamp(code)
            left = deadline - time.monotonic()
            if left <= 0 or from_stamp is None or not isinstance(stamp, str) or from_stamp(stamp) != known:
                store.forget_request_reads(code)
                version = current()
                if version != known or left <= 0:
                    return version
            # Wait without a database connection (hundreds of phones may wait, a pool has a few connections) and
            # without a work slot (fairshare.py), so that the waiting take no turns from those at work.
            db.session.commit()
            with waiting_without_work_slot():
                watcher.wait(code, stamp, left)


State = TypeVar("State")


def long_poll_response(code: str, load: Callable[[], State], etag_of: Callable[[State], str],
                       render: Callable[[State], str]):
    """A live fragment, long-polled: waits while the page's version (If-None-Match) is still current, then
    answers 304, or the fragment `render` draws from the state `load` reads, with its version as the ETag."""
    known = request.if_none_match.as_set()
    known_tag = next(iter(known), None) if known else None
    if known_tag:
        wait_for_change(code, known_tag, lambda: etag_of(load()))
    state = load()
    current = etag_of(state)
    response = make_response("", 304) if known_tag == current else make_response(render(state))
    response.set_etag(current)
    response.headers["Cache-Control"] = "no-store"
    return response


def init_app(app: Flask) -> None:
    app.config.setdefault("NO_SCRIPT_REFRESH_SECONDS", NO_SCRIPT_REFRESH_SECONDS)
    app.extensions["live_watcher"] = Watcher(app)
    store.on_commit_of_changes(app, app.extensions["live_watcher"].changed)
