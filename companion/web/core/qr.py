"""QR codes as compact inline SVG.

qrcode splits the text into segments and picks the smallest version (ISO/IEC 18004, error correction M); the
rest is done here with integers, because a new host screen draws six codes at once and qrcode's own drawing
takes about 7 ms per code, most of a busy night's CPU while tables sit down. Codewords get their Reed-Solomon
check bytes from a product table; the matrix is one integer per reading direction (bit r * stride + c is row r,
column c, with a light separator column between rows); the eight masks are scored with shifts and bit counts.
A test checks every code, byte for byte, against the one qrcode draws on its own.
"""

from __future__ import annotations

import bisect
import operator
import re
from dataclasses import dataclass
from functools import lru_cache

import qrcode
import qrcode.base
import qrcode.exceptions
import qrcode.util

ERROR_CORRECTION = qrcode.constants.ERROR_CORRECT_M
BORDER = 2  # modules of quiet zone around the code (the standard asks for 4; phones read 2 easily)
PAD_CODEWORDS = (0xEC, 0x11)  # filling the data capacity, alternately (ISO/IEC 18004, 7.4.10)


@dataclass(frozen=True)
class QrCode:
    """A finished code: its size in modules, the mask pattern chosen and the dark modules, row-major."""

    size: int
    mask: int
    modules: int  # bit r * (size + 1) + c is row r, column c

    def rows(self) -> list[str]:
        """Each row as text, '1' for dark, left to right."""
        stride, full = self.size + 1, (1 << self.size) - 1
        return [format(self.modules >> row * stride & full, f"0{self.size}b")[::-1] for row in range(self.size)]

    def to_svg(self) -> str:
        """The code as one SVG path with a subpath per horizontal run of dark modules, sized by its viewBox."""
        runs = [
            f"M{run.start() + BORDER} {row + BORDER}h{len(run[0])}v1h-{len(run[0])}z"
            for row, text in enumerate(self.rows())
            for run in _DARK_RUN.finditer(text)
        ]
        side = self.size + 2 * BORDER
        return (
            f'<svg version="1.1" viewBox="0 0 {side} {side}" xmlns="http://www.w3.org/2000/svg">'
            f'<path d="{"".join(runs)}" id="qr-path" fill="#000000" fill-opacity="1" fill-rule="nonzero" '
            'stroke="none" /></svg>'
        )


_DARK_RUN = re.compile("1+")


@lru_cache(maxsize=2048)
def qr_svg(data: str) -> str:
    """An SVG QR code of `data`, remembered: a host screen that reloads or polls never draws its codes again;
    2,048 codes (a few hundred tables of seats and hosts) take about 10 MB."""
    return encode(data).to_svg()


def encode(data: str) -> QrCode:
    """The QR code of `data` with the mask the standard's penalty rules prefer (the first of equals)."""
    segments = qrcode.QRCode(error_correction=ERROR_CORRECTION)
    segments.add_data(data)  # qrcode's split into numeric, alphanumeric and byte segments
    version, bits = _smallest_version(segments.data_list)
    grid = _grid(version)
    bits = "".join(format(codeword, "08b") for codeword in codewords(version, bits))
    bits = bits.ljust(grid.data_modules + 1, "0")  # remainder bits, and the '0' every other module picks
    data_rows = int("".join(grid.pick_rows(bits))[::-1], 2)
    data_columns = int("".join(grid.pick_columns(bits))[::-1], 2)
    penalties = [
        _penalty(grid.unformatted_rows | data_rows ^ grid.mask_rows[mask],
                 grid.unformatted_columns | data_columns ^ grid.mask_columns[mask], grid)
        for mask in range(8)
    ]
    mask = penalties.index(min(penalties))
    return QrCode(grid.size, mask, grid.function_rows[mask] | data_rows ^ grid.mask_rows[mask])


