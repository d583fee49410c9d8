"""The official setups: the engine's clue areas must meet in exactly the listed habitat, every time."""

import json

import pytest

from companion.cryptid import Board, Clue, clue_areas
from companion.cryptid.hexgrid import hex_index
from tests.helpers import DATA
from tests.helpers.rules import intersection

LINES = [json.loads(line) for line in (DATA / "official-setups.jsonl").read_text().splitlines()]


def test_the_suite_is_complete():
    assert len(LINES) == 2880
    assert {(s["mode"], s["players"]) for s in LINES} == {(m, p) for m in ("normal", "advanced") for p in (3, 4, 5)}


def test_every_official_setup_has_exactly_its_habitat():
    wrong = []
    for number, setup in enumerate(LINES):
        areas = clue_areas(Board.from_map_code(setup["map_code"]))
        allowed = intersection(areas[Clue.from_json(c).index] for c in setup["clues"])
        if allowed != 1 << hex_index(setup["habitat"]["row"], setup["habitat"]["col"]):
            wrong.append(number)
    assert wrong == []


def test_official_setups_obey_the_size_and_redundancy_rules():
    for setup in LINES:
        areas = clue_areas(Board.from_map_code(setup["map_code"]))
        masks = [areas[Clue.from_json(c).index] for c in setup["clues"]]
        assert all(42 <= m.bit_count() <= 66 for m in masks)
        for k in range(len(masks)):
            assert intersection(masks[:k] + masks[k + 1 :]).bit_count() >= 2


@pytest.mark.parametrize("setup", LINES[:50])
def test_clue_json_round_trips(setup):
    for data in setup["clues"]:
        clue = Clue.from_json(data)
        assert Clue.from_json(clue.to_json()) == clue
        assert clue.to_json()["negated"] == data["negated"]
