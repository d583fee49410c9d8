"""Refereed play (docs/cryptid-play.md): each rule on real games, the JSON forms, the views and the texts."""

import json
import re
from dataclasses import replace
from functools import cache

import pytest

from companion.cryptid import load_game
from companion.cryptid.hexgrid import hex_index, hex_name
from companion.cryptid.hexgrid import hexes_of as hexes
from companion.cryptid.play import (
    LOBBY,
    OPENING,
    OVER,
    TURNS,
    Ask,
    Cube,
    Disc,
    HostGone,
    IllegalMove,
    Leave,
    Move,
    MoveFormatError,
    Name,
    Reveal,
    Search,
    Start,
    State,
    VoteGone,
    WithdrawGone,
    hex_from_row_col,
    legal_moves,
)
from companion.cryptid.text import (
    ILLEGAL_MOVES,
    illegal_move_text,
    log_entry_text,
    mirror_text,
    pending_text,
)
from companion.cryptid.view import view
from tests.helpers import GOLDEN, REPO

PLAY_CODES = [g["code"] for g in GOLDEN if g["players"] >= 3]
THREE, FOUR, FIVE = "R342R-4E92A", "ZJDRN-A9N3W", "F9XGH-BF335"


@cache
def game(code: str):
    return load_game(code)


def play(state: State, *moves: Move) -> State:
    for move in moves:
        state = state.apply(move)
    return state


def lowest(mask: int) -> int:
    assert mask, "no hex qualifies"
    return (mask & -mask).bit_length() - 1


def opened(code: str, first: int = 1) -> State:
    """A game just past its opening, every opening cube on the lowest hex its seat may cover."""
    state = State.initial(game(code)).apply(Start(first))
    while state.phase == OPENING:
        state = state.apply(Cube(state.turn, lowest(state.cube_choices(state.turn))))
    return state


def finish_turn(state: State) -> State:
    """The seat to act asks the next seat about a hex that gives a disc (or places the cube it owes)."""
    seat = state.turn
    if state.pending == "cube":
        return state.apply(Cube(seat, lowest(state.cube_choices(seat))))
    target = seat % state.players + 1
    return state.apply(Ask(seat, target, lowest(state.ask_hexes(seat, target) & state.game.allowed(target))))


def hex_where(state: State, allows=(), rules_out=()) -> int:
    """The lowest hex without a cube that the seats `allows` allow and the seats `rules_out` rule out."""
    mask = ~state.all_cubes
    for seat in allows:
        mask &= state.game.allowed(seat)
    for seat in rules_out:
        mask &= ~state.game.allowed(seat)
    return lowest(mask & ((1 << 108) - 1))


def turn_moves(state: State) -> list[Move]:
    """The cube, extra disc, asks and searches of the seat to act: the moves that play the game on."""
    return [move for move in legal_moves(state, state.turn) if move.action in ("cube", "disc", "ask", "search")]


def entries(state: State, since: State) -> list[tuple]:
    return [(e.seat, e.action, e.piece) for e in state.log[len(since.log):]]


def reason(state: State, move: Move) -> str:
    with pytest.raises(IllegalMove) as caught:
        state.apply(move)
    return caught.value.reason


# --- lobby and opening ------------------------------------------------------------------------------------------


def test_the_lobby_takes_names_and_the_start_only():
    state = State.initial(game(FOUR))
    assert (state.phase, state.turn, state.pending, state.version, state.log) == (LOBBY, None, None, 0, ())
    state = state.apply(Name(2, "  Ben \t Stiller "))
    assert state.names == (None, "Ben Stiller", None, None) and state.version == 1 and state.log == ()
    assert reason(state, Cube(1, 0)) == "not_started"
    assert reason(state, Search(1, game(FOUR).habitat)) == "not_started"
    started = state.apply(Start(3))
    assert (started.phase, started.first, started.turn, started.pending) == (OPENING, 3, 3, "cube")
    assert reason(started, Start(1)) == "already_started"
    assert reason(state, Start(5)) == "no_such_seat"


@pytest.mark.parametrize("first", [1, 2, 4])
def test_the_opening_is_two_rounds_in_seat_order_from_the_first_player_who_then_takes_the_first_turn(first):
    state = State.initial(game(FOUR)).apply(Start(first))
    order = []
    while state.phase == OPENING:
        order.append(state.turn)
        state = state.apply(Cube(state.turn, lowest(state.cube_choices(state.turn))))
    expected = [(first - 1 + k) % 4 + 1 for k in range(4)]
    assert order == expected * 2
    assert (state.phase, state.turn, state.pending) == (TURNS, first, "move")
    assert [e.action for e in state.log] == ["cube"] * 8


