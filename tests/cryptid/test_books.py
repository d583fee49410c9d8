"""The notebook that keeps the books (cryptid.books): the facts it writes beside a piece are exactly what decides
every clue there, it lists every piece of every opponent and nothing of the seat's own, and "check my notes"
reports a crossed-off clue exactly when the deduction engine still allows it."""

import random

import pytest

from companion.cryptid.board import ABANDONED_SHACK, STANDING_STONE, Board
from companion.cryptid.books import (
    HexFacts,
    books,
    clue_list,
    crossed_but_possible,
    hex_facts,
    possible_clues,
)
from companion.cryptid.clues import CLUES, TERRAIN_PAIR, clue_areas
from companion.cryptid.deduction import Evidence, posterior
from companion.cryptid.hexgrid import HEX_COUNT
from companion.cryptid.view import view
from tests.cryptid.test_deduction import codes_of, random_history
from tests.cryptid.test_play import game


def allowed_by_facts(clue, facts: HexFacts) -> bool:
    """Whether a clue allows a hex, read from its written facts alone, as a player reads the notebook."""
    if clue.kind == TERRAIN_PAIR:
        allowed = facts.terrain in clue.terrains
    elif clue.target == "animal":
        allowed = facts.animal is not None or any(distance <= 1 for _, distance in facts.animals)
    elif clue.target in ("bear", "cougar"):
        allowed = facts.animal == clue.target or any(a == clue.target for a, _ in facts.animals)
    elif clue.target in (STANDING_STONE, ABANDONED_SHACK):
        allowed = any(kind == clue.target and distance <= 2 for kind, _, distance in facts.structures)
    elif clue.distance == 3:
        allowed = any(color == clue.target for _, color, _ in facts.structures)
    else:  # within one space of a terrain: the hex itself or a neighbour
        allowed = facts.terrain == clue.target or clue.target in facts.near_terrains
    return allowed != clue.negated


@pytest.mark.parametrize("mode", ["normal", "advanced"])
def test_the_written_facts_decide_every_clue_on_every_hex(mode):
    for code in codes_of(mode, 4)[:3]:
        board = game(code).board
        areas = clue_areas(board)
        for hex in range(HEX_COUNT):
            facts = hex_facts(board, hex)
            for index, clue in enumerate(CLUES):
                assert allowed_by_facts(clue, facts) == bool(areas[index] >> hex & 1), (code, hex, clue.id)
            assert [d for *_, d in facts.structures] == sorted(d for *_, d in facts.structures)  # nearest first


def test_the_mode_clue_lists_are_the_box_lists():
    assert len(clue_list("normal")) == 23 and len(clue_list("advanced")) == 48
    assert not any(CLUES[i].negated or CLUES[i].target == "black" for i in clue_list("normal"))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_books_list_every_piece_of_every_opponent_by_terrain(players):
    rng = random.Random(f"books-{players}")
    for _ in range(6):
        state = random_history(rng, rng.choice(codes_of(rng.choice(["normal", "advanced"]), players)))
        seat = rng.choice(list(state.seats))
        seen = view(state, seat)
        board = Board.from_map_code(seen.map_code)
        written = books(seen, board)
        assert [b.seat for b in written] == [s for s in state.seats if s != seat]
        for opponent in written:
            for groups, mask in ((opponent.discs, state.discs[opponent.seat - 1]),
                                 (opponent.cubes, state.cubes[opponent.seat - 1])):
                listed = [f.hex for _, facts in groups for f in facts]
                assert sorted(listed) == [h for h in range(HEX_COUNT) if mask >> h & 1]
                assert all(f.terrain == terrain for terrain, facts in groups for f in facts)
    with pytest.raises(ValueError):
        books(view(state, None), board)


@pytest.mark.parametrize("mode", ["normal", "advanced"])
def test_the_check_reports_a_crossed_off_clue_exactly_when_deduction_still_allows_it(mode):
    rng = random.Random(f"check-{mode}")
    for _ in range(6):
        code = rng.choice(codes_of(mode, 4))
        state = random_history(rng, code)
        seat = rng.choice(list(state.seats))
        seen = view(state, seat)
        possible = possible_clues(seen)
        assert possible == posterior(Evidence.from_view(seen)).seat_clues
        truth = game(code)
        crossed = {s: frozenset(rng.sample(clue_list(mode), 8)) | {truth.seat_clues(s)[0].index}
                   for s in state.seats if s != seat}
        wrong = crossed_but_possible(crossed, possible)
        assert wrong == tuple((s, i) for s in sorted(crossed) for i in sorted(crossed[s]) if possible[s - 1] >> i & 1)
        # Crossing off an opponent's real clue is always a mistake the check finds.
        assert all((s, truth.seat_clues(s)[0].index) in wrong for s in crossed)
        assert crossed_but_possible({s: frozenset() for s in crossed}, possible) == ()
