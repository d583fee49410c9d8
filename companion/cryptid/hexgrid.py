"""The 9 x 12 board of hexes: offset coordinates, cube distance and precomputed neighbourhoods.

Hexes are stored as an index 0-107 (row * 12 + col, flat-topped, odd-q columns); sets of hexes are Python
ints used as 108-bit masks. Distances are computed once in cube coordinates (Red Blob Games' recipe).
"""

from __future__ import annotations

ROWS = 9
COLS = 12
HEX_COUNT = ROWS * COLS
ALL_HEXES = (1 << HEX_COUNT) - 1


def hex_index(row: int, col: int) -> int:
    """Index of the hex at (row, col); raises ValueError off the board."""
    if not (0 <= row < ROWS and 0 <= col < COLS):
        raise ValueError(f"({row}, {col}) is not on the 9 x 12 board")
    return row * COLS + col


def hex_row_col(index: int) -> tuple[int, int]:
    """(row, col) of a hex index; the inverse of hex_index."""
    if not 0 <= index < HEX_COUNT:
        raise ValueError(f"hex index {index} is not in 0-{HEX_COUNT - 1}")
    return divmod(index, COLS)


COLUMN_LETTERS = "ABCDEFGHIJKL"


def hex_name(index: int) -> str:
    """A hex's name as the board's edges print it: column letter A-L, then row 1-9 ("D7" is row 7, column 4)."""
    row, col = hex_row_col(index)
    return f"{COLUMN_LETTERS[col]}{row + 1}"


def from_hex_name(name: str) -> int:
    """The hex index a name like "D7" (any case, spaces around ignored) stands for; ValueError if none."""
    text = name.strip().upper()
    if len(text) != 2 or text[0] not in COLUMN_LETTERS or not "1" <= text[1] <= "9":
        raise ValueError(f"{name!r} is not a hex name (A1-L9)")
    return hex_index(int(text[1]) - 1, COLUMN_LETTERS.index(text[0]))


def cube(row: int, col: int) -> tuple[int, int, int]:
    """Cube coordinates (x, y, z) of an odd-q offset hex."""
    x = col
    z = row - (col - (col & 1)) // 2
    return x, -x - z, z


def _distance(a: int, b: int) -> int:
    ax, ay, az = cube(*divmod(a, COLS))
    bx, by, bz = cube(*divmod(b, COLS))
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


def _neighbour_offsets(col: int) -> tuple[tuple[int, int], ...]:
    if col & 1:
        return ((-1, 0), (1, 0), (0, -1), (1, -1), (0, 1), (1, 1))
    return ((-1, 0), (1, 0), (-1, -1), (0, -1), (-1, 1), (0, 1))


def _neighbours(index: int) -> tuple[int, ...]:
    row, col = divmod(index, COLS)
    return tuple(
        (row + dr) * COLS + col + dc
        for dr, dc in _neighbour_offsets(col)
        if 0 <= row + dr < ROWS and 0 <= col + dc < COLS
    )


DISTANCE: tuple[tuple[int, ...], ...] = tuple(
    tuple(_distance(a, b) for b in range(HEX_COUNT)) for a in range(HEX_COUNT)
)
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(HEX_COUNT))

MAX_RADIUS = 3
# WITHIN[n][i]: mask of the hexes at distance <= n from hex i (the hex itself included).
WITHIN: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << b for b in range(HEX_COUNT) if DISTANCE[a][b] <= n) for a in range(HEX_COUNT))
    for n in range(MAX_RADIUS + 1)
)


def hexes_of(mask: int) -> list[int]:
    """Indices of the set bits of a mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def within(mask: int, radius: int) -> int:
    """Mask of every hex at distance <= radius from some hex of mask."""
    table = WITHIN[radius]
    grown = 0
    while mask:
        low = mask & -mask
        grown |= table[low.bit_length() - 1]
        mask ^= low
    return grown


def mask_of(indices) -> int:
    """Mask with the given hex indices set."""
    mask = 0
    for index in indices:
        mask |= 1 << index
    return mask
