"""The board as an SVG string: terrain, animal territories, tile borders, tile numbers and structures.

Knows nothing of the web; the pixel geometry of flat-topped odd-q hexes lives here and nowhere else.
Every hex gets a class naming its terrain (tF tD tS tM tW) so the stylesheet owns the colours, and a letter
(in the reader's language, from the caller) so the map reads without colour.
"""

from __future__ import annotations

import math
from html import escape
from typing import Callable

from .cryptid.board import Board
from .cryptid.hexgrid import COLS, HEX_COUNT, ROWS, hex_row_col, hexes_of
from .cryptid.text import terrain_letter
from .cryptid.tiles import ANIMALS, number_hex, slot_of

SIZE = 10.0  # hex radius in SVG units
_HALF_HEIGHT = SIZE * math.sqrt(3) / 2
WIDTH = SIZE * 1.5 * (COLS - 1) + 2 * SIZE
HEIGHT = _HALF_HEIGHT * (2 * ROWS + 1)
# Corner k of a flat-topped hex sits at 60k degrees, y pointing down; edge k joins corners k and k+1.
_CORNERS = [(SIZE * math.cos(math.radians(60 * k)), SIZE * math.sin(math.radians(60 * k))) for k in range(6)]
# Neighbour across edge k as (row, col) offsets: lower right, below, lower left, upper left, above, upper right.
_EDGE_NEIGHBOUR = {
    0: ((0, 1), (1, 0), (0, -1), (-1, -1), (-1, 0), (-1, 1)),
    1: ((1, 1), (1, 0), (1, -1), (0, -1), (-1, 0), (0, 1)),
}
TERRAIN_CLASSES = {"forest": "F", "desert": "D", "swamp": "S", "mountain": "M", "water": "W"}
_FILL = {"white": "#ffffff", "green": "#2fa84f", "blue": "#2f6fd6", "black": "#141414"}
_OUTLINE = {"white": "#1b1b1b", "green": "#0b2a10", "blue": "#0a1c3d", "black": "#ffffff"}


def hex_center(index: int) -> tuple[float, float]:
    """SVG coordinates of a hex's centre."""
    row, col = hex_row_col(index)
    return SIZE + 1.5 * SIZE * col, _HALF_HEIGHT * (2 * row + 1 + (col & 1))


