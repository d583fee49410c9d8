"""The Markers variant's engine (docs/cryptid-markers.md): its rules one by one, and properties over random
histories under every reading (every legal history folds, markers are conserved, no seat sees another's clue)."""

import json
import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cryptid.generator import new_game
from companion.cryptid.hexgrid import ALL_HEXES, HEX_COUNT, hexes_of
from companion.cryptid.markers import (
    ABANDONED,
    BORROW,
    BORROWS,
    ENDED,
    EXHAUSTED,
    FIRST,
    FOUND,
    HAND_SIZES,
    ITS_HERE,
    LAST_STANDING,
    LOBBY,
    NOT_HERE,
    OBJECT,
    OVER,
    PAY,
    PAY_EACH,
    PAY_FIRST,
    REFUND,
    SILENT,
    SUPPLY,
    TAKE,
    TURNS,
    End,
    HostGone,
    IllegalMove,
    ItsHere,
    Leave,
    Move,
    MoveFormatError,
    Name,
    NotHere,
    Rules,
    Start,
    State,
    VoteGone,
    legal_moves,
    view,
)
from companion.cryptid.rng import Stream

AS_WRITTEN = Rules(refund=False, sealed=False)
AT_ONCE = Rules(sealed=False)  # "it's here" checked at once, as the description has it
ALL_READINGS = [
    Rules(objections, wrong, hand, refund, sealed)
    for objections in ("every", FIRST)
    for sealed in (False, True)
    for wrong in (PAY_EACH, PAY_FIRST, TAKE)
    for hand in ("out", BORROWS)
    for refund in (True, False)
]


@cache
def game(players: int, number: int = 0, mode: str = "normal"):
    return new_game(players, mode, entropy=Stream("markers-test", players, number, mode))


def started(players: int, rules: Rules = Rules(), first: int = 1, number: int = 0) -> State:
    return State.initial(game(players, number), rules).apply(Start(first))


def objectors(state: State, seat: int, hex: int) -> list[int]:
    """Other seats, clockwise, with a clue that allows the hex (from the game's secret, as the referee knows it)."""
    seats = [(seat - 1 + step) % state.players + 1 for step in range(1, state.players)]
    return [other for other in seats for p in state.clue_positions(other) if state._areas[p] >> hex & 1]


def find_hex(state: State, seat: int, want: int, choices: int) -> int:
    """A hex of `choices` that exactly `want` other clues allow."""
    for hex in hexes_of(choices):
        if len(objectors(state, seat, hex)) == want:
            return hex
    pytest.skip(f"no hex with {want} objections in this game")


def test_hands_come_from_a_supply_of_sixteen():
    for players, hand in HAND_SIZES.items():
        state = started(players)
        assert state.hands == (hand,) * players
        assert state.supply == SUPPLY - hand * players
        assert state.turn == 1 and state.phase == TURNS


def test_the_game_is_for_two_to_four_players():
    with pytest.raises(ValueError):
        State.initial(game(5))


def test_a_not_here_claim_must_be_true_for_the_claimants_clues():
    state = started(3)
    allowed = state.allowed(1)
    with pytest.raises(IllegalMove) as refused:
        state.apply(NotHere(1, hexes_of(allowed)[0]))
    assert refused.value.reason == "clue_allows_hex"
    with pytest.raises(IllegalMove) as refused:
        state.apply(ItsHere(1, hexes_of(ALL_HEXES & ~allowed)[0]))
    assert refused.value.reason == "clue_rules_out_hex"
    with pytest.raises(IllegalMove) as refused:
        state.apply(NotHere(2, hexes_of(ALL_HEXES & ~state.allowed(2))[0]))
    assert refused.value.reason == "not_your_turn"


def test_every_objector_pays_the_claimant_one_marker():
    state = started(3)
    hex = find_hex(state, 1, 2, state.not_here_choices(1))
    after = state.apply(NotHere(1, hex))
    assert after.hands == (3 - 1 + 2, 2, 2)
    assert [entry.action for entry in after.log] == [NOT_HERE, OBJECT, PAY, OBJECT, PAY]
    assert after.markers == ((hex, 1, NOT_HERE),)
    assert after.turn == 2
    # Both answers are public, and the claimant's lone clue is seen to rule the hex out.
    assert after.allows[1] >> hex & 1 and after.allows[2] >> hex & 1 and after.rules_out[0] >> hex & 1


def test_the_first_objection_ends_the_check_under_that_reading():
    state = started(3, Rules(objections=FIRST))
    hex = find_hex(state, 1, 2, state.not_here_choices(1))
    after = state.apply(NotHere(1, hex))
    assert after.hands == (3, 2, 3)
    assert not after.allows[2] >> hex & 1 and not after.rules_out[2] >> hex & 1


