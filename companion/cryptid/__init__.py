"""Pure Cryptid game logic: board, clues, codes and the setup generator (standard library only)."""

from .board import (
    ABANDONED_SHACK,
    ADVANCED,
    NORMAL,
    STANDING_STONE,
    Board,
    MapCodeError,
    Structure,
    TilePlacement,
)
from .clues import CLUES, Clue, clue_areas
from .codes import GameCodeError, GameId
from .dealer import Dealer
from .generator import VERSION, Game, NoHabitatLeft, load_game, new_game, next_game

__all__ = [
    "ABANDONED_SHACK", "ADVANCED", "NORMAL", "STANDING_STONE", "Board", "MapCodeError", "Structure",
    "TilePlacement", "CLUES", "Clue", "clue_areas", "GameCodeError", "GameId", "VERSION", "Game",
    "NoHabitatLeft", "load_game", "new_game", "next_game", "Dealer",
]
