"""Decode the QR codes a page shows: draw each SVG path onto an image and read it with zxing-cpp."""

from __future__ import annotations

import re

import zxingcpp
from PIL import Image, ImageDraw

SCALE = 8


def rasterize_qr(svg: str) -> Image.Image:
    """Paint the run-length path of companion.web.core.qr (M x y h w v1 h-w z, one per run) black on white."""
    size = int(re.search(r'viewBox="0 0 (\d+) \d+"', svg).group(1))
    image = Image.new("L", (size * SCALE, size * SCALE), 255)
    draw = ImageDraw.Draw(image)
    runs = re.findall(r"M(\d+) (\d+)h(\d+)v1h-\d+z", re.search(r' d="([^"]+)"', svg).group(1))
    assert runs, "no QR modules found"
    for x, y, width in runs:
        x, y, width = int(x), int(y), int(width)
        draw.rectangle([x * SCALE, y * SCALE, (x + width) * SCALE - 1, (y + 1) * SCALE - 1], fill=0)
    return image


def decode_page_qr_codes(html: str) -> list[str]:
    """The text of every QR code in a page, in page order."""
    texts = []
    for svg in re.findall(r'<div class="qr"[^>]*>(<svg.*?</svg>)</div>', html, re.S):
        results = zxingcpp.read_barcodes(rasterize_qr(svg))
        assert len(results) == 1, "exactly one readable QR code per card"
        texts.append(results[0].text)
    return texts
