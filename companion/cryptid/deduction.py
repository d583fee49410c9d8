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

from array import array
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from math import factorial
from threading import Lock

from .board import Board
from .clues import CLUES, MAX_AREA, MIN_AREA, Clue, clue_areas
from .hexgrid import ALL_HEXES, HEX_COUNT, hexes_of
from .hexgrid import hexes_of as _bits  # set bits of any mask, here of clue masks
from .hints import HINT_CATEGORIES
from .search import MENTIONS, ClueSetSearch


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
    alike: dict[tuple[int, ...], dict[tuple[int, int], int]] = {}
    assignments = sets = 0
    for record in _clue_sets(evidence, masks):
        habitat = record >> _HABITAT_SHIFT
        count = _count_matchings(record & _CLUE_BITS, masks, habitat, by_clue, alike)
        if count:
            sets += 1
            assignments += count
            weights[habitat] += count
    for seats, shares in alike.items():
        for seat in seats:
            counts = by_clue[seat]
            for key, share in shares.items():
                counts[key] = counts.get(key, 0) + share
    return Posterior(assignments, sets, tuple(weights), tuple(by_clue))


def _count_matchings(
    free: int,
    masks: tuple[int, ...],
    habitat: int,
    by_clue: list[dict[tuple[int, int], int]],
    alike: dict[tuple[int, ...], dict[tuple[int, int], int]],
) -> int:
    """How many ways the clues of a set (`free`, a clue mask) go one to a seat, each to a seat whose mask holds
    it; adds to `by_clue` how many of those give each seat each clue, or, when every open seat may take every
    clue left (the common case), to `alike` under those seats, once for them all."""
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
        shares = []
        if open_seats:
            each = count // len(open_seats)
            seats = tuple(seat for seat, _ in open_seats)
            group = alike.get(seats)
            if group is None:
                group = alike[seats] = {}
            for clue in _bits(free):
                key = (clue, habitat)
                group[key] = group.get(key, 0) + each
    else:
        # Counted on the seats' fits relative to the clues left (bit k: the k-th clue of `free`), in sorted
        # order: sets share a few such patterns, so each is counted once.
        clues = list(_bits(free))
        pattern = []
        for _, fit in open_seats:
            relative = 0
            for position, clue in enumerate(clues):
                if fit >> clue & 1:
                    relative |= 1 << position
            pattern.append(relative)
        order = sorted(range(len(pattern)), key=pattern.__getitem__)
        count, relative_shares = _place(tuple(pattern[row] for row in order), (1 << len(clues)) - 1)
        if not count:
            return 0
        shares = [(open_seats[order[row]][0], clues[position], ways) for row, position, ways in relative_shares]
    shares += [(seat, fit.bit_length() - 1, count) for seat, fit in pinned]
    for seat, clue, share in shares:
        counts = by_clue[seat]
        key = (clue, habitat)
        counts[key] = counts.get(key, 0) + share
    return count


@lru_cache(maxsize=1 << 16)
def _place(fits: tuple[int, ...], free: int) -> tuple[int, tuple[tuple[int, int, int], ...]]:
    """Count the ways to give each row one bit of `free` that its fit holds, all different, and how many give
    each row each bit: (count, ((row, bit position, ways), ...))."""
    count = 0
    ways: dict[tuple[int, int], int] = {}
    taken: list[int] = []

    def place(row: int, free: int) -> None:
        nonlocal count
        if row == len(fits):
            count += 1
            for placed, bit in enumerate(taken):
                key = (placed, bit.bit_length() - 1)
                ways[key] = ways.get(key, 0) + 1
            return
        options = fits[row] & free
        while options:
            bit = options & -options
            options ^= bit
            taken.append(bit)
            place(row + 1, free ^ bit)
            taken.pop()

    place(0, free)
    return count, tuple((row, position, n) for (row, position), n in ways.items())


