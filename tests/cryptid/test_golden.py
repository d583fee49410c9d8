"""Codes handed out by each generator version must name the same game forever, down to the last field."""


import pytest

from companion.cryptid import load_game
from tests.helpers import GOLDEN, GOLDEN_V2, GOLDEN_V2_KEY


@pytest.mark.parametrize("golden", [GOLDEN, GOLDEN_V2], ids=["version 1", "version 2"])
def test_golden_set_covers_both_modes_every_player_count_and_later_games(golden):
    assert len(golden) >= 12
    assert {(g["mode"], g["players"]) for g in golden} == {(m, p) for m in ("normal", "advanced") for p in (2, 3, 4, 5)}
    assert any(g["game"] > 1 for g in golden)


@pytest.mark.parametrize("expected", GOLDEN, ids=[g["code"] for g in GOLDEN])
def test_version_1_code_gives_its_pinned_game_whatever_the_key(expected):
    assert load_game(expected["code"]).to_json(reveal=True) == expected
    assert load_game(expected["code"], key=GOLDEN_V2_KEY).to_json(reveal=True) == expected


@pytest.mark.parametrize("expected", GOLDEN_V2, ids=[g["code"] for g in GOLDEN_V2])
def test_version_2_code_gives_its_pinned_game_under_its_key(expected):
    assert load_game(expected["code"], key=GOLDEN_V2_KEY).to_json(reveal=True) == expected
