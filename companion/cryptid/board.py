"""A laid-out board: which tile lies in which slot and which way round, and where each structure stands.

Boards are immutable values. They load from and export to the official site's map code (docs/cryptid-rules.md section 6),
which also covers official maps with structures on water.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .hexgrid import COLS, ROWS, hex_index, hex_row_col
from .tiles import (
    ANIMALS,
    PIECES,
    SLOT_COUNT,
    TERRAINS,
    TILE_NUMBERS,
    slot_of,
    slot_origin,
    tile_cell,
)

STANDING_STONE = "standing_stone"
ABANDONED_SHACK = "abandoned_shack"
STRUCTURE_KINDS = (STANDING_STONE, ABANDONED_SHACK)
COLORS = ("white", "green", "blue", "black")
NORMAL_COLORS = ("white", "green", "blue")
NORMAL = "normal"
ADVANCED = "advanced"
MODES = (NORMAL, ADVANCED)

_DIGITS = "0123456789ABC"


class MapCodeError(ValueError):
    """An official map code that cannot describe a board; the message says why."""


def mode_colors(mode: str) -> tuple[str, ...]:
    """Structure colours used in a mode: black joins in advanced mode."""
    return COLORS if mode == ADVANCED else NORMAL_COLORS


def structure_order(mode: str) -> tuple[tuple[str, str], ...]:
    """(kind, colour) of each structure in official map-code order: stones first, then shacks."""
    return tuple((kind, color) for kind in STRUCTURE_KINDS for color in mode_colors(mode))


@dataclass(frozen=True, slots=True)
class TilePlacement:
    """One tile on the table: its slot (0-5, row by row), its printed number, and whether it is turned."""

    slot: int
    tile: int
    rotated: bool


@dataclass(frozen=True, slots=True)
class Structure:
    """A standing stone or abandoned shack of one colour on one hex."""

    kind: str
    color: str
    hex: int

    @property
    def row(self) -> int:
        return self.hex // COLS

    @property
    def col(self) -> int:
        return self.hex % COLS


@dataclass(frozen=True)
class Board:
    """Six tile placements in slot order plus the structures in official order."""

    tiles: tuple[TilePlacement, ...]
    structures: tuple[Structure, ...]

    def __post_init__(self) -> None:
        if [t.slot for t in self.tiles] != list(range(SLOT_COUNT)):
            raise ValueError("a board needs one tile per slot, in slot order")
        if sorted(t.tile for t in self.tiles) != list(TILE_NUMBERS):
            raise ValueError("a board uses each of the tiles 1-6 exactly once")
        if len(self.structures) not in (6, 8):
            raise ValueError("a board has 6 structures (normal) or 8 (advanced)")
        if [(s.kind, s.color) for s in self.structures] != list(structure_order(self.mode)):
            raise ValueError("structures must be listed stones then shacks, each white, green, blue(, black)")
        if len({s.hex for s in self.structures}) != len(self.structures):
            raise ValueError("two structures cannot stand on the same hex")

    @property
    def mode(self) -> str:
        return ADVANCED if len(self.structures) == 8 else NORMAL

    @classmethod
    def from_map_code(cls, code: str) -> "Board":
        """Parse an official map code: 6 tile digits, then a row and column digit per structure."""
        text = code.strip().upper()
        if len(text) not in (18, 22):
            raise MapCodeError(f"a map code has 18 characters (normal) or 22 (advanced), not {len(text)}")
        bad = sorted({ch for ch in text if ch not in _DIGITS})
        if bad:
            raise MapCodeError(f"a map code uses only 0-9 and A-C, not {', '.join(bad)}")
        tiles = []
        for slot, digit in enumerate(text[:6]):
            value = _DIGITS.index(digit)
            if not 1 <= value <= 12:
                raise MapCodeError(f"tile digit {digit!r} in slot {slot} is not 1-6 or 7-C")
            tiles.append(TilePlacement(slot, (value - 1) % 6 + 1, value > 6))
        if sorted(t.tile for t in tiles) != list(TILE_NUMBERS):
            raise MapCodeError("the first six characters must name each tile 1-6 once")
        mode = ADVANCED if len(text) == 22 else NORMAL
        structures = []
        for n, (kind, color) in enumerate(structure_order(mode)):
            row, col = _DIGITS.index(text[6 + 2 * n]), _DIGITS.index(text[7 + 2 * n])
            if row >= ROWS or col >= COLS:
                raise MapCodeError(f"the {color} {kind.replace('_', ' ')} at row {row}, column {col} is off the board")
            structures.append(Structure(kind, color, hex_index(row, col)))
        if len({s.hex for s in structures}) != len(structures):
            raise MapCodeError("two structures stand on the same hex")
        return cls(tuple(tiles), tuple(structures))

    def to_map_code(self) -> str:
        """The official map code of this board."""
        tiles = "".join(_DIGITS[t.tile + (6 if t.rotated else 0)] for t in self.tiles)
        return tiles + "".join(_DIGITS[s.row] + _DIGITS[s.col] for s in self.structures)

    @cached_property
    def regions(self) -> dict[str, int]:
        """Masks of each terrain, each animal territory, each structure kind and each colour."""
        masks = {name: 0 for name in TERRAINS + ANIMALS + STRUCTURE_KINDS + COLORS}
        for t in self.tiles:
            for name, mask in PIECES[(t.tile, t.rotated, t.slot)].items():
                masks[name] |= mask
        for s in self.structures:
            masks[s.kind] |= 1 << s.hex
            masks[s.color] |= 1 << s.hex
        return masks

    @cached_property
    def cells(self) -> tuple[tuple[str, str | None], ...]:
        """(terrain, animal or None) of every board hex, in hex order: worked out once per board."""
        out = []
        for index in range(ROWS * COLS):
            row, col = hex_row_col(index)
            placement = self.placement_of(index)
            origin_row, origin_col = slot_origin(placement.slot)
            out.append(tile_cell(placement.tile, placement.rotated, row - origin_row, col - origin_col))
        return tuple(out)

    def cell(self, index: int) -> tuple[str, str | None]:
        """(terrain, animal or None) shown at a board hex."""
        return self.cells[index]

    def structure_at(self, index: int) -> Structure | None:
        return next((s for s in self.structures if s.hex == index), None)

    def placement_of(self, index: int) -> TilePlacement:
        """The tile placement covering a board hex."""
        return self.tiles[slot_of(index)]

    def tile_position(self, index: int) -> tuple[TilePlacement, int, int]:
        """The tile covering a hex, and the hex's row and place in that row (1-based) on the tile as it lies."""
        placement = self.placement_of(index)
        origin_row, origin_col = slot_origin(placement.slot)
        row, col = hex_row_col(index)
        return placement, row - origin_row + 1, col - origin_col + 1


