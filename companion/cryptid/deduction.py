"""What can be deduced from what one seat may know (docs/cryptid-deduction.md): the clues each seat may still
hold, the clue assignments a valid setup allows, and from them how likely each hex is to be the habitat.

Evidence is what a seat may know: the map, every piece on it and, for a seat, its own clue (None for the public
record). A seat's discs say its clue allows those hexes and its cubes that it rules them out, so every answer,
opening cube and search is in the pieces. The reasoning never sees another seat's clue: Evidence holds none.

Clue sets are masks over CLUES (bit i for CLUES[i]). Valid setups (docs/cryptid-rules.md section 5) are
enumerated as unordered clue sets, per habitat, by the hitting-set search of search.py; the orderings of a set
over the seats are counted, not listed, so even the public record of an advanced 5-player game stays small.
Each allowed assignment of clues to seats is equally likely.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from math import factorial

from .board import Board
from .clues import CLUES, MAX_AREA, MIN_AREA, Clue, clue_areas
from .hexgrid import ALL_HEXES, HEX_COUNT, hexes_of
from .hexgrid import hexes_of as _bits  # set bits of any mask, here of clue masks
from .hints import HINT_CATEGORIES
from .search import ClueSetSearch


@dataclass(frozen=True, slots=True)
class ClueTable:
    """One map's clue areas and the clues a setup of its mode may use (the mode's list, 42-66 hexes)."""

    areas: tuple[int, ...]  # per clue index, the hexes it allows
    usable: int  # mask of clue indices


@lru_cache(maxsize=64)
def clue_table(map_code: str) -> ClueTable:
    """The clue table of a map, built once per map code."""
    board = Board.from_map_code(map_code)
    areas = clue_areas(board)
    usable = 0
    for index, clue in enumerate(CLUES):
        if clue.allowed_in(board.mode) and MIN_AREA <= areas[index].bit_count() <= MAX_AREA:
            usable |= 1 << index
    return ClueTable(areas, usable)


@dataclass(frozen=True, slots=True)
class Evidence:
    """What one reasoner knows: the map, each seat's discs and cubes (per seat, seat - 1), its own clue if any.

    hint: a hint category (hints.HINT_CATEGORIES) the table has been shown, so that no clue mentions it.
    within: per seat, a mask its clue's hexes must lie within (a search that found no hex for its extra disc,
    play.State.clue_within); None when nothing bounds any seat.
    """

    map_code: str
    discs: tuple[int, ...]
    cubes: tuple[int, ...]
    seat: int | None = None
    clue: Clue | None = None
    hint: str | None = None
    within: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if len(self.discs) != len(self.cubes) or self.within is not None and len(self.within) != len(self.discs):
            raise ValueError("discs, cubes and bounds must be given for the same seats")
        if (self.seat is None) != (self.clue is None):
            raise ValueError("a seat's evidence names its clue; the public record names none")

    @classmethod
    def from_view(cls, view, hint: str | None = None) -> "Evidence":
        """The evidence of a view.View: its seat's own clue for a seat, the public record for the public view."""
        within = tuple(view.clue_within) if any(mask != ALL_HEXES for mask in view.clue_within) else None
        return cls(view.map_code, tuple(view.discs), tuple(view.cubes), view.seat, view.clue, hint, within)

    @property
    def players(self) -> int:
        return len(self.discs)

    def public(self) -> "Evidence":
        """The same pieces without the seat's own clue: what the table as a whole has revealed."""
        return Evidence(self.map_code, self.discs, self.cubes, hint=self.hint, within=self.within)


def seat_clues(evidence: Evidence) -> tuple[int, ...]:
    """Per seat, the mask of usable clues that agree with that seat's pieces (the own clue alone for the
    reasoner's seat). Reasoning one seat at a time: fast enough for every move (the notebook)."""
    table = clue_table(evidence.map_code)
    areas = table.areas
    masks = []
    within = evidence.within or (ALL_HEXES,) * evidence.players
    for seat, (discs, cubes, bound) in enumerate(zip(evidence.discs, evidence.cubes, within), 1):
        if seat == evidence.seat:
            masks.append(1 << evidence.clue.index)
            continue
        mask = 0
        usable = table.usable
        while usable:
            bit = usable & -usable
            usable ^= bit
            area = areas[bit.bit_length() - 1]
            if not discs & ~area and not cubes & area and not area & ~bound:
                mask |= bit
        masks.append(mask)
    return tuple(masks)


@dataclass(frozen=True, slots=True)
class Posterior:
    """The allowed assignments of distinct clues to seats, summarised.

    assignments: how many (seat -> clue) assignments are valid setups agreeing with every piece;
    sets: how many distinct clue sets those are; weights: per hex, how many assignments make it the habitat;
    by_clue: per seat (seat - 1), how many assignments give that seat a clue with a habitat, {(clue, hex): n}.
    """

    assignments: int
    sets: int
    weights: tuple[int, ...]
    by_clue: tuple[dict[tuple[int, int], int], ...]

    @property
    def seat_clues(self) -> tuple[int, ...]:
        """Per seat, the mask of clues some allowed assignment gives it."""
        masks = []
        for counts in self.by_clue:
            mask = 0
            for clue, _ in counts:
                mask |= 1 << clue
            masks.append(mask)
        return tuple(masks)

    def clue_weights(self, seat: int) -> dict[int, int]:
        """How many allowed assignments give `seat` each clue."""
        totals: dict[int, int] = {}
        for (clue, _), count in self.by_clue[seat - 1].items():
            totals[clue] = totals.get(clue, 0) + count
        return totals

    @property
    def habitats(self) -> int:
        """Mask of the hexes that can still be the habitat."""
        return sum(1 << hex for hex, weight in enumerate(self.weights) if weight)

    def probability(self, hex: int) -> float:
        """How likely a hex is to be the habitat (0 when nothing is allowed)."""
        return self.weights[hex] / self.assignments if self.assignments else 0.0

    def solved(self) -> int | None:
        """The habitat, when only one hex is left."""
        habitats = self.habitats
        return habitats.bit_length() - 1 if habitats and not habitats & (habitats - 1) else None