def test_a_claim_nobody_objects_to_is_refunded_while_the_supply_lasts():
    state = started(3)
    hex = find_hex(state, 1, 0, state.not_here_choices(1))
    after = state.apply(NotHere(1, hex))
    assert after.hands == (3, 3, 3) and after.supply == state.supply - 1
    assert [entry.action for entry in after.log] == [NOT_HERE, SILENT, SILENT, REFUND]
    as_written = started(3, AS_WRITTEN).apply(NotHere(1, hex))
    assert as_written.hands == (2, 3, 3) and as_written.supply == state.supply


def test_a_correct_its_here_wins():
    state = started(3, AT_ONCE)
    habitat = state.game.habitat
    after = state.apply(ItsHere(1, habitat))
    assert after.phase == OVER and after.outcome == FOUND and after.winner == 1
    assert after.ranks == {1: 1, 2: 2, 3: 2}


@pytest.mark.parametrize("reading, hands", [(PAY_EACH, (0, 4, 4)), (PAY_FIRST, (1, 4, 3)), (TAKE, (4, 2, 2))])
def test_who_pays_after_a_wrong_its_here(reading, hands):
    state = started(3, Rules(wrong_claim=reading, sealed=False))
    hex = find_hex(state, 1, 0, state.its_here_choices(1))  # both other clues rule it out
    after = state.apply(ItsHere(1, hex))
    assert after.hands == hands and after.markers == ((hex, 1, ITS_HERE),)
    assert after.rules_out[1] >> hex & 1 and after.rules_out[2] >> hex & 1 and after.allows[0] >> hex & 1
    if reading == PAY_EACH:  # 3 - 1 placed - 2 paid: seat 1 is out, two are left
        assert 1 in after.out and after.phase == TURNS and after.turn == 2


def test_the_last_player_with_markers_wins():
    state = started(2, AS_WRITTEN)
    moves = 0
    while state.phase != OVER and moves < 40:
        seat = state.turn
        choices = state.not_here_choices(seat)
        hex = next((h for h in hexes_of(choices) if not objectors(state, seat, h)), hexes_of(choices)[0])
        state = state.apply(NotHere(seat, hex))
        moves += 1
    assert state.phase == OVER and state.outcome == LAST_STANDING
    (winner,) = [seat for seat in state.seats if seat not in state.out]
    assert state.winner == winner and state.hands[winner - 1] > 0


def test_a_seat_without_markers_borrows_under_that_reading():
    state = started(3, Rules(empty_hand=BORROWS, refund=False))
    state = state.apply(NotHere(1, find_hex(state, 1, 0, state.not_here_choices(1))))
    for seat in (2, 3):  # seat 1 alone objects: it pays its last two markers
        hex = next((h for h in hexes_of(state.not_here_choices(seat)) if objectors(state, seat, h) == [1]), None)
        if hex is None:
            pytest.skip("no hex only seat 1 allows")
        state = state.apply(NotHere(seat, hex))
    assert state.hands == (0, 3, 3) and 1 not in state.out and state.turn == 1
    # Seat 1 takes one from the next seat clockwise that has any, and places it.
    hex = find_hex(state, 1, 0, state.not_here_choices(1))
    after = state.apply(NotHere(1, hex))
    assert after.hands == (0, 2, 3)
    assert [entry.action for entry in after.log[len(state.log):]][:2] == [BORROW, NOT_HERE]


def test_two_players_hold_two_clues_each_and_each_clue_answers():
    state = started(2)
    assert list(state.clue_positions(1)) == [0, 1] and list(state.clue_positions(2)) == [2, 3]
    hex = find_hex(state, 1, 2, state.not_here_choices(1))
    after = state.apply(NotHere(1, hex))
    assert after.hands == (4 - 1 + 1, 3)  # both clues of seat 2 object; the player pays once
    assert [entry.clue for entry in after.log if entry.action == OBJECT] == [2, 3]


def test_leaving_returns_the_markers_and_the_turn_passes():
    state = started(3)
    after = state.apply(Leave(1))
    assert after.turn == 2 and after.hands == (0, 3, 3) and after.supply == state.supply + 3
    after = after.apply(Leave(2))
    assert after.phase == OVER and after.winner == 3 and after.outcome == LAST_STANDING


def test_the_host_ends_a_game_and_everyone_leaving_abandons_it():
    assert started(3).apply(End()).outcome == ENDED
    lobby = State.initial(game(2))
    assert lobby.phase == LOBBY
    assert lobby.apply(Leave(1)).apply(Leave(2)).outcome == ABANDONED


