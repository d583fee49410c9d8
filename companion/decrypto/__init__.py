"""Pure Decrypto game logic: teams, codes, clues, tokens, the tiebreak and per-screen views (standard library only).

It has the shape every engine here has (docs/architecture.md): Move, IllegalMove, State, legal_moves(state, seat)
and view(state, viewer).
"""

from .game import (
    KeywordClue,
    Member,
    Outcome,
    RepeatedClue,
    Round,
    Setup,
    State,
    Tiebreak,
    Transmission,
    derive_secret,
    draw_code,
    legal_moves,
)
from .keywords import (
    WordListError,
    available_languages,
    deal_keywords,
    load_words,
    used_after,
)
from .matching import fold, keyword_matches
from .moves import (
    AcceptKeyword,
    CountKeywords,
    GiveClues,
    Guess,
    GuessKeywords,
    Join,
    Leave,
    Move,
    MoveFormatError,
    NextRound,
    ShowCode,
    Start,
)
from .rules import (
    BLACK,
    CODES,
    TABLE,
    TEAMS,
    WHITE,
    IllegalMove,
    Seat,
    format_code,
    parse_code,
)
from .view import View, view

__all__ = [
    "KeywordClue", "fold", "keyword_matches", "AcceptKeyword", "Member", "Outcome", "RepeatedClue", "Round", "Setup", "State", "Tiebreak", "Transmission", "derive_secret",
    "draw_code", "legal_moves", "WordListError", "available_languages", "deal_keywords", "load_words",
    "used_after", "CountKeywords", "GiveClues", "Guess", "GuessKeywords", "Join", "Leave", "Move",
    "MoveFormatError", "NextRound", "ShowCode", "Start", "BLACK", "CODES", "TABLE", "TEAMS", "WHITE", "IllegalMove", "Seat",
    "format_code", "parse_code", "View", "view",
]
