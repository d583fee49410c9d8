"""The Markers variant's help page: every rule and every reading, in every language, linked from the rules."""

import re

import pytest

from companion.cryptid.markers import HAND_SIZES, SUPPLY
from companion.web.core.i18n import LANGUAGES


def test_the_help_page_gives_the_rules_and_each_reading(client):
    page = client.get("/help/markers").get_data(as_text=True)
    assert "<h1>Markers: a variant for 2 to 4 players</h1>" in page
    assert f"a supply of {SUPPLY}: {HAND_SIZES[2]} each with 2 players" in page
    readings = re.findall(r"<dt>(.*?)</dt>\s*<dd>(.*?)</dd>", page, re.S)
    assert len(readings) == 6  # the six open points of the description, each with its reading and why
    for _, answer in readings:
        assert "Played here:" in answer and "Why:" in answer
    assert 'href="/help/markers"' in client.get("/help/play").get_data(as_text=True)


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != "en"])
def test_the_help_page_is_translated(client, language):
    english = client.get("/help/markers").get_data(as_text=True)
    client.set_cookie("lang", language)
    page = client.get("/help/markers").get_data(as_text=True)
    assert client.get("/help/markers").status_code == 200
    english_lines = set(re.findall(r"<(?:li|p|dd|dt|h1|h2)>([^<]{20,})", english))
    assert not english_lines & set(re.findall(r"<(?:li|p|dd|dt|h1|h2)>([^<]{20,})", page))
