"""Pure Decrypto game logic: teams, codes, clues, tokens, the tiebreak and per-screen views (standard library only)."""

from .game import (
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
    new_game,
    replay,
)
from .keywords import (
    WordListError,
    available_languages,
    deal_keywords,
    load_words,
    used_after,
)
from .moves import (
    CountKeywords,
    GiveClues,
    Guess,
    GuessKeywords,
    Join,
    Leave,
    Move,
    ShowCode,
    Start,
    move_from_json,
)
from .rules import (
    BLACK,
    CODES,
    TABLE,
    TEAMS,
    WHITE,
    IllegalAction,
    Seat,
    format_code,
    parse_code,
)

__all__ = [
    "Member", "Outcome", "RepeatedClue", "Round", "Setup", "State", "Tiebreak", "Transmission", "derive_secret",
    "draw_code", "new_game", "replay", "WordListError", "available_languages", "deal_keywords", "load_words",
    "used_after", "CountKeywords", "GiveClues", "Guess", "GuessKeywords", "Join", "Leave", "Move", "ShowCode",
    "Start", "move_from_json", "BLACK", "CODES", "TABLE", "TEAMS", "WHITE", "IllegalAction", "Seat",
    "format_code", "parse_code",
]
