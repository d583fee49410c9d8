"""The refereed map on a 390x844 phone: the shade veils what a clue rules out and leaves every letter readable."""

from __future__ import annotations

import io
from urllib.parse import urlsplit

from PIL import Image

from companion.cryptid.hexgrid import hex_name
from companion.cryptid.tiles import TERRAINS

from .conftest import PHONE


def luminance(pixel: tuple[int, ...]) -> float:
    """WCAG's relative luminance of an sRGB pixel."""
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (v / 255 for v in pixel[:3])]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def letter_area(page, name: str) -> list[float]:
    """Luminances of the middle of a hex, where its letter is, as the phone's screen shows it."""
    box = page.locator(f'svg.play-map [data-hex="{name}"]').bounding_box()
    clip = {"x": box["x"] + box["width"] * 0.3, "y": box["y"] + box["height"] * 0.3,
            "width": box["width"] * 0.4, "height": box["height"] * 0.4}
    image = Image.open(io.BytesIO(page.screenshot(clip=clip))).convert("RGB")
    return [luminance(pixel) for pixel in image.get_flattened_data()]


def contrast(a: float, b: float) -> float:
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def test_the_shade_veils_ruled_out_hexes_beneath_their_letters(browser, live_server, live_app):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    table = page.request.post(live_server + "/api/tables", data={"players": 3, "advanced": False}).json()
    game = live_app.extensions["dealer"].load(table["code"])
    ruled_out = ~game.allowed(1)
    free = {s.hex for s in game.board.structures}
    # One ruled-out hex of each terrain the clue rules out, with no structure over its letter (no pieces yet).
    hexes = {}
    for index, (terrain, _) in enumerate(game.board.cells):
        if ruled_out >> index & 1 and index not in free:
            hexes.setdefault(terrain, index)
    assert set(hexes) & {"forest", "swamp", "water"} and set(hexes) <= set(TERRAINS)
    page.goto(live_server + urlsplit(table["seats"][0]["url"]).path)
    page.locator("svg.play-map").scroll_into_view_if_needed()
    before = {terrain: letter_area(page, hex_name(index)) for terrain, index in hexes.items()}
    page.get_by_label("Shade the hexes my clue rules out").check()
    after = {terrain: letter_area(page, hex_name(index)) for terrain, index in hexes.items()}
    for terrain in hexes:
        light, dark = sorted(before[terrain])[-3], sorted(before[terrain])[2]
        background = sorted(after[terrain])[len(after[terrain]) // 2]
        assert background < sorted(before[terrain])[len(before[terrain]) // 2], f"{terrain}: the veil is not drawn"
        if terrain in ("forest", "swamp", "water"):  # white letters: their pixels stay as bright, above the veil
            assert sorted(after[terrain])[-3] >= 0.9 * light, terrain
            assert contrast(sorted(after[terrain])[-3], background) >= 3, terrain
        else:  # dark letters keep their contrast with the veiled terrain around them
            assert contrast(sorted(after[terrain])[2], background) >= 3, terrain
            assert sorted(after[terrain])[2] <= dark + 0.02, terrain
    # The veil lies beneath the letter in each veiled hex's shape, and lets the terrain show through.
    order = page.evaluate("[...document.querySelector('#vF').children].map(e => e.getAttribute('class') || e.tagName)")
    assert order == ["tF", "path", "vl", "text"]  # terrain, texture, veil, letter
    opacities = page.evaluate("[...document.querySelectorAll('#gV rect')].map(r => +r.getAttribute('fill-opacity'))")
    assert opacities and all(0 < o < 1 for o in opacities)
    page.get_by_label("Shade the hexes my clue rules out").uncheck()
    assert page.evaluate("getComputedStyle(document.querySelector('#vF .vl')).visibility") == "hidden"
    context.close()
