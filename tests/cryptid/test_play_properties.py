"""Refereed play under random legal (and illegal) moves: every rule of docs/cryptid-play.md checked after every move.

The same checks run under Hypothesis (shrinking to a small failing game) and in a plain seeded loop over a few
hundred games on the golden codes (ten times as many with COMPANION_THOROUGH=1), 3-5 players, normal and advanced,
with players leaving, being voted or marked gone and tables revealing.
"""

import json
import random
from functools import cache
from itertools import repeat
from typing import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cryptid.hexgrid import HEX_COUNT, hexes_of
from companion.cryptid.play import (
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
    Name,
    Reveal,
    Search,
    Start,
    State,
    VoteGone,
    legal_moves,
)
from companion.cryptid.text import ILLEGAL_MOVES
from companion.cryptid.view import view
from tests.cryptid.test_play import PLAY_CODES, game, turn_moves
from tests.helpers import how_many


def random_hex(mask: int, rng: random.Random) -> int:
    if mask.bit_count() < 16:
        return rng.choice(hexes_of(mask))
    while True:  # quicker than listing a mask's many hexes
        hex_ = rng.randrange(HEX_COUNT)
        if mask >> hex_ & 1:
            return hex_


def random_move(state: State, rng: random.Random, search_share: float = 0.1) -> Move:
    """A move a table could send: mostly the acting seat's cubes, asks and searches (`search_share` of its turns),
    sometimes a table action, sometimes a move that may break a rule."""
    roll = rng.random()
    seats = list(state.seats)
    if roll < 0.04:
        return rng.choice([Cube, Search, Disc])(rng.choice(seats), rng.randrange(-1, HEX_COUNT + 1))
    if roll < 0.06:
        return Ask(rng.choice(seats), rng.randrange(0, state.players + 2), rng.randrange(HEX_COUNT))
    if roll < 0.07:
        return Name(rng.choice(seats), rng.choice(["Ana", "  Ben  ", "", "x" * 30, "Zoë"]))
    if roll < 0.08:
        return Leave(rng.choice(seats))
    if roll < 0.10:
        return VoteGone(rng.choice(seats), rng.choice(seats))
    if roll < 0.103:
        return HostGone(rng.choice(seats))
    if roll < 0.104:
        return Reveal()
    if state.turn is None:
        return Start(rng.choice(seats))
    seat = state.turn
    if state.pending == "cube":
        return Cube(seat, random_hex(state.cube_choices(seat), rng))
    if state.pending == "disc":
        return Disc(seat, random_hex(state.disc_choices(seat), rng))
    own_discs = state.search_choices(seat) & state.discs_of(seat)
    if own_discs and rng.random() < search_share:  # the rulebook's search of a hex that holds one's own disc
        return Search(seat, random_hex(own_discs, rng))
    if rng.random() >= search_share:
        target = rng.choice([t for t in seats if t != seat])
        if state.ask_hexes(seat, target):
            return Ask(seat, target, random_hex(state.ask_hexes(seat, target), rng))
    return Search(seat, random_hex(state.search_choices(seat), rng))


def next_active(state: State, after: int) -> int:
    seat = after % state.players + 1
    while seat in state.left:
        seat = seat % state.players + 1
    return seat


@cache
def seat_areas(code: str) -> dict[int, int]:
    """Per seat, the hexes its clue allows, worked out apart from the engine's own table."""
    g = game(code)
    return {seat: g.allowed(seat) for seat in range(1, g.players + 1)}


