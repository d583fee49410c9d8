"""QR codes as compact inline SVG, drawn by the qrcode package."""

from __future__ import annotations

import re
from functools import lru_cache

import qrcode
import qrcode.util
from qrcode.image.svg import SvgPathImage


class RunLengthSvgPathImage(SvgPathImage):
    """qrcode's single-path SVG image with one subpath per horizontal run of dark modules (about 3x smaller)."""

    needs_drawrect = False

    def process(self) -> None:
        subpaths = []
        for row_number, row in enumerate(self.modules):
            column = 0
            while column < len(row):
                if not row[column]:
                    column += 1
                    continue
                start = column
                while column < len(row) and row[column]:
                    column += 1
                length = column - start
                subpaths.append(f"M{start + self.border} {row_number + self.border}h{length}v1h-{length}z")
        self._subpaths = subpaths
        super().process()
        # Fixed millimetre sizes would fight the page layout; the viewBox is enough.
        self._img.attrib.pop("width", None)
        self._img.attrib.pop("height", None)


@lru_cache(maxsize=2048)
def qr_svg(data: str) -> str:
    """An SVG QR code (error correction M, 2-module quiet zone) sized by CSS through its viewBox.

    A pure function of its text, remembered: a host screen that reloads or polls never draws its codes again;
    2,048 codes (a few hundred tables of seats and hosts) take about 10 MB."""
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=2, box_size=10,
                         image_factory=RunLengthSvgPathImage)
    code.add_data(data)
    code.best_fit()
    code.mask_pattern = best_mask_pattern(code)
    code.make(fit=False)
    return code.make_image().to_string(encoding="unicode")


# The mask the standard asks for (ISO/IEC 18004, 7.8.3), chosen exactly as qrcode's best_mask_pattern() chooses
# it, in a third of the time: qrcode places the data again for each of the 8 masks and scores each matrix module
# by module, about 10 ms for a seat link, most of a new host screen's cost. Here the data is placed once, the
# masks are XORed onto rows held as integers, and the penalties are counted with bit operations and one regular
# expression over all rows and columns. A test checks the choice against qrcode's own on hundreds of links.

_RUN = re.compile(r"0{5,}|1{5,}")  # rule 1: five or more modules of one colour in a row or column
_FINDER_LIKE = re.compile(r"(?=10111010000|00001011101)")  # rule 3: 1:1:3:1:1 beside four light modules


def best_mask_pattern(code: qrcode.QRCode) -> int:
    """The mask pattern (0-7) with the lowest penalty for `code`, whose version is set (best_fit)."""
    code.makeImpl(True, 0)  # test mode, as qrcode scores it: format information left light
    size = code.modules_count
    placed = [sum(1 << column for column, dark in enumerate(row) if dark) for row in code.modules]
    masks = _mask_rows(code.version)
    unmasked = [row ^ mask for row, mask in zip(placed, masks[0])]
    penalties = [_penalty([row ^ mask for row, mask in zip(unmasked, masks[pattern])], size) for pattern in range(8)]
    return penalties.index(min(penalties))  # the first of equals, as qrcode takes


@lru_cache(maxsize=None)
def _mask_rows(version: int) -> tuple[tuple[int, ...], ...]:
    """For each mask pattern, per row, the data modules it darkens (bit c is column c)."""
    blank = qrcode.QRCode(version=version)
    size = blank.modules_count = version * 4 + 17
    blank.modules = [[None] * size for _ in range(size)]
    # The function patterns, placed by qrcode as makeImpl() places them: what stays None holds data.
    blank.setup_position_probe_pattern(0, 0)
    blank.setup_position_probe_pattern(size - 7, 0)
    blank.setup_position_probe_pattern(0, size - 7)
    blank.setup_position_adjust_pattern()
    blank.setup_timing_pattern()
    blank.setup_type_info(True, 0)
    if version >= 7:
        blank.setup_type_number(True)
    return tuple(
        tuple(
            sum(1 << column for column in range(size) if blank.modules[row][column] is None and darkens(row, column))
            for row in range(size)
        )
        for darkens in map(qrcode.util.mask_func, range(8))
    )


def _penalty(rows: list[int], size: int) -> int:
    """qrcode's lost_point() of the matrix whose rows these are."""
    texts = [format(row, f"0{size}b") for row in rows]  # columns right to left: every rule is symmetric
    texts += ["".join(column) for column in zip(*texts)]
    everything = " ".join(texts)  # a space ends every run and pattern at the edge of a row or column
    runs = _RUN.findall(everything)
    finders = len(_FINDER_LIKE.findall(everything))
    inner = (1 << (size - 1)) - 1
    blocks = sum(  # rule 2: 2x2 blocks of one colour, where both rows agree along and across
        (~(upper ^ upper >> 1) & ~(lower ^ lower >> 1) & ~(upper ^ lower) & inner).bit_count()
        for upper, lower in zip(rows, rows[1:])
    )
    dark = sum(row.bit_count() for row in rows)
    balance = int(abs(float(dark) / (size**2) * 100 - 50) / 5) * 10  # rule 4, in qrcode's arithmetic
    return sum(map(len, runs)) - 2 * len(runs) + 3 * blocks + 40 * finders + balance
