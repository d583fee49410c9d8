"""The store every game shares: a row per table that every change touches, and each table's move log.

Every change to a table first touches its row in `tables` (time and change count), which the database keeps
locked until the commit, so changes to one table take turns; live updates wake on it, pages' ETags and the
per-process caches follow it, and the purge spares the table. A move is stored as row seq = version + 1 of the
table's log under a unique (code, seq) constraint: of two moves racing for the same place, from two phones or
two server processes, one lands and the other is told the state moved on (Conflict). Restarting loses nothing.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Callable, Iterator, TypeVar

from flask import Flask, current_app, has_app_context, has_request_context, request
from sqlalchemy import Connection, bindparam, delete, event, select, text
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .db import Base, MoveRecord, TableRecord, db, utcnow, writing
from .ratelimit import forget_ended_windows

T = TypeVar("T")


class Conflict(Exception):
    """Another move took this move's place first; `state` is the game as it is now."""

    def __init__(self, state: object) -> None:
        super().__init__("another move came first")
        self.state = state


@lru_cache(maxsize=None)
def _touch_statement(dialect: str, returning: bool):
    """INSERT ... ON CONFLICT, spelled per dialect, built once; with RETURNING the row as it leaves it, where the
    database has it (SQLite from 3.35: some Linux systems still ship older)."""
    insert = postgresql_insert if dialect == "postgresql" else sqlite_insert
    touch = insert(TableRecord).values(code=bindparam("code"), last_activity=bindparam("now"), changes=1)
    touch = touch.on_conflict_do_update(
        index_elements=["code"],
        set_={"last_activity": touch.excluded.last_activity, "changes": TableRecord.changes + 1},
    )
    return touch.returning(TableRecord.last_activity, TableRecord.changes) if returning else touch


def dialect() -> str:
    """The database's dialect name ("sqlite" or "postgresql"), for statements spelled per dialect."""
    return db.session.get_bind().dialect.name


def touch(code: str) -> None:
    """Mark the table as changed now, first thing in the transaction that changes it: the database locks the
    table's row until the commit, so changes to one table take turns. The commit wakes this process's live
    updates on the table, and on PostgreSQL every other process's too (live.py)."""
    connection = db.session.connection()
    returning = connection.dialect.insert_returning
    touched = connection.execute(_touch_statement(dialect(), returning), {"code": code, "now": utcnow()})
    # The row is this transaction's until the commit, so reading it back (on this transaction's connection) gives
    # the same stamp as RETURNING.
    stamp = stamp_of(*touched.one()) if returning else read_stamp(code)
    if dialect() == "postgresql":  # delivered at the commit, and never if the transaction rolls back
        connection.execute(_NOTIFY, {"payload": f"{code} {stamp}"})
    db.session.info.setdefault(_TOUCHED, {})[code] = stamp


_NOTIFY = text("SELECT pg_notify('companion_tables', :payload)")  # live.NOTIFY_CHANNEL: "<code> <stamp>"
_TOUCHED = "companion.touched"  # the session.info key of the tables the open transaction changed: code -> stamp


_ON_COMMIT = "companion.on_commit_of_changes"  # the app.extensions key of the callback below


def on_commit_of_changes(app: Flask, changed: Callable[[str, str], None]) -> None:
    """Have `changed(code, stamp)` called for each table a transaction of `app` touched, once it is committed
    (never if it rolls back), with the table's stamp as the commit left it; each subscriber in turn."""
    app.extensions.setdefault(_ON_COMMIT, []).append(changed)


@event.listens_for(Session, "after_commit")
def _committed(session: Session) -> None:
    global _commits
    touched = session.info.pop(_TOUCHED, {})
    if touched:
        _commits += 1
    subscribers = current_app.extensions.get(_ON_COMMIT, ()) if touched and has_app_context() else ()
    for changed in subscribers:
        for code, stamp in touched.items():
            changed(code, stamp)


@event.listens_for(Session, "after_rollback")
def _rolled_back(session: Session) -> None:
    # A change that rolled back may have lost a race (a unique row another process wrote first): what this request
    # read of its tables is no longer to be trusted.
    for code in session.info.pop(_TOUCHED, {}):
        forget_request_reads(code)


# How many commits of this process changed a table: a read a request remembers is stale once this moved (any
# table's change counts, which keeps it one number; other processes' changes reach a request only when it waits
# for them: live.py).
_commits = 0
_REQUEST_READS = "companion.request_reads"  # the request environ's key of what it read once


def read_once_per_request(kind: str, code: str, read: Callable[[], T]) -> T:
    """What `read()` gives about table `code`, read once per request: later calls in the same request get the
    same value until this process changes a table (a commit that touched one) or the request waits for a change
    (forget_request_reads). Outside a request, read every time."""
    if not has_request_context():
        return read()
    reads = request.environ.setdefault(_REQUEST_READS, {})
    mark = _commits
    found = reads.get((kind, code))
    if found is not None and found[0] == mark:
        return found[1]
    value = read()
    reads[kind, code] = (mark, value)
    return value


