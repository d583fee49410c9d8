"""What a table decided for a game: who asked for which step, and which steps are unlocked.

Votes and unlocks are rows guarded by unique constraints and written with INSERT ... ON CONFLICT, so votes
arriving together from many phones and server processes are never lost nor counted twice. Every change first
touches the table's row, which the database keeps locked until the commit, so a vote's count after its insert
sees every vote committed before it: whichever vote commits last sees them all and records the unlock.
Reading derives the unlock from the votes as well, so "3 of 3 want it" can never stay locked.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from types import SimpleNamespace
from typing import Callable, Iterator, TypeVar

from flask import Flask, current_app

from sqlalchemy import Connection, bindparam, delete, func, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from .db import RefereedTable, TableRecord, Unlock, Vote, db, utcnow, writing
from .cryptid import Game
from .cryptid.table import STEPS, agreement_needed, check_step, step_open


T = TypeVar("T")


class StepNotOpen(ValueError):
    """The table asked for a step before the one it builds on."""


@dataclass(frozen=True)
class TableState:
    """The table's decisions for one game."""

    players: int
    votes: dict[str, frozenset[int]] = field(default_factory=dict)
    unlocked: frozenset[str] = frozenset()
    stamp: str = "0"  # the table's last change (read_head), read before the rest

    @property
    def needed(self) -> int:
        return agreement_needed(self.players)

    def voters(self, step: str) -> frozenset[int]:
        return self.votes.get(step, frozenset())

    def is_open(self, step: str) -> bool:
        return step_open(step, self.unlocked)

    @property
    def version(self) -> str:
        """Changes whenever anything visible changes (every change touches the table): the panels' ETag."""
        return self.stamp


@lru_cache(maxsize=None)
def _upserts(dialect: str) -> SimpleNamespace:
    """The write statements, built once per dialect (INSERT ... ON CONFLICT is spelled per dialect)."""
    insert = postgresql_insert if dialect == "postgresql" else sqlite_insert
    touch = insert(TableRecord).values(code=bindparam("code"), last_activity=bindparam("now"), changes=1)
    return SimpleNamespace(
        touch=touch.on_conflict_do_update(
            index_elements=["code"],
            set_={"last_activity": touch.excluded.last_activity, "changes": TableRecord.changes + 1},
        ),
        vote=insert(Vote).values(code=bindparam("code"), step=bindparam("step"), seat=bindparam("seat")).on_conflict_do_nothing(),
        unlock=insert(Unlock).values(code=bindparam("code"), step=bindparam("step")).on_conflict_do_nothing(),
    )


def _statements() -> SimpleNamespace:
    return _upserts(db.session.get_bind().dialect.name)


def touch(code: str) -> None:
    """Mark the table as changed now, first thing in the transaction that changes it: the database locks the
    table's row until the commit, so changes to one table take turns. Live updates wake on this, pages' ETags
    and the per-process caches below follow it, the purge spares the table."""
    db.session.connection().execute(_statements().touch, {"code": code, "now": utcnow()})


@dataclass(frozen=True, slots=True)
class TableHead:
    """What one primary-key read tells of a table: its stamp, and whether the site referees its game."""

    stamp: str
    refereed: bool


def _stamp(last_activity: datetime | None, changes: int | None) -> str:
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


_HEAD = (
    select(TableRecord.last_activity, TableRecord.changes, RefereedTable.code)
    .outerjoin(RefereedTable, RefereedTable.code == TableRecord.code)
    .where(TableRecord.code == bindparam("code"))
)
_VOTES = select(Vote.step, Vote.seat).where(Vote.code == bindparam("code"))
_UNLOCKS = select(Unlock.step).where(Unlock.code == bindparam("code"))


def read_head(code: str) -> TableHead:
    """The table's head in one read, so that a poll which finds nothing new costs almost nothing."""
    with reading() as connection:
        row = connection.execute(_HEAD, {"code": code}).first()
    if row is None:
        return TableHead("0", False)
    return TableHead(_stamp(row[0], row[1]), row[2] is not None)


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