def _n(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


Point = tuple[float, float]


def _edges(index: int, keep: Callable[[int | None], bool]) -> list[tuple[Point, Point]]:
    """(start, end) points of the hex's edges whose neighbour (None off the board) passes `keep`."""
    row, col = hex_row_col(index)
    x, y = hex_center(index)
    out = []
    for k, (dr, dc) in enumerate(_EDGE_NEIGHBOUR[col & 1]):
        r, c = row + dr, col + dc
        neighbour = r * COLS + c if 0 <= r < ROWS and 0 <= c < COLS else None
        if keep(neighbour):
            (x1, y1), (x2, y2) = _CORNERS[k], _CORNERS[(k + 1) % 6]
            # Rounded so that the corner two hexes share compares equal from both sides.
            out.append(((round(x + x1, 1), round(y + y1, 1)), (round(x + x2, 1), round(y + y2, 1))))
    return out


def _chain(segments: list[tuple[Point, Point]]) -> str:
    """Path data joining edges end to start into polylines, each corner written once as a short relative step."""
    starts: dict[Point, list[Point]] = {}
    for start, end in segments:
        starts.setdefault(start, []).append(end)
    remaining = dict.fromkeys(segments)
    data = []
    for segment in segments:
        if segment not in remaining:
            continue
        start, end = segment
        del remaining[segment]
        starts[start].remove(end)
        data.append(f"M{_n(start[0])} {_n(start[1])}l{_n(end[0] - start[0])} {_n(end[1] - start[1])}")
        while starts.get(end):
            following = starts[end].pop()
            del remaining[(end, following)]
            data.append(f"l{_n(following[0] - end[0])} {_n(following[1] - end[1])}")
            end = following
    return "".join(data)


def _polygon(x: float, y: float, radius: float, sides: int, start_degrees: float) -> str:
    points = []
    for k in range(sides):
        angle = math.radians(start_degrees + 360 * k / sides)
        points.append(f"{_n(x + radius * math.cos(angle))},{_n(y + radius * math.sin(angle))}")
    return " ".join(points)


def board_svg(
    board: Board,
    *,
    title: str,
    description: str = "",
    marked: int = 0,
    habitat: int | None = None,
    selected: int | None = None,
    hex_href: Callable[[int], str] | None = None,
    hex_labelledby: Callable[[int], str] | None = None,
    letters: dict[str, str] | None = None,
    css_class: str = "board",
    overlay: str = "",
) -> str:
    """An accessible SVG of the board.

    marked: mask of hexes in a player's area; the others are drawn from the "x" symbols, styled by the page.
    habitat: a hex to ring as the habitat; selected: a hex to ring as the player's current choice.
    hex_href / hex_labelledby: make every hex a link, named by the ids of label elements the page provides
    (short, language-neutral ids keep the 108 links small in every language).
    letters: terrain letters shown in each hex (default: English initials).
    overlay: SVG drawn on top of everything (e.g. the players' pieces from `piece_marks`).
    """
    letters = letters or {terrain: terrain_letter(terrain) for terrain in TERRAIN_CLASSES}
    regions = board.regions
    parts = [
        # Text attributes set once here reach every <use> clone by inheritance (CSS selectors do not).
        f'<svg class="{css_class}" viewBox="-1 -1 {_n(WIDTH + 2)} {_n(HEIGHT + 2)}" role="img" font-size="5.4" '
        f'font-weight="700" text-anchor="middle" dominant-baseline="middle" '
        f'aria-labelledby="{css_class}-title{" " + css_class + "-desc" if description else ""}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{css_class}-title">{escape(title)}</title>',
    ]
    if description:
        parts.append(f'<desc id="{css_class}-desc">{escape(description)}</desc>')
    corner_points = " ".join(f"{_n(x)},{_n(y)}" for x, y in _CORNERS)
    # One symbol per terrain (hex and letter) keeps each of the 108 hexes to a short <use>. With `marked`,
    # hexes outside the mark use a second set ("x" instead of the map's initial), which pages style.
    prefix = css_class[0]
    prefixes = (prefix, "x") if marked else (prefix,)
    symbols = "".join(
        f'<symbol id="{p}{TERRAIN_CLASSES[t]}" overflow="visible"><polygon class="t{TERRAIN_CLASSES[t]}" '
        f'points="{corner_points}"/><text y="1.9">{escape(letters[t])}</text></symbol>'
        for p in prefixes
        for t in TERRAIN_CLASSES
    )
    parts.append(f"<defs>{symbols}</defs>")
    for index in range(HEX_COUNT):
        terrain, _ = board.cell(index)
        x, y = hex_center(index)
        symbol = prefix if not marked or marked >> index & 1 else "x"
        shape = f'<use href="#{symbol}{TERRAIN_CLASSES[terrain]}" x="{_n(x)}" y="{_n(y)}"/>'
        if hex_href:
            named = f' aria-labelledby="{hex_labelledby(index)}"' if hex_labelledby else ""
            parts.append(f'<a href="{escape(hex_href(index))}"{named}>{shape}</a>')
        else:
            parts.append(shape)
    borders = []
    for index in range(HEX_COUNT):
        slot = slot_of(index)
        borders += _edges(index, lambda n, slot=slot: n is None or slot_of(n) != slot)
    parts.append(f'<path class="tile-border" d="{_chain(borders)}"/>')
    for animal in ANIMALS:
        mask = regions[animal]
        segments = []
        for index in range(HEX_COUNT):
            if mask >> index & 1:
                segments += _edges(index, lambda n, mask=mask: n is None or not mask >> n & 1)
        parts.append(f'<path class="{animal}" d="{_chain(segments)}"/>')
    for placement in board.tiles:
        row, col = number_hex(placement.slot, placement.rotated)
        x, y = hex_center(row * COLS + col)
        parts.append(
            f'<g class="tile-number"><circle cx="{_n(x)}" cy="{_n(y)}" r="5.2"/>'
            f'<text x="{_n(x)}" y="{_n(y + 2.6)}">{placement.tile}</text></g>'
        )
    for structure in board.structures:
        x, y = hex_center(structure.hex)
        if structure.kind == "standing_stone":
            points = _polygon(x, y, 6.2, 8, 22.5)
        else:
            points = _polygon(x, y + 0.9, 6.8, 3, -90)
        parts.append(
            f'<polygon class="structure" points="{points}" fill="{_FILL[structure.color]}" '
            f'stroke="{_OUTLINE[structure.color]}"/>'
        )
    for ring, css in ((habitat, "habitat"), (selected, "selected")):
        if ring is not None:
            x, y = hex_center(ring)
            parts.append(f'<circle class="{css}" cx="{_n(x)}" cy="{_n(y)}" r="7.4"/>')
    parts.append(overlay)
    parts.append("</svg>")
    return "".join(parts)



# Where each seat's disc sits in a hex, as (dx, dy) from the centre: seat k always in the same place, so a
# seat is known by its place as well as by its colour and number; the cube (one per hex at most) sits in the middle.
_DISC_SPOTS = [(round(5.4 * math.sin(math.radians(72 * k)), 1), round(-5.4 * math.cos(math.radians(72 * k)), 1)) for k in range(5)]


def piece_marks(discs: tuple[int, ...], cubes: tuple[int, ...], highlight: int | None = None) -> str:
    """SVG for the players' pieces: per seat (1-based, in order) a mask of hexes with its disc and with its cube.
    Each piece carries its seat's number and colour class (p1-p5, chosen by the page to stay apart for
    colour-blind players). `highlight`: a hex whose pieces were just placed, ringed for the eye."""
    parts = ['<g class="pieces" font-size="4">']
    for seat, mask in enumerate(discs, 1):
        dx, dy = _DISC_SPOTS[seat - 1]
        for index in range(HEX_COUNT):
            if mask >> index & 1:
                x, y = hex_center(index)
                parts.append(f'<g class="disc p{seat}"><circle cx="{_n(x + dx)}" cy="{_n(y + dy)}" r="2.9"/>'
                             f'<text x="{_n(x + dx)}" y="{_n(y + dy + 1.3)}">{seat}</text></g>')
    for seat, mask in enumerate(cubes, 1):
        for index in range(HEX_COUNT):
            if mask >> index & 1:
                x, y = hex_center(index)
                parts.append(f'<g class="cube p{seat}"><rect x="{_n(x - 3.1)}" y="{_n(y - 3.1)}" width="6.2" height="6.2" rx="0.6"/>'
                             f'<text x="{_n(x)}" y="{_n(y + 1.3)}">{seat}</text></g>')
    if highlight is not None:
        x, y = hex_center(highlight)
        parts.append(f'<circle class="last-move" cx="{_n(x)}" cy="{_n(y)}" r="8.6"/>')
    parts.append("</g>")
    return "".join(parts)


def shade_marks(mask: int) -> str:
    """A veil over the hexes of `mask` (e.g. those a player's clue rules out), hidden until the page shows it."""
    corner_points = " ".join(f"{_n(x)},{_n(y)}" for x, y in _CORNERS)
    uses = "".join(f'<use href="#veil" x="{_n(hex_center(i)[0])}" y="{_n(hex_center(i)[1])}"/>' for i in hexes_of(mask))
    return f'<g class="veil"><symbol id="veil" overflow="visible"><polygon points="{corner_points}"/></symbol>{uses}</g>'