def check_position(state: State, allows: dict[int, int]) -> None:
    """What holds in every state: the cube and disc rules, truthful pieces, a consistent phase and turn."""
    cubes_seen = 0
    for seat in state.seats:
        assert state.cubes_of(seat) & allows[seat] == 0, "a cube where its owner's clue allows the hex"
        assert state.discs_of(seat) & ~allows[seat] == 0, "a disc where its owner's clue rules the hex out"
        assert state.cubes_of(seat) & cubes_seen == 0, "two cubes on one hex"
        cubes_seen |= state.cubes_of(seat)
    assert not cubes_seen >> state.game.habitat & 1
    if state.phase == OVER:
        assert (state.turn, state.pending) == (None, None)
        assert (state.winner is not None) == (state.outcome == "win")
    else:
        assert state.outcome is None and state.winner is None
        assert (state.turn is None) == (state.pending is None) == (state.first is None)
    if state.turn is not None:
        assert state.turn not in state.left
        # The habitat never gets a cube, so a seat that must ask or search can always search; an extra disc is
        # owed only while some hex can take it.
        choices = {"cube": state.cube_choices, "disc": state.disc_choices}.get(state.pending, state.search_choices)
        assert choices(state.turn)
    assert (state.search_hex is not None) == (state.pending == "disc")
    if state.winner is not None:
        assert state.ranks == {s: 1 if s == state.winner else 3 if s in state.left else 2 for s in state.seats}
    else:
        assert state.ranks is None


def check_move(before: State, move: Move, after: State, allows: dict[int, int]) -> None:
    """What a legal move does: version, log entries, answer order, forced cubes, turn order, opening counts."""
    assert after.version == before.version + 1
    new = after.log[len(before.log):]
    assert not before.log or after.log[len(before.log) - 1] is before.log[-1], "the log only grows"
    assert [e.n for e in new] == list(range(len(before.log) + 1, len(after.log) + 1))
    # Every piece the new entries place is a new piece on the board: nothing placed twice, nothing unlogged,
    # nothing taken away.
    placed = [e.placement() for e in new if e.placed]
    for seat, (disc_before, disc_after, cube_before, cube_after) in enumerate(
        zip(before.discs, after.discs, before.cubes, after.cubes), 1
    ):
        assert disc_after & disc_before == disc_before and cube_after & cube_before == cube_before
        assert (disc_after ^ disc_before).bit_count() == placed.count((seat, "disc"))
        assert (cube_after ^ cube_before).bit_count() == placed.count((seat, "cube"))
    kind = type(move)
    if kind is Name:
        assert new == () and after.names[move.seat - 1] == " ".join(move.name.split())
    if kind is Ask:
        ask = new[0]
        assert (ask.action, ask.seat, ask.seat_asked, ask.hex) == ("ask", move.seat, move.target, move.hex)
        assert (ask.piece == "disc") == bool(allows[move.target] >> move.hex & 1)
        if ask.piece == "cube":
            assert_owes_cube(after, move.seat, new[1:])
        else:
            assert new[1:] == ()
    if kind is Search:
        assert new[0].action == "search" and new[0].seat == move.seat and new[0].hex == move.hex
        already = bool(before.discs_of(move.seat) >> move.hex & 1)
        assert new[0].placed is not already
        if already and not (allows[move.seat] & ~before.all_cubes & ~before.discs_of(move.seat)):
            # No hex for the extra disc: the log says so, the bound is recorded, and the others answer.
            assert (new[1].action, new[1].seat, new[1].piece, new[1].hex) == ("skip", move.seat, "disc", move.hex)
            bound = before.all_cubes | before.discs_of(move.seat)
            assert after.clue_within[move.seat - 1] == before.clue_within[move.seat - 1] & bound
            assert not allows[move.seat] & ~after.clue_within[move.seat - 1], "the bound holds the clue's hexes"
            check_answers(before, move.seat, move.hex, new[2:], after, allows)
        elif already:
            # The search waits for the searcher's extra disc; nobody answers yet.
            assert new[1:] == () and (after.turn, after.pending, after.search_hex) == (move.seat, "disc", move.hex)
        else:
            check_answers(before, move.seat, move.hex, new[1:], after, allows)
    if kind is Disc:
        assert (new[0].action, new[0].seat, new[0].hex, new[0].placed) == ("disc", move.seat, move.hex, True)
        assert allows[move.seat] >> move.hex & 1 and not before.discs_of(move.seat) >> move.hex & 1
        check_answers(before, move.seat, before.search_hex, new[1:], after, allows)
    if after.winner is not None and before.winner is None:
        searched = move.hex if kind is Search else before.search_hex
        assert kind in (Search, Disc) and searched == before.game.habitat, "a winner only by searching the habitat"
    if kind is Search and move.hex == before.game.habitat and after.pending != "disc":
        assert after.winner == move.seat
    if kind is Reveal:
        assert (after.outcome, new) == ("reveal", ())
    if kind in (Leave, HostGone):
        assert new[0].action == "leave" and new[0].seat == move.seat and move.seat in after.left
    if after.phase == OVER and before.phase != OVER and kind not in (Reveal, Search, Disc):
        assert after.left == set(after.seats) and after.outcome == "all_left"
    # Turn order: a finished turn goes to the next active seat after the mover.
    if before.phase == TURNS and after.phase == TURNS and after.turn != before.turn:
        assert after.turn == next_active(after, before.turn) and after.pending == "move"
    if before.phase == OPENING and after.phase == OPENING:
        assert after.pending == "cube"
    if before.phase == OPENING and after.phase == TURNS:
        assert after.turn == next_active(after, after.first - 1)
        check_opening(after)


