"""Hint categories (docs/cryptid-rules.md section 5.7): a hint names something no clue of the setup mentions."""

from __future__ import annotations

from typing import Iterable

from .clues import FAMILY_NEAR_TERRAIN, FAMILY_TERRAIN_PAIR, Clue
from .tiles import TERRAINS

NO_WITHIN_1 = "no_within_1"
NO_WITHIN_2 = "no_within_2"
NO_WITHIN_3 = "no_within_3"
NO_TERRAIN_PAIR = "no_terrain_pair"
NO_TERRAIN = "no_terrain"
NO_ANIMAL = "no_animal"
BROAD_CATEGORIES = (NO_WITHIN_1, NO_WITHIN_2, NO_WITHIN_3, NO_TERRAIN_PAIR, NO_TERRAIN)
TERRAIN_CATEGORIES = tuple(f"no_{terrain}" for terrain in TERRAINS)
HINT_CATEGORIES = BROAD_CATEGORIES + (NO_ANIMAL,) + TERRAIN_CATEGORIES

# Relative draw weights of generator version 1, after the official site: broad categories about 3x a uniform
# pick, single terrains about 4x less and the animal hint about 7x less (docs/cryptid-rules.md section 5.7).
V1_HINT_WEIGHTS = {category: 24 for category in BROAD_CATEGORIES} | {NO_ANIMAL: 1} | {
    category: 2 for category in TERRAIN_CATEGORIES
}


def mentions(clue: Clue, category: str) -> bool:
    """Whether a clue (positive or negated) mentions what the category excludes."""
    if category == NO_WITHIN_1:
        return clue.distance == 1
    if category == NO_WITHIN_2:
        return clue.distance == 2
    if category == NO_WITHIN_3:
        return clue.distance == 3
    if category == NO_TERRAIN_PAIR:
        return clue.family == FAMILY_TERRAIN_PAIR
    if category == NO_TERRAIN:
        return clue.family in (FAMILY_TERRAIN_PAIR, FAMILY_NEAR_TERRAIN)
    if category == NO_ANIMAL:
        return clue.mentions_animal
    return category[3:] in clue.terrains_mentioned


def open_categories(clues: Iterable[Clue]) -> tuple[str, ...]:
    """Categories that no clue mentions, in HINT_CATEGORIES order; any of them is a truthful hint."""
    clues = tuple(clues)
    return tuple(c for c in HINT_CATEGORIES if not any(mentions(clue, c) for clue in clues))
