import collections

import pytest

from companion.cryptid.hexgrid import (
    ALL_HEXES,
    COLS,
    DISTANCE,
    HEX_COUNT,
    NEIGHBOURS,
    ROWS,
    WITHIN,
    cube,
    from_hex_name,
    hex_index,
    hex_name,
    hex_row_col,
    hexes_of,
    mask_of,
    within,
)
from companion.cryptid.tiles import TILE_CELLS, number_hex, slot_origin, tile_cell


def test_board_size():
    assert (ROWS, COLS, HEX_COUNT) == (9, 12, 108)
    assert ALL_HEXES.bit_count() == 108


@pytest.mark.parametrize("row, col, index", [(0, 0, 0), (0, 11, 11), (1, 0, 12), (8, 11, 107), (4, 6, 54)])
def test_hex_index_anchor_values(row, col, index):
    assert hex_index(row, col) == index
    assert hex_row_col(index) == (row, col)


@pytest.mark.parametrize("row, col", [(-1, 0), (9, 0), (0, 12), (0, -1)])
def test_hex_index_rejects_off_board(row, col):
    with pytest.raises(ValueError):
        hex_index(row, col)


@pytest.mark.parametrize("index", [-1, 108])
def test_hex_row_col_rejects_out_of_range(index):
    with pytest.raises(ValueError):
        hex_row_col(index)


def test_neighbours_follow_the_odd_q_rules():
    # docs/cryptid-rules.md section 2: even column (r, c) and odd column examples.
    assert set(NEIGHBOURS[hex_index(4, 4)]) == {hex_index(r, c) for r, c in [(3, 4), (5, 4), (3, 3), (4, 3), (3, 5), (4, 5)]}
    assert set(NEIGHBOURS[hex_index(4, 5)]) == {hex_index(r, c) for r, c in [(3, 5), (5, 5), (4, 4), (5, 4), (4, 6), (5, 6)]}
    assert len(NEIGHBOURS[0]) == 2  # corner (0, 0): (1, 0) and (0, 1)


def test_neighbours_are_symmetric_and_at_distance_one():
    for a in range(HEX_COUNT):
        for b in NEIGHBOURS[a]:
            assert a in NEIGHBOURS[b]
            assert DISTANCE[a][b] == 1
        assert sum(DISTANCE[a][b] == 1 for b in range(HEX_COUNT)) == len(NEIGHBOURS[a])


def test_distance_is_a_metric_equal_to_walking_distance():
    for a in range(HEX_COUNT):
        walked = {a: 0}
        queue = collections.deque([a])
        while queue:
            here = queue.popleft()
            for there in NEIGHBOURS[here]:
                if there not in walked:
                    walked[there] = walked[here] + 1
                    queue.append(there)
        for b in range(HEX_COUNT):
            assert DISTANCE[a][b] == DISTANCE[b][a] == walked[b]
            assert (DISTANCE[a][b] == 0) == (a == b)


def test_cube_coordinates_sum_to_zero():
    for index in range(HEX_COUNT):
        assert sum(cube(*hex_row_col(index))) == 0


def test_within_includes_the_hex_itself_and_grows():
    for index in range(HEX_COUNT):
        assert WITHIN[0][index] == 1 << index
        assert WITHIN[1][index] == (1 << index) | mask_of(NEIGHBOURS[index])
        assert WITHIN[2][index] & WITHIN[1][index] == WITHIN[1][index]
    assert within(mask_of([0, 107]), 1) == WITHIN[1][0] | WITHIN[1][107]
    assert hexes_of(mask_of([5, 3, 90])) == [3, 5, 90]


def test_rotation_turns_each_tile_by_180_degrees():
    for tile in TILE_CELLS:
        for r in range(3):
            for c in range(6):
                assert tile_cell(tile, True, r, c) == tile_cell(tile, False, 2 - r, 5 - c)
    # Tile 1 upright: water top left; turned: its bottom-right forest with bear territory lands top left.
    assert tile_cell(1, False, 0, 0) == ("water", None)
    assert tile_cell(1, True, 0, 0) == ("forest", "bear")


def test_each_tile_has_one_animal_patch_of_two_or_three_hexes():
    for tile, rows in TILE_CELLS.items():
        animals = collections.Counter(animal for row in rows for _, animal in row if animal)
        assert len(animals) == 1 and 2 <= sum(animals.values()) <= 3
        assert next(iter(animals)) == ("bear" if tile in (1, 5, 6) else "cougar")


def test_printed_number_position():
    assert slot_origin(3) == (3, 6)
    assert number_hex(0, False) == (0, 0)
    assert number_hex(5, True) == (8, 11)

def test_every_hex_name_round_trips():
    names = [hex_name(index) for index in range(HEX_COUNT)]
    assert len(set(names)) == HEX_COUNT
    assert all(from_hex_name(name) == index for index, name in enumerate(names))



def test_names_read_column_then_row():
    assert hex_name(hex_index(0, 0)) == "A1"
    assert hex_name(hex_index(6, 3)) == "D7"
    assert hex_name(hex_index(8, 11)) == "L9"
    assert from_hex_name(" d7 ") == hex_index(6, 3)


@pytest.mark.parametrize("bad", ["", "M1", "A0", "A10", "7D", "AA"])
def test_other_text_is_not_a_hex_name(bad):
    with pytest.raises(ValueError):
        from_hex_name(bad)
