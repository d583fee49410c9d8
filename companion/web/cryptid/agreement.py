"""What a table decided for a game: who asked for which step (hint, tile hint, reveal), and which are unlocked.

Votes and unlocks are rows guarded by unique constraints and written with INSERT ... ON CONFLICT, so votes
arriving together from many phones and server processes are never lost nor counted twice. Every change first
touches the table's row, which the database keeps locked until the commit, so a vote's count after its insert
sees every vote committed before it: whichever vote commits last sees them all and records the unlock.
Reading derives the unlock from the votes as well, so "3 of 3 want it" can never stay locked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from types import SimpleNamespace

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from companion.cryptid import Game
from companion.cryptid.agreement import (
    HINT,
    STEPS,
    agreement_needed,
    check_step,
    step_open,
)
from companion.web.core.db import writing
from companion.web.core.store import dialect, reading, stamped_cache, touch

from .head import TableHead, read_head
from .models import Unlock, Vote


class StepNotOpen(ValueError):
    """The table asked for a step before the one it builds on."""


@dataclass(frozen=True)
class Agreement:
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
def _upserts(dialect_name: str) -> SimpleNamespace:
    """The write statements, built once per dialect (INSERT ... ON CONFLICT is spelled per dialect)."""
    insert = postgresql_insert if dialect_name == "postgresql" else sqlite_insert
    return SimpleNamespace(
        vote=insert(Vote).values(code=bindparam("code"), step=bindparam("step"), seat=bindparam("seat")).on_conflict_do_nothing(),
        unlock=insert(Unlock).values(code=bindparam("code"), step=bindparam("step")).on_conflict_do_nothing(),
    )


_VOTES = select(Vote.step, Vote.seat).where(Vote.code == bindparam("code"))
_UNLOCKS = select(Unlock.step).where(Unlock.code == bindparam("code"))


def load_agreement(game: Game, head: TableHead | None = None) -> Agreement:
    """The table's votes and unlocks; `head` if the caller just read it, else read now."""
    stamp = (head or read_head(game.code)).stamp
    return stamped_cache().get("votes", game.code, stamp, lambda: _read_agreement(game, stamp))


def unlocked_hint(game: Game, head: TableHead | None = None) -> str | None:
    """The table's hint category once the table has unlocked it (computer players and notebooks then use it)."""
    return game.hint if HINT in load_agreement(game, head).unlocked else None


def _read_agreement(game: Game, stamp: str) -> Agreement:
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
    return Agreement(game.players, {s: frozenset(v) for s, v in votes.items()}, frozenset(unlocked), stamp)


_COUNT_VOTES = select(func.count()).select_from(Vote).where(Vote.code == bindparam("code"), Vote.step == bindparam("step"))
_WITHDRAW = delete(Vote).where(Vote.code == bindparam("code"), Vote.step == bindparam("step"), Vote.seat == bindparam("seat"))


def _state_for(game: Game, step: str) -> Agreement:
    """The table's state, after checking that `step` exists and is open or already unlocked."""
    check_step(step)
    state = load_agreement(game)
    if step not in state.unlocked and not state.is_open(step):
        raise StepNotOpen(step)
    return state


def cast_vote(game: Game, seat: int, step: str) -> Agreement:
    """Seat asks for step. Voting twice counts once; voting for an unlocked step changes nothing."""
    state = _state_for(game, step)
    if step in state.unlocked:
        return state
    key = {"code": game.code, "step": step}
    with writing() as connection:
        touch(game.code)
        connection.execute(_upserts(dialect()).vote, {**key, "seat": seat})
        # Every vote of this table that committed before is counted: it touched the row first, as this one did.
        if connection.scalar(_COUNT_VOTES, key) >= agreement_needed(game.players):
            connection.execute(_upserts(dialect()).unlock, key)
    return load_agreement(game)


def withdraw_vote(game: Game, seat: int, step: str) -> Agreement:
    """Seat no longer asks for step; after the unlock there is nothing to take back."""
    check_step(step)
    if step not in load_agreement(game).unlocked:
        with writing() as connection:
            touch(game.code)
            connection.execute(_WITHDRAW, {"code": game.code, "step": step, "seat": seat})
    return load_agreement(game)


def unlock(game: Game, step: str) -> Agreement:
    """Unlock a step at once: the host screen's "the table agrees", for tables without phones."""
    state = _state_for(game, step)
    if step in state.unlocked:
        return state
    with writing() as connection:
        touch(game.code)
        connection.execute(_upserts(dialect()).unlock, {"code": game.code, "step": step})
    return load_agreement(game)
