"""The board diagram, read back as geometry: nothing covers a tile's label, borders and rings sit where they must."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import pytest

from companion.cryptid.board import Board, Structure, TilePlacement, structure_order
from companion.cryptid.hexgrid import HEX_COUNT
from companion.cryptid.tiles import TILE_NUMBERS, slot_of, slot_origin
from companion.web.cryptid.diagram import WIDTH, board_svg, hex_center

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