def test_a_seat_that_left_in_the_lobby_places_no_opening_cube_and_the_next_seat_starts():
    state = play(State.initial(game(FOUR)), Leave(2), Start(2))
    assert state.turn == 3
    while state.phase == OPENING:
        state = state.apply(Cube(state.turn, lowest(state.cube_choices(state.turn))))
    assert [e.seat for e in state.log] == [2, 3, 4, 1, 3, 4, 1]
    assert state.turn == 3  # the first player left: the next active seat takes the first turn


# --- the cube rule ----------------------------------------------------------------------------------------------


def test_the_cube_rule_in_the_opening():
    state = State.initial(game(THREE)).apply(Start(1))
    allowed = game(THREE).allowed(1)
    assert state.cube_choices(1) == ((1 << 108) - 1) & ~allowed
    assert state.cube_choices(2) == 0
    assert reason(state, Cube(1, lowest(allowed))) == "clue_allows_hex"
    assert reason(state, Cube(2, lowest(state.cube_choices(1)))) == "not_your_turn"
    assert reason(state, Ask(1, 2, 0)) == "cube_expected"
    assert reason(state, Cube(1, 108)) == "off_board"
    assert reason(state, Cube(4, 0)) == "no_such_seat"
    covered = hex_where(state, rules_out=(1, 2))
    state = state.apply(Cube(1, covered))
    assert state.cubes_of(1) == 1 << covered and state.turn == 2
    assert reason(state, Cube(2, covered)) == "hex_has_cube"
    assert not state.cube_choices(2) >> covered & 1


# --- asking -----------------------------------------------------------------------------------------------------


def test_an_ask_the_clue_allows_gives_the_asked_seat_a_disc_and_ends_the_turn():
    state = opened(FOUR)
    hex_ = hex_where(state, allows=[3])
    after = state.apply(Ask(1, 3, hex_))
    assert after.discs_of(3) == state.discs_of(3) | 1 << hex_
    assert entries(after, state) == [(1, "ask", "disc")]
    assert after.log[-1].seat_asked == 3 and after.log[-1].hex == hex_
    assert (after.turn, after.pending) == (2, "move")
    assert reason(after, Ask(2, 3, hex_)) == "already_has_disc"


def test_an_ask_the_clue_rules_out_gives_the_asked_seat_a_cube_and_the_asker_owes_one():
    state = opened(FOUR)
    hex_ = hex_where(state, rules_out=[2])
    after = state.apply(Ask(1, 2, hex_))
    assert after.cubes_of(2) == state.cubes_of(2) | 1 << hex_
    assert entries(after, state) == [(1, "ask", "cube")]
    assert (after.turn, after.pending) == (1, "cube")
    assert reason(after, Ask(1, 3, hex_where(after))) == "cube_expected"
    assert reason(after, Search(1, game(FOUR).habitat)) == "cube_expected"
    placed = lowest(after.cube_choices(1))
    done = after.apply(Cube(1, placed))
    assert entries(done, after) == [(1, "cube", None)]
    assert (done.turn, done.pending) == (2, "move")
    assert reason(done, Cube(2, lowest(~game(FOUR).allowed(2) & ~done.all_cubes))) == "move_expected"


@pytest.mark.parametrize(
    "move, expected",
    [
        (lambda s: Ask(1, 1, hex_where(s)), "ask_self"),
        (lambda s: Ask(1, 5, hex_where(s)), "no_such_seat"),
        (lambda s: Ask(1, 0, hex_where(s)), "no_such_seat"),
        (lambda s: Ask(1, 2, lowest(s.all_cubes)), "hex_has_cube"),
        (lambda s: Ask(2, 3, hex_where(s)), "not_your_turn"),
        (lambda s: Ask(1, 2, -1), "off_board"),
        (lambda s: Cube(1, lowest(~s.game.allowed(1) & ~s.all_cubes)), "move_expected"),
        (lambda s: Search(1, hex_where(s, rules_out=[1])), "clue_rules_out_hex"),
        (lambda s: Search(1, lowest(s.all_cubes)), "hex_has_cube"),
    ],
)
def test_moves_that_break_a_rule_are_refused_with_their_reason(move, expected):
    state = opened(FOUR)
    refused = move(state)
    assert reason(state, refused) == expected
    assert not state.is_legal(refused)