def check_answers(before: State, searcher: int, hex_: int, entries, after: State, allows: dict[int, int]) -> None:
    """The other seats answer a search in turn from the searcher's left; the first cube stops it and the searcher
    owes a cube; when nobody answers with a cube the searcher wins."""
    answers = [e for e in entries if e.action == "answer"]
    order = [(searcher - 1 + k) % before.players + 1 for k in range(1, before.players)]
    assert [e.seat for e in answers] == order[: len(answers)], "answers go round from the next seat"
    assert all(e.piece == "disc" for e in answers[:-1]) and all(e.hex == hex_ for e in answers)
    for e in answers:
        assert (e.piece == "disc") == bool(allows[e.seat] >> hex_ & 1)
    if answers[-1].piece == "cube":
        assert_owes_cube(after, searcher, entries[len(answers):])
    else:
        assert len(answers) == before.players - 1 and entries[-1].action == "win"


def assert_owes_cube(after: State, mover: int, rest) -> None:
    """After a cube answer the mover must place a cube, or the log says that no hex qualified."""
    if rest:
        assert [(e.seat, e.action) for e in rest] == [(mover, "skip")]
        assert after.turn == next_active(after, mover) and after.cube_choices(mover) == 0
    else:
        assert (after.turn, after.pending) == (mover, "cube") and after.cube_choices(mover)


def check_opening(state: State) -> None:
    """Each seat still playing placed (or was logged skipping) exactly two opening cubes, in seat order."""
    placements = [e.seat for e in state.log if e.action in ("cube", "skip")]
    for seat in state.seats:
        count = placements.count(seat)
        assert count == 2 if seat not in state.left else count <= 2
    cycle = [(state.first - 1 + k) % state.players + 1 for k in range(2 * state.players)]
    position = 0
    for seat in placements:
        assert seat in cycle[position:], "opening cubes out of seat order"
        position = cycle.index(seat, position) + 1


def check_choices(state: State) -> None:
    """The UI's choices are exact: a move is legal if and only if the queries offer it."""
    for seat in state.seats:
        cubes = search = discs = 0
        for hex_ in range(HEX_COUNT):
            cubes |= state.is_legal(Cube(seat, hex_)) << hex_
            search |= state.is_legal(Search(seat, hex_)) << hex_
            discs |= state.is_legal(Disc(seat, hex_)) << hex_
        assert (cubes, search, discs) == (state.cube_choices(seat), state.search_choices(seat), state.disc_choices(seat))
        for target in state.seats:
            asks = sum(state.is_legal(Ask(seat, target, h)) << h for h in range(HEX_COUNT))
            assert asks == state.ask_hexes(seat, target)
            for hex_ in hexes_of(asks & 0xF):
                assert target in state.ask_targets(seat, hex_)
    listed = turn_moves(state)
    assert all(state.is_legal(m) for m in listed) and len(set(listed)) == len(listed)
    if state.turn is not None:
        seat = state.turn
        offered = sum(mask.bit_count() for mask in (state.cube_choices(seat), state.search_choices(seat),
                                                     state.disc_choices(seat)))
        assert len(listed) == offered + sum(state.ask_hexes(seat, t).bit_count() for t in state.seats)


def actor_of(move: Move) -> int | None:
    """Who makes a move: its seat, the voter, or None for the host's moves."""
    if isinstance(move, (Start, HostGone, Reveal)):
        return None
    return move.voter if isinstance(move, VoteGone) else move.seat


