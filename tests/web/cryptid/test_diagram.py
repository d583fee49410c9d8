"""The board diagram, read back as geometry: nothing covers a tile's label, borders and rings sit where they must."""

from __future__ import annotations

import itertools
import math
import random
import re
import xml.etree.ElementTree as ET

import pytest

from companion.cryptid.board import Board, Structure, TilePlacement, structure_order
from companion.cryptid.hexgrid import COLUMN_LETTERS, HEX_COUNT, hex_name
from companion.cryptid.tiles import TILE_NUMBERS, slot_of, slot_origin
from companion.web.cryptid.diagram import (
    _DISC_SPOTS,
    DISC_RADIUS,
    WIDTH,
    board_svg,
    hex_center,
    piece_marks,
)
from tests.helpers import REPO

SVG = "{http://www.w3.org/2000/svg}"
Box = tuple[float, float, float, float]  # left, top, right, bottom
# Long words for the turn, as some languages have them: a label must still hold them.
WORDS = ("egyenesen", "megfordítva")


def random_board(rng: random.Random, mode: str) -> Board:
    """Any layout of the six tiles and structures on any hexes (official maps put some on water too)."""
    tiles = rng.sample(TILE_NUMBERS, 6)
    places = rng.sample(range(HEX_COUNT), len(structure_order(mode)))
    return Board(
        tuple(TilePlacement(slot, tile, rng.random() < 0.5) for slot, tile in enumerate(tiles)),
        tuple(Structure(kind, color, hex) for (kind, color), hex in zip(structure_order(mode), places)),
    )


def random_boards(count: int):
    rng = random.Random(11)
    for n in range(count):
        board = random_board(rng, "advanced" if n % 2 else "normal")
        yield board, rng.randrange(HEX_COUNT), rng.randrange(HEX_COUNT)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def numbers(text: str) -> list[float]:
    return [float(n) for n in re.findall(r"-?\d*\.?\d+", text)]


def points_box(points: list[tuple[float, float]], grow: float = 0.0) -> Box:
    xs, ys = [x for x, _ in points], [y for _, y in points]
    return min(xs) - grow, min(ys) - grow, max(xs) + grow, max(ys) + grow


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def symbols(root: ET.Element) -> dict[str, ET.Element]:
    return {element.get("id"): element for element in root.iter() if element.get("id")}


def use_offset(use: ET.Element) -> tuple[float, float]:
    return float(use.get("x", 0)), float(use.get("y", 0))


def markers(root: ET.Element) -> list[Box]:
    """Boxes of every piece drawn on the board: structures (with stroke), their numbers, rings."""
    defined = symbols(root)
    boxes = []
    for use in root.iter(f"{SVG}use"):
        href = use.get("href")
        x, y = use_offset(use)
        if href in ("#st", "#sh"):
            corners = numbers(defined[href[1:]].get("points"))
            boxes.append(points_box([(x + a, y + b) for a, b in zip(corners[::2], corners[1::2])], grow=0.8))
        elif use.get("stroke-width") and use.get("href") == "#hx":  # the habitat's rings
            boxes.append((x - 11.8, y - 10.5, x + 11.8, y + 10.5))
    for circle in root.iter(f"{SVG}circle"):
        if circle.get("cx") is not None:
            cx, cy, r = float(circle.get("cx")), float(circle.get("cy")), float(circle.get("r")) + 1
            boxes.append((cx - r, cy - r, cx + r, cy + r))
    for text in root.iter(f"{SVG}text"):
        if (text.get("class") or "").startswith("sn"):
            x, y = float(text.get("x")), float(text.get("y"))
            boxes.append((x - 3, y - 3, x + 3, y + 3))
    # The keyboard's ring can sit on any hex: the whole board, with the ring's stroke.
    boxes.append((-1.7, -1.7, WIDTH + 1.7, max(box[3] for box in boxes) + 1.7))
    return boxes