# --- searching --------------------------------------------------------------------------------------------------


def test_a_search_is_answered_from_the_next_seat_until_the_first_cube_then_the_searcher_owes_a_cube():
    state = opened(FOUR)
    hex_ = hex_where(state, allows=[1, 2], rules_out=[3])
    after = state.apply(Search(1, hex_))
    assert entries(after, state) == [(1, "search", None), (2, "answer", "disc"), (3, "answer", "cube")]
    assert after.discs_of(1) >> hex_ & 1 and after.discs_of(2) >> hex_ & 1 and after.cubes_of(3) >> hex_ & 1
    assert not (after.discs_of(4) | after.cubes_of(4)) >> hex_ & 1  # seat 4 never answered
    assert (after.turn, after.pending, after.winner) == (1, "cube", None)


def test_searching_the_habitat_wins_when_every_other_seat_says_yes_answering_in_order_wrapping_round():
    state = finish_turn(finish_turn(opened(FOUR)))
    assert state.turn == 3
    habitat = game(FOUR).habitat
    after = state.apply(Search(3, habitat))
    assert entries(after, state) == [(3, "search", None), (4, "answer", "disc"), (1, "answer", "disc"),
                                     (2, "answer", "disc"), (3, "win", None)]
    assert (after.phase, after.winner, after.outcome, after.turn, after.pending) == (OVER, 3, "win", None, None)
    assert after.ranks == {1: 2, 2: 2, 3: 1, 4: 2}
    assert reason(after, Ask(4, 1, 0)) == "game_over"
    assert reason(after, Leave(1)) == "game_over"
    assert after.apply(Name(1, "Ana")).names[0] == "Ana"  # names may change after the end


def test_a_seat_that_already_has_a_disc_on_the_searched_hex_says_yes_without_placing():
    habitat = game(FOUR).habitat
    state = opened(FOUR).apply(Ask(1, 3, habitat))
    state = finish_turn(finish_turn(finish_turn(state)))
    assert state.turn == 1
    after = state.apply(Search(1, habitat))
    answers = [e for e in after.log[len(state.log):] if e.action == "answer"]
    assert [(e.seat, e.piece, e.placed) for e in answers] == [(2, "disc", True), (3, "disc", False), (4, "disc", True)]
    assert after.discs_of(3) == state.discs_of(3)
    assert after.winner == 1


def searching_own_disc(code: str = FOUR, habitat: bool = False) -> tuple[State, int]:
    """Seat 1 on turn with its own disc on a hex (the habitat, or a hex seat 2 rules out) that seat 2 put there by
    asking it: the rulebook's search of a hex that already holds the searcher's disc."""
    state = opened(code)
    target = game(code).habitat if habitat else hex_where(state, allows=[1], rules_out=[2])
    state = play(state, Ask(1, 2, hex_where(state, allows=[2])), Ask(2, 1, target))
    while state.turn != 1:
        state = finish_turn(state)
    assert state.discs_of(1) >> target & 1
    return state, target


def test_a_search_of_a_hex_with_the_searchers_own_disc_waits_for_an_extra_disc_before_anyone_answers():
    state, target = searching_own_disc()
    after = state.apply(Search(1, target))
    assert [(e.seat, e.action, e.placed) for e in after.log[len(state.log):]] == [(1, "search", False)]
    assert (after.turn, after.pending, after.search_hex) == (1, "disc", target)
    assert after.disc_choices(1) == game(FOUR).allowed(1) & ~after.all_cubes & ~after.discs_of(1)
    assert [m for m in legal_moves(after, 1) if m.action == "disc"] == [Disc(1, h) for h in hexes(after.disc_choices(1))]
    assert reason(after, Ask(1, 2, 0)) == "disc_expected"
    assert reason(after, Cube(1, lowest(~game(FOUR).allowed(1) & ~after.all_cubes))) == "disc_expected"
    assert reason(after, Disc(1, target)) == "disc_already_there"
    assert reason(after, Disc(1, lowest(~game(FOUR).allowed(1) & ~after.all_cubes & ((1 << 108) - 1)))) == "disc_clue_rules_out"
    assert reason(after, Disc(2, lowest(after.disc_choices(1)))) == "not_your_turn"
    extra = lowest(after.disc_choices(1))
    done = after.apply(Disc(1, extra))
    assert entries(done, after) == [(1, "disc", None), (2, "answer", "cube")]
    assert done.discs_of(1) == after.discs_of(1) | 1 << extra and done.log[len(after.log)].placement() == (1, "disc")
    assert (done.turn, done.pending, done.search_hex) == (1, "cube", None)
    assert view(after, 1).disc_choices == after.disc_choices(1) and view(after, 2).disc_choices == 0
    assert view(after, None).to_json()["pending"] == "disc"


