"""Pure Cryptid game logic: board, clues, codes, the setup generator and refereed play (standard library only).

Refereed play has the shape every engine here has (docs/architecture.md): Move, IllegalMove, State,
legal_moves(state, seat) and view(state, viewer).
"""

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
from .play import IllegalMove, Move, MoveFormatError, State, legal_moves
from .view import View, view

__all__ = [
    "ABANDONED_SHACK", "ADVANCED", "NORMAL", "STANDING_STONE", "Board", "MapCodeError", "Structure",
    "TilePlacement", "CLUES", "Clue", "clue_areas", "GameCodeError", "GameId", "VERSION", "Game",
    "NoHabitatLeft", "load_game", "new_game", "next_game", "Dealer",
    "IllegalMove", "Move", "MoveFormatError", "State", "legal_moves", "View", "view",
]
