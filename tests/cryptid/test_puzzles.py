"""The puzzle comparison: distances, the official hint shares of docs/cryptid-rules.md 5.7, and the fitted weights' module."""

from functools import cache
from pathlib import Path

import pytest

from companion.cryptid import new_game, weights
from companion.ops.fit import module_text
from companion.cryptid.generator import FITTED
from companion.cryptid.hints import (
    BROAD_CATEGORIES,
    HINT_CATEGORIES,
    TERRAIN_CATEGORIES,
    open_categories,
)
from companion.cryptid.puzzles import (
    Setup,
    compare,
    distance,
    load_official,
    official_hint_shares,
)
from companion.cryptid.rng import Stream


@cache
def official() -> list[Setup]:
    """The official setups, parsed when a test first asks (seconds of work every process would otherwise do
    while merely collecting the suite, each xdist worker included)."""
    return load_official()


@pytest.mark.parametrize(
    "a, b, expected",
    [({"x": 0.5, "y": 0.5}, {"x": 0.5, "y": 0.5}, 0.0), ({"x": 1.0, "y": 0.0}, {"x": 0.0, "y": 1.0}, 1.0),
     ({"x": 0.7, "y": 0.3}, {"x": 0.4, "y": 0.6}, 0.3)],
)
def test_distance_is_total_variation(a, b, expected):
    assert distance(a, b) == pytest.approx(expected)


@pytest.mark.parametrize("mode", ["normal", "advanced"])
def test_official_hint_shares_follow_rules_section_5_7(mode):
    setups = [s for s in official() if s.mode == mode]
    shares = official_hint_shares(setups)
    uniform = {c: sum(c in open_categories(s.clues) and 1 / len(open_categories(s.clues)) for s in setups) / len(setups)
               for c in HINT_CATEGORIES}
    assert sum(shares.values()) == pytest.approx(1.0)
    for category in TERRAIN_CATEGORIES:
        assert shares[category] == pytest.approx(uniform[category] / 4)
    for category in BROAD_CATEGORIES:
        assert 2.4 <= shares[category] / uniform[category] <= 3.4


def test_compare_measures_every_cell_it_is_given():
    dealt = [
        Setup.of_game(new_game(players, mode, entropy=Stream("compare", mode, players)))
        for mode in ("normal", "advanced") for players in (2, 3, 4, 5) for _ in range(3)
    ]
    rows = compare(dealt, official())
    cells = {(r.measure, r.mode, r.players) for r in rows}
    assert cells == (
        {("clue families", m, str(p)) for m in ("normal", "advanced") for p in (2, 3, 4, 5)}
        | {("negations", "advanced", str(p)) for p in (2, 3, 4, 5)}
        | {("habitat terrain", "both", str(p)) for p in (2, 3, 4, 5)}
        | {("hint categories", m, "3-5") for m in ("normal", "advanced")}
    )
    assert all(0 <= r.distance <= 1 for r in rows)
    assert [r.goal for r in rows if r.measure == "negations" and r.players == "2"] == [None]


def test_the_weights_module_is_exactly_what_the_fit_writes():
    # Hand edits would change version-2 games without a trace in fit.py.
    assert Path(weights.__file__).read_text(encoding="utf-8") == module_text(FITTED)