def posterior(evidence: Evidence, masks: tuple[int, ...] | None = None) -> Posterior:
    """Every valid setup that agrees with the evidence, counted per habitat and per seat (exact).

    masks: the per-seat clue masks of seat_clues(evidence), when the caller has them already.
    """
    masks = seat_clues(evidence) if masks is None else masks
    weights = [0] * HEX_COUNT
    by_clue: list[dict[tuple[int, int], int]] = [{} for _ in masks]
    assignments = sets = 0
    for habitat, clue_set in _clue_sets(evidence, masks):
        count = _count_matchings(clue_set, masks, habitat, by_clue)
        if count:
            sets += 1
            assignments += count
            weights[habitat] += count
    return Posterior(assignments, sets, tuple(weights), tuple(by_clue))


def _count_matchings(
    clue_set: tuple[int, ...], masks: tuple[int, ...], habitat: int, by_clue: list[dict[tuple[int, int], int]]
) -> int:
    """How many ways the clues of a set go one to a seat, each to a seat whose mask holds it; adds to `by_clue`
    how many of those give each seat each clue."""
    free = 0
    for index in clue_set:
        free |= 1 << index
    pinned: list[tuple[int, int]] = []  # seats that can take only one clue of the set (the reasoner's own)
    open_seats: list[tuple[int, int]] = []
    for seat, mask in enumerate(masks):
        fit = mask & free
        if not fit & (fit - 1):
            pinned.append((seat, fit))
        else:
            open_seats.append((seat, fit))
    for seat, fit in pinned:
        if not fit & free:
            return 0
        free ^= fit
    # The common case: every other seat may take any clue that is left, so no seat is pinned by its pieces.
    if all(fit & free == free for _, fit in open_seats):
        count = factorial(len(open_seats))
        each = count // len(open_seats) if open_seats else 0
        shares = [(seat, clue, each) for seat, _ in open_seats for clue in _bits(free)]
    else:
        count, shares = _place(open_seats, free)
        if not count:
            return 0
    shares += [(seat, fit.bit_length() - 1, count) for seat, fit in pinned]
    for seat, clue, share in shares:
        counts = by_clue[seat]
        key = (clue, habitat)
        counts[key] = counts.get(key, 0) + share
    return count


def _place(open_seats: list[tuple[int, int]], free: int) -> tuple[int, list[tuple[int, int, int]]]:
    """Count the ways to give each seat one clue of `free` that fits it, and how many give each seat each clue:
    (count, [(seat, clue, ways)])."""
    count = 0
    ways: dict[tuple[int, int], int] = {}
    taken: list[int] = []

    def place(position: int, free: int) -> None:
        nonlocal count
        if position == len(open_seats):
            count += 1
            for (seat, _), bit in zip(open_seats, taken):
                key = (seat, bit.bit_length() - 1)
                ways[key] = ways.get(key, 0) + 1
            return
        options = open_seats[position][1] & free
        while options:
            bit = options & -options
            options ^= bit
            taken.append(bit)
            place(position + 1, free ^ bit)
            taken.pop()

    place(0, free)
    return count, [(seat, clue, n) for (seat, clue), n in ways.items()]


def each_assignment(evidence: Evidence) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every allowed assignment itself, as (clue index per seat, habitat): for tests and for looking at a few;
    posterior() counts them without listing them."""
    masks = seat_clues(evidence)
    for habitat, clue_set in _clue_sets(evidence, masks):
        for order in permutations(clue_set):
            if all(mask >> clue & 1 for mask, clue in zip(masks, order)):
                yield order, habitat


def _clue_sets(evidence: Evidence, masks: tuple[int, ...]) -> Iterator[tuple[int, tuple[int, ...]]]:
    """(habitat, clue indices) of every valid clue set drawn from the seats' masks that holds the reasoner's
    own clue and leaves the shown hint open; whether its clues can be handed out to the seats is not checked."""
    areas = clue_table(evidence.map_code).areas
    union = 0
    for mask in masks:
        union |= mask
    required_clue = 1 << evidence.clue.index if evidence.clue is not None else 0
    unmentioned = 1 << HINT_CATEGORIES.index(evidence.hint) if evidence.hint else 0
    # The habitat is allowed by some candidate of every seat.
    possible = (1 << HEX_COUNT) - 1
    for mask in masks:
        reach = 0
        for index in _bits(mask):
            reach |= areas[index]
        possible &= reach
    for habitat in hexes_of(possible):
        candidates = [(index, areas[index]) for index in _bits(union) if areas[index] >> habitat & 1]
        required = 0
        for position, (index, _) in enumerate(candidates):
            if required_clue >> index & 1:
                required = 1 << position
        if required_clue and not required:
            continue
        search = ClueSetSearch.for_candidates(candidates, habitat)
        for clue_set in search.each(len(masks), required=required, unmentioned=unmentioned):
            yield habitat, clue_set