def labels(root: ET.Element) -> list[tuple[Box, str, ET.Element]]:
    """(box, what it says, element) of each tile's label: a tab (wide) or a line of text (narrow)."""
    defined = symbols(root)
    found = []
    for group in root.iter(f"{SVG}g"):
        if (group.get("class") or "").split()[0:1] == ["tab"]:
            use = group.find(f"{SVG}use")
            x, y = use_offset(use)
            rect = defined[use.get("href")[1:]].find(f"{SVG}rect")
            left, top = x + float(rect.get("x")), y + float(rect.get("y"))
            box = (left, top, left + float(rect.get("width")), top + float(rect.get("height")))
            said = " ".join(t.text for t in group.iter(f"{SVG}text")) + " " + use.get("href")
            found.append((box, said, group))
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "tab-n":  # narrow: a number and an arrow
            for text in group.iter(f"{SVG}text"):
                x, y = float(text.get("x")), float(text.get("y"))
                found.append(((x - 6, y - 4, x + 6, y + 4), text.text, text))  # a full-width arrow included
    return found


@pytest.mark.parametrize("wide", [True, False], ids=["setup diagram", "phone map"])
def test_no_piece_ever_covers_a_tiles_label(wide):
    """On 200 random maps (normal and advanced) no structure, number or ring overlaps a label."""
    for board, habitat, selected in random_boards(200):
        if wide:
            svg = board_svg(board, title="t", tile_words=WORDS, numbered=True, habitat=habitat)
        else:
            svg = board_svg(board, title="t", hex_href="?hex={}", selected=selected, css_class="seat-map")
        root = parse(svg)
        found = labels(root)
        assert len(found) == 6
        left, top, width, height = numbers(root.get("viewBox"))
        for box, _, _ in found:
            assert left <= box[0] and box[2] <= left + width and top <= box[1] and box[3] <= top + height
            for marker in markers(root):
                assert not overlap(box, marker), (board.to_map_code(), box, marker)


@pytest.mark.parametrize("wide", [True, False], ids=["setup diagram", "phone map"])
def test_each_label_names_its_tile_and_turn_beside_its_slot(wide):
    for board, _, _ in random_boards(20):
        root = parse(board_svg(board, title="t", tile_words=WORDS if wide else None))
        found = labels(root)
        for placement in board.tiles:
            row0, _ = slot_origin(placement.slot)
            tile_top, tile_bottom = hex_center(row0 * 12)[1] - 8.7, hex_center((row0 + 2) * 12 + 1)[1] + 8.7
            (box, said, _), = [
                (box, said, e) for box, said, e in found
                if (box[2] < 0 if placement.slot % 2 == 0 else box[0] > WIDTH) and tile_top < box[1] < box[3] < tile_bottom
            ]
            assert said.startswith(str(placement.tile))
            if wide:
                assert said.endswith("#dn" if placement.rotated else "#up")
                assert WORDS[placement.rotated] in said
            else:
                assert said.endswith("↓" if placement.rotated else "↑")


