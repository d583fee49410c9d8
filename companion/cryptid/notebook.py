"""The deduction notebook of one seat (docs/cryptid-deduction.md section 7): per opponent the clues still possible
for them, grouped by kind, and per hex how likely it is to be the habitat, from that seat's view alone.

A pure function of a view.View (the one the seat's phone gets): it reads the map, the pieces and the seat's own
clue through deduction.Evidence, never the State, so it cannot know more than the seat does. Everything comes
from the exact posterior (every allowed assignment of clues to seats equally likely).
"""

from __future__ import annotations

from dataclasses import dataclass

from .clues import CLUES, TERRAIN_PAIR
from .deduction import Evidence, posterior
from .hexgrid import HEX_COUNT, hex_row_col
from .view import View

# The notebook's groups of clues, in the order it lists them: a clue's kind, and all negations together.
TERRAINS_GROUP, WITHIN_1, WITHIN_2, WITHIN_3, NEGATED = "terrain_pair", "within_1", "within_2", "within_3", "negated"
GROUPS = (TERRAINS_GROUP, WITHIN_1, WITHIN_2, WITHIN_3, NEGATED)


def clue_group(index: int) -> str:
    """The notebook group of CLUES[index]."""
    clue = CLUES[index]
    if clue.negated:
        return NEGATED
    if clue.kind == TERRAIN_PAIR:
        return TERRAINS_GROUP
    return f"within_{clue.distance}"


@dataclass(frozen=True, slots=True)
class OpponentNotes:
    """The clues an opponent may still hold, as CLUES indices per group (GROUPS order, empty groups left out),
    each with how many allowed assignments give it to them."""

    seat: int
    groups: tuple[tuple[str, tuple[int, ...]], ...]
    weights: dict[int, int]

    @property
    def clues(self) -> tuple[int, ...]:
        return tuple(index for _, indices in self.groups for index in indices)

    @property
    def count(self) -> int:
        return sum(len(indices) for _, indices in self.groups)


@dataclass(frozen=True, slots=True)
class Notebook:
    """What one seat can deduce now: its opponents' possible clues and each hex's chance of being the habitat.

    weights[h]: how many allowed assignments make hex h the habitat, out of `assignments`.
    """

    seat: int
    opponents: tuple[OpponentNotes, ...]
    weights: tuple[int, ...]
    assignments: int

    def probability(self, hex: int) -> float:
        return self.weights[hex] / self.assignments if self.assignments else 0.0

    @property
    def habitats(self) -> tuple[int, ...]:
        """The hexes that may still be the habitat."""
        return tuple(hex for hex in range(HEX_COUNT) if self.weights[hex])

    def to_json(self) -> dict:
        """The `notebook` object of docs/cryptid-play.md section 8.6."""
        total = self.assignments or 1
        return {
            "opponents": [
                {"seat": notes.seat, "count": notes.count,
                 "clues": [CLUES[index].to_json() | {"group": group,
                                                      "probability": round(notes.weights[index] / total, 4)}
                           for group, indices in notes.groups for index in indices]}
                for notes in self.opponents
            ],
            "habitats": [
                {"row": row, "col": col, "probability": round(self.probability(hex), 4)}
                for hex in self.habitats for row, col in (hex_row_col(hex),)
            ],
        }


def notebook(seen: View, hint: str | None = None) -> Notebook:
    """The notebook of the seat whose view this is (ValueError for the public view, which has no seat).

    hint: a hint category the table has been shown (hints.HINT_CATEGORIES), so that no clue mentions it.
    """
    if seen.seat is None:
        raise ValueError("a notebook belongs to a seat")
    result = posterior(Evidence.from_view(seen, hint))
    opponents = []
    for seat in seen.seats:
        if seat == seen.seat:
            continue
        weights = result.clue_weights(seat)
        grouped: dict[str, list[int]] = {}
        for index in sorted(weights):
            grouped.setdefault(clue_group(index), []).append(index)
        groups = tuple((group, tuple(grouped[group])) for group in GROUPS if group in grouped)
        opponents.append(OpponentNotes(seat, groups, weights))
    return Notebook(seen.seat, tuple(opponents), result.weights, result.assignments)