def test_an_extra_disc_before_the_answers_still_wins_on_the_habitat():
    state, habitat = searching_own_disc(habitat=True)
    after = state.apply(Search(1, habitat))
    done = after.apply(Disc(1, lowest(after.disc_choices(1))))
    assert [e.action for e in done.log[len(after.log):]] == ["disc", "answer", "answer", "answer", "win"]
    assert done.winner == 1


def test_a_searcher_who_leaves_while_the_extra_disc_is_owed_abandons_the_search():
    state, target = searching_own_disc()
    after = state.apply(Search(1, target)).apply(Leave(1))
    assert entries(after, state) == [(1, "search", None), (1, "leave", None)]
    assert (after.turn, after.pending, after.search_hex) == (2, "move", None)


def test_a_search_with_no_hex_for_the_extra_disc_says_so_and_bounds_the_searchers_clue():
    state, target = searching_own_disc()
    # Cover every other hex the searcher's clue allows with its own discs: what a long game could come to.
    room = game(FOUR).allowed(1) & ~state.all_cubes & ~state.discs_of(1)
    discs = list(state.discs)
    discs[0] |= room
    crowded = replace(state, discs=tuple(discs))
    after = crowded.apply(Search(1, target))
    assert entries(after, crowded)[:2] == [(1, "search", None), (1, "skip", "disc")]
    assert after.log[len(crowded.log) + 1].hex == target and after.search_hex is None
    assert after.clue_within[0] == crowded.all_cubes | crowded.discs_of(1)
    assert after.clue_within[1:] == crowded.clue_within[1:]
    assert view(after, None).clue_within == after.clue_within
    assert log_entry_text(after.log[len(crowded.log) + 1], after.display_names()) == (
        f"Player 1 already had a disc on {hex_name(target)}, and no other hex could take an extra disc.")


# --- leaving, vanished players and the reveal ---------------------------------------------------------------------


def test_a_seat_that_leaves_on_its_turn_passes_it_on_still_answers_and_never_acts_again():
    state = opened(FOUR).apply(Leave(1))
    assert entries(state, opened(FOUR)) == [(1, "leave", None)]
    assert (state.turn, state.pending, state.left) == (2, "move", frozenset({1}))
    hex_ = hex_where(state, allows=[1])
    state = state.apply(Ask(2, 1, hex_))
    assert state.discs_of(1) >> hex_ & 1  # the clue of a seat that left still answers
    state = finish_turn(finish_turn(state))
    assert state.turn == 2  # seat 1's turn is skipped, without a log entry
    assert [e.action for e in state.log].count("skip") == 0
    assert reason(state, Leave(1)) == "you_left"
    assert reason(state, Ask(1, 2, 0)) == "you_left"
    assert reason(state, VoteGone(1, 2)) == "you_left"


def test_a_seat_that_leaves_during_the_opening_places_no_more_opening_cubes():
    state = State.initial(game(THREE)).apply(Start(1))
    state = state.apply(Cube(1, lowest(state.cube_choices(1))))
    state = state.apply(Leave(2))
    assert state.turn == 3
    while state.phase == OPENING:
        state = state.apply(Cube(state.turn, lowest(state.cube_choices(state.turn))))
    assert [(e.seat, e.action) for e in state.log] == [(1, "cube"), (2, "leave"), (3, "cube"), (1, "cube"), (3, "cube")]
    assert state.turn == 1


def test_a_forced_cube_is_dropped_when_its_owner_leaves():
    state = opened(FOUR)
    state = state.apply(Ask(1, 2, hex_where(state, rules_out=[2])))
    assert (state.turn, state.pending) == (1, "cube")
    state = state.apply(Leave(1))
    assert (state.turn, state.pending) == (2, "move")