def forget_request_reads(code: str) -> None:
    """Read table `code` afresh from now on in this request: a long poll asks whether it changed."""
    if has_request_context():
        reads = request.environ.get(_REQUEST_READS, {})
        for key in [key for key in reads if key[1] == code]:
            del reads[key]


def stamp_of(last_activity: datetime | None, changes: int | None) -> str:
    """A table's stamp from its row: equal stamps mean nothing changed."""
    # The counter alone tells changes apart (the database adds one under the row's lock); the time as well
    # keeps a table purged and started again from reusing an old stamp.
    if last_activity is None:
        return "0"
    return f"{int(last_activity.timestamp() * 1_000_000):x}.{changes or 0:x}"


@contextmanager
def reading() -> Iterator[Connection]:
    """A connection for reads on the hot paths (polls, pages), with statements built once at import.

    Outside a transaction of the session, a short connection of its own: it skips the ORM's bookkeeping, which
    costs more than the query, and its transaction ends with the block, so the next read sees newer commits.
    Inside one, the session's own connection, so a request never holds two connections of the pool at once.
    """
    # registry.has(): asking a session that does not exist yet would create one, for nothing, on every poll.
    if db.session.registry.has() and db.session().in_transaction():
        yield db.session.connection()
    else:
        with db.engine.connect() as connection:
            yield connection


_STAMP = select(TableRecord.last_activity, TableRecord.changes).where(TableRecord.code == bindparam("code"))


def read_stamp(code: str) -> str:
    """The table's stamp in one primary-key read ("0" for a table nothing has happened at)."""
    with reading() as connection:
        row = connection.execute(_STAMP, {"code": code}).first()
    return "0" if row is None else stamp_of(*row)


class StampedCache:
    """What a process last derived from each table (its votes, its folded moves), kept while the table's
    stamp is unchanged: every change touches the table in its own transaction, so an equal stamp means
    nothing changed and the database need not be read again. Bounded, least recently used first out."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.entries: OrderedDict[tuple[str, str], tuple[str, object]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, kind: str, code: str, stamp: str, load: Callable[[], T]) -> T:
        """The value for `code` at `stamp`: remembered, or `load()`ed (after the stamp was read) and kept."""
        key = (kind, code)
        with self.lock:
            found = self.entries.get(key)
            if found is not None and found[0] == stamp:
                self.entries.move_to_end(key)
                return found[1]  # type: ignore[return-value]
        value = load()
        with self.lock:
            self.entries[key] = (stamp, value)
            self.entries.move_to_end(key)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)
        return value


def stamped_cache() -> StampedCache:
    return current_app.extensions["stamped_cache"]


_MOVES = select(MoveRecord.data).where(MoveRecord.code == bindparam("code")).order_by(MoveRecord.seq)


def load_log(code: str) -> list[dict]:
    """The table's move log, oldest first, each move in its JSON form."""
    with reading() as connection:
        rows = connection.scalars(_MOVES, {"code": code}).all()
    return [json.loads(row) for row in rows]


def append_move(code: str, seq: int, data: dict) -> bool:
    """Store `data` as move `seq` of table `code` with whatever else the session holds, and wake live updates;
    False (and nothing stored) when another move already took that place."""
    try:
        with writing():
            touch(code)
            db.session.add(MoveRecord(code=code, seq=seq, data=json.dumps(data)))
    except IntegrityError:
        return False
    return True


def purge_idle(days: int) -> int:
    """Delete everything about tables with no action for `days` days; returns how many tables went.

    Every statement re-checks the idleness itself, so a change that arrives while the purge runs (it touches
    its table first) keeps its table and everything about it. Every game's rows are keyed by the table's code
    and go with it, children first.
    """
    cutoff = utcnow() - timedelta(days=days)
    idle = select(TableRecord.code).where(TableRecord.last_activity < cutoff).scalar_subquery()
    tables = TableRecord.__table__
    with writing() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            if table is not tables and "code" in table.c:
                connection.execute(delete(table).where(table.c.code.in_(idle)))
        removed = connection.execute(delete(TableRecord).where(TableRecord.last_activity < cutoff)).rowcount
    forget_ended_windows()
    return removed


PURGE_INTERVAL_SECONDS = 3600


def init_app(app: Flask) -> None:
    """A cache of table states per app and process; purge idle tables when the app starts and then at most
    once an hour, on the back of a request."""
    app.extensions["stamped_cache"] = StampedCache()
    lock = threading.Lock()
    last_run = [0.0]

    def purge_now_and_then() -> None:
        if time.monotonic() - last_run[0] < PURGE_INTERVAL_SECONDS or not lock.acquire(blocking=False):
            return
        try:
            last_run[0] = time.monotonic()
            purge_idle(app.config["PURGE_AFTER_DAYS"])
        finally:
            lock.release()

    app.before_request(purge_now_and_then)
