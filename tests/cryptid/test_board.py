import json

import pytest

from companion.cryptid import Board, MapCodeError
from companion.cryptid.hexgrid import hex_index
from tests.helpers import DATA

OFFICIAL = DATA / "official-setups.jsonl"


def test_rules_example_map_code():
    board = Board.from_map_code("12345625037B0B3472")
    assert board.mode == "normal"
    assert [(t.tile, t.rotated) for t in board.tiles] == [(1, False), (2, False), (3, False), (4, False), (5, False), (6, False)]
    first = board.structures[0]
    assert (first.kind, first.color, first.row, first.col) == ("standing_stone", "white", 2, 5)
    assert board.to_map_code() == "12345625037B0B3472"
    assert board.cell(hex_index(0, 0)) == ("water", None)  # tile 1 upright, top-left hex


def test_rotated_tiles_in_a_map_code():
    board = Board.from_map_code("7BC9A225037B0B3472")
    assert [(t.tile, t.rotated) for t in board.tiles] == [(1, True), (5, True), (6, True), (3, True), (4, True), (2, False)]
    assert board.cell(hex_index(0, 0)) == ("forest", "bear")


def test_every_official_map_round_trips_including_structures_on_water():
    on_water = 0
    for line in OFFICIAL.read_text().splitlines():
        code = json.loads(line)["map_code"]
        board = Board.from_map_code(code.lower())
        assert board.to_map_code() == code
        on_water += sum(board.cell(s.hex)[0] == "water" for s in board.structures)
    assert on_water > 0


@pytest.mark.parametrize(
    "code, message",
    [
        ("1234562503", "18 characters"),
        ("12345625037B0B347Z", "only 0-9 and A-C"),
        ("02345625037B0B3472", "not 1-6 or 7-C"),
        ("11345625037B0B3472", "each tile 1-6 once"),
        ("12345695037B0B3472", "off the board"),
        ("1234562503250B3472", "same hex"),
    ],
)
def test_bad_map_codes_say_what_is_wrong(code, message):
    with pytest.raises(MapCodeError, match=message):
        Board.from_map_code(code)
