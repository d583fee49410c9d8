"""The game's vocabulary: teams, seats, codes, limits, phases, and the error a refused move raises."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from itertools import permutations

from .text import illegal_move_text

WHITE = "white"
BLACK = "black"
TEAMS = (WHITE, BLACK)
KEYWORDS = 4
CODE_LENGTH = 3
# Every code card: three different digits from 1-4, in order (4-2-1 and 1-2-4 are different codes).
CODES = tuple(permutations(range(1, KEYWORDS + 1), CODE_LENGTH))
ROUNDS = 8
MIN_TEAM, MAX_TEAM = 2, 4
TOKENS_TO_END = 2
CLUE_LIMIT = 40
NAME_LIMIT = 24

LOBBY, PLAYING, TIEBREAK, OVER = "lobby", "playing", "tiebreak", "over"
# Between rounds, on a table that pauses there: both codes and all four guesses are shown until the teams (or the
# shared screen) press "Next round" (docs/decrypto-rules.md section 6).
REVEAL = "reveal"
# Why the keyword tiebreak happens: eight rounds without a winner, or end conditions met with equal points.
# AFTER_ROUNDS is the short reading (eight rounds go straight to the keywords); AFTER_ROUNDS_EQUAL the rulebook's
# (eight rounds, then points, and only equal points go to the keywords).
AFTER_ROUNDS, AFTER_EQUAL_POINTS, AFTER_ROUNDS_EQUAL = "rounds", "score", "rounds_score"
# How a game that reaches the end of round 8 ends: the rulebook's points first, or the short reading.
RULEBOOK, SHORT = "rulebook", "short"
ENDINGS = (RULEBOOK, SHORT)
# The viewer and actor that is the shared host screen: it sees what everyone may see and plays phoneless seats.
TABLE = "table"

Code = tuple[int, ...]
_SEPARATORS = "-‐‑‒–—―_.,/ "


def other_team(team: str) -> str:
    return BLACK if team == WHITE else WHITE


@dataclass(frozen=True)
class Seat:
    """A place in a team (numbered from 1): who looks at the game from there, and who acts from there."""

    team: str
    number: int


class IllegalMove(ValueError):
    """A move the rules refuse now. `reason` is a stable key, `params` fill its sentence; str() reads well."""

    def __init__(self, reason: str, **params) -> None:
        self.reason = reason
        self.params = params
        super().__init__(reason, params)

    def __str__(self) -> str:
        # Built only when read: legality queries refuse many moves and never read why.
        return illegal_move_text(self.reason, self.params)


def normalize_text(text: str) -> str:
    """The form two words or clues are compared in: NFKC, case folded, whitespace runs made single spaces."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def tidy_text(text: str) -> str:
    """A typed text as it is kept and shown: ends stripped and whitespace runs made single spaces."""
    return " ".join(text.split())


# Joiners that writing needs: Persian words take the zero-width non-joiner, emoji sequences the joiner.
_WRITING_JOINERS = {"\u200c", "\u200d"}


def has_control_characters(text: str) -> bool:
    """Whether a typed text holds characters that are not text: controls (BEL, NUL), bidirectional overrides
    and isolates, zero-width spaces and other format characters, which could hide or reorder what others read."""
    return any(not char.isprintable() and not char.isspace() and char not in _WRITING_JOINERS for char in text)


def parse_code(text: str) -> Code:
    """A code typed by a person ('4-2-1', '421', '4 2 1'); raises IllegalMove('malformed_code')."""
    digits = [ch for ch in unicodedata.normalize("NFKC", text) if ch not in _SEPARATORS]
    if not all(ch.isdecimal() for ch in digits):
        raise IllegalMove("malformed_code")
    return check_code(int(ch) for ch in digits)


def check_code(code) -> Code:
    """The code as a tuple when it is one of CODES; raises IllegalMove('malformed_code') otherwise."""
    try:
        code = tuple(code)
    except TypeError:
        raise IllegalMove("malformed_code") from None
    if not all(type(digit) is int for digit in code) or code not in CODES:
        raise IllegalMove("malformed_code")
    return code


def format_code(code: Code) -> str:
    return "-".join(str(digit) for digit in code)
