"""What a table decided for a game: who asked for which step, and which steps are unlocked.

Votes and unlocks are rows guarded by unique constraints and written with INSERT ... ON CONFLICT, so votes
arriving together from many phones and server processes are never lost nor counted twice. A vote commits
first and the unlock check counts afterwards in a new transaction, so whichever vote commits last sees them
all and records the unlock. Reading derives the unlock from the votes as well, so a crash between a vote's
commit and its unlock's can never leave "3 of 3 want it" locked.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta

from flask import Flask

from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from .db import TableRecord, Unlock, Vote, db, utcnow
from .cryptid import Game
from .cryptid.table import STEPS, agreement_needed, check_step, step_open


class StepNotOpen(ValueError):
    """The table asked for a step before the one it builds on."""


@dataclass(frozen=True)
class TableState:
    """The table's decisions for one game."""

    players: int
    votes: dict[str, frozenset[int]] = field(default_factory=dict)
    unlocked: frozenset[str] = frozenset()
    stamp: str = "0"  # the table's last change (table_stamp), read before the rest

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


def _insert(model):
    dialect = db.session.get_bind().dialect.name
    return (postgresql_insert if dialect == "postgresql" else sqlite_insert)(model)


def touch(code: str) -> None:
    """Mark the table as active now; live updates wake on this, the purge spares it."""
    now = utcnow()
    statement = _insert(TableRecord).values(code=code, last_activity=now)
    db.session.execute(statement.on_conflict_do_update(index_elements=["code"], set_={"last_activity": now}))


def table_stamp(code: str) -> str:
    """The time of the table's last change as a short text: one primary-key read, so a poll that finds
    nothing new costs almost nothing."""
    value = db.session.scalar(select(TableRecord.last_activity).where(TableRecord.code == code))
    db.session.commit()
    return "0" if value is None else format(int(value.timestamp() * 1_000_000), "x")


def load_state(game: Game) -> TableState:
    stamp = table_stamp(game.code)
    votes: dict[str, set[int]] = {}
    for step, seat in db.session.execute(select(Vote.step, Vote.seat).where(Vote.code == game.code)):
        votes.setdefault(step, set()).add(seat)
    unlocked = set(db.session.scalars(select(Unlock.step).where(Unlock.code == game.code)))
    db.session.commit()  # end the read transaction: the next read sees newer commits
    # Steps in order, so that a step and the step it builds on can both come out of the votes.
    needed = agreement_needed(game.players)
    for step in STEPS:
        if len(votes.get(step, ())) >= needed and step_open(step, unlocked):
            unlocked.add(step)
    return TableState(game.players, {s: frozenset(v) for s, v in votes.items()}, frozenset(unlocked), stamp)


def _record_unlock(game: Game, step: str) -> None:
    db.session.execute(_insert(Unlock).values(code=game.code, step=step).on_conflict_do_nothing())


def _unlock_if_agreed(game: Game, step: str) -> None:
    count = db.session.scalar(select(func.count()).select_from(Vote).where(Vote.code == game.code, Vote.step == step))
    if count >= agreement_needed(game.players):
        _record_unlock(game, step)
    db.session.commit()


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
    touch(game.code)
    db.session.execute(_insert(Vote).values(code=game.code, step=step, seat=seat).on_conflict_do_nothing())
    db.session.commit()
    _unlock_if_agreed(game, step)
    return load_state(game)


def withdraw_vote(game: Game, seat: int, step: str) -> TableState:
    """Seat no longer asks for step; after the unlock there is nothing to take back."""
    check_step(step)
    if step not in load_state(game).unlocked:
        db.session.execute(delete(Vote).where(Vote.code == game.code, Vote.step == step, Vote.seat == seat))
        touch(game.code)
        db.session.commit()
    return load_state(game)


def unlock(game: Game, step: str) -> TableState:
    """Unlock a step at once: the host screen's "the table agrees", for tables without phones."""
    state = _state_for(game, step)
    if step in state.unlocked:
        return state
    touch(game.code)
    _record_unlock(game, step)
    db.session.commit()
    return load_state(game)


def purge_idle(days: int) -> int:
    """Delete everything about games with no action for `days` days; returns how many games went.

    Every statement re-checks the idleness itself, so a vote that arrives while the purge runs (it touches its
    game first) keeps its game, its own row and everything else about that game.
    """
    cutoff = utcnow() - timedelta(days=days)
    idle = select(TableRecord.code).where(TableRecord.last_activity < cutoff).scalar_subquery()
    for model in PURGED_WITH_TABLE:
        db.session.execute(delete(model).where(model.code.in_(idle)))
    removed = db.session.execute(delete(TableRecord).where(TableRecord.last_activity < cutoff)).rowcount
    db.session.commit()
    return removed


# Rows that belong to a table and go with it; later features add their own models here.
PURGED_WITH_TABLE: list = [Vote, Unlock]




PURGE_INTERVAL_SECONDS = 3600


def init_app(app: Flask) -> None:
    """Purge idle games when the app starts and then at most once an hour, on the back of a request."""
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
