"""The six physical map tiles as printed (docs/cryptid-rules.md section 1) and their masks in every slot and turn."""

from __future__ import annotations

from .hexgrid import COLS

TERRAINS = ("forest", "desert", "swamp", "mountain", "water")
LAND_TERRAINS = ("forest", "desert", "swamp", "mountain")
ANIMALS = ("bear", "cougar")
TERRAIN_BY_LETTER = {"F": "forest", "D": "desert", "S": "swamp", "M": "mountain", "W": "water"}
ANIMAL_BY_SUFFIX = {"b": "bear", "c": "cougar"}

TILE_ROWS = 3
TILE_COLS = 6
SLOT_COUNT = 6
TILE_NUMBERS = (1, 2, 3, 4, 5, 6)

# Printed rows of each tile, upright, as in docs/cryptid-rules.md section 1.
_PRINTED = {
    1: ("W W W W F F", "S S W D F F", "S S D Db Db Fb"),
    2: ("Sc Fc Fc F F F", "S S F D D D", "S M M M M D"),
    3: ("S S F F F W", "Sc Sc F M W W", "Mc M M M W W"),
    4: ("D D M M M M", "D D M W W Wc", "D D D F F Fc"),
    5: ("S S S M M M", "S D D W M Mb", "D D W W Wb Wb"),
    6: ("Db D S S S F", "Mb M S S F F", "M W W W W F"),
}


def _parse(tile: int) -> tuple[tuple[tuple[str, str | None], ...], ...]:
    rows = []
    for line in _PRINTED[tile]:
        cells = []
        for cell in line.split():
            cells.append((TERRAIN_BY_LETTER[cell[0]], ANIMAL_BY_SUFFIX.get(cell[1:]) if len(cell) > 1 else None))
        rows.append(tuple(cells))
    return tuple(rows)


# TILE_CELLS[tile][r][c] = (terrain, animal or None), upright.
TILE_CELLS = {tile: _parse(tile) for tile in TILE_NUMBERS}


def tile_cell(tile: int, rotated: bool, r: int, c: int) -> tuple[str, str | None]:
    """What a tile shows at local (r, c), turned 180 degrees or not."""
    if rotated:
        r, c = TILE_ROWS - 1 - r, TILE_COLS - 1 - c
    return TILE_CELLS[tile][r][c]


def slot_origin(slot: int) -> tuple[int, int]:
    """Board (row, col) of a slot's top-left hex; slots are numbered row by row, two per row."""
    if not 0 <= slot < SLOT_COUNT:
        raise ValueError(f"slot {slot} is not in 0-5")
    return TILE_ROWS * (slot // 2), TILE_COLS * (slot % 2)


def slot_of(index: int) -> int:
    """The slot (0-5) whose tile covers a board hex."""
    row, col = divmod(index, COLS)
    return (row // TILE_ROWS) * 2 + col // TILE_COLS


def number_hex(slot: int, rotated: bool) -> tuple[int, int]:
    """Board (row, col) where the tile's printed number ends up: top-left upright, bottom-right turned."""
    row, col = slot_origin(slot)
    if rotated:
        return row + TILE_ROWS - 1, col + TILE_COLS - 1
    return row, col


def _piece_masks(tile: int, rotated: bool, slot: int) -> dict[str, int]:
    masks = {name: 0 for name in TERRAINS + ANIMALS}
    row0, col0 = slot_origin(slot)
    for r in range(TILE_ROWS):
        for c in range(TILE_COLS):
            terrain, animal = tile_cell(tile, rotated, r, c)
            bit = 1 << ((row0 + r) * COLS + col0 + c)
            masks[terrain] |= bit
            if animal:
                masks[animal] |= bit
    return masks


# PIECES[(tile, rotated, slot)] = {terrain or animal: mask}: a board's regions are the OR of six pieces.
PIECES = {
    (tile, rotated, slot): _piece_masks(tile, rotated, slot)
    for tile in TILE_NUMBERS
    for rotated in (False, True)
    for slot in range(SLOT_COUNT)
}
