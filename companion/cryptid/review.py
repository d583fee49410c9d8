"""After a game: when each player could have known where the creature was, and what each cube gave away
(docs/cryptid-deduction.md section 6). Shown once every clue is revealed, so it may read the whole game.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import log2

from .deduction import Evidence, clue_table, posterior, seat_clues
from .hexgrid import ALL_HEXES, hexes_of
from .play import CUBE, SEARCH, State


@dataclass(frozen=True, slots=True)
class CubeReview:
    """One cube a player placed by choice: the bits it told the table about that player's clue, and the least
    any cube they could have placed then would have told."""

    entry: int  # the log entry that placed it
    hex: int
    revealed: float
    least: float

    def to_json(self) -> dict:
        return {"entry": self.entry, "hex": self.hex, "revealed_bits": round(self.revealed, 2),
                "least_bits": round(self.least, 2)}


@dataclass(frozen=True, slots=True)
class SeatReview:
    """pinned: the log entry after which the seat's clue and the public record allowed one habitat only (None:
    never); searches: the log entries of its searches; cubes: its own cubes."""

    seat: int
    pinned: int | None
    searches: tuple[int, ...]
    cubes: tuple[CubeReview, ...]

    def to_json(self) -> dict:
        return {"seat": self.seat, "pinned_at": self.pinned, "searches": list(self.searches),
                "cubes": [cube.to_json() for cube in self.cubes]}


def review(state: State) -> tuple[SeatReview, ...]:
    """Per seat, what the game's log says about its play; the game need not be over, but reads every clue."""
    game = state.game
    map_code = game.board.to_map_code()
    areas = clue_table(map_code).areas
    players = state.players
    # The pieces on the board after each log entry: what every seat could see at that point.
    discs, cubes = [0] * players, [0] * players
    snapshots: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
    cube_reviews: list[list[CubeReview]] = [[] for _ in range(players)]
    for entry in state.log:
        if entry.action == CUBE:
            before = Evidence(map_code, tuple(discs), tuple(cubes))
            cube_reviews[entry.seat - 1].append(_cube_review(before, entry.seat, entry.n, entry.hex, areas, game))
        placement = entry.placement()
        if placement is not None:
            owner, piece = placement
            pieces = cubes if piece == CUBE else discs
            pieces[owner - 1] |= 1 << entry.hex
        snapshots.append((entry.n, tuple(discs), tuple(cubes)))
    reviews = []
    for seat in state.seats:
        (clue,) = game.seat_clues(seat)

        def pinned_after(index: int) -> bool:
            _, seat_discs, seat_cubes = snapshots[index]
            return posterior(Evidence(map_code, seat_discs, seat_cubes, seat, clue)).solved() is not None

        first = _first_true(pinned_after, len(snapshots))
        searches = tuple(entry.n for entry in state.log if entry.action == SEARCH and entry.seat == seat)
        reviews.append(SeatReview(seat, None if first is None else snapshots[first][0], searches,
                                  tuple(cube_reviews[seat - 1])))
    return tuple(reviews)


def _first_true(test, count: int) -> int | None:
    """The first index in range(count) where `test` holds, for a test that stays true once true (what a seat
    knows only grows); None if it never holds. Binary search: few posteriors, mostly of late, small positions."""
    if not count or not test(count - 1):
        return None
    low, high = 0, count - 1
    while low < high:
        middle = (low + high) // 2
        if test(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _cube_review(before: Evidence, seat: int, entry: int, hex: int, areas, game) -> CubeReview:
    """What a cube told the table: log2 of how many of the seat's still-possible clues (as the table saw them)
    it left, compared with every cube the seat could have placed there and then."""
    possible = hexes_of(seat_clues(before)[seat - 1])
    allowed = game.allowed(seat)
    taken = 0
    for pieces in before.cubes:
        taken |= pieces
    choices = hexes_of(ALL_HEXES & ~allowed & ~taken)

    def told(at: int) -> float:
        left = sum(1 for clue in possible if not areas[clue] >> at & 1)
        return log2(len(possible) / left) if left else 0.0

    return CubeReview(entry, hex, told(hex), min((told(at) for at in choices), default=0.0))