def test_when_every_seat_has_left_the_game_ends_without_a_winner():
    state = play(opened(THREE), Leave(2), Leave(1))
    assert state.phase == TURNS and state.turn == 3
    state = state.apply(Leave(3))
    assert (state.phase, state.outcome, state.winner, state.ranks, state.turn) == (OVER, "all_left", None, None, None)
    assert pending_text(state, state.display_names()) == "The game is over: every player left."


def test_a_seat_is_gone_once_every_other_active_seat_votes_so():
    state = opened(FOUR)
    state = play(state, VoteGone(1, 3), VoteGone(2, 3))
    assert state.left == frozenset()
    assert reason(state, VoteGone(2, 3)) == "already_voted"
    assert reason(state, VoteGone(3, 3)) == "vote_self"
    assert reason(state, VoteGone(1, 7)) == "no_such_seat"
    state = state.apply(VoteGone(4, 3))
    assert state.left == {3} and state.log[-1].action == "leave" and state.log[-1].seat == 3
    assert reason(state, VoteGone(1, 3)) == "seat_left"
    assert reason(state, HostGone(3)) == "seat_left"


def test_a_vote_taken_back_no_longer_counts():
    state = play(opened(FOUR), VoteGone(1, 3), VoteGone(2, 3))
    assert reason(state, WithdrawGone(4, 3)) == "not_voted"
    state = state.apply(WithdrawGone(2, 3))
    assert state.gone_votes[2] == {1} and state.log == play(opened(FOUR), VoteGone(1, 3)).log  # no log entry
    assert WithdrawGone(1, 3) in legal_moves(state, 1) and WithdrawGone(2, 3) not in legal_moves(state, 2)
    state = state.apply(VoteGone(4, 3))
    assert state.left == frozenset()  # seat 2's vote is missing now
    state = state.apply(VoteGone(2, 3))
    assert state.left == {3}
    assert reason(state, WithdrawGone(1, 3)) == "seat_left"


def test_a_voter_who_leaves_stops_counting_so_the_votes_already_cast_can_be_enough():
    state = play(opened(FOUR), VoteGone(1, 3), VoteGone(2, 3))
    state = state.apply(Leave(4))
    assert state.left == {3, 4}
    assert [(e.seat, e.action) for e in state.log[-2:]] == [(4, "leave"), (3, "leave")]


def test_a_lone_active_seat_can_be_marked_gone_by_the_host_only():
    state = play(opened(THREE), VoteGone(1, 3), Leave(1), Leave(2))
    assert state.left == {1, 2} and state.phase == TURNS  # seat 1's vote does not remove the last active seat
    state = state.apply(HostGone(3))
    assert (state.phase, state.outcome) == (OVER, "all_left")


def test_the_host_marks_a_seat_gone_at_once_and_its_turn_passes():
    state = opened(FIVE).apply(HostGone(1))
    assert state.left == {1} and (state.turn, state.pending) == (2, "move")


@pytest.mark.parametrize(
    "before",
    [lambda: State.initial(game(FOUR)), lambda: State.initial(game(FOUR)).apply(Start(2)), lambda: opened(FOUR)],
    ids=["lobby", "opening", "turns"],
)
def test_the_reveal_ends_the_game_in_any_phase_without_a_winner_or_log_entry(before):
    state = before()
    after = state.apply(Reveal())
    assert (after.phase, after.outcome, after.winner, after.ranks, after.log) == (OVER, "reveal", None, None, state.log)
    assert reason(after, Reveal()) == "game_over"


def test_ranks_put_seats_that_left_after_the_others():
    state = play(opened(FIVE), Leave(4))
    while state.turn != 2:
        state = finish_turn(state)
    state = state.apply(Search(2, game(FIVE).habitat))
    assert state.ranks == {1: 2, 2: 1, 3: 2, 4: 3, 5: 2}


