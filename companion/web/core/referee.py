"""A refereed table of any game: its state folded from the move log and remembered per stamp, and the one way a
move is played on it (checked against that state, stored as the next row of the log, live updates woken).

A game (or a variant of one) describes a table with a `Referee`: the name its states are cached under, the
table's code and how the table's log folds into a state. The state is the engine's shape (docs/architecture.md):
it has a `version` (the rows of the log it folds), `check_version(version)` (refuses a move made on another
version) and `apply(move)`; a move has `to_json()`. Everything else a game keeps to itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generic, Protocol, Self, TypeVar

from .store import Conflict, append_move, read_stamp, stamped_cache


class RefereedState(Protocol):
    """What the core asks of a game's state."""

    @property
    def version(self) -> int: ...

    def check_version(self, version: int | None) -> None: ...

    def apply(self, move) -> Self: ...


S = TypeVar("S", bound=RefereedState)


@dataclass(frozen=True, slots=True)
class Referee(Generic[S]):
    """One table of one game: `kind` names its states in the per-process cache (one per game or variant),
    `fold()` reads the table's log and folds it into the state as it is now."""

    kind: str
    code: str
    fold: Callable[[], S]

    def state(self, stamp: str | None = None) -> S:
        """The table as its moves leave it: folded once per change of the table, then remembered. `stamp` if the
        caller just read the table's head (one read per request)."""
        stamp = read_stamp(self.code) if stamp is None else stamp
        return stamped_cache().get(self.kind, self.code, stamp, self.fold)

    def play(self, move, version: int | None = None, stamp: str | None = None) -> S:
        """Apply one move: the engine's IllegalMove when the rules (or a stale `version`) forbid it, Conflict when
        another move took its place first; either way nothing changes. Returns the new state."""
        state = self.state(stamp)
        state.check_version(version)
        following = state.apply(move)
        if not append_move(self.code, following.version, move.to_json()):
            raise Conflict(self.state())
        return following

    def play_once(self, move, version: int | None, logged: Callable[[], list], stale: Callable[[Exception], bool],
                  refusals: tuple[type[Exception], ...], stamp: str | None = None) -> S:
        """play(), except that the same move sent again for the version it already moved on from (a double tap,
        or a form sent twice) is not an error: the move was made once, and the answer is the table now.
        `logged()` gives the table's moves, `stale(error)` tells a refusal for a stale version."""
        try:
            return self.play(move, version, stamp)
        except (*refusals, Conflict) as error:
            if version is not None and (isinstance(error, Conflict) or stale(error)):
                moves = logged()
                if version < len(moves) and moves[version] == move:
                    return self.state()
            raise
