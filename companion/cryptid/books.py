"""The notebook that keeps the books (docs/cryptid-deduction.md section 8): what a player would write on paper,
kept for them. Per opponent every disc and cube they placed, each with the facts of its hex that clues speak of,
and the mode's clue list for the player to cross off; "check my notes" compares what they crossed off with what
can still be deduced.

The books are a pure function of a view.View, as the seat's phone gets it: pieces come from its disc and cube
masks, so every way a piece reaches the board (an answer, an opening cube, a search) is listed alike. Nothing
here counts possibilities or chances: the player does the reasoning; only the check asks the deduction engine,
and only about clues the player crossed off.
"""

from __future__ import annotations

from dataclasses import dataclass

from .board import Board
from .clues import CLUES, clues_for_mode
from .deduction import Evidence, posterior
from .hexgrid import DISTANCE, NEIGHBOURS, hexes_of
from .tiles import ANIMALS, TERRAINS
from .view import View

# A player's own marks on a hex, as on a paper map.
MAYBE, NO = "maybe", "no"
MARKS = (MAYBE, NO)
ANIMAL_REACH = 2  # "within two spaces of bear (cougar) territory" is the farthest an animal clue looks
STRUCTURE_REACH = 3  # "within three spaces of a <colour> structure"


@dataclass(frozen=True, slots=True)
class HexFacts:
    """What clues speak of at one hex: its terrain, the animal territory on it, the other terrains within one
    space, the animal territories within two spaces (animal, distance) and the structures within three
    (kind, colour, distance), nearest first."""

    hex: int
    terrain: str
    animal: str | None
    near_terrains: tuple[str, ...]
    animals: tuple[tuple[str, int], ...]
    structures: tuple[tuple[str, str, int], ...]


def hex_facts(board: Board, hex: int) -> HexFacts:
    """The facts of one hex of a board."""
    terrain, animal = board.cell(hex)
    near = {board.cell(other)[0] for other in NEIGHBOURS[hex]} - {terrain}
    regions = board.regions
    animals = []
    for name in ANIMALS:
        distances = [DISTANCE[hex][other] for other in hexes_of(regions[name])]
        nearest = min(distances, default=None)
        if nearest is not None and nearest <= ANIMAL_REACH:
            animals.append((name, nearest))
    structures = sorted(
        ((s.kind, s.color, DISTANCE[hex][s.hex]) for s in board.structures if DISTANCE[hex][s.hex] <= STRUCTURE_REACH),
        key=lambda item: item[2])
    return HexFacts(hex, terrain, animal, tuple(t for t in TERRAINS if t in near), tuple(animals), tuple(structures))


@dataclass(frozen=True, slots=True)
class OpponentBooks:
    """One opponent's pieces, discs and cubes apart, each grouped by terrain (TERRAINS order, empty ones left out)."""

    seat: int
    discs: tuple[tuple[str, tuple[HexFacts, ...]], ...]
    cubes: tuple[tuple[str, tuple[HexFacts, ...]], ...]


def _by_terrain(board: Board, mask: int) -> tuple[tuple[str, tuple[HexFacts, ...]], ...]:
    facts = [hex_facts(board, hex) for hex in hexes_of(mask)]
    return tuple((terrain, tuple(f for f in facts if f.terrain == terrain))
                 for terrain in TERRAINS if any(f.terrain == terrain for f in facts))


def books(seen: View, board: Board) -> tuple[OpponentBooks, ...]:
    """Per opponent of the viewing seat, in seat order, the pieces it placed (ValueError for the public view)."""
    if seen.seat is None:
        raise ValueError("the books belong to a seat")
    return tuple(OpponentBooks(seat, _by_terrain(board, seen.discs[seat - 1]), _by_terrain(board, seen.cubes[seat - 1]))
                 for seat in seen.seats if seat != seen.seat)


def clue_list(mode: str) -> tuple[int, ...]:
    """The mode's clue list as the box prints it (23 clues in normal mode, 48 in advanced), as CLUES indices."""
    return tuple(clue.index for clue in clues_for_mode(mode))


def possible_clues(seen: View, hint: str | None = None) -> tuple[int, ...]:
    """Per seat (seat - 1), the mask of clues that seat may still hold from what the viewing seat knows (its own
    clue and every piece; a shown hint category), by the exact deduction of deduction.posterior."""
    return posterior(Evidence.from_view(seen, hint)).seat_clues


def crossed_but_possible(crossed: dict[int, frozenset[int]], possible: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """The (seat, clue index) pairs a player crossed off that the seat may still hold, in seat then clue order:
    what "check my notes" reports, one at a time. Clues the player did not cross off are never looked at."""
    return tuple((seat, index) for seat in sorted(crossed) for index in sorted(crossed[seat])
                 if 0 < seat <= len(possible) and possible[seat - 1] >> index & 1)


def valid_clue(index: int) -> bool:
    return 0 <= index < len(CLUES)
