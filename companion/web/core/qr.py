"""QR codes as compact inline SVG, drawn through qrcode's public interface.

qrcode fits the text into the smallest version (error correction M) and lays out the modules; the site turns
that matrix into one SVG path. The mask is fixed rather than searched: qrcode's search draws the code eight
times over (about 25 ms per seat link against 3 ms), and a new host screen draws six codes at once. Every
mask gives a valid code that any reader decodes; the search only scores how evenly the modules fall.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import qrcode

ERROR_CORRECTION = qrcode.constants.ERROR_CORRECT_M
# Mask 2 darkens every third column. Scored with the standard's penalty rules over a few hundred seat, host
# and Decrypto links, it came out best most often and the least worse than the best otherwise.
MASK_PATTERN = 2
BORDER = 2  # modules of quiet zone around the code (the standard asks for 4; phones read 2 easily)

_DARK_RUN = re.compile(rb"\x01+")


@dataclass(frozen=True)
class QrCode:
    """A finished code: its modules row by row, quiet zone included, one byte a module (1 dark, 0 light)."""

    rows: tuple[bytes, ...]

    def to_svg(self) -> str:
        """The code as one SVG path with a subpath per horizontal run of dark modules, sized by its viewBox."""
        runs = [
            f"M{run.start()} {row}h{len(run[0])}v1h-{len(run[0])}z"
            for row, modules in enumerate(self.rows)
            for run in _DARK_RUN.finditer(modules)
        ]
        side = len(self.rows)
        return (
            f'<svg version="1.1" viewBox="0 0 {side} {side}" xmlns="http://www.w3.org/2000/svg">'
            f'<path d="{"".join(runs)}" id="qr-path" fill="#000000" fill-opacity="1" fill-rule="nonzero" '
            'stroke="none" /></svg>'
        )


@lru_cache(maxsize=2048)
def qr_svg(data: str) -> str:
    """An SVG QR code of `data`, remembered: a host screen that reloads or polls never draws its codes again;
    2,048 codes (a few hundred tables of seats and hosts) take about 10 MB."""
    return encode(data).to_svg()


def encode(data: str) -> QrCode:
    """The QR code of `data` in the smallest version that holds it, with the site's fixed mask."""
    code = qrcode.QRCode(error_correction=ERROR_CORRECTION, mask_pattern=MASK_PATTERN, border=BORDER)
    code.add_data(data)
    code.make(fit=True)
    return QrCode(tuple(map(bytes, code.get_matrix())))