def test_names_and_moves_have_one_json_form():
    for move in (Start(2), Name(1, "Zoë"), NotHere(3, 17), ItsHere(1, 107), Leave(2), End()):
        assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move
    for bad in ({"action": "not_here", "seat": 1}, {"action": "its_here", "seat": 1, "row": 9, "col": 0},
                {"action": "ask"}, [], {"action": "leave", "seat": True}):
        with pytest.raises(MoveFormatError):
            Move.from_json(bad)
    with pytest.raises(IllegalMove) as refused:
        State.initial(game(3)).apply(Name(1, "   "))
    assert refused.value.reason == "name_empty" and str(refused.value)


def test_the_view_shows_a_seat_its_own_clues_only_until_the_end():
    state = started(4)
    for seat in state.seats:
        seen = view(state, seat)
        assert seen.clues == state.game.seat_clues(seat) and seen.reveal is None
        text = json.dumps(seen.to_json())
        for other in state.seats:
            if other != seat:
                assert state.game.seat_clues(other)[0].id not in text or state.game.seat_clues(other)[0] in seen.clues
    public = view(state)
    assert public.clues == () and public.not_here_choices == 0 and "clues" not in public.to_json()
    over = state.apply(End())
    assert len(view(over).to_json()["reveal"]["clues"]) == 4 and view(over, 2).reveal == view(over).reveal


# Properties over random histories, under every reading.


def random_move(state: State, rng: random.Random) -> Move:
    """A move a table could send: mostly the acting seat's claims, sometimes a leave, a name or a broken move."""
    roll = rng.random()
    seats = list(state.seats)
    if roll < 0.05:
        return rng.choice([NotHere, ItsHere])(rng.choice(seats), rng.randrange(-1, HEX_COUNT + 1))
    if roll < 0.07:
        return Leave(rng.choice(seats))
    if roll < 0.08:
        return Name(rng.choice(seats), rng.choice(["Ana", "", "x" * 30]))
    if roll < 0.085:
        return End()
    if state.turn is None:
        return Start(rng.choice(seats))
    moves = [move for move in legal_moves(state, state.turn) if not isinstance(move, Leave)]
    claims = [move for move in moves if isinstance(move, NotHere)] if rng.random() < 0.85 else moves
    return rng.choice(claims or moves)


def check_invariants(state: State) -> None:
    placed = len(state.markers) + len(state.sealed)
    assert sum(state.hands) + state.supply + placed == SUPPLY  # conserved, except those placed
    assert all(hand >= 0 for hand in state.hands) and state.supply >= 0
    not_here = [hex for hex, _, kind in state.markers if kind == NOT_HERE]
    assert len(set(not_here)) == len(not_here)
    for hex, seat, kind in state.markers:
        allowed = state.allowed(seat) >> hex & 1
        assert allowed if kind == ITS_HERE else not allowed
    for position, area in enumerate(state._areas):  # public answers are true
        assert not state.allows[position] & ~area and not state.rules_out[position] & area
    if state.phase == TURNS:
        assert state.turn not in state.out
        assert state.not_here_choices(state.turn) or state.its_here_choices(state.turn)
    if state.phase == OVER:
        assert state.turn is None
        assert bool(state.winners) == (state.outcome in (FOUND, LAST_STANDING))
        for winner in state.winners if state.outcome == FOUND else ():
            assert (state.game.habitat, winner, ITS_HERE) in state.markers
    for seat in state.seats:  # no seat's view holds another's clue before the end
        seen = view(state, seat)
        secrets = {clue.id for other in state.seats if other != seat for clue in state.game.seat_clues(other)}
        secrets -= {clue.id for clue in seen.clues}
        text = json.dumps(seen.to_json())
        assert (state.phase == OVER) == (seen.reveal is not None)
        if state.phase != OVER:
            assert not any(f'"{secret}"' in text for secret in secrets)
            assert seen.to_json()["reveal"] is None
            for other, hex in state.sealed:  # a sealed claim is its claimant's secret
                assert (seen.sealed_hex == hex) == (other == seat) or other != seat


def play_random(players: int, number: int, rules: Rules, seed: int, checks: bool = True) -> State:
    rng = random.Random(seed)
    state = State.initial(game(players, number), rules)
    moves = []
    for _ in range(120):
        move = random_move(state, rng)
        try:
            following = state.apply(move)
        except IllegalMove as refused:
            assert refused.reason and str(refused)
            assert not state.is_legal(move)
            continue
        moves.append(move)
        state = following
        if checks:
            check_invariants(state)
        if state.phase == OVER:
            break
    assert state.phase == OVER  # every game ends within the markers it has
    assert State.replay(state.game, [Move.from_json(move.to_json()) for move in moves], rules) == state
    return state


@settings(max_examples=60, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), number=st.integers(0, 3), reading=st.sampled_from(ALL_READINGS),
       seed=st.integers(0, 2**32))
def test_every_random_history_folds_and_keeps_the_rules(players, number, reading, seed):
    play_random(players, number, reading, seed)


