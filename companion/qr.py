"""QR codes as compact inline SVG, drawn by the qrcode package."""

from __future__ import annotations

from functools import lru_cache

import qrcode
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

    A pure function of its text, remembered: a host screen that reloads or polls never draws its codes again
    (several milliseconds each, for the standard's best-of-eight mask search); 2,048 codes (a few hundred
    tables of seats and hosts) take about 10 MB."""
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=2, box_size=10,
                         image_factory=RunLengthSvgPathImage)
    code.add_data(data)
    code.make(fit=True)
    return code.make_image().to_string(encoding="unicode")
