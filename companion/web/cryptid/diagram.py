"""The board as an SVG string: terrain, tile borders, animal territories, tile labels, structures and rings.

Knows nothing of the web; the pixel geometry of flat-topped odd-q hexes lives here and nowhere else.
Every hex gets a class naming its terrain (tF tD tS tM tW) so the stylesheet owns the colours, and a letter
(in the reader's language, from the caller) so the map reads without colour.

Each terrain also has a texture (trees, sand, reeds, peaks, waves: one <pattern> each, drawn once), so the
map reads in grey as on the real tiles. A refereed game's map adds the hex names on its edges (column letters
A-L above and below, rows 1-9 down both sides, as `hexgrid.hex_name` spells them) and a veil, beneath the
letters, over the hexes a player's clue rules out.

Each tile's number and which way round it lies sit on a tab in the margin beside its slot, outside the hexes,
so no structure or ring can ever cover them. Even slots (the left column) have their tab on the left, odd
slots on the right; a narrow tab sits between two rows' numbers.
"""

from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache
from html import escape
from typing import Callable

from companion.cryptid.board import Board
from companion.cryptid.hexgrid import (
    ALL_HEXES,
    COLS,
    COLUMN_LETTERS,
    HEX_COUNT,
    ROWS,
    hex_name,
    hex_row_col,
    hexes_of,
)
from companion.cryptid.text import terrain_letter
from companion.cryptid.tiles import (
    ANIMALS,
    SLOT_COUNT,
    TILE_COLS,
    TILE_ROWS,
    slot_of,
    slot_origin,
)

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
# Structure colours are classes the stylesheet fills (sw, sg, sb, sk), like the terrains.
STRUCTURE_CLASSES = {"white": "sw", "green": "sg", "blue": "sb", "black": "sk"}
# One slot spans 6 columns (an even count, so odd-q parity holds) and 3 rows: its offset from slot 0.
_SLOT_DX = 1.5 * SIZE * TILE_COLS
_SLOT_DY = 2 * _HALF_HEIGHT * TILE_ROWS
# Tabs: (margin beside the board, tab width, tab height). Wide tabs draw the arrow and name the turn in
# words; narrow ones (on a phone's map, where every byte counts) are one line of text, "3↑" or "3↓".
WIDE_TAB = (29.0, 25.0, 46.0)
NARROW_TAB = (14.5, 12.0, 8.0)  # room for a full-width arrow, as Japanese fonts draw it
_TAB_GAP = 2.5  # clear of the tile border's light band, which reaches 1.4 beyond the outermost hexes
ROW_BAND = 12.0  # the row numbers' band beside the board (as wide as a narrow tab), when the edges name the hexes
_TAB_WORD_SIZE = 5.0
_ARROWS = {False: "↑", True: "↓"}  # the arrow points to the printed number: up when upright, down when turned
EDGE = 8.0  # the band above and below the board that holds the column letters, when the map names its hexes
LATIN_DIGITS = "0123456789"


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