class _Bits:
    """The bit stream of a symbol as text: what qrcode's segments write into, in a few string operations."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def put(self, number: int, length: int) -> None:
        self.parts.append(format(number, f"0{length}b"))

    def text(self) -> str:
        return "".join(self.parts)


def _segment_bits(version: int, segments: list) -> str:
    bits = _Bits()
    for segment in segments:
        bits.put(segment.mode, 4)
        bits.put(len(segment), qrcode.util.length_in_bits(segment.mode, version))
        segment.write(bits)
    return bits.text()


def _smallest_version(segments: list) -> tuple[int, str]:
    """The smallest version whose data capacity holds `segments`, and their bits (qrcode's best_fit): the
    length fields grow at versions 10 and 27, so a first guess may need a second."""
    version = 1
    while True:
        bits = _segment_bits(version, segments)
        fits = bisect.bisect_left(qrcode.util.BIT_LIMIT_TABLE[ERROR_CORRECTION], len(bits), version)
        if fits > 40:
            raise qrcode.exceptions.DataOverflowError(f"{len(bits)} bits do not fit in a QR code")
        if qrcode.util.mode_sizes_for_version(fits) is qrcode.util.mode_sizes_for_version(version):
            return fits, bits if fits == version else _segment_bits(fits, segments)
        version = fits


def codewords(version: int, bits: str) -> list[int]:
    """The data codewords of the segment `bits`, terminated and padded, then every block's check codewords,
    interleaved as the symbol holds them (what qrcode.util.create_data returns)."""
    blocks = qrcode.base.rs_blocks(version, ERROR_CORRECTION)
    capacity = sum(block.data_count for block in blocks)
    bits += "0" * min(capacity * 8 - len(bits), 4)  # the terminator
    bits += "0" * (-len(bits) % 8)
    data = [int(bits[start:start + 8], 2) for start in range(0, len(bits), 8)]
    data += [PAD_CODEWORDS[index % 2] for index in range(capacity - len(data))]
    data_blocks, check_blocks, offset = [], [], 0
    for block in blocks:
        data_blocks.append(data[offset:offset + block.data_count])
        check_blocks.append(_check_codewords(data_blocks[-1], block.total_count - block.data_count))
        offset += block.data_count
    return _interleaved(data_blocks) + _interleaved(check_blocks)


def _interleaved(blocks: list[list[int]]) -> list[int]:
    longest = max(map(len, blocks))
    return [block[index] for index in range(longest) for block in blocks if index < len(block)]


def _check_codewords(data: list[int], count: int) -> list[int]:
    """The Reed-Solomon remainder of data * x^count by the code's generator polynomial (a shift register)."""
    products = _generator_products(count)
    remainder = [0] * count
    for codeword in data:
        factor = codeword ^ remainder[0]
        remainder = [a ^ b for a, b in zip(remainder[1:] + [0], products[factor])]
    return remainder


@lru_cache(maxsize=None)
def _generator_products(count: int) -> tuple[tuple[int, ...], ...]:
    """For each byte f, f times the generator polynomial's coefficients after the leading 1, in GF(256)."""
    generator = qrcode.base.Polynomial([1], 0)
    for exponent in range(count):
        generator = generator * qrcode.base.Polynomial([1, qrcode.base.gexp(exponent)], 0)
    coefficients = [generator[index] for index in range(1, count + 1)]

    def times(factor: int, coefficient: int) -> int:
        if not factor or not coefficient:
            return 0
        return qrcode.base.gexp(qrcode.base.glog(factor) + qrcode.base.glog(coefficient))

    return tuple(tuple(times(factor, coefficient) for coefficient in coefficients) for factor in range(256))


@dataclass(frozen=True)
class _Grid:
    """What every code of one version shares: where its data modules go, the function patterns, the masks."""

    size: int
    data_modules: int
    pick_rows: operator.itemgetter  # data bits in reading order -> every module, row-major ('0' off the data)
    pick_columns: operator.itemgetter  # the same, column-major
    every_module: int
    unformatted_rows: int  # the function patterns with format and version information light, as scored
    unformatted_columns: int
    function_rows: tuple[int, ...]  # per mask: the function patterns with their format information
    mask_rows: tuple[int, ...]  # per mask: the data modules it darkens
    mask_columns: tuple[int, ...]


@lru_cache(maxsize=None)
def _grid(version: int) -> _Grid:
    size = version * 4 + 17
    stride = size + 1

    def patterns(mask: int | None) -> list[list]:
        """qrcode's own matrix of function patterns (None where data goes), with the format of `mask` or,
        given None, light format and version information, as qrcode scores masks."""
        blank = qrcode.QRCode(version=version, error_correction=ERROR_CORRECTION)
        blank.modules_count = size
        blank.modules = [[None] * size for _ in range(size)]
        blank.setup_position_probe_pattern(0, 0)
        blank.setup_position_probe_pattern(size - 7, 0)
        blank.setup_position_probe_pattern(0, size - 7)
        blank.setup_position_adjust_pattern()
        blank.setup_timing_pattern()
        blank.setup_type_info(mask is None, mask or 0)
        if version >= 7:
            blank.setup_type_number(mask is None)
        return blank.modules

    def row_major(dark) -> int:
        return sum(1 << row * stride + column for row in range(size) for column in range(size) if dark(row, column))

    def column_major(dark) -> int:
        return sum(1 << column * stride + row for row in range(size) for column in range(size) if dark(row, column))

    unformatted = patterns(None)
    order = _reading_order(unformatted, size)
    index = {position: number for number, position in enumerate(order)}
    off_data = len(order)  # the '0' appended to the data bits
    pick_rows = operator.itemgetter(
        *(index.get((row, column), off_data) if column < size else off_data
          for row in range(size) for column in range(stride)))
    pick_columns = operator.itemgetter(
        *(index.get((row, column), off_data) if row < size else off_data
          for column in range(size) for row in range(stride)))
    masks = [qrcode.util.mask_func(mask) for mask in range(8)]
    return _Grid(
        size=size,
        data_modules=len(order),
        pick_rows=pick_rows,
        pick_columns=pick_columns,
        every_module=row_major(lambda row, column: True),
        unformatted_rows=row_major(lambda row, column: unformatted[row][column]),
        unformatted_columns=column_major(lambda row, column: unformatted[row][column]),
        function_rows=tuple(
            row_major(lambda row, column, modules=patterns(mask): modules[row][column]) for mask in range(8)
        ),
        mask_rows=tuple(
            row_major(lambda row, column, darkens=darkens: (row, column) in index and darkens(row, column))
            for darkens in masks
        ),
        mask_columns=tuple(
            column_major(lambda row, column, darkens=darkens: (row, column) in index and darkens(row, column))
            for darkens in masks
        ),
    )


def _reading_order(modules: list[list], size: int) -> list[tuple[int, int]]:
    """The data modules in the order the codeword bits fill them: two columns at a time from the right,
    upwards then downwards, skipping the vertical timing pattern (qrcode's map_data)."""
    order = []
    upwards = True
    for right in range(size - 1, 0, -2):
        if right <= 6:
            right -= 1
        for row in range(size - 1, -1, -1) if upwards else range(size):
            order.extend((row, column) for column in (right, right - 1) if modules[row][column] is None)
        upwards = not upwards
    return order


_FINDER_LIKE = ("10111010000", "00001011101")  # 1:1:3:1:1 beside four light modules, read left to right


def _penalty(rows: int, columns: int, grid: _Grid) -> int:
    """The standard's penalty (qrcode's lost_point) of the matrix whose modules are `rows` and, transposed,
    `columns`: runs of five or more, 2x2 blocks, finder-like patterns, and the balance of dark and light."""
    stride = grid.size + 1
    penalty = 0
    for lines in (rows, columns):
        light = ~lines & grid.every_module  # the separators are neither dark nor light: runs end there
        for colour in (lines, light):
            five = colour & colour >> 1 & colour >> 2 & colour >> 3 & colour >> 4  # five in a row start here
            penalty += five.bit_count() + 2 * (five & ~(five << 1)).bit_count()  # 3 + (n - 5) for a run of n
        for pattern in _FINDER_LIKE:
            found = grid.every_module
            for offset, module in enumerate(pattern):
                found &= (lines if module == "1" else light) >> offset
            penalty += 40 * found.bit_count()
    same = ~(rows ^ rows >> 1) & ~(rows ^ rows >> stride) & ~(rows ^ rows >> (stride + 1))
    penalty += 3 * (same & grid.every_module & grid.every_module >> 1 & grid.every_module >> stride).bit_count()
    dark = rows.bit_count()
    penalty += int(abs(float(dark) / (grid.size**2) * 100 - 50) / 5) * 10  # in qrcode's arithmetic
    return penalty