def path_edges(data: str) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Straight edges of path data made of M (absolute, then implicit lines), l, h and Z."""
    edges, start, point = [], None, None
    for command, args in re.findall(r"([MlhZ])([^MlhZ]*)", data):
        values = numbers(args)
        if command == "M":
            pairs = list(zip(values[::2], values[1::2]))
            start = point = pairs[0]
            for following in pairs[1:]:
                edges.append((point, following))
                point = following
        elif command == "l":
            for dx, dy in zip(values[::2], values[1::2]):
                following = (point[0] + dx, point[1] + dy)
                edges.append((point, following))
                point = following
        elif command == "h":
            following = (point[0] + values[0], point[1])
            edges.append((point, following))
            point = following
        else:
            edges.append((point, start))
            point = start
    return edges


def inside(point: tuple[float, float], edges) -> bool:
    """Even-odd rule: a ray to the right crosses the outline an odd number of times."""
    x, y = point
    crossings = 0
    for (x1, y1), (x2, y2) in edges:
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            crossings += 1
    return crossings % 2 == 1


def test_tile_borders_outline_each_slot_exactly():
    board, _, _ = next(random_boards(1))
    root = parse(board_svg(board, title="t"))
    outline = path_edges(symbols(root)["tb"].get("d"))
    placed = [use_offset(use) for use in symbols(root)["tiles"].iter(f"{SVG}use")]
    assert len(placed) == 6
    for slot, (dx, dy) in enumerate(placed):
        for index in range(HEX_COUNT):
            x, y = hex_center(index)
            assert inside((x - dx, y - dy), outline) == (slot_of(index) == slot)


def test_the_reveal_dims_every_hex_but_the_habitat():
    for board, habitat, _ in random_boards(10):
        root = parse(board_svg(board, title="t", habitat=habitat))
        veil = next(path for path in root.iter(f"{SVG}path") if path.get("class") == "dim")
        assert veil.get("fill-rule") == "evenodd"
        edges = path_edges(veil.get("d"))
        assert [index for index in range(HEX_COUNT) if not inside(hex_center(index), edges)] == [habitat]


def test_structures_carry_their_step_numbers_only_on_the_setup_diagram():
    board, _, _ = next(random_boards(2))
    numbered = parse(board_svg(board, title="t", numbered=True))
    written = {
        int(text.text): (float(text.get("x")), float(text.get("y")))
        for text in numbered.iter(f"{SVG}text") if (text.get("class") or "").startswith("sn")
    }
    assert sorted(written) == list(range(1, len(board.structures) + 1))
    for number, structure in enumerate(board.structures, 1):
        x, y = hex_center(structure.hex)
        assert written[number][0] == pytest.approx(x, abs=0.05) and abs(written[number][1] - y) < 3
    plain = parse(board_svg(board, title="t"))
    assert not [text for text in plain.iter(f"{SVG}text") if (text.get("class") or "").startswith("sn")]


def test_a_map_of_links_is_a_group_and_a_picture_is_an_image():
    board, _, _ = next(random_boards(1))
    assert parse(board_svg(board, title="t")).get("role") == "img"
    links = parse(board_svg(board, title="t", hex_href="?hex={}", css_class="seat-map"))
    assert links.get("role") == "group"
    assert [a.get("href") for a in links.iter(f"{SVG}a")] == [f"?hex={i}" for i in range(HEX_COUNT)]
    decorations = [g for g in links if g.tag == f"{SVG}g" and g.get("aria-hidden") == "true"]
    assert len(decorations) == 1 and not list(decorations[0].iter(f"{SVG}a"))


def test_shaded_hexes_draw_the_veil_between_their_terrain_and_their_letter():
    board, _, _ = next(random_boards(1))
    shaded = sum(1 << index for index in range(0, HEX_COUNT, 3))
    marked = sum(1 << index for index in range(0, HEX_COUNT, 2))
    root = parse(board_svg(board, title="t", shaded=shaded, marked=marked, css_class="play-map"))
    defined = symbols(root)
    hexes = [use for use in root if use.tag == f"{SVG}use"]
    for index, use in enumerate(hexes):
        expected = ("v" if marked >> index & 1 else "y") if shaded >> index & 1 else ("p" if marked >> index & 1 else "x")
        assert use.get("href")[1] == expected
    for terrain in "FDSMW":
        veiled = defined[f"v{terrain}"]
        assert [child.get("class") or child.tag.split("}")[1] for child in veiled] == [f"t{terrain}", "path", "vl", "text"]
        assert defined[f"y{terrain}"].get("href") == f"#v{terrain}"  # same drawing, its own name for the page
        assert "vl" not in ET.tostring(defined[f"p{terrain}"], encoding="unicode")
    opacities = [float(rect.get("fill-opacity")) for rect in defined["gV"].iter(f"{SVG}rect")]
    assert opacities and all(0 < opacity < 1 for opacity in opacities)
    # Nothing is drawn over the board to shade it: the old overlay is gone.
    assert not [g for g in root.iter(f"{SVG}g") if g.get("class") == "veil"]
    assert "gV" not in board_svg(board, title="t", css_class="play-map")


@pytest.mark.parametrize("veiled", ["inside the mark", "outside the mark", "both"])
def test_every_picture_a_hex_uses_is_drawn_whichever_sets_the_board_needs(veiled):
    # The extra disc of a search: the mark is the searcher's clue, and every hex it rules out is veiled ("y").
    # With no veiled hex inside the mark, the veiled set ("v", which "y" draws) must still be written.
    board, _, _ = next(random_boards(1))
    marked = sum(1 << index for index in range(0, HEX_COUNT, 2))
    outside = (1 << HEX_COUNT) - 1 ^ marked
    shaded = {"inside the mark": marked, "outside the mark": outside, "both": (1 << HEX_COUNT) - 1}[veiled]
    svg = board_svg(board, title="t", shaded=shaded, marked=marked, css_class="play-map")
    defined = set(re.findall(r' id="([^"]+)"', svg))
    referenced = set(re.findall(r' href="#([^"]+)"', svg))
    assert referenced <= defined, f"drawn from nothing: {sorted(referenced - defined)}"


def test_the_edges_name_columns_and_rows_beside_their_hexes_clear_of_the_tile_labels():
    for board, _, _ in random_boards(10):
        root = parse(board_svg(board, title="t", coordinates=True, css_class="play-map", hex_href="?hex={}"))
        edge = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "edge")
        letters = symbols(root)["ec"]
        assert [t.text for t in letters] == list(COLUMN_LETTERS)
        for col, text in enumerate(letters):
            assert float(text.get("x")) == pytest.approx(hex_center(col)[0], abs=0.05)
        placed = [use_offset(use)[1] for use in edge.iter(f"{SVG}use")]
        assert len(placed) == 1  # the letters once above, and again below the board
        rows = [t for t in edge if t.tag == f"{SVG}text"]
        assert [t.text for t in rows] == [str(n) for n in range(1, 10) for _ in "lr"]
        left, top, width, height = numbers(root.get("viewBox"))
        boxes = []
        for n, text in enumerate(rows):
            row, side = divmod(n, 2)
            x, y = float(text.get("x")), float(text.get("y"))
            assert y == pytest.approx(hex_center(row * 12 + 11 * side)[1], abs=0.05)
            assert (x < 0) if side == 0 else (x > WIDTH)
            boxes.append((x - 2.5, y - 3, x + 2.5, y + 3))
        for text in letters:
            for y in (float(text.get("y")), float(text.get("y")) + placed[0]):
                assert top <= y - 3 and y + 3 <= top + height
                assert y + 3 < 0 or y - 3 > hex_center(107)[1] + 8.7  # above or below every hex
        for box, said, _ in labels(root):
            assert not any(overlap(box, row) for row in boxes), said
        for box in boxes:
            assert left <= box[0] and box[2] <= left + width


def test_every_hex_carries_its_name_for_the_pages_script():
    board, _, _ = next(random_boards(1))
    named = parse(board_svg(board, title="t", coordinates=True, hex_href="?hex={}", css_class="play-map"))
    assert [a.find(f"{SVG}use").get("data-hex") for a in named.iter(f"{SVG}a")] == [hex_name(i) for i in range(HEX_COUNT)]
    picture = parse(board_svg(board, title="t", coordinates=True, css_class="play-map"))
    assert [u.get("data-hex") for u in picture if u.tag == f"{SVG}use"] == [hex_name(i) for i in range(HEX_COUNT)]
    assert "data-hex" not in board_svg(board, title="t", hex_href="?hex={}", css_class="seat-map")


PERSIAN = "۰۱۲۳۴۵۶۷۸۹"


def test_numbers_on_the_board_take_the_readers_digits():
    board, _, _ = next(random_boards(1))
    svg = board_svg(board, title="t", coordinates=True, numbered=True, digits=PERSIAN, css_class="play-map",
                    overlay=piece_marks((1 << 5,) * 5, (0, 1 << 7), digits=PERSIAN))
    texts = [t.text for t in parse(svg).iter(f"{SVG}text")]
    numerals = [t for t in texts if t and any(c.isdigit() for c in t)]
    assert numerals and not any(c in "0123456789" for t in numerals for c in t)
    assert {"۱", "۵", "۹"} <= set(texts)  # rows, seats


def test_five_pieces_on_one_hex_keep_apart_and_keep_their_numbers_clear():
    svg = piece_marks(tuple(1 << 40 for _ in range(4)) + (0,), (0, 0, 0, 0, 1 << 40))
    root = parse(f'<svg xmlns="http://www.w3.org/2000/svg">{svg}</svg>')
    discs = [(float(c.get("cx")), float(c.get("cy")), float(c.get("r"))) for c in root.iter(f"{SVG}circle")
             if c.get("class") is None]
    assert len(discs) == 4
    cube = next(root.iter(f"{SVG}rect"))
    left, top, side = float(cube.get("x")), float(cube.get("y")), float(cube.get("width"))
    x0, y0 = hex_center(40)
    for n, (x, y, r) in enumerate(discs):
        for other in discs[n + 1:]:
            assert math.dist((x, y), other[:2]) >= 2 * r  # no disc covers another
        assert r >= DISC_RADIUS and math.dist((x, y), (x0, y0)) + r <= 10  # inside the hex's corners' circle
        # The number, at the disc's centre, is never under the cube.
        assert not (left - 1 < x < left + side + 1 and top - 1 < y < top + side + 1)
    five = [(x0 + dx, y0 + dy) for dx, dy in _DISC_SPOTS]
    assert min(math.dist(a, b) for a, b in itertools.combinations(five, 2)) >= 2 * DISC_RADIUS


def css_rules(path: str) -> dict[str, str]:
    text = re.sub(r"/\*.*?\*/", "", (REPO / path).read_text(), flags=re.S)
    return {selector.strip(): body for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text)}


def test_the_rings_wear_no_seats_colour():
    play, board = css_rules("static/play.css"), css_rules("static/cryptid/board.css")
    seat_colours = {re.search(r"fill: (#\w+)", body).group(1) for selector, body in play.items() if re.match(r"\.p\d circle", selector)}
    assert len(seat_colours) == 5
    for ring in ("circle.selected", "circle.last-move"):
        colours = set(re.findall(r"#\w+", board[ring]))
        assert colours and colours <= {"#fff", "#000", "#111"} and not colours & seat_colours, ring


def test_textures_are_plain_shapes_inside_each_hexagon_not_pattern_fills():
    """A <pattern> fill per hex made a printed setup take 20 s in Chromium; plain shapes print at once. Each
    terrain's copies are one path, so a hex's <use> clones three elements, not one per copy."""
    from companion.web.cryptid.diagram import _TEXTURE, _TEXTURE_SPOTS, _TEXTURES, _inside_hexagon

    board, _, _ = next(random_boards(1))
    svg = board_svg(board, title="t")
    assert "<pattern" not in svg and "url(#" not in svg
    for terrain, (_, _, (left, top, right, bottom), path, _) in _TEXTURES.items():
        spots = _TEXTURE_SPOTS[terrain]
        assert len(spots) >= 3, terrain
        assert all(_inside_hexagon(x + dx, y + dy) for x, y in spots for dx in (left, right) for dy in (top, bottom))
        # The joined path draws the shape once at each spot: its move-tos are the shape's, moved by each spot.
        starts = [float(n) for xy in re.findall(r"M([-.0-9]+) ([-.0-9]+)", _TEXTURE[terrain]) for n in xy]
        first = [(float(x), float(y)) for x, y in re.findall(r"M([-.0-9]+) ?([-.0-9]+)", path)]
        assert starts == pytest.approx([n for x, y in spots for fx, fy in first for n in (fx + x, fy + y)]), terrain
        group = re.search(r'<g id="b%s">(.*?)</g>' % terrain, svg)
        assert group and _TEXTURE[terrain] in group[1] and "<use" not in group[1], terrain
    assert not _inside_hexagon(10.1, 0) and not _inside_hexagon(0, 8.7) and _inside_hexagon(9.9, 0)