def load_state(game: Game, head: TableHead | None = None) -> TableState:
    """The table's votes and unlocks; `head` if the caller just read it, else read now."""
    stamp = (head or read_head(game.code)).stamp
    return stamped_cache().get("votes", game.code, stamp, lambda: _read_state(game, stamp))


def _read_state(game: Game, stamp: str) -> TableState:
    votes: dict[str, set[int]] = {}
    with reading() as connection:
        for step, seat in connection.execute(_VOTES, {"code": game.code}):
            votes.setdefault(step, set()).add(seat)
        unlocked = set(connection.scalars(_UNLOCKS, {"code": game.code}))
    # Steps in order, so that a step and the step it builds on can both come out of the votes.
    needed = agreement_needed(game.players)
    for step in STEPS:
        if len(votes.get(step, ())) >= needed and step_open(step, unlocked):
            unlocked.add(step)
    return TableState(game.players, {s: frozenset(v) for s, v in votes.items()}, frozenset(unlocked), stamp)


_COUNT_VOTES = select(func.count()).select_from(Vote).where(Vote.code == bindparam("code"), Vote.step == bindparam("step"))
_WITHDRAW = delete(Vote).where(Vote.code == bindparam("code"), Vote.step == bindparam("step"), Vote.seat == bindparam("seat"))


def _state_for(game: Game, step: str) -> TableState:
    """The table's state, after checking that `step` exists and is open or already unlocked."""
    check_step(step)
    state = load_state(game)
    if step not in state.unlocked and not state.is_open(step):
        raise StepNotOpen(step)
    return state


def cast_vote(game: Game, seat: int, step: str) -> TableState:
    """Seat asks for step. Voting twice counts once; voting for an unlocked step changes nothing."""
    state = _state_for(game, step)
    if step in state.unlocked:
        return state
    key = {"code": game.code, "step": step}
    with writing() as connection:
        touch(game.code)
        connection.execute(_statements().vote, {**key, "seat": seat})
        # Every vote of this table that committed before is counted: it touched the row first, as this one did.
        if connection.scalar(_COUNT_VOTES, key) >= agreement_needed(game.players):
            connection.execute(_statements().unlock, key)
    return load_state(game)


def withdraw_vote(game: Game, seat: int, step: str) -> TableState:
    """Seat no longer asks for step; after the unlock there is nothing to take back."""
    check_step(step)
    if step not in load_state(game).unlocked:
        with writing() as connection:
            touch(game.code)
            connection.execute(_WITHDRAW, {"code": game.code, "step": step, "seat": seat})
    return load_state(game)


def unlock(game: Game, step: str) -> TableState:
    """Unlock a step at once: the host screen's "the table agrees", for tables without phones."""
    state = _state_for(game, step)
    if step in state.unlocked:
        return state
    with writing() as connection:
        touch(game.code)
        connection.execute(_statements().unlock, {"code": game.code, "step": step})
    return load_state(game)


def purge_idle(days: int) -> int:
    """Delete everything about games with no action for `days` days; returns how many games went.

    Every statement re-checks the idleness itself, so a vote that arrives while the purge runs (it touches its
    game first) keeps its game, its own row and everything else about that game.
    """
    cutoff = utcnow() - timedelta(days=days)
    idle = select(TableRecord.code).where(TableRecord.last_activity < cutoff).scalar_subquery()
    with writing() as connection:
        for model in PURGED_WITH_TABLE:
            connection.execute(delete(model).where(model.code.in_(idle)))
        removed = connection.execute(delete(TableRecord).where(TableRecord.last_activity < cutoff)).rowcount
    return removed


# Rows that belong to a table and go with it; later features add their own models here.
PURGED_WITH_TABLE: list = [Vote, Unlock]




PURGE_INTERVAL_SECONDS = 3600


def init_app(app: Flask) -> None:
    """A cache of table states per app and process; purge idle games when the app starts and then at most
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
