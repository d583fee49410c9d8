"""The deduction engine against brute force: every ordered assignment of clues to seats checked one by one.

Random legal histories of refereed games (every mode, 3-5 players) are compared from a random seat's view and
from the public record: the per-seat clue sets, the number of allowed assignments and the habitat weights must
agree exactly, and the true setup is never ruled out. Brute force tries every set of distinct clues, so a
history is compared once there are few enough (the engine itself has no such limit).

The suite runs a seeded sample (25 histories, 500 with COMPANION_THOROUGH=1);
`DEDUCTION_HISTORIES=10000 python -m pytest -n 0 tests/cryptid/test_deduction.py` runs the issue's 10,000 histories
per mode and player count.
"""

import os
import random
from collections import Counter
from functools import reduce
from itertools import combinations, permutations
from math import comb
from operator import and_

import pytest

from companion.cryptid.board import Board
from companion.cryptid.clues import CLUES, clue_areas
from companion.cryptid.deduction import Evidence, posterior, prepare, seat_clues
from companion.cryptid.hexgrid import HEX_COUNT, hexes_of
from companion.cryptid.hints import HINT_CATEGORIES, open_categories
from companion.cryptid.play import OVER, Start, State
from companion.cryptid.view import view
from tests.cryptid.test_play import PLAY_CODES, game, turn_moves
from tests.helpers import how_many

HISTORIES = int(os.environ.get("DEDUCTION_HISTORIES", how_many(25, 500)))
BRUTE_LIMIT = 60_000  # clue sets brute force may try for one history


def brute_force(evidence: Evidence):
    """(assignments, habitat weights, per-seat clue masks, per-seat {(clue, habitat): n}) by checking every set of distinct clues the seats could hold
    and every way to hand it out; None if that is too many sets."""
    board = Board.from_map_code(evidence.map_code)
    areas = clue_areas(board)
    everything = (1 << HEX_COUNT) - 1
    usable = [i for i, clue in enumerate(CLUES) if clue.allowed_in(board.mode) and 42 <= areas[i].bit_count() <= 66]
    candidates = []
    within = evidence.within or (everything,) * len(evidence.discs)
    for seat, (discs, cubes, bound) in enumerate(zip(evidence.discs, evidence.cubes, within), 1):
        if seat == evidence.seat:
            candidates.append({evidence.clue.index})
        else:
            candidates.append({i for i in usable
                               if discs & areas[i] == discs and not cubes & areas[i] and areas[i] & bound == areas[i]})
    union = sorted(set().union(*candidates))
    players = len(candidates)
    if comb(len(union), players) > BRUTE_LIMIT:
        return None
    weights = [0] * HEX_COUNT
    seen = [0] * players
    by_clue = [Counter() for _ in range(players)]
    total = 0
    for clue_set in combinations(union, players):
        common = reduce(and_, (areas[i] for i in clue_set), everything)
        if common.bit_count() != 1:
            continue
        clues = [CLUES[i] for i in clue_set]
        if any(clue.negation() in clues for clue in clues):
            continue
        if any(reduce(and_, (areas[i] for i in clue_set if i != dropped), everything).bit_count() < 2
               for dropped in clue_set):
            continue
        open_ = open_categories(clues)
        if not open_ or (evidence.hint is not None and evidence.hint not in open_):
            continue
        for order in permutations(clue_set):
            if all(i in options for i, options in zip(order, candidates)):
                total += 1
                weights[common.bit_length() - 1] += 1
                for seat, i in enumerate(order):
                    seen[seat] |= 1 << i
                    by_clue[seat][i, common.bit_length() - 1] += 1
    return total, weights, seen, by_clue


def random_history(rng: random.Random, code: str) -> State:
    state = State.initial(game(code)).apply(Start(1))
    for _ in range(rng.randrange(0, 60)):
        moves = turn_moves(state)
        if state.phase == OVER or not moves:
            break
        # Mostly asks and cubes: searches end games, and long histories are the ones brute force can check. A
        # search of a hex with the searcher's own disc is kept among them: its extra disc is evidence too.
        asks = [move for move in moves if move.action != "search" or state.discs_of(move.seat) >> move.hex & 1]
        state = state.apply(rng.choice(asks if asks and rng.random() < 0.95 else moves))
    return state


def compare(evidence: Evidence, truth: tuple[int, ...]) -> bool:
    """Check the engine against brute force; False when brute force would take too long."""
    expected = brute_force(evidence)
    if expected is None:
        return False
    total, weights, seen, by_clue = expected
    found = posterior(evidence)
    assert found.assignments == total
    assert list(found.weights) == weights
    assert list(found.seat_clues) == seen
    assert [dict(counts) for counts in by_clue] == list(found.by_clue)
    # Whatever the pieces say, the dealt clues agree with them: the true setup is never ruled out.
    assert all(seen[seat] >> clue & 1 for seat, clue in enumerate(truth))
    masks = seat_clues(evidence)
    assert all(masks[seat] >> clue & 1 for seat, clue in enumerate(truth))
    return True


