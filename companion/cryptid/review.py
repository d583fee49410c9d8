"""After a game: what each player's play showed, in facts a person can check on the board
(docs/cryptid-deduction.md section 6). Read once every clue is revealed, so it may read the whole game.

Two readings of "could have known". `known_at` is a person's: their own clue and the pieces on the board, each
opponent's pieces read on their own (the clues that agree with them, as the box's clue list says), leave one hex.
`solver_at` is the Solver's: every valid setup counted (deduction.posterior). Neither counts the search that ended
the game: its answers decide the habitat for everyone, and for the searcher they are the result of the search,
not evidence they had before it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .deduction import Evidence, clue_table, posterior, seat_clues
from .hexgrid import ALL_HEXES, hexes_of
from .play import ANSWER, ASK, CUBE, DISC, SEARCH, SKIP, WIN, State

# A search on a hex that already holds the searcher's disc: the searcher places an extra disc elsewhere (a log
# entry "disc"), or the log says no hex could take it ("skip" with piece "disc"), which bounds their clue.
Pieces = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...] | None]  # discs, cubes, clue bounds per seat


@dataclass(frozen=True, slots=True)
class CubeReview:
    """One cube a player placed by choice: of the clues the other players still thought possible for them,
    how many it ruled out, and the hex where a cube would have ruled out fewest then (None when theirs did)."""

    entry: int  # the log entry that placed it
    hex: int
    possible: int  # clues the table thought possible for the player before the cube
    ruled_out: int
    gentlest: int | None
    gentlest_ruled_out: int

    def to_json(self) -> dict:
        return {"entry": self.entry, "hex": self.hex, "possible": self.possible, "ruled_out": self.ruled_out,
                "gentlest": self.gentlest, "gentlest_ruled_out": self.gentlest_ruled_out}


@dataclass(frozen=True, slots=True)
class SearchReview:
    """One search: where, how many hexes the searcher's clue and the pieces still left (read as a person does)
    and whether the searched hex was one of them, who stopped it with a cube (None: it found the habitat, or the
    game ended first), and the extra disc the searcher placed in it, if any (no_room: none could go)."""

    entry: int
    hex: int
    fitting: int
    fits: bool
    found: bool
    stopped_by: int | None
    extra_disc: int | None
    no_room: bool = False

    def to_json(self) -> dict:
        return {"entry": self.entry, "hex": self.hex, "fitting": self.fitting, "fits": self.fits, "found": self.found,
                "stopped_by": self.stopped_by, "extra_disc": self.extra_disc, "no_room": self.no_room}


@dataclass(frozen=True, slots=True)
class SeatReview:
    """known_at: the log entry after which the seat's clue and the pieces, each opponent read on their own, left
    one hex (None: never before the game's last search); in_opening: that entry came before the first question
    or search; solver_at: the same for the Solver; searches and cubes: its own."""

    seat: int
    known_at: int | None
    in_opening: bool
    solver_at: int | None
    searches: tuple[SearchReview, ...]
    cubes: tuple[CubeReview, ...]

    def to_json(self) -> dict:
        return {"seat": self.seat, "known_at": self.known_at, "in_opening": self.in_opening,
                "solver_at": self.solver_at, "searches": [search.to_json() for search in self.searches],
                "cubes": [cube.to_json() for cube in self.cubes]}


@dataclass(frozen=True, slots=True)
class SolverView:
    """The Solver at one point of a game, from one seat's view: per seat how many clues some valid setup gives
    it, and the hexes that may be the habitat with their chance, likeliest first."""

    clues: tuple[int, ...]
    chances: tuple[tuple[int, float], ...]


def solver_view(evidence: Evidence) -> SolverView:
    """What the Solver makes of the evidence: every valid setup that agrees with it, counted."""
    counted = posterior(evidence)
    chances = sorted(((hex, counted.probability(hex)) for hex in hexes_of(counted.habitats)),
                     key=lambda pair: (-pair[1], pair[0]))
    return SolverView(tuple(mask.bit_count() for mask in counted.seat_clues), tuple(chances))


def fitting_hexes(evidence: Evidence) -> int:
    """The hexes a person can still hold for the habitat: allowed by the reasoner's clue and, for each other
    seat, by some clue that agrees with that seat's pieces (each seat read on its own, no setup rule)."""
    areas = clue_table(evidence.map_code).areas
    fitting = ALL_HEXES
    for mask in seat_clues(evidence):
        reach = 0
        for clue in hexes_of(mask):
            reach |= areas[clue]
        fitting &= reach
    return fitting


def review(state: State) -> tuple[SeatReview, ...]:
    """Per seat, what the game's log says about its play; the game need not be over, but reads every clue."""
    game = state.game
    map_code = game.board.to_map_code()
    players = state.players
    log = state.log
    # The pieces on the board after each log entry, and what bounds each clue: what every seat could see then.
    discs, cubes, within = [0] * players, [0] * players, [ALL_HEXES] * players
    snapshots: list[Pieces] = []
    cube_reviews: list[list[CubeReview]] = [[] for _ in range(players)]
    for entry in log:
        if entry.action == CUBE:
            before = Evidence(map_code, tuple(discs), tuple(cubes), within=_bounds(within))
            cube_reviews[entry.seat - 1].append(_cube_review(before, entry.seat, entry.n, entry.hex, game))
        if entry.action == SKIP and entry.piece == DISC:  # no hex could take the extra disc (play.State.clue_within)
            taken = 0
            for pieces in cubes:
                taken |= pieces
            within[entry.seat - 1] &= taken | discs[entry.seat - 1]
        placement = entry.placement()
        if placement is not None:
            owner, piece = placement
            pieces = cubes if piece == CUBE else discs
            pieces[owner - 1] |= 1 << entry.hex
        snapshots.append((tuple(discs), tuple(cubes), _bounds(within)))
    searches = _searches(state, snapshots)
    # Evidence counts up to the entry before the search that ended the game (all of it if nobody won).
    winning = _winning_search(log)
    decided = len(log) if winning is None else winning - 1  # entry n is log[n - 1]
    opening_end = next((i for i, entry in enumerate(log) if entry.action in (ASK, SEARCH)), len(log))
    reviews = []
    for seat in state.seats:
        (clue,) = game.seat_clues(seat)

        def evidence(index: int) -> Evidence:
            seat_discs, seat_cubes, bounds = snapshots[index]
            return Evidence(map_code, seat_discs, seat_cubes, seat, clue, within=bounds)

        known = _first_true(lambda i: _single(fitting_hexes(evidence(i))), decided)
        solver = _first_true(lambda i: posterior(evidence(i)).solved() is not None, decided)
        reviews.append(SeatReview(
            seat, None if known is None else log[known].n, known is not None and known < opening_end,
            None if solver is None else log[solver].n, tuple(s for s in searches if log[s.entry - 1].seat == seat),
            tuple(cube_reviews[seat - 1])))
    return tuple(reviews)


def _bounds(within: list[int]) -> tuple[int, ...] | None:
    """Evidence's `within`: None while no clue is bounded."""
    return tuple(within) if any(mask != ALL_HEXES for mask in within) else None


def _single(mask: int) -> bool:
    return bool(mask) and not mask & (mask - 1)


def _winning_search(log) -> int | None:
    """The log entry of the search that found the habitat, if one did."""
    found = None
    for entry in log:
        if entry.action == SEARCH:
            found = entry.n
        elif entry.action == WIN:
            return found
    return None


def _searches(state: State, snapshots: list[Pieces]) -> list[SearchReview]:
    """Every search of the log with its outcome: the extra disc and the answers that follow it belong to it."""
    log, game = state.log, state.game
    map_code = game.board.to_map_code()
    empty = (0,) * state.players
    searches = []
    for index, entry in enumerate(log):
        if entry.action != SEARCH:
            continue
        discs, cubes, bounds = snapshots[index - 1] if index else (empty, empty, None)
        (clue,) = game.seat_clues(entry.seat)
        fitting = fitting_hexes(Evidence(map_code, discs, cubes, entry.seat, clue, within=bounds))
        found, stopped_by, extra, no_room = False, None, None, False
        for after in log[index + 1:]:
            if after.action == DISC and after.seat == entry.seat:
                extra = after.hex if after.placed else None
            elif after.action == SKIP and after.piece == DISC and after.seat == entry.seat:
                no_room = True
            elif after.action == ANSWER and after.piece == CUBE:
                stopped_by = after.seat
                break
            elif after.action == WIN:
                found = True
                break
            elif after.action != ANSWER:
                break
        fits = bool(fitting >> entry.hex & 1)
        searches.append(SearchReview(entry.n, entry.hex, fitting.bit_count(), fits, found, stopped_by, extra, no_room))
    return searches


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


def _cube_review(before: Evidence, seat: int, entry: int, hex: int, game) -> CubeReview:
    """What a cube told the table: how many of the seat's still-possible clues (as the table saw them, each seat
    read on its own) it ruled out, beside the cube the seat could have placed then that would have ruled out
    fewest."""
    areas = clue_table(before.map_code).areas
    possible = hexes_of(seat_clues(before)[seat - 1])
    taken = 0
    for pieces in before.cubes:
        taken |= pieces
    choices = hexes_of(ALL_HEXES & ~game.allowed(seat) & ~taken)

    def ruled_out(at: int) -> int:
        return sum(1 for clue in possible if areas[clue] >> at & 1)

    chosen = ruled_out(hex)
    least, gentlest = min(((ruled_out(at), at) for at in choices), default=(chosen, hex))
    return CubeReview(entry, hex, len(possible), chosen, None if least >= chosen else gentlest, min(least, chosen))