def check_legal_moves(state: State, move: Move) -> None:
    """legal_moves lists exactly what apply accepts: a few listed moves of the mover are played, and the move is
    legal if and only if it is listed (a Name takes free text, so it is never listed)."""
    if isinstance(move, Name):
        return
    listed = legal_moves(state, actor_of(move))
    for sample in random.Random(state.version).sample(listed, min(3, len(listed))):
        state.apply(sample)  # IllegalMove here fails the test
    assert (move in listed) == state.is_legal(move), f"{move} listed: {move in listed}"


def clue_dicts(value) -> list[dict]:
    if isinstance(value, dict):
        found = [value] if "negated" in value else []
        return found + [d for v in value.values() for d in clue_dicts(v)]
    if isinstance(value, list):
        return [d for v in value for d in clue_dicts(v)]
    return []


def check_views(state: State) -> None:
    """No view shows another seat's clue, the habitat or the hint before the end; the end shows every clue."""
    g = state.game
    for seat in [None, *state.seats]:
        seen = view(state, seat).to_json()
        text = json.dumps(seen)
        if state.phase != OVER:
            assert seen["reveal"] is None and '"habitat"' not in text and '"hint"' not in text
            own = [] if seat is None else [clue.to_json() for clue in g.seat_clues(seat)]
            assert clue_dicts(seen) == own
        else:
            assert seen["reveal"]["habitat"] == {"row": g.habitat // 12, "col": g.habitat % 12}
            assert len(seen["reveal"]["clues"]) == g.players


def play_random_game(code: str, rngs: Iterable[random.Random], *, search_share=0.1, views=False, choices_every=0,
                     listed=False):
    """Play one random move per source of randomness (a while longer once over, to try moves on a finished game),
    checking everything after every move (with listed, legal_moves before each); then check that the stored moves
    fold back into the same state."""
    g = game(code)
    allows = seat_areas(code)
    state = State.initial(g)
    moves = []
    for step, rng in enumerate(rngs):
        if state.phase == OVER and rng.random() < 0.7:
            break
        move = random_move(state, rng, search_share)
        if listed:
            check_legal_moves(state, move)
        try:
            after = state.apply(move)
        except IllegalMove as refused:
            assert refused.reason in ILLEGAL_MOVES
            assert not state.is_legal(move)
            continue
        assert state.is_legal(move)
        check_move(state, move, after, allows)
        check_position(after, allows)
        if views:
            check_views(after)
        if choices_every and step % choices_every == 0:
            check_choices(after)
        moves.append(move)
        state = after
    stored = [json.loads(json.dumps(m.to_json())) for m in moves]
    assert State.replay(g, [Move.from_json(data) for data in stored]) == state
    assert state.version == len(moves)
    return state


@pytest.mark.slow
@settings(max_examples=how_many(10, 250), deadline=None)
@given(code=st.sampled_from(PLAY_CODES), seeds=st.lists(st.integers(0, 2**32 - 1), min_size=30, max_size=300))
def test_random_tables_keep_every_rule_and_every_secret(code, seeds):
    play_random_game(code, map(random.Random, seeds), views=True, choices_every=40, listed=True)


@pytest.mark.slow
def test_hundreds_of_seeded_random_games_keep_every_rule():
    rng = random.Random(20240613)
    outcomes = {"win": 0, "reveal": 0, "all_left": 0, None: 0}
    actions = set()
    games = how_many(300, 3000)
    for number in range(games):
        search_share = 0.1 if number % 3 == 0 else 0.4  # some long games that fill the board, more short ones
        code = PLAY_CODES[number % len(PLAY_CODES)]
        state = play_random_game(code, repeat(rng, 600), search_share=search_share, views=number % 50 == 0)
        outcomes[state.outcome] += 1
        actions |= {e.action for e in state.log}
    # The games went everywhere the rules lead: wins, reveals, abandoned tables and every kind of log entry.
    assert outcomes["win"] > games * 0.75 and outcomes["reveal"] > games / 50 and outcomes["all_left"] > games / 100
    assert actions == {"cube", "ask", "search", "disc", "answer", "skip", "leave", "win"}
