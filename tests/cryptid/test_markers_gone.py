"""Marking a vanished player as gone at a Markers table (docs/cryptid-markers.md section 5), and the replay of a
finished game: the votes fold from the log, bad ones are refused, and random histories with votes in them keep
the markers and every secret."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cryptid.hexgrid import hex_name
from companion.cryptid.markers import (
    LAST_STANDING,
    LEAVE,
    LOBBY,
    OVER,
    HostGone,
    IllegalMove,
    Leave,
    Move,
    Name,
    NotHere,
    State,
    VoteGone,
    WithdrawGone,
    legal_moves,
    replay_view,
    view,
)
from tests.cryptid.test_markers import (
    ALL_READINGS,
    check_invariants,
    find_hex,
    game,
    random_move,
    started,
)


def test_a_seat_is_gone_once_every_other_player_still_in_the_game_agrees():
    state = started(4)
    state = state.apply(VoteGone(2, 1)).apply(VoteGone(3, 1))
    assert 1 not in state.left and state.turn == 1 and state.gone_votes[0] == {2, 3}
    assert view(state, 1).gone_votes[0] == {2, 3}  # the seat voted for sees it
    state = state.apply(WithdrawGone(3, 1))  # a slip, taken back
    assert state.gone_votes[0] == {2}
    state = state.apply(VoteGone(3, 1)).apply(VoteGone(4, 1))
    assert 1 in state.left and state.hands[0] == 0 and state.turn == 2
    assert state.log[-1].action == LEAVE and state.log[-1].seat == 1
    assert [e.action for e in state.log].count(LEAVE) == 1


def test_votes_write_nothing_in_the_log_and_fold_from_their_json():
    state = started(3)
    for move in (VoteGone(2, 1), WithdrawGone(2, 1), HostGone(3)):
        assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move
    assert state.apply(VoteGone(2, 1)).log == state.log
    moves = [VoteGone(2, 1), VoteGone(3, 1)]
    assert State.replay(state.game, [state_start(state), *moves]).left == {1}


def state_start(state: State):
    from companion.cryptid.markers import Start

    return Start(state.first)


@pytest.mark.parametrize("move, reason", [
    (VoteGone(1, 1), "vote_self"),
    (VoteGone(1, 9), "no_such_seat"),
    (VoteGone(0, 2), "no_such_seat"),
    (WithdrawGone(1, 2), "not_voted"),
])
def test_bad_votes_are_refused_with_a_reason(move, reason):
    with pytest.raises(IllegalMove) as refused:
        started(3).apply(move)
    assert refused.value.reason == reason and str(refused.value)


def test_who_may_vote_and_be_voted_for():
    state = started(3).apply(VoteGone(2, 1))
    with pytest.raises(IllegalMove) as refused:
        state.apply(VoteGone(2, 1))
    assert refused.value.reason == "already_voted"
    left = started(4).apply(Leave(3))
    for move, reason in ((VoteGone(3, 1), "you_left"), (VoteGone(1, 3), "seat_left"), (HostGone(3), "seat_left")):
        with pytest.raises(IllegalMove) as refused:
            left.apply(move)
        assert refused.value.reason == reason
    # A seat without markers is out of the turns: it no longer votes, nor can it be voted gone.
    state = started(3)
    broke = State.replay(state.game, [state_start(state)])
    while broke.phase != OVER and not (broke.out - broke.left):
        seat = broke.turn
        broke = broke.apply(NotHere(seat, find_hex(broke, seat, 0, broke.not_here_choices(seat)))
                            if broke.supply == 0 else legal_moves(broke, seat)[0])
    out = sorted(broke.out - broke.left)
    if broke.phase == OVER or not out:
        pytest.skip("no seat went out in this game")
    others = [seat for seat in broke.in_game if seat != out[0]]
    with pytest.raises(IllegalMove) as refused:
        broke.apply(VoteGone(out[0], others[0]))
    assert refused.value.reason == "you_are_out"
    with pytest.raises(IllegalMove) as refused:
        broke.apply(VoteGone(others[0], out[0]))
    assert refused.value.reason == "seat_out"


def test_with_two_players_in_the_game_one_vote_leaves_the_last_player_standing():
    state = started(2).apply(VoteGone(2, 1))
    assert state.phase == OVER and state.outcome == LAST_STANDING and state.winners == (2,)


def test_the_host_marks_a_seat_gone_alone_and_votes_work_in_the_lobby():
    state = started(3).apply(HostGone(2))
    assert state.left == {2} and state.supply > 0
    lobby = State.initial(game(3)).apply(VoteGone(1, 3)).apply(VoteGone(2, 3))
    assert lobby.phase == LOBBY and lobby.left == {3}


def test_a_voter_going_away_completes_the_vote_of_the_others():
    state = started(4).apply(VoteGone(2, 1)).apply(VoteGone(3, 1))
    assert 1 not in state.left
    state = state.apply(Leave(4))  # seat 4 never voted; once it is gone, everyone still in the game has
    assert state.left == {1, 4}


def test_the_replay_shows_every_sealed_claim_only_after_the_end():
    state = started(3)
    habitat = state.game.habitat
    moves = [state_start(state)]
    from companion.cryptid.markers import ItsHere

    sealed = state.apply(ItsHere(1, habitat))
    moves.append(ItsHere(1, habitat))
    with pytest.raises(ValueError):
        replay_view(sealed, moves, 2, 2)
    over = sealed
    while over.phase != OVER:
        seat = over.turn
        move = NotHere(seat, next(iter_hexes(over.not_here_choices(seat))))
        moves.append(move)
        over = over.apply(move)
    step = replay_view(over, moves, 2, 2)
    assert step.sealed_claims == ((1, habitat),) and step.reveal == view(over).reveal
    assert step.not_here_choices == step.its_here_choices == 0 and step.version == 2
    assert replay_view(over, moves, 0, None).sealed_claims == ()


def iter_hexes(mask: int):
    from companion.cryptid.hexgrid import hexes_of

    return iter(hexes_of(mask))


# Properties: random histories with votes in them.


def random_move_or_vote(state: State, rng: random.Random) -> Move:
    roll = rng.random()
    seats = list(state.seats)
    if roll < 0.1:
        return VoteGone(rng.choice(seats), rng.choice(seats))
    if roll < 0.13:
        return WithdrawGone(rng.choice(seats), rng.choice(seats))
    if roll < 0.14:
        return HostGone(rng.choice(seats))
    return random_move(state, rng)


@settings(max_examples=60, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), number=st.integers(0, 3), reading=st.sampled_from(ALL_READINGS),
       seed=st.integers(0, 2**32))
def test_random_histories_with_votes_fold_and_keep_markers_and_secrets(players, number, reading, seed):
    rng = random.Random(seed)
    state = State.initial(game(players, number), reading)
    moves = []
    for _ in range(160):
        move = random_move_or_vote(state, rng)
        listed = legal_moves(state, getattr(move, "voter", None)) if isinstance(move, (VoteGone, WithdrawGone)) \
            else legal_moves(state, None) if isinstance(move, HostGone) else None
        try:
            following = state.apply(move)
        except IllegalMove as refused:
            assert refused.reason and str(refused) and not state.is_legal(move)
            assert listed is None or move not in listed
            continue
        assert listed is None or move in listed or isinstance(move, Name)
        moves.append(move)
        state = following
        check_invariants(state)
        if state.phase != OVER:  # a sealed claim is its claimant's alone, in the view and the JSON
            for seat in state.seats:
                seen, own = view(state, seat), dict(state.sealed).get(seat)
                assert seen.sealed_claims == () and seen.sealed_hex == own
                assert seen.to_json()["sealed"] == (None if own is None else hex_name(own))
            with pytest.raises(ValueError):
                replay_view(state, moves, 0)
        for seat in state.seats:  # the votes against a seat never count one from outside the game
            assert not (state.phase != OVER and seat in state.in_game
                        and len(state.in_game) > 1 and set(state.in_game) - {seat} <= state.gone_votes[seat - 1])
        if state.phase == OVER:
            break
    assert State.replay(state.game, [Move.from_json(move.to_json()) for move in moves], reading) == state
    if state.phase == OVER:  # each step of the replay: the position then, every sealed claim shown
        for step in range(0, len(moves) + 1, 3):
            past = State.replay(state.game, moves[:step], reading)
            for viewer in (None, *state.seats):
                shown = replay_view(state, moves, step, viewer)
                assert shown.sealed_claims == past.sealed and shown.markers == past.markers
                assert shown.reveal is not None
