"""The "Markers" variant (docs/cryptid-markers.md): 2-4 players claim "not here" and "it's here" with markers, and
the server, holding every clue, checks each claim.

The classic engine's shape (play.py and view.py): moves with one JSON form and one IllegalMove (moves.py, both
kinds of the classic game's), a State folded from the move log with legal_moves(state, seat) (state.py), and a
pure view(state, viewer) that alone decides what a seat may see (view.py). The readings of the points the original
description leaves open are rules.py's; the computer players are bots.py's. The board, the clues and the dealer
are Cryptid's: a game is a generator.Game for 2, 3 or 4 players (2 players hold two clues each).
"""

from .rules import (
    ABANDONED,
    ALLOWS,
    BORROW,
    BORROWS,
    EARLIER,
    ENDED,
    EVERY,
    EXHAUSTED,
    FIRST,
    FOUND,
    HAND_SIZES,
    ITS_HERE,
    LAST_STANDING,
    LATER,
    LEAVE,
    LOBBY,
    NOT_HERE,
    OBJECT,
    OUT,
    OVER,
    PAY,
    PAY_EACH,
    PAY_FIRST,
    PLAYER_COUNTS,
    REFUND,
    RULES,
    RULES_OUT,
    SEAL,
    SHARE,
    SILENT,
    STAYS_OUT,
    SUPPLY,
    TAKE,
    TURNS,
    WIN,
    Rules,
)
from .moves import (
    MOVE_TYPES,
    End,
    HostGone,
    IllegalMove,
    ItsHere,
    Leave,
    Move,
    MoveFormatError,
    Name,
    NotHere,
    Start,
    VoteGone,
    WithdrawGone,
    clean_name,
    illegal_text,
)
from .state import (
    LogEntry,
    State,
    legal_moves,
)
from .view import (
    Reveal,
    View,
    replay_view,
    view,
)

__all__ = [
    "ABANDONED", "ALLOWS", "BORROW", "BORROWS", "EARLIER", "ENDED", "EVERY", "EXHAUSTED", "FIRST", "FOUND",
    "HAND_SIZES", "ITS_HERE", "LAST_STANDING", "LATER", "LEAVE", "LOBBY", "NOT_HERE", "OBJECT", "OUT", "OVER",
    "PAY", "PAY_EACH", "PAY_FIRST", "PLAYER_COUNTS", "REFUND", "RULES", "RULES_OUT", "SEAL", "SHARE", "SILENT",
    "STAYS_OUT", "SUPPLY", "TAKE", "TURNS", "WIN", "Rules", "MOVE_TYPES", "End", "HostGone", "IllegalMove",
    "ItsHere", "Leave", "Move", "MoveFormatError", "Name", "NotHere", "Start", "VoteGone", "WithdrawGone",
    "clean_name", "illegal_text", "LogEntry", "State", "legal_moves", "Reveal", "View", "replay_view", "view",
]
