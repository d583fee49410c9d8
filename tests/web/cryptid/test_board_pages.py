"""The refereed map on its pages: the key beside it, the hex names for the page's script, the reader's digits."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

PERSIAN_DIGITS = "۰۱۲۳۴۵۶۷۸۹"


@pytest.fixture
def table(client):
    """A refereed 3-player game (started at once by the API): its host screen's and first seat's paths."""
    client.application.config.update(RATELIMIT_ENABLED=False)
    data = client.post("/api/tables", json={"players": 3, "advanced": True}).get_json()
    return urlsplit(data["host_url"]).path, urlsplit(data["seats"][0]["url"]).path


def legend(page: str) -> str:
    return re.search(r'<details class="legend".*?</details>', page, re.S).group(0)


@pytest.mark.parametrize("who", ["host", "seat"])
def test_the_map_key_shows_beside_the_refereed_board_and_draws_from_its_shapes(client, table, who):
    page = client.get(table[0] if who == "host" else table[1]).get_data(as_text=True)
    key = legend(page)
    board = re.search(r'<svg class="play-map".*?</svg>', page, re.S).group(0)
    defined = set(re.findall(r' id="([^"]+)"', board))
    used = set(re.findall(r'href="#([^"]+)"', key)) | set(re.findall(r"url\(#([^)]+)\)", key))
    assert used and used <= defined, used - defined
    for words in ("forest", "water", "bear territory", "cougar territory", "standing stone", "abandoned shack",
                  "structure colours", "disc:", "cube:", "the last move"):
        assert words in key
    assert ("the hex you tapped" in key) == (who == "seat")
    assert (" open>" in key.split(">", 1)[0] + ">") == (who == "host")  # a phone keeps it folded


def test_the_board_names_its_hexes_on_its_edges_and_for_the_script(client, table):
    page = client.get(table[1]).get_data(as_text=True)
    assert re.findall(r'data-hex="([A-L][1-9])"', page)[:13] == [f"{c}1" for c in "ABCDEFGHIJKL"] + ["A2"]
    assert 'class="edge"' in page and "cryptid/board.css" in page


def test_persian_pages_show_numbers_in_persian_digits(client, table):
    client.set_cookie("lang", "fa")
    host_page = client.get(table[0]).get_data(as_text=True)
    edge = re.search(r'<g class="edge">.*?</g>(.*?)</g>', host_page).group(1)  # past the column letters
    assert re.findall(r">([^<]+)</text>", edge) == [digit for digit in PERSIAN_DIGITS[1:] for _ in "lr"]
    meta = re.search(r'<p class="meta">(.*?)</p>', host_page, re.S).group(1)
    assert meta.startswith("۳ ")  # "3 players"
    seat_page = client.get(table[1]).get_data(as_text=True)
    labels = re.search(r"<div hidden>(.*?)</div>", seat_page).group(1)
    # The names a screen reader gives the hexes: "E7", Latin in every language as in every sentence (the hex's
    # name, docs/architecture.md), and the terrain in Persian.
    assert '<span id="c5" translate="no">E</span>' in labels and '<span id="r7" translate="no">7</span>' in labels
    assert ">جنگل<" in labels
    client.set_cookie("lang", "en")
    english = client.get(table[0]).get_data(as_text=True)
    assert not any(digit in english for digit in PERSIAN_DIGITS)


def test_the_reveal_map_has_its_key(client):
    from tests.web.cryptid.test_pages import CODE, host

    client.post(host(client, CODE) + "/unlock/reveal", data={"reveal-agree": "y"})
    page = client.get(f"/games/{CODE}/reveal").get_data(as_text=True)
    key = re.search(r'<figure class="diagram reveal-map">.*?</figure>', page, re.S).group(0)
    assert 'aria-label="Map key"' in key and "bear territory" in key and "standing stone" in key