def test_a_seat_that_cannot_place_the_cube_it_owes_is_skipped_with_a_log_entry():
    """Ask about ruled-out hexes until somebody owes a cube and every hex its clue rules out is covered."""
    state = opened(FIVE)
    while "skip" not in [e.action for e in state.log]:
        seat = state.turn
        if state.pending == "cube":
            state = state.apply(Cube(seat, lowest(state.cube_choices(seat))))
            continue
        targets = [t for t in state.seats if state.ask_hexes(seat, t) & ~game(FIVE).allowed(t)]
        if not targets:
            pytest.fail("every ruled-out hex is covered and nobody had to skip")
        target = targets[0]
        state = state.apply(Ask(seat, target, lowest(state.ask_hexes(seat, target) & ~game(FIVE).allowed(target))))
    skip = state.log[-1]
    assert skip.action == "skip" and state.log[-2].action == "ask" and state.log[-2].seat == skip.seat
    assert state.cube_choices(skip.seat) == 0 and state.turn == skip.seat % 5 + 1 and state.pending == "move"
    assert log_entry_text(skip, state.display_names()) == f"Player {skip.seat} could not place a cube: no hex qualifies."


# --- names, versions, JSON --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, expected",
    [("Ana", "Ana"), ("  Chloé  Dupont\n", "Chloé Dupont"), ("x" * 24, "x" * 24), ("Ζωή 🎲", "Ζωή 🎲"),
     # Persian writing needs the zero-width non-joiner; emoji sequences the joiner.
     ("مهرنوش‌سادات", "مهرنوش‌سادات"), ("👩‍🚀", "👩‍🚀")],
)
def test_names_are_stripped_and_collapsed(name, expected):
    assert State.initial(game(THREE)).apply(Name(1, name)).display_names() == {1: expected, 2: "Player 2", 3: "Player 3"}


@pytest.mark.parametrize(
    "name, expected", [("", "name_empty"), (" \t", "name_empty"), ("x" * 25, "name_too_long"), ("a\x00b", "name_invalid"),
                       ("a\u200bb", "name_invalid"), ("a\u202eb", "name_invalid"), ("a\u2066b", "name_invalid"),
                       ("a\x07b", "name_invalid")]
)
def test_bad_names_are_refused(name, expected):
    assert reason(State.initial(game(THREE)), Name(1, name)) == expected


def test_a_stale_version_is_refused_and_the_current_one_or_none_accepted():
    state = opened(THREE)
    state.check_version(state.version)
    state.check_version(None)
    with pytest.raises(IllegalMove) as caught:
        state.check_version(state.version - 1)
    assert caught.value.reason == "stale_version"


def test_hex_from_row_col_checks_the_board():
    assert hex_from_row_col(0, 0) == 0 and hex_from_row_col(8, 11) == 107 and hex_from_row_col(4, 7) == hex_index(4, 7)
    for row, col in [(9, 0), (0, 12), (-1, 3)]:
        with pytest.raises(IllegalMove) as caught:
            hex_from_row_col(row, col)
        assert caught.value.reason == "off_board"


EVERY_MOVE = [Start(2), Name(3, "Ana"), Cube(1, 13), Ask(2, 3, 107), Search(4, 0), Disc(1, 14), Leave(5), VoteGone(1, 2),
              WithdrawGone(4, 1), HostGone(3), Reveal()]


@pytest.mark.parametrize("move", EVERY_MOVE, ids=lambda m: m.action)
def test_every_move_round_trips_through_json(move):
    data = json.loads(json.dumps(move.to_json()))
    assert Move.from_json(data) == move


def test_the_json_form_of_moves():
    assert [m.to_json() for m in EVERY_MOVE] == [
        {"action": "start", "first": 2},
        {"action": "name", "seat": 3, "name": "Ana"},
        {"action": "cube", "seat": 1, "row": 1, "col": 1},
        {"action": "ask", "seat": 2, "target": 3, "row": 8, "col": 11},
        {"action": "search", "seat": 4, "row": 0, "col": 0},
        {"action": "disc", "seat": 1, "row": 1, "col": 2},
        {"action": "leave", "seat": 5},
        {"action": "vote_gone", "voter": 1, "seat": 2},
        {"action": "withdraw_gone", "voter": 4, "seat": 1},
        {"action": "host_gone", "seat": 3},
        {"action": "reveal"},
    ]


@pytest.mark.parametrize(
    "data",
    [
        None, [], "cube", {}, {"action": "dance"}, {"action": "cube", "seat": 1, "row": 0},
        {"action": "cube", "seat": 1, "row": 0, "col": 0, "extra": 1}, {"action": "cube", "seat": "1", "row": 0, "col": 0},
        {"action": "cube", "seat": True, "row": 0, "col": 0}, {"action": "cube", "seat": 1, "row": 9, "col": 0},
        {"action": "cube", "seat": 1, "row": 0, "col": 1.0}, {"action": "name", "seat": 1, "name": 5},
        {"action": "start", "first": None}, {"action": "reveal", "seat": 1},
    ],
)
def test_malformed_move_json_is_refused(data):
    with pytest.raises(MoveFormatError):
        Move.from_json(data)