def codes_of(mode: str, players: int) -> list[str]:
    return [code for code in PLAY_CODES if game(code).mode == mode and game(code).players == players]


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("mode", ["normal", "advanced"])
def test_agrees_with_brute_force_on_random_histories(mode, players):
    codes = codes_of(mode, players)
    assert codes, f"no golden code for {mode} {players} players"
    rng = random.Random(f"{mode}-{players}")
    compared = tries = 0
    while compared < HISTORIES:
        tries += 1
        assert tries < HISTORIES * 50, f"only {compared} histories small enough for brute force"
        code = rng.choice(codes)
        g = game(code)
        state = random_history(rng, code)
        truth = tuple(g.seat_clues(seat)[0].index for seat in state.seats)
        seat = rng.choice(list(state.seats))
        seen = view(state, seat)
        hint = rng.choice([None, None, None, *open_categories(g.clues)])
        evidence = Evidence.from_view(seen, hint)
        if rng.random() < 0.3:
            evidence = evidence.public()
        compared += compare(evidence, truth)


def test_the_hint_and_the_own_clue_narrow_the_public_record():
    g = game(codes_of("normal", 3)[0])
    state = State.initial(g)
    own = Evidence.from_view(view(state, 1))
    public = own.public()
    assert posterior(own).assignments < posterior(public).assignments
    hint = open_categories(g.clues)[0]
    with_hint = Evidence(own.map_code, own.discs, own.cubes, own.seat, own.clue, hint)
    assert posterior(with_hint).assignments <= posterior(own).assignments
    assert HINT_CATEGORIES.index(hint) >= 0


def _exactly(found):
    """A posterior with its counts in the order they were made (a decision that iterates them sees that order)."""
    return found.assignments, found.sets, found.weights, [list(counts.items()) for counts in found.by_clue]


@pytest.mark.parametrize("mode, players", [("advanced", 5), ("normal", 4)])
def test_a_posterior_is_the_same_whatever_was_asked_before(mode, players):
    # Later posteriors filter the clue sets kept from earlier ones (deduction._clue_sets). Asked newest first,
    # every one is searched afresh; asked in the order of play, after the map was prepared, each is filtered;
    # a hint shown part way narrows what is kept. Same counts in the same order every way.
    rng = random.Random(f"kept-{mode}-{players}")
    code = codes_of(mode, players)[0]
    g = game(code)
    hint = open_categories(g.clues)[0]
    state = State.initial(g).apply(Start(1))
    evidences = []
    for number in range(12):
        seen = view(state, state.turn)
        shown = hint if number >= 8 else None
        evidences += [Evidence.from_view(seen, shown), Evidence.from_view(seen, shown).public()]
        moves = [move for move in turn_moves(state) if move.action != "search"]
        if state.phase == OVER or not moves:
            break
        state = state.apply(rng.choice(moves))
    fresh = [_exactly(posterior(evidence)) for evidence in reversed(evidences)][::-1]
    prepare(evidences[0].map_code, players)
    assert [_exactly(posterior(evidence)) for evidence in evidences] == fresh
    assert fresh[-1][0] < fresh[1][0], "the history narrowed the public record"


def test_a_seat_evidence_names_its_clue():
    with pytest.raises(ValueError):
        Evidence("x", (0, 0, 0), (0, 0, 0), seat=1)


def test_a_search_with_no_room_for_its_extra_disc_bounds_the_searchers_clue_in_engine_and_brute_force():
    # The bound a search leaves when no hex can take its extra disc (play.State.clue_within): the searcher's
    # clue allows nothing outside it. Here it is the true clue's area and a few hexes more, from the public record.
    rng = random.Random("within")
    for code in codes_of("normal", 3)[:3]:
        g = game(code)
        state = random_history(rng, code)
        truth = tuple(g.seat_clues(seat)[0].index for seat in state.seats)
        bound = g.allowed(2) | rng.getrandbits(HEX_COUNT) & rng.getrandbits(HEX_COUNT)
        free = Evidence.from_view(view(state, None))
        bounded = Evidence(free.map_code, free.discs, free.cubes, within=(ALL, bound, ALL))
        assert compare(bounded, truth)
        assert seat_clues(bounded)[1] & ~seat_clues(free)[1] == 0
        assert all(clue_areas(g.board)[i] & ~bound == 0 for i in hexes_of(seat_clues(bounded)[1]))


ALL = (1 << HEX_COUNT) - 1