def each_assignment(evidence: Evidence) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every allowed assignment itself, as (clue index per seat, habitat): for tests and for looking at a few;
    posterior() counts them without listing them."""
    masks = seat_clues(evidence)
    for record in _clue_sets(evidence, masks):
        habitat = record >> _HABITAT_SHIFT
        for order in permutations(_bits(record & _CLUE_BITS)):
            if all(mask >> clue & 1 for mask, clue in zip(masks, order)):
                yield order, habitat


# A clue set is kept as one int: its habitat above the clue mask (48 clues), so a list of them sorts by habitat,
# then by clue mask, and an array of them takes 8 bytes a set.
_HABITAT_SHIFT = len(CLUES)
_CLUE_BITS = (1 << _HABITAT_SHIFT) - 1


@dataclass(frozen=True, slots=True)
class _KeptSets:
    """The valid clue sets of a map and player count that some assignment within the seats' clue `masks` could
    hand out, none mentioning a category of `unmentioned`, sorted (see _HABITAT_SHIFT). They hold every set that
    seats with narrower masks and a hint more could be handed."""

    masks: tuple[int, ...]
    unmentioned: int
    records: array


# The public record's clue sets of the maps played lately. Pieces only ever rule clues out and a hint only
# bans a category, so every later question at a table, public or a seat's own (its own mask is one clue of its
# public one), draws its sets from the last ones kept: filtering them replaces the search, the costly part of a
# posterior. 64 maps of at most some 35,000 sets, 8 bytes a set.
_KEPT_MAPS = 64
_kept: OrderedDict[tuple[str, int], _KeptSets] = OrderedDict()
_kept_lock = Lock()


def prepare(map_code: str, players: int) -> None:
    """Find a map's valid clue sets before anyone asks (the search every later posterior of a table filters):
    a computer player does it while the opening is played, so its first question does not wait for it. Sets
    kept already for the map (found by another computer of the table, or narrowed by a question since) serve as
    well or better: they are kept as they are."""
    with _kept_lock:
        if (map_code, players) in _kept:
            return
    nothing = (0,) * players
    evidence = Evidence(map_code, nothing, nothing)
    _clue_sets(evidence, seat_clues(evidence))


def _clue_sets(evidence: Evidence, masks: tuple[int, ...]) -> list[int]:
    """Every valid clue set drawn from the seats' masks that holds the reasoner's own clue and leaves the shown
    hint open, as sorted ints (see _HABITAT_SHIFT); whether its clues can be handed out to the seats is not
    checked. Found by the search, or filtered from the sets kept (which may hold a few more that no seat can be
    handed): the sets that can be handed out, and their order, are the same whatever was asked before."""
    union = 0
    for mask in masks:
        union |= mask
    required = 1 << evidence.clue.index if evidence.clue is not None else 0
    unmentioned = 1 << HINT_CATEGORIES.index(evidence.hint) if evidence.hint else 0
    key = (evidence.map_code, len(masks))
    with _kept_lock:
        kept = _kept.get(key)
    if (kept is not None and not kept.unmentioned & ~unmentioned
            and all(not mask & ~wider for mask, wider in zip(masks, kept.masks))):
        newly_banned = unmentioned & ~kept.unmentioned
        records = [
            record for record in kept.records
            if not record & _CLUE_BITS & ~union and (not required or record & required)
            and not (newly_banned and any(MENTIONS[index] & newly_banned for index in _bits(record & _CLUE_BITS)))
        ]
    else:
        records = sorted(_search_clue_sets(evidence, masks, union, required, unmentioned))
    if not required:
        with _kept_lock:
            _kept[key] = _KeptSets(masks, unmentioned, array("q", records))
            _kept.move_to_end(key)
            while len(_kept) > _KEPT_MAPS:
                _kept.popitem(last=False)
    return records


def _search_clue_sets(
    evidence: Evidence, masks: tuple[int, ...], union: int, required_clue: int, unmentioned: int
) -> Iterator[int]:
    """The clue sets of _clue_sets found by the hitting-set search, habitat by habitat."""
    areas = clue_table(evidence.map_code).areas
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
            record = habitat << _HABITAT_SHIFT
            for index in clue_set:
                record |= 1 << index
            yield record