def test_replay_folds_the_same_state_as_applying_one_move_at_a_time():
    state = State.initial(game(FIVE))
    moves = [Name(1, "Ana"), Start(4)]
    state = play(state, *moves)
    while state.phase != OVER and len(moves) < 80:
        move = turn_moves(state)[len(moves) * 7 % len(turn_moves(state))]
        moves.append(move)
        state = state.apply(move)
    assert State.replay(game(FIVE), moves) == state
    assert state.version == len(moves)
    with pytest.raises(IllegalMove):
        State.replay(game(FIVE), moves + [Start(1)])


def test_two_player_games_cannot_be_refereed():
    with pytest.raises(ValueError, match="3-5 players"):
        State.initial(load_game(GOLDEN[0]["code"]))


# --- views ------------------------------------------------------------------------------------------------------

STATE_KEYS = {"version", "players", "mode", "map_code", "phase", "first", "turn", "pending", "seats", "discs", "cubes",
              "log", "winner", "ranks", "reveal"}


def test_the_public_view_and_a_seat_view_follow_play_md():
    state = opened(THREE).apply(Name(2, "Ben"))
    hex_ = hex_where(state, allows=[3])
    state = state.apply(Ask(1, 3, hex_))
    public = view(state).to_json()
    assert set(public) == STATE_KEYS
    assert public["players"] == 3 and public["mode"] == "normal" and public["map_code"] == game(THREE).board.to_map_code()
    assert (public["phase"], public["first"], public["turn"], public["pending"]) == ("turns", 1, 2, "move")
    assert public["seats"] == [{"seat": 1, "name": "Player 1", "left": False}, {"seat": 2, "name": "Ben", "left": False},
                               {"seat": 3, "name": "Player 3", "left": False}]
    assert {"seat": 3, "row": hex_ // 12, "col": hex_ % 12} in public["discs"]
    assert len(public["cubes"]) == 6
    assert public["log"][-1] == {"n": 7, "seat": 1, "action": "ask", "row": hex_ // 12, "col": hex_ % 12,
                                 "seat_asked": 3, "piece": "disc"}
    assert (public["winner"], public["ranks"], public["reveal"]) == (None, None, None)
    mine = view(state, 2).to_json()
    assert set(mine) == STATE_KEYS | {"you", "clue"}
    assert mine["you"] == 2 and mine["clue"] == game(THREE).seat_clues(2)[0].to_json()


def test_default_names_follow_the_reader_s_language():
    german = {"Player {seat}": "Spieler {seat}"}.get
    seen = view(State.initial(game(THREE)).apply(Name(1, "Ana")), gettext=lambda text: german(text, text)).to_json()
    assert [s["name"] for s in seen["seats"]] == ["Ana", "Spieler 2", "Spieler 3"]


def test_the_view_at_the_end_reveals_every_clue_and_the_habitat_and_the_ranks():
    state = opened(THREE).apply(Search(1, game(THREE).habitat))
    seen = view(state, 3).to_json()
    assert seen["winner"] == 1 and seen["ranks"] == {"1": 1, "2": 2, "3": 2}
    assert seen["reveal"] == {
        "clues": [clue.to_json() | {"seat": seat} for seat, clue in enumerate(game(THREE).clues, 1)],
        "habitat": {"row": 4, "col": 0},
    }


def test_a_seat_s_view_carries_its_own_clue_area_and_choices_and_nobody_else_s():
    state = opened(THREE)
    mine = view(state, 1)
    assert (mine.seat, mine.clue, mine.allowed) == (1, game(THREE).seat_clues(1)[0], game(THREE).allowed(1))
    assert mine.search_choices == state.search_choices(1) and mine.cube_choices == 0
    assert mine.ask_hexes == tuple(state.ask_hexes(1, target) for target in (1, 2, 3))
    hex_ = hex_where(state, allows=[2])
    assert 2 in mine.ask_targets(hex_) and mine.choices >> hex_ & 1
    waiting = view(state, 2)
    assert waiting.allowed == game(THREE).allowed(2) and waiting.choices == 0 and waiting.ask_targets(hex_) == ()
    public = view(state)
    assert (public.seat, public.clue, public.allowed, public.choices, public.reveal) == (None, None, 0, 0, None)
    assert mine.reveal is None and waiting.reveal is None
    over = view(state.apply(Reveal()), 2)
    assert over.reveal.habitat == game(THREE).habitat and over.reveal.seat_clues(3) == game(THREE).seat_clues(3)
    with pytest.raises(ValueError):
        view(state, 4)


# --- texts ------------------------------------------------------------------------------------------------------


def test_log_sentences_name_the_players_and_the_hexes_as_the_board_edges_print_them():
    names = {1: "Ana", 2: "Ben", 3: "Chloe", 4: "Dan"}
    assert hex_name(6 * 12 + 3) == "D7"
    state = opened(FOUR)
    disc_hex, cube_hex = hex_where(state, allows=[2]), hex_where(state, rules_out=[2])
    state = play(state, Ask(1, 2, disc_hex), Ask(2, 3, hex_where(state, allows=[3])))
    asked = state.log[-2]
    assert log_entry_text(asked, names) == f"Ana asked Ben about {hex_name(disc_hex)}: disc."
    state = state.apply(Ask(3, 2, cube_hex))
    assert log_entry_text(state.log[-1], names) == f"Chloe asked Ben about {hex_name(cube_hex)}: cube."
    assert pending_text(state, names) == "Chloe: place a cube."
    first = state.log[0]
    assert log_entry_text(first, names) == f"Ana placed a cube on {hex_name(first.hex)}."
    state = state.apply(Cube(3, lowest(state.cube_choices(3))))
    assert pending_text(state, names) == "Dan: ask or search."
    state = play(state, Leave(4), Search(1, game(FOUR).habitat))
    assert [log_entry_text(e, names) for e in state.log[-6:]] == [
        "Dan left the game.",
        f"Ana searched {hex_name(game(FOUR).habitat)}.",
        "Ben answered: disc.", "Chloe answered: disc.", "Dan answered: disc.", "Ana found the habitat and wins!",
    ]
    assert pending_text(state, names) == "The game is over: Ana found the habitat."


def test_pending_lines_before_the_start_and_after_a_reveal():
    state = State.initial(game(THREE))
    assert pending_text(state, state.display_names()) == "Waiting for the game to start."
    assert pending_text(state.apply(Reveal()), {}) == "The game is over: the table agreed to the reveal."


def test_mirror_lines_count_the_hex_on_the_tile_as_it_lies():
    # R342R-4E92A: slot 1 (top right) holds tile 5 turned around, slot 2 (middle left) tile 6 upright.
    board = game(THREE).board
    names = {1: "Ana", 2: "Ben", 3: "Chloe"}
    state = opened(THREE)
    top_right = hex_index(0, 6)
    asked = 2 if game(THREE).allowed(2) >> top_right & 1 else 3
    state = state.apply(Ask(1, asked, top_right))
    piece = state.log[-1].piece
    assert mirror_text(state.log[-1], board, names) == f"{names[asked]}: {piece} on tile 5 (top right), row 1, hex 1 from the left."
    habitat = hex_index(4, 0)
    while state.turn != 2:
        state = finish_turn(state)
    state = state.apply(Search(2, habitat))
    lines = [mirror_text(e, board, names) for e in state.log[-4:]]
    assert lines[0] == "Ben: disc on tile 6 (middle left), row 2, hex 1 from the left."
    assert lines[-1] is None  # the win entry places nothing
    assert mirror_text(opened(THREE).apply(Leave(1)).log[-1], board, names) is None


def test_every_refusal_reason_has_a_sentence_and_every_sentence_a_reason():
    source = (REPO / "companion" / "cryptid" / "play.py").read_text()
    raised = set(re.findall(r'IllegalMove\("(\w+)"', source))
    raised |= set(re.findall(r'"(\w+_expected)"', source))
    assert raised == set(ILLEGAL_MOVES)
    assert illegal_move_text("no_such_seat", {"seat": 6}) == "There is no seat 6 in this game."
    assert illegal_move_text("name_too_long", {"limit": 24}) == "A name can have at most 24 characters."
    assert str(IllegalMove("ask_self")) == "You cannot ask yourself: ask another player."