def test_many_random_games_end_under_every_reading():
    outcomes = set()
    for index, reading in enumerate(ALL_READINGS * 4):
        state = play_random(2 + index % 3, index % 4, reading, index, checks=index % 6 == 0)
        outcomes.add(state.outcome)
    assert LAST_STANDING in outcomes
    assert outcomes <= {FOUND, LAST_STANDING, EXHAUSTED, ENDED, ABANDONED}


def test_legal_moves_are_exactly_the_legal_claims():
    state = started(3)
    listed = set(legal_moves(state, 1))
    for hex in range(HEX_COUNT):
        for kind in (NotHere, ItsHere):
            assert (kind(1, hex) in listed) == state.is_legal(kind(1, hex))
    assert legal_moves(state, 2) == [Leave(2), VoteGone(2, 1), VoteGone(2, 3)]
    assert legal_moves(state, None) == [HostGone(1), HostGone(2), HostGone(3), End()]


@pytest.mark.parametrize("ties, winners", [("share", (1, 2)), ("later", (2,)), ("earlier", (1,))])
def test_sealed_claims_are_opened_at_the_end_of_the_round(ties, winners):
    state = started(3, Rules(sealed=True, ties=ties))
    habitat = state.game.habitat
    state = state.apply(ItsHere(1, habitat))
    assert state.sealed == ((1, habitat),) and state.phase == TURNS and state.turn == 2
    assert view(state, 2).sealed_hex is None and view(state, 1).sealed_hex == habitat
    assert view(state).sealed_by == (1,) and state.log[-1].hex is None
    state = state.apply(ItsHere(2, habitat))  # the same hex: a sealed claim does not mark it
    assert state.phase == TURNS
    state = state.apply(NotHere(3, find_hex(state, 3, 0, state.not_here_choices(3))))
    # Both are right and hold two markers each: the tie is settled as the rules say.
    assert state.phase == OVER and state.outcome == FOUND and state.winners == winners
    assert state.right == view(state).right == (1, 2) and view(state).to_json()["right"] == [1, 2]
    assert [marker[1] for marker in state.markers if marker[2] == ITS_HERE] == [1, 2]
    assert state.ranks == {seat: 1 if seat in winners else 2 for seat in state.seats}


def three_right_claims() -> State:
    """A 3-player game whose second round has three right "it's here" claims, seat 1 holding the most markers:
    seat 1's "not here" drew two objections (4 markers to 2 and 2), seats 2 and 3 were refunded theirs."""
    state = started(3)
    state = state.apply(NotHere(1, find_hex(state, 1, 2, state.not_here_choices(1))))
    for seat in (2, 3):
        state = state.apply(NotHere(seat, find_hex(state, seat, 0, state.not_here_choices(seat))))
    assert state.hands == (4, 2, 2)
    for seat in (1, 2, 3):
        state = state.apply(ItsHere(seat, state.game.habitat))
    return state


def test_of_several_right_claims_the_most_markers_win_and_the_state_says_who_was_right():
    state = three_right_claims()
    assert state.phase == OVER and state.outcome == FOUND
    assert state.right == (1, 2, 3) and state.winners == (1,) and state.hands == (3, 1, 1)


def test_rules_have_one_text_form():
    for rules in ALL_READINGS:
        assert Rules.from_text(rules.to_text()) == rules
    assert Rules.from_text("") == Rules()
    for bad in ("refund=maybe", "speed=fast", "ties"):
        with pytest.raises(ValueError):
            Rules.from_text(bad)


def test_two_clues_rarely_single_out_one_hex():
    """Why a 2-player Markers game deals two clues each (docs/cryptid-markers.md section 2, point 2): over the
    official maps, few pairs of clues (neither making the other useless) allow exactly one hex."""
    from itertools import combinations

    from companion.cryptid.board import Board
    from companion.cryptid.clues import clue_areas, clues_for_mode
    from tests.helpers import DATA

    maps = {json.loads(line)["map_code"] for line in (DATA / "official-setups.jsonl").read_text().splitlines()}
    pairs, single, boards = {"normal": 0, "advanced": 0}, {"normal": 0, "advanced": 0}, {"normal": 0, "advanced": 0}
    for code in maps:
        board = Board.from_map_code(code)
        areas = clue_areas(board)
        found = 0
        for first, second in combinations(clues_for_mode(board.mode), 2):
            a, b = areas[first.index], areas[second.index]
            if a and b and a & b not in (a, b):
                pairs[board.mode] += 1
                found += (a & b).bit_count() == 1
        single[board.mode] += found
        boards[board.mode] += bool(found)
    assert len(maps) == 320
    assert pairs == {"normal": 40469, "advanced": 175574}
    assert single == {"normal": 7, "advanced": 15} and boards == {"normal": 7, "advanced": 12}
