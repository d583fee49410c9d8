"""Computer players of Markers: legal claims from one seat's view only, and the sharp level's certainty."""

import random

import pytest

from companion.cryptid.markers import OVER, ItsHere, Start, State, view
from companion.cryptid.markers.bots import (
    ALL_LEVELS,
    LEVELS,
    choose_claim,
    evidence_of,
    habitat_odds,
)
from tests.cryptid.test_markers import game


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("level", sorted(ALL_LEVELS))
def test_every_level_plays_legal_claims_to_the_end(players, level):
    state = State.initial(game(players, 1)).apply(Start(players))
    rng = random.Random(level)
    while state.phase != OVER:
        move = choose_claim(view(state, state.turn), ALL_LEVELS[level], rng)
        assert state.is_legal(move)
        state = state.apply(move)
    assert state.claims <= 16


def test_a_player_not_to_act_has_no_claim():
    state = State.initial(game(3)).apply(Start(1))
    with pytest.raises(ValueError):
        choose_claim(view(state, 2), LEVELS["sharp"], random.Random(1))


def test_the_evidence_holds_the_seats_own_clues_and_no_other():
    state = State.initial(game(2)).apply(Start(1))
    seen = view(state, 2)
    evidence = evidence_of(seen)
    assert evidence.seat == 3 and evidence.clue == state.game.clues[2]  # seat 2 holds clues 3 and 4
    assert evidence.discs[0] == evidence.discs[1] == 0  # nothing known of seat 1's clues
    assert evidence.discs[3] == state._areas[3]  # its own second clue, as pieces on every hex


def test_odds_sum_to_one_and_the_habitat_is_never_ruled_out():
    for players in (2, 3, 4):
        state = State.initial(game(players, 2)).apply(Start(1))
        for name in ("basic", "sharp"):
            odds, allows = habitat_odds(view(state, 1), LEVELS[name])
            assert abs(sum(odds) - 1) < 1e-9 and odds[state.game.habitat] > 0
            assert len(allows) == len(state.game.clues)


def test_sharp_claims_its_here_once_it_is_sure():
    state = State.initial(game(3)).apply(Start(1))
    odds, _ = habitat_odds(view(state, 1), LEVELS["sharp"])
    move = choose_claim(view(state, 1), ALL_LEVELS["sharp-100"], random.Random(0))
    assert isinstance(move, ItsHere) == (max(odds) > 1 - 1e-9)


def test_a_decision_depends_on_the_seats_view_alone():
    """Swap the other seats' clues (and the habitat) for any other setup the seat's evidence allows, replay the
    same moves: the seat sees the same view and makes the same claim."""
    from dataclasses import replace
    from itertools import islice

    from companion.cryptid.clues import CLUES
    from companion.cryptid.deduction import each_assignment
    from companion.cryptid.markers import IllegalMove

    checked = 0
    for players in (3, 4):
        original = game(players, 3)
        state = State.initial(original).apply(Start(1))
        moves = [Start(1)]
        while state.phase != OVER and len(moves) < 6:
            seat = state.turn
            seen = view(state, seat)
            for name in ("basic", "sharp"):
                claim = choose_claim(seen, LEVELS[name], random.Random(7))
                for order, habitat in islice(each_assignment(evidence_of(seen)), 0, 40, 8):
                    other = replace(original, clues=tuple(CLUES[index] for index in order), habitat=habitat)
                    try:
                        other_state = State.replay(other, moves)
                    except IllegalMove:  # another seat's earlier claim would break this setup's rules
                        continue
                    assert view(other_state, seat) == seen
                    assert choose_claim(view(other_state, seat), LEVELS[name], random.Random(7)) == claim
                    checked += 1
            move = choose_claim(seen, LEVELS["basic"], random.Random(len(moves)))
            state = state.apply(move)
            moves.append(move)
    assert checked >= 10
