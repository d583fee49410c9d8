"""How much generated setups look like the official ones: shares of what setups contain, and distances.

Every distance is the total variation distance between two share tables (half the sum of absolute
differences: 0 for the same mix, 1 for nothing in common), measured per mode and player count against the
official setups of the same player count (the 2-player variant, a 4-player setup split 2 + 2, against 4):
- clue families: the share of each family (FAMILIES) among all clues, negated or not;
- negations: the share of setups with 0, 1, 2, ... negated clues (advanced mode);
- habitat terrain: the share of habitats on each terrain, both modes together;
- hint categories: the share of each category, 3-5 players together, per mode.

The official setups carry no hint, so their hint shares are derived as docs/cryptid-rules.md section 5.7 describes them:
start from a uniform pick among the categories no clue of the setup mentions (U, averaged over the official
setups), make single-terrain hints 4 times and the animal hint 7 times less likely than that, and give the
broad categories the one common factor that makes the shares add up to 1 (it comes out at 2.7 in normal and
3.1 in advanced mode, inside the 2.4-3.4 that section 5.7 reports).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .board import ADVANCED, MODES, Board
from .clues import FAMILIES, Clue
from .codes import PLAYER_COUNTS
from .hexgrid import hex_index
from .hints import (
    BROAD_CATEGORIES,
    HINT_CATEGORIES,
    NO_ANIMAL,
    TERRAIN_CATEGORIES,
    open_categories,
)
from .tiles import TERRAINS

OFFICIAL_SETUPS = Path(__file__).resolve().parents[2] / "tests" / "data" / "official-setups.jsonl"
OFFICIAL_HINT_FACTORS = {NO_ANIMAL: 1 / 7} | {category: 1 / 4 for category in TERRAIN_CATEGORIES}
FAMILY_GOAL = 0.06
NEGATION_GOAL = 0.08
HINT_GOAL = 0.06
TERRAIN_GOAL = 0.06


@dataclass(frozen=True)
class Setup:
    """What the comparison reads from one setup; official setups have no hint."""

    mode: str
    players: int
    clues: tuple[Clue, ...]
    habitat_terrain: str
    hint: str | None

    @classmethod
    def of_game(cls, game) -> "Setup":
        return cls(game.mode, game.players, game.clues, game.board.cell(game.habitat)[0], game.hint)

    @classmethod
    def from_official(cls, line: Mapping) -> "Setup":
        board = Board.from_map_code(line["map_code"])
        habitat = hex_index(line["habitat"]["row"], line["habitat"]["col"])
        clues = tuple(Clue.from_json(c) for c in line["clues"])
        return cls(line["mode"], line["players"], clues, board.cell(habitat)[0], None)


def load_official(path: Path = OFFICIAL_SETUPS) -> list[Setup]:
    """The official setups of a JSON-lines file (docs/cryptid-rules.md section 6)."""
    with open(path, encoding="utf-8") as lines:
        return [Setup.from_official(json.loads(line)) for line in lines if line.strip()]


def shares(counts: Mapping, keys: Iterable) -> dict:
    """Counts as fractions of their total, over the given keys (missing keys count 0)."""
    keys = list(keys)
    total = sum(counts.get(k, 0) for k in keys)
    return {k: counts.get(k, 0) / total if total else 0.0 for k in keys}


def distance(a: Mapping, b: Mapping) -> float:
    """Total variation distance between two share tables over the same keys."""
    return sum(abs(a[k] - b[k]) for k in a) / 2


def family_shares(setups: Iterable[Setup]) -> dict[str, float]:
    return shares(Counter(clue.family for s in setups for clue in s.clues), FAMILIES)


def negation_shares(setups: Iterable[Setup], size: int) -> dict[int, float]:
    return shares(Counter(sum(c.negated for c in s.clues) for s in setups), range(size + 1))


def terrain_shares(setups: Iterable[Setup]) -> dict[str, float]:
    return shares(Counter(s.habitat_terrain for s in setups), TERRAINS)


def hint_shares(setups: Iterable[Setup]) -> dict[str, float]:
    return shares(Counter(s.hint for s in setups), HINT_CATEGORIES)


def official_hint_shares(setups: Iterable[Setup]) -> dict[str, float]:
    """Hint shares of hint-less official setups, derived as the module docstring says."""
    uniform = Counter()
    count = 0
    for setup in setups:
        categories = open_categories(setup.clues)
        for category in categories:
            uniform[category] += 1 / len(categories)
        count += 1
    fixed = {c: uniform[c] / count * factor for c, factor in OFFICIAL_HINT_FACTORS.items()}
    broad_factor = (1 - sum(fixed.values())) / sum(uniform[c] / count for c in BROAD_CATEGORIES)
    return {c: fixed[c] if c in fixed else uniform[c] / count * broad_factor for c in HINT_CATEGORIES}


def official_players(players: int) -> int:
    """The official player count a generated setup is compared with (the 2-player variant: 4)."""
    return 4 if players == 2 else players


def clue_count(players: int) -> int:
    return 4 if players == 2 else players


@dataclass(frozen=True)
class Row:
    """One measured distance: what, in which mode(s) and player count(s), and its goal (None: reported only)."""

    measure: str
    mode: str
    players: str
    distance: float
    goal: float | None

    @property
    def met(self) -> bool:
        return self.goal is None or self.distance <= self.goal


def compare(generated: list[Setup], official: list[Setup]) -> list[Row]:
    """Every distance of the module docstring, for the modes and player counts the generated setups cover."""

    def pick(setups: list[Setup], mode: str | None, players: Iterable[int]) -> list[Setup]:
        players = set(players)
        return [s for s in setups if (mode is None or s.mode == mode) and s.players in players]

    rows = []
    covered = {(s.mode, s.players) for s in generated}
    for mode in MODES:
        for players in PLAYER_COUNTS:
            if (mode, players) in covered:
                ours, theirs = pick(generated, mode, [players]), pick(official, mode, [official_players(players)])
                rows.append(Row("clue families", mode, str(players), distance(family_shares(ours), family_shares(theirs)), FAMILY_GOAL))
    for players in PLAYER_COUNTS:
        if (ADVANCED, players) in covered:
            size = clue_count(players)
            ours, theirs = pick(generated, ADVANCED, [players]), pick(official, ADVANCED, [official_players(players)])
            goal = NEGATION_GOAL if players != 2 else None
            rows.append(Row("negations", ADVANCED, str(players), distance(negation_shares(ours, size), negation_shares(theirs, size)), goal))
    for players in PLAYER_COUNTS:
        ours, theirs = pick(generated, None, [players]), pick(official, None, [official_players(players)])
        if ours:
            rows.append(Row("habitat terrain", "both", str(players), distance(terrain_shares(ours), terrain_shares(theirs)), TERRAIN_GOAL))
    for mode in MODES:
        ours, theirs = pick(generated, mode, (3, 4, 5)), pick(official, mode, (3, 4, 5))
        if ours:
            rows.append(Row("hint categories", mode, "3-5", distance(hint_shares(ours), official_hint_shares(theirs)), HINT_GOAL))
    return rows
