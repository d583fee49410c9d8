"""Codes handed out by generator version 1 must name the same game forever, down to the last field."""

import json
from pathlib import Path

import pytest

from companion.cryptid import load_game

GOLDEN = [json.loads(line) for line in (Path(__file__).parent / "data" / "golden.jsonl").read_text().splitlines()]


def test_golden_set_covers_both_modes_every_player_count_and_later_games():
    assert len(GOLDEN) >= 12
    assert {(g["mode"], g["players"]) for g in GOLDEN} == {(m, p) for m in ("normal", "advanced") for p in (2, 3, 4, 5)}
    assert any(g["game"] > 1 for g in GOLDEN)


@pytest.mark.parametrize("expected", GOLDEN, ids=[g["code"] for g in GOLDEN])
def test_code_gives_its_pinned_game(expected):
    assert load_game(expected["code"]).to_json(reveal=True) == expected
