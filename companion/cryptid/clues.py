"""The 24 positive clues, their negations, and the area each one allows on a board.

A clue is a small immutable value with a stable id (``within-2-bear``, ``not-forest-or-swamp``) and the JSON
form of docs/cryptid-rules.md section 6. CLUES lists all 48 in a fixed order: the 24 positive clues, then their negations
in the same order, so ``CLUES[i + 24]`` negates ``CLUES[i]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from .board import ABANDONED_SHACK, ADVANCED, COLORS, STANDING_STONE, Board
from .hexgrid import ALL_HEXES, within
from .tiles import ANIMALS, TERRAINS

TERRAIN_PAIR = "terrain_pair"
MIN_AREA, MAX_AREA = 42, 66  # docs/cryptid-rules.md section 5.4: a setup's clues each allow 42-66 hexes
WITHIN = "within"

# Clue families, used for the official-like mix and in hint categories: what a clue is about, negated or not.
FAMILY_TERRAIN_PAIR = "terrain_pair"
FAMILY_NEAR_TERRAIN = "within_1_terrain"
FAMILY_NEAR_ANIMAL = "within_1_animal"
FAMILY_NEAR_STRUCTURE_KIND = "within_2_structure"
FAMILY_NEAR_BEAR_OR_COUGAR = "within_2_animal"
FAMILY_NEAR_COLOR = "within_3"
FAMILIES = (
    FAMILY_TERRAIN_PAIR, FAMILY_NEAR_TERRAIN, FAMILY_NEAR_ANIMAL, FAMILY_NEAR_STRUCTURE_KIND,
    FAMILY_NEAR_BEAR_OR_COUGAR, FAMILY_NEAR_COLOR,
)

_WITHIN_TARGETS = (
    [(t, 1) for t in TERRAINS]
    + [("animal", 1)]
    + [(STANDING_STONE, 2), (ABANDONED_SHACK, 2), ("bear", 2), ("cougar", 2)]
    + [(c, 3) for c in COLORS]
)
_TARGET_DISTANCE = dict(_WITHIN_TARGETS)


class ClueError(ValueError):
    """A clue description (id or JSON) that names no clue."""


@dataclass(frozen=True, slots=True)
class Clue:
    """One clue: "on one of two terrains" or "within N spaces of a target", possibly negated."""

    kind: str
    terrains: tuple[str, ...] = ()
    target: str | None = None
    distance: int | None = None
    negated: bool = False

    @property
    def id(self) -> str:
        if self.kind == TERRAIN_PAIR:
            base = f"{self.terrains[0]}-or-{self.terrains[1]}"
        else:
            base = f"within-{self.distance}-{self.target.replace('_', '-')}"
        return f"not-{base}" if self.negated else base

    @property
    def index(self) -> int:
        """Position in CLUES (0-47)."""
        return CLUE_INDEX[self]

    @property
    def family(self) -> str:
        if self.kind == TERRAIN_PAIR:
            return FAMILY_TERRAIN_PAIR
        if self.distance == 1:
            return FAMILY_NEAR_ANIMAL if self.target == "animal" else FAMILY_NEAR_TERRAIN
        if self.distance == 2:
            return FAMILY_NEAR_BEAR_OR_COUGAR if self.target in ANIMALS else FAMILY_NEAR_STRUCTURE_KIND
        return FAMILY_NEAR_COLOR

    @property
    def terrains_mentioned(self) -> tuple[str, ...]:
        if self.kind == TERRAIN_PAIR:
            return self.terrains
        return (self.target,) if self.target in TERRAINS else ()

    @property
    def mentions_animal(self) -> bool:
        return self.target in ANIMALS or self.target == "animal"

    def negation(self) -> "Clue":
        return Clue(self.kind, self.terrains, self.target, self.distance, not self.negated)

    def to_json(self) -> dict:
        """The JSON form of docs/cryptid-rules.md section 6."""
        if self.kind == TERRAIN_PAIR:
            return {"kind": TERRAIN_PAIR, "terrains": list(self.terrains), "negated": self.negated}
        return {"kind": WITHIN, "target": self.target, "distance": self.distance, "negated": self.negated}

    @classmethod
    def from_json(cls, data: dict) -> "Clue":
        """Read the JSON form; the two terrains of a pair may come in either order."""
        try:
            negated = bool(data.get("negated", False))
            if data["kind"] == TERRAIN_PAIR:
                pair = tuple(data["terrains"])
                if len(pair) != 2 or len(set(pair)) != 2 or not set(pair) <= set(TERRAINS):
                    raise ClueError(f"{pair} is not a pair of two different terrains")
                clue = cls(TERRAIN_PAIR, tuple(sorted(pair, key=TERRAINS.index)), negated=negated)
            elif data["kind"] == WITHIN:
                target, distance = data["target"], data["distance"]
                if _TARGET_DISTANCE.get(target) != distance:
                    raise ClueError(f"there is no clue 'within {distance} of {target}'")
                clue = cls(WITHIN, target=target, distance=distance, negated=negated)
            else:
                raise ClueError(f"unknown clue kind {data['kind']!r}")
        except (KeyError, TypeError) as exc:
            raise ClueError(f"not a clue: {data!r}") from exc
        return clue

    @classmethod
    def from_id(cls, clue_id: str) -> "Clue":
        try:
            return CLUE_BY_ID[clue_id]
        except KeyError:
            raise ClueError(f"no clue has the id {clue_id!r}") from None

    def allowed_in(self, mode: str) -> bool:
        """Normal mode has no negations and no black structures."""
        return mode == ADVANCED or (not self.negated and self.target != "black")


POSITIVE_CLUES: tuple[Clue, ...] = tuple(
    [Clue(TERRAIN_PAIR, pair) for pair in combinations(TERRAINS, 2)]
    + [Clue(WITHIN, target=target, distance=distance) for target, distance in _WITHIN_TARGETS]
)
CLUES: tuple[Clue, ...] = POSITIVE_CLUES + tuple(c.negation() for c in POSITIVE_CLUES)
CLUE_INDEX = {clue: i for i, clue in enumerate(CLUES)}
CLUE_BY_ID = {clue.id: clue for clue in CLUES}
POSITIVE_COUNT = len(POSITIVE_CLUES)


def clues_for_mode(mode: str) -> tuple[Clue, ...]:
    """The 23 normal or 48 advanced clues."""
    return tuple(c for c in CLUES if c.allowed_in(mode))


def positive_areas(board: Board) -> tuple[int, ...]:
    """Mask of the hexes each of the 24 positive clues allows, in POSITIVE_CLUES order."""
    regions = board.regions
    areas = []
    for clue in POSITIVE_CLUES:
        if clue.kind == TERRAIN_PAIR:
            areas.append(regions[clue.terrains[0]] | regions[clue.terrains[1]])
        elif clue.target == "animal":
            areas.append(within(regions["bear"] | regions["cougar"], 1))
        else:
            areas.append(within(regions[clue.target], clue.distance))
    return tuple(areas)


def clue_areas(board: Board) -> tuple[int, ...]:
    """Mask of the hexes each of the 48 clues allows, in CLUES order."""
    positive = positive_areas(board)
    return positive + tuple(ALL_HEXES ^ area for area in positive)


def clue_area(board: Board, clue: Clue) -> int:
    """Mask of the hexes one clue allows on a board."""
    return clue_areas(board)[clue.index]