def _step(start: Point, end: Point) -> str:
    """A relative line in path data; flat-topped hexes have horizontal edges, written shorter."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    return f"h{_n(dx)}" if abs(dy) < 0.05 else f"l{_n(dx)} {_n(dy)}"


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
        data.append(f"M{_n(start[0])} {_n(start[1])}{_step(start, end)}")
        while starts.get(end):
            following = starts[end].pop()
            del remaining[(end, following)]
            data.append(_step(end, following))
            end = following
    return "".join(data)


@lru_cache(maxsize=4096)
def _outline(mask: int) -> str:
    """Path data of the outer edges of a set of hexes (cached: a game night draws the same territories often)."""
    segments = []
    for index in range(HEX_COUNT):
        if mask >> index & 1:
            segments += _edges(index, lambda n: n is None or not mask >> n & 1)
    return _chain(segments)


def _offset(x: float, y: float) -> str:
    """x and y attributes of a <use>, left out where zero."""
    return (f' x="{_n(x)}"' if x else "") + (f' y="{_n(y)}"' if y else "")


def _points(points: list[Point]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in points)


def _polygon(x: float, y: float, radius: float, sides: int, start_degrees: float) -> str:
    angles = [math.radians(start_degrees + 360 * k / sides) for k in range(sides)]
    return _points([(x + radius * math.cos(a), y + radius * math.sin(a)) for a in angles])


# x and y attributes placing a <use> on each hex's centre, written once.
_HEX_AT = tuple(f' x="{_n(x)}" y="{_n(y)}"' for x, y in map(hex_center, range(HEX_COUNT)))
_BOARD_OUTLINE = _outline(ALL_HEXES)
_SLOT_ZERO = sum(1 << index for index in range(HEX_COUNT) if slot_of(index) == 0)
# Every tile has the same outline, so it is written once and placed six times.
_TILE_OUTLINE = _outline(_SLOT_ZERO)
_HEXAGON = _points(_CORNERS)
# Textures as on the real tiles, faint beside the letters: trees, sand, reeds, peaks and waves; together with the
# letters they keep forest, swamp and water apart in grey, where their colours are alike. Each texture is one
# small shape repeated on a grid in the hex's own units (so every hex of a terrain looks the same), kept where the
# whole shape lies inside the hexagon: plain shapes rather than a <pattern> fill, which Chromium takes about
# 0.2 s a hex to print. The copies are joined into one path per terrain: every hex is a <use> of its terrain's
# group, and each element inside that group is cloned 108 times; a <use> per copy made a seat page 4,800 nodes
# that the browser restyled on every live update.
_TEXTURES = {  # terrain class: (grid width, grid height, the shape's bounding box, the shape's path, its paint)
    "F": (6.5, 5.6, (1.2, .7, 5.2, 4), "M3.2 .7l2 3.3h-4z", 'fill="#1c461a"'),
    "D": (3.6, 3.6, (.5, .1, 3.1, 3.5), "M.9 .5v.8M2.7 2.3v.8", 'stroke="#a27a2c" stroke-width=".8" stroke-linecap="round"'),
    "S": (6, 5, (1, 1.4, 5, 4.4), "M1.2 4.2h3.6M2 4.2l-.6-2.2M3 4.2v-2.6M4 4.2l.6-2.2", 'fill="none" stroke="#3b2b52" stroke-width=".45"'),
    "M": (7, 6, (.6, 1.2, 5.6, 4.8), "M.8 4.6l2.3-3.2 2.3 3.2", 'fill="none" stroke="#67625a" stroke-width=".55"'),
    "W": (6, 3.2, (0, .8, 6, 2.1), "M0 1.8c1-1 2-1 3 0s2 1 3 0", 'fill="none" stroke="#a9cdf0" stroke-width=".45"'),
}
# A shape's path is absolute only in its move-tos ("M x y"); every other command is relative.
_MOVE_TO = re.compile(r"M(-?(?:\d+\.?\d*|\.\d+))[ ,]?(-?(?:\d+\.?\d*|\.\d+))")


def _inside_hexagon(x: float, y: float) -> bool:
    """Whether a point lies inside the flat-topped hexagon of radius SIZE centred on (0, 0)."""
    x, y = abs(x), abs(y)
    return y <= _HALF_HEIGHT and _HALF_HEIGHT * x + SIZE / 2 * y <= _HALF_HEIGHT * SIZE


def _texture_grid(width: float, height: float, box: tuple[float, float, float, float]) -> list[tuple[float, float]]:
    """The grid offsets at which a shape with this bounding box lies wholly inside the hexagon."""
    left, top, right, bottom = box
    spots = []
    for row in range(-math.ceil(SIZE / height) - 1, math.ceil(SIZE / height) + 1):
        for col in range(-math.ceil(SIZE / width) - 1, math.ceil(SIZE / width) + 1):
            x, y = col * width, row * height
            if all(_inside_hexagon(x + dx, y + dy) for dx in (left, right) for dy in (top, bottom)):
                spots.append((x, y))
    return spots


def _moved(path: str, dx: float, dy: float) -> str:
    """A path of relative commands after absolute move-tos, drawn (dx, dy) further on."""
    return _MOVE_TO.sub(lambda move: f"M{_n(float(move[1]) + dx)} {_n(float(move[2]) + dy)}", path)


_TEXTURE_SPOTS = {t: _texture_grid(w, h, box) for t, (w, h, box, _, _) in _TEXTURES.items()}
_TEXTURE = {
    t: f'<path d="{"".join(_moved(path, x, y) for x, y in _TEXTURE_SPOTS[t])}" {paint}/>'
    for t, (_, _, _, path, paint) in _TEXTURES.items()
}
# The veil over a hex a player's clue rules out: dark stripes over a light tint of dark, through which the
# terrain's colour and texture still show; drawn beneath the letter, so the letter keeps its contrast.
_VEIL_PATTERN = (
    '<pattern id="gV" width="2.8" height="2.8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
    '<rect width="2.8" height="2.8" fill="#000" fill-opacity=".15"/><rect width="1.2" height="2.8" fill="#000" fill-opacity=".4"/></pattern>'
)
_VEIL = f'<polygon points="{_HEXAGON}" class="vl" fill="url(#gV)"/>'


def _digits(number: int, digits: str) -> str:
    """A whole number written with the given ten digits."""
    return "".join(digits[int(c)] for c in str(number))


def _edge_labels(digits: str) -> str:
    """The hex names' parts on the board's edges: column letters above and below, row numbers at both sides
    (level with column A's hexes on the left and column L's, half a hex lower, on the right)."""
    top = -1 - EDGE / 2
    letters = "".join(f'<text x="{_n(SIZE + 1.5 * SIZE * col)}" y="{_n(top)}">{COLUMN_LETTERS[col]}</text>' for col in range(COLS))
    side = _TAB_GAP + NARROW_TAB[1] / 2
    rows = "".join(
        f'<text x="{_n(-side)}" y="{_n(hex_center(row * COLS)[1])}">{number}</text>'
        f'<text x="{_n(WIDTH + side)}" y="{_n(hex_center(row * COLS + COLS - 1)[1])}">{number}</text>'
        for row in range(ROWS)
        for number in [_digits(row + 1, digits)]
    )
    return f'<g class="edge"><g id="ec">{letters}</g><use href="#ec" y="{_n(HEIGHT + 2 + EDGE)}"/>{rows}</g>'


def _tab_box(slot: int, wide: bool, beyond: float = 0.0) -> tuple[float, float, float, float]:
    """(x, y, width, height) of the tab naming the tile in a slot: in the margin, level with the tile, `beyond`
    further out. A narrow tab sits between two of the rows numbered on its edge (column A's rows on the left,
    column L's, half a hex lower, on the right), so both fit the same margin; a wide tab is too tall for that and
    goes beyond the row numbers (`beyond`: ROW_BAND)."""
    _, width, height = WIDE_TAB if wide else NARROW_TAB
    row0, _ = slot_origin(slot)
    half_rows = 3.5 if wide else 4 if slot % 2 == 0 else 3
    middle = _HALF_HEIGHT * (2 * row0 + half_rows)
    x = -_TAB_GAP - beyond - width if slot % 2 == 0 else WIDTH + _TAB_GAP + beyond
    return x, middle - height / 2, width, height


def _text_width(text: str, size: float) -> float:
    """A generous estimate of a text's width: wide (CJK) characters take a full em, others most of one."""
    return sum(size if unicodedata.east_asian_width(c) in "WF" else 0.62 * size for c in text)


def _tab_shapes() -> str:
    """The two wide tab backgrounds, centred on the tab: an arrow up (upright) and an arrow down (turned)."""
    _, width, height = WIDE_TAB
    half, arrow_y = 5.5, 2.0
    shapes = []
    for name, tip in (("up", -1), ("dn", 1)):
        arrow = (
            f"M0 {_n(arrow_y + tip * half * 1.2)}l{_n(half)} {_n(-tip * half)}h{_n(-half * 0.45)}"
            f"v{_n(-tip * half * 1.1)}h{_n(-half * 1.1)}v{_n(tip * half * 1.1)}h{_n(-half * 0.45)}z"
        )
        shapes.append(
            f'<g id="{name}"><rect x="{_n(-width / 2)}" y="{_n(-height / 2)}" '
            f'width="{_n(width)}" height="{_n(height)}" rx="2.5"/><path class="ar" d="{arrow}"/></g>'
        )
    return "".join(shapes)


def _tab(slot: int, tile: int, rotated: bool, words: tuple[str, str] | None, digits: str,
         beyond: float = 0.0) -> str:
    """A tile's tab: its number, an arrow pointing to where its printed number lies (up or down), the word."""
    x, y, width, height = _tab_box(slot, words is not None, beyond)
    middle, centre = x + width / 2, y + height / 2
    tile = _digits(tile, digits)
    if not words:
        return f'<text x="{_n(middle)}" y="{_n(centre)}">{tile}{_ARROWS[rotated]}</text>'
    word = words[rotated]
    room = width - 2
    # A long word is squeezed to fit rather than spill out of the tab.
    fit = f' textLength="{_n(room)}" lengthAdjust="spacingAndGlyphs"' if _text_width(word, _TAB_WORD_SIZE) > room else ""
    return (
        f'<g class="tab{" turned" if rotated else ""}"><use href="#{"dn" if rotated else "up"}" x="{_n(middle)}" '
        f'y="{_n(centre)}"/><text class="tab-n" x="{_n(middle)}" y="{_n(y + 11)}">{tile}</text>'
        f'<text class="tab-w" x="{_n(middle)}" y="{_n(y + height - 6)}"{fit}>{escape(word)}</text></g>'
    )


# A standing stone is an octagon, an abandoned shack a triangle: one shape each, centred on the hex.
_STRUCTURE_SHAPES = {
    "standing_stone": ("st", _polygon(0, 0, 6.2, 8, 22.5), 0.4),
    "abandoned_shack": ("sh", _polygon(0, 0.9, 6.8, 3, -90), 2.2),
}


def _structure(x: float, y: float, kind: str, color: str, number: str | None) -> str:
    shape_id, _, text_dy = _STRUCTURE_SHAPES[kind]
    shape = f'<use href="#{shape_id}" class="{STRUCTURE_CLASSES[color]}" x="{_n(x)}" y="{_n(y)}"/>'
    if number is None:
        return shape
    ink = " on-white" if color == "white" else ""
    return f'{shape}<text class="sn{ink}" x="{_n(x)}" y="{_n(y + text_dy)}">{number}</text>'


def _terrain_set(name: str, letters: dict[str, str], textures: bool) -> str:
    """One group per terrain, named `name` + its class letter: the hex, its texture, the veil for the set "v",
    and the terrain's letter."""
    return "".join(
        f'<g id="{name}{letter}"><polygon points="{_HEXAGON}" class="t{letter}"/>{_TEXTURE[letter] if textures else ""}'
        f'{_VEIL if name == "v" else ""}<text y="1.9">{escape(letters[terrain])}</text></g>'
        for terrain, letter in TERRAIN_CLASSES.items()
    )


def hex_label_ids(board: Board, index: int) -> str:
    """The ids a hex link is named by: its column letter, its row (together its name, "E5", as the board's edges
    print it) and its terrain. A page with a linked map provides hidden elements with these ids (c1-c12, r1-r9,
    and f d s m w naming the terrains), the terrains in its language."""
    row, col = hex_row_col(index)
    return f"c{col + 1} r{row + 1} {board.cells[index][0][0]}"


def board_svg(
    board: Board,
    *,
    title: str,
    description: str = "",
    marked: int = 0,
    habitat: int | None = None,
    selected: int | None = None,
    hex_href: str | None = None,
    letters: dict[str, str] | None = None,
    tile_words: tuple[str, str] | None = None,
    numbered: bool = False,
    css_class: str = "board",
    overlay: str = "",
    shaded: int = 0,
    coordinates: bool = False,
    digits: str = LATIN_DIGITS,
    textures: bool = True,
) -> str:
    """An accessible SVG of the board.

    marked: mask of hexes in a player's area; the others are drawn from the "x" shapes, styled by the page.
    habitat: a hex to show as the habitat, the rest of the board dimmed.
    hex_href: make every hex a link to this address, "{}" standing for the hex's index. Each link is named by
    the ids of label elements the page provides (`hex_label_ids`: short, language-neutral ids keep the 108
    links small in every language); the picture is then a group of links rather than an image, with a ring
    for the checked hex (`selected`, if any) and one for the keyboard's focus, both for the page's script.
    letters: terrain letters shown in each hex (default: English initials).
    tile_words: the words for (upright, turned) written on wide tabs; without them the tabs are narrow.
    numbered: write each structure's position in the board's structure list (1, 2, ...) on it.
    overlay: SVG drawn on top of everything (e.g. the players' pieces from `piece_marks`).
    shaded: mask of hexes drawn with a veil (class "vl", between the terrain and its letter, so letters,
    structures, outlines and pieces stay on top), hidden until the page's stylesheet shows it.
    coordinates: write the hex names on the board's edges (letters A-L above and below, rows 1-9 at both
    sides) and give each hex's <use> a `data-hex` attribute with its name ("D7"), for the page's script.
    digits: the ten digits numbers are written with (the reader's: Persian digits in Persian).
    textures: draw the terrains' textures (a page with a tight byte budget may leave them out).

    A page draws the same pictures again and again (every phone of a table, every poll after a move), so the
    last few hundred are remembered: every argument is a plain value and the result depends on nothing else.
    """
    letters = letters or {terrain: terrain_letter(terrain) for terrain in TERRAIN_CLASSES}
    return _board_svg(
        board, title, description, marked, habitat, selected, hex_href, tuple(letters.items()), tile_words,
        numbered, css_class, overlay, shaded, coordinates, digits, textures,
    )


@lru_cache(maxsize=512)
def _board_svg(
    board: Board,
    title: str,
    description: str,
    marked: int,
    habitat: int | None,
    selected: int | None,
    hex_href: str | None,
    letter_items: tuple[tuple[str, str], ...],
    tile_words: tuple[str, str] | None,
    numbered: bool,
    css_class: str,
    overlay: str,
    shaded: int,
    coordinates: bool,
    digits: str,
    textures: bool,
) -> str:
    letters = dict(letter_items)
    regions = board.regions
    # Wide tabs (the setup diagram's) stand beyond the row numbers when the edges name the hexes.
    beyond = ROW_BAND if tile_words and coordinates else 0.0
    margin = (WIDE_TAB if tile_words else NARROW_TAB)[0] + beyond
    edge = EDGE if coordinates else 0.0
    role = "group" if hex_href else "img"
    parts = [
        f'<svg class="{css_class}" viewBox="{_n(-margin)} {_n(-1 - edge)} {_n(WIDTH + 2 * margin)} {_n(HEIGHT + 2 + 2 * edge)}" '
        # Text attributes set once here reach every <use> clone by inheritance.
        f'role="{role}" font-size="5.4" font-weight="700" text-anchor="middle" dominant-baseline="middle" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>',
    ]
    if description:
        parts.append(f"<desc>{escape(description)}</desc>")
    # One shape per terrain (hex, texture and letter) keeps each of the 108 hexes to a short <use>. Hexes
    # outside `marked` use a second set ("x" instead of the map's initial), which pages style; `shaded` hexes
    # use sets with the veil ("v" inside the mark, "y" outside). Only the sets the map uses are written.
    # Plain groups rather than <symbol>s: a symbol would clip what lies left of and above its centre.
    prefix = css_class[0]

    def symbol_set(index: int) -> str:
        inside = not marked or marked >> index & 1
        if shaded >> index & 1:
            return "v" if inside else "y"
        return prefix if inside else "x"

    used = {symbol_set(index) for index in range(HEX_COUNT)}
    # The map's own set is always written (other pictures refer to it); the veiled one when "v" or its alias "y"
    # is used: a board whose veiled hexes all lie outside the mark still needs it.
    needed = {prefix} | ({"v"} if used & {"v", "y"} else set())
    terrains = "".join(_terrain_set(name, letters, textures) for name in (prefix, "v") if name in needed)
    # "x" draws as the map's own set and "y" as "v": only their names differ, for the page's stylesheet.
    terrains += "".join(
        f'<use id="{alias}{letter}" href="#{name}{letter}"/>'
        for alias, name in (("x", prefix), ("y", "v")) if alias in used
        for letter in TERRAIN_CLASSES.values()
    )
    tiles = "".join(
        f'<use href="#tb"{_offset(_SLOT_DX * (slot % 2), _SLOT_DY * (slot // 2))}/>' for slot in range(SLOT_COUNT)
    )
    parts.append(
        f'<defs><polygon id="hx" points="{_HEXAGON}"/>{_VEIL_PATTERN if shaded else ""}{terrains}'
        f'<path id="tb" d="{_TILE_OUTLINE}"/><g id="tiles">{tiles}</g>{_tab_shapes() if tile_words else ""}'
        + "".join(f'<polygon id="{name}" points="{points}"/>' for name, points, _ in _STRUCTURE_SHAPES.values())
        + "</defs>"
    )
    for index, (terrain, _) in enumerate(board.cells):
        named = f' data-hex="{hex_name(index)}"' if coordinates else ""
        shape = f'<use href="#{symbol_set(index)}{TERRAIN_CLASSES[terrain]}"{_HEX_AT[index]}{named}/>'
        if hex_href:
            href = escape(hex_href.format(index))
            parts.append(f'<a href="{href}" aria-labelledby="{hex_label_ids(board, index)}">{shape}</a>')
        else:
            parts.append(shape)
    # Pictures and labels drawn over the hexes say nothing a hex's own name does not; links stay reachable.
    parts.append('<g aria-hidden="true"><use href="#tiles" class="tile-border"/><use href="#tiles" class="tile-seam"/>')
    for animal in ANIMALS:
        parts.append(f'<path class="{animal}" d="{_outline(regions[animal])}"/>')
    for number, structure in enumerate(board.structures, 1):
        x, y = hex_center(structure.hex)
        parts.append(_structure(x, y, structure.kind, structure.color, _digits(number, digits) if numbered else None))
    if habitat is not None:
        # The board dimmed but for a hole at the habitat, then a thick magenta and white ring around it. Drawn
        # with attributes rather than classes, so it looks the same on every page, whatever stylesheets it loads.
        x, y = hex_center(habitat)
        at = f'x="{_n(x)}" y="{_n(y)}" fill="none"'
        parts.append(
            f'<path class="dim" fill="#fffdf8" fill-opacity=".62" fill-rule="evenodd" '
            f'd="{_BOARD_OUTLINE}M{_polygon(x, y, SIZE, 6, 0)}Z"/>'
            f'<use href="#hx" class="habitat" {at} stroke="#e6007e" stroke-width="3.4"/>'
            f'<use href="#hx" {at} stroke="#fff" stroke-width="1.2"/>'
        )
    labels = "".join(_tab(t.slot, t.tile, t.rotated, tile_words, digits, beyond) for t in board.tiles)
    parts.append(labels if tile_words else f'<g class="tab-n">{labels}</g>')
    if coordinates:
        parts.append(_edge_labels(digits))
    parts.append("</g>")
    if hex_href:
        # The page's script moves these: the checked hex's ring, and a black-and-white ring for the keyboard.
        at = "" if selected is None else ' cx="{}" cy="{}"'.format(*map(_n, hex_center(selected)))
        parts.append(
            f'<circle class="selected" r="7.4"{at}/>'
            '<g class="focus-ring"><use href="#hx" class="outer"/><use href="#hx" class="inner"/></g>'
        )
    parts.append(overlay)
    parts.append("</svg>")
    return "".join(parts)


# Where each seat's disc sits in a hex, as (dx, dy) from the centre: seat k always in the same place, so a
# seat is known by its place as well as by its colour and number; the cube (one per hex at most) sits in the
# middle. Five discs just fit around it without touching, each as large as a hex allows.
DISC_RADIUS = 3.2
CUBE_SIDE = 5.4
_DISC_SPOTS = [(round(6.2 * math.sin(math.radians(72 * k)), 1), round(-6.2 * math.cos(math.radians(72 * k)), 1)) for k in range(5)]


def piece_marks(discs: tuple[int, ...], cubes: tuple[int, ...], highlight: int | None = None, digits: str = LATIN_DIGITS,
                earlier: int = 0) -> str:
    """SVG for the players' pieces: per seat (1-based, in order) a mask of hexes with its disc and with its cube.
    Each piece carries its seat's number (in `digits`) and colour class (p1-p5, chosen by the page to stay apart
    for colour-blind players). `highlight`: a hex whose pieces were just placed, ringed for the eye; `earlier`: a
    mask of hexes of other recent moves, ringed more lightly."""
    # The board's text sits on the middle of its x-height; digits stand taller, so 0.4 lower centres them.
    parts = ['<g class="pieces">']
    for index in hexes_of(earlier & ~(1 << highlight if highlight is not None else 0)):
        x, y = hex_center(index)
        parts.append(f'<circle class="recent-move" cx="{_n(x)}" cy="{_n(y)}" r="8.2"/>')
    if highlight is not None:  # beneath the pieces, which stay legible on a crowded hex
        x, y = hex_center(highlight)
        parts.append(f'<circle class="last-move" cx="{_n(x)}" cy="{_n(y)}" r="8.2"/>')
    half = CUBE_SIDE / 2
    for seat, mask in enumerate(discs, 1):
        dx, dy = _DISC_SPOTS[seat - 1]
        for index in range(HEX_COUNT):
            if mask >> index & 1:
                x, y = hex_center(index)
                parts.append(f'<g class="disc p{seat}"><circle cx="{_n(x + dx)}" cy="{_n(y + dy)}" r="{DISC_RADIUS}"/>'
                             f'<text x="{_n(x + dx)}" y="{_n(y + dy + 0.4)}">{_digits(seat, digits)}</text></g>')
    for seat, mask in enumerate(cubes, 1):
        for index in range(HEX_COUNT):
            if mask >> index & 1:
                x, y = hex_center(index)
                parts.append(f'<g class="cube p{seat}"><rect x="{_n(x - half)}" y="{_n(y - half)}" width="{CUBE_SIDE}" '
                             f'height="{CUBE_SIDE}" rx="0.7"/><text x="{_n(x)}" y="{_n(y + 0.4)}">{_digits(seat, digits)}</text></g>')
    parts.append("</g>")
    return "".join(parts)


# The notebook's shading of a hex by its habitat probability (bands 1-4): an inset hexagon outline, thicker and
# darker from band to band over a white halo, so it reads by weight alone (no hue to tell apart) on every
# terrain, under the veil's stripes, and beneath the pieces drawn after it.
_ODDS_WIDTHS = {1: 0.6, 2: 1.2, 3: 1.9, 4: 2.8}
_ODDS_INSET = _polygon(0, 0, SIZE * 0.78, 6, 0)


def odds_defs() -> str:
    """The four band shapes (#o1-#o4), for the board's overlay and for the legend that reuses them."""
    return "<defs>" + "".join(
        f'<g id="o{band}" fill="none" stroke-linejoin="round"><polygon points="{_ODDS_INSET}" stroke="#fff" '
        f'stroke-width="{_n(width + 1.1)}"/><polygon points="{_ODDS_INSET}" stroke="#1d1535" stroke-width="{_n(width)}"/></g>'
        for band, width in _ODDS_WIDTHS.items()
    ) + "</defs>"


def odds_marks(bands: dict[int, int]) -> str:
    """SVG of the notebook's shading: per hex its band (1-4); hexes without a band are not drawn."""
    marks = "".join(f'<use href="#o{band}"{_HEX_AT[hex]}/>' for hex, band in sorted(bands.items()) if band)
    return f'{odds_defs()}<g class="odds-marks" aria-hidden="true">{marks}</g>'


def own_marks_svg(marks: dict[int, str]) -> str:
    """SVG of a seat's own marks on hexes (its notebook): a question mark for "maybe", a cross for "no", small at
    the bottom of the hex (where no disc sits), white on dark so they read on every terrain and beside the pieces."""
    if not marks:
        return ""
    parts = ['<g class="own-marks" aria-hidden="true">']
    for hex, mark in sorted(marks.items()):
        x, y = hex_center(hex)
        y += SIZE * 0.53
        parts.append(f'<g class="own-mark m-{mark}" data-hex="{hex}"><circle cx="{_n(x)}" cy="{_n(y)}" r="2.5"/>')
        if mark == "no":
            parts.append(f'<path d="M{_n(x - 1.3)} {_n(y - 1.3)}l2.6 2.6m0-2.6l-2.6 2.6"/></g>')
        else:
            parts.append(f'<text x="{_n(x)}" y="{_n(y + 0.3)}">?</text></g>')
    parts.append("</g>")
    return "".join(parts)
