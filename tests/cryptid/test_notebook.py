"""The deduction notebook: brute force agrees with it, and it depends on nothing but the seat's view.

Brute force (tests/cryptid/test_deduction.py) checks every set of distinct clues and every way to hand it out;
the notebook's opponents' clues, their counts and the hex weights must be exactly what it finds. Fairness is a
property, as for the computer players: give the other seats any other clues that agree with the same history,
replay it, and the seat's notebook must not change.
"""

import random
from itertools import islice

import pytest

from companion.cryptid.deduction import Evidence
from companion.cryptid.notebook import GROUPS, NEGATED, clue_group, notebook
from companion.cryptid.play import Start, State
from companion.cryptid.view import view
from tests.cryptid.test_bots import other_clues_same_history
from tests.cryptid.test_deduction import brute_force, codes_of, random_history
from tests.cryptid.test_play import game


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("mode", ["normal", "advanced"])
def test_the_notebook_equals_brute_force(mode, players):
    rng = random.Random(f"notebook-{mode}-{players}")
    compared = tries = 0
    while compared < 4:
        tries += 1
        assert tries < 400, f"only {compared} histories small enough for brute force"
        code = rng.choice(codes_of(mode, players))
        state = random_history(rng, code)
        seat = rng.choice(list(state.seats))
        seen = view(state, seat)
        expected = brute_force(Evidence.from_view(seen))
        if expected is None:
            continue
        total, weights, masks, _ = expected
        notes = notebook(seen)
        assert notes.assignments == total
        assert list(notes.weights) == weights
        assert [o.seat for o in notes.opponents] == [s for s in state.seats if s != seat]
        truth = game(code)
        for opponent in notes.opponents:
            assert sum(1 << index for index in opponent.clues) == masks[opponent.seat - 1]
            assert opponent.count == masks[opponent.seat - 1].bit_count()
            assert truth.seat_clues(opponent.seat)[0].index in opponent.clues  # the truth is never ruled out
            assert sum(opponent.weights.values()) == total  # each assignment gives each opponent one clue
            for group, indices in opponent.groups:
                assert all(clue_group(index) == group for index in indices)
            assert [group for group, _ in opponent.groups] == [g for g in GROUPS if g in dict(opponent.groups)]
        assert notes.probability(truth.habitat) > 0
        assert all(seen.allowed >> hex & 1 for hex in notes.habitats)  # never where the seat's own clue says no
        assert abs(sum(map(notes.probability, range(108))) - 1) < 1e-9
        compared += 1


def test_negations_appear_in_advanced_mode_only():
    normal = notebook(view(State.initial(game(codes_of("normal", 4)[0])).apply(Start(1)), 1))
    assert all(group != NEGATED for o in normal.opponents for group, _ in o.groups)
    advanced = notebook(view(State.initial(game(codes_of("advanced", 4)[0])).apply(Start(1)), 1))
    assert any(group == NEGATED for o in advanced.opponents for group, _ in o.groups)


def test_the_json_lists_counts_clues_and_habitats():
    seen = view(State.initial(game(codes_of("normal", 3)[0])).apply(Start(1)), 2)
    data = notebook(seen).to_json()
    assert [o["seat"] for o in data["opponents"]] == [1, 3]
    assert all(o["count"] == len(o["clues"]) > 0 for o in data["opponents"])
    assert all({"kind", "group", "probability"} <= set(clue) for o in data["opponents"] for clue in o["clues"])
    assert abs(sum(h["probability"] for h in data["habitats"]) - 1) < 0.01


def test_the_public_view_has_no_notebook():
    with pytest.raises(ValueError):
        notebook(view(State.initial(game(codes_of("normal", 3)[0])), None))


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("mode", ["normal", "advanced"])
def test_the_notebook_depends_only_on_the_seat_view(mode, players):
    rng = random.Random(f"notebook-fair-{mode}-{players}")
    positions = islice(other_clues_same_history(rng, mode, players, lambda state: rng.choice(list(state.seats))), 5)
    checked = [notebook(view(other_state, seat)) == notebook(seen) for _, seat, seen, other_state in positions]
    assert len(checked) >= 3 and all(checked)
