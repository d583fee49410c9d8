"""Game codes: ten characters a player can read aloud and type on a phone, with a check character.

Alphabet: the 31 symbols 2-9 and A-Z without I, L and O, so 0/O and 1/I/L never meet. Input ignores case,
spaces and dashes. Nine payload characters carry one integer below 31**9; the tenth makes
sum(position * value) a multiple of 31 (positions 1-10), which catches every single wrong character and
every swap of two characters, since 31 is prime and larger than every position difference.

The payload packs, from the least significant end: generator version (16), mode and player count (8),
game number on the map (64) and map seed (the rest), then passes through a fixed affine scramble so that
neighbouring games do not get look-alike codes. Only the version field is read before the version is known.
An official site's map code typed by mistake is recognised and reported as what it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from .board import MODES, Board, MapCodeError
from .text import code_error_text

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
BASE = len(ALPHABET)
PAYLOAD_LENGTH = 9
CODE_LENGTH = PAYLOAD_LENGTH + 1
PAYLOAD_LIMIT = BASE**PAYLOAD_LENGTH

VERSION_LIMIT = 16
GAME_LIMIT = 64
PLAYER_COUNTS = (2, 3, 4, 5)
SEED_LIMIT = PAYLOAD_LIMIT // (VERSION_LIMIT * len(MODES) * len(PLAYER_COUNTS) * GAME_LIMIT)

_SCRAMBLE_MULTIPLIER = 7_919_346_531_377  # not a multiple of 31, so invertible modulo 31**9
_SCRAMBLE_OFFSET = 11_235_813_213_455
_UNSCRAMBLE_MULTIPLIER = pow(_SCRAMBLE_MULTIPLIER, -1, PAYLOAD_LIMIT)
_VALUE = {symbol: value for value, symbol in enumerate(ALPHABET)}
EXAMPLE_CODE = "R342R-4E92A"


class GameCodeError(ValueError):
    """A code that names no game. `reason` is a stable key, `params` fill the message; str() reads well."""

    def __init__(self, reason: str, **params) -> None:
        self.reason = reason
        self.params = params
        super().__init__(code_error_text(reason, params))


@dataclass(frozen=True, slots=True)
class GameId:
    """What a code names: generator version, mode, player count, map seed and game number on that map."""

    version: int
    mode: str
    players: int
    seed: int
    number: int

    def __post_init__(self) -> None:
        if not 0 < self.version < VERSION_LIMIT:
            raise ValueError(f"version {self.version} is not in 1-{VERSION_LIMIT - 1}")
        if self.mode not in MODES:
            raise ValueError(f"mode {self.mode!r} is not normal or advanced")
        if self.players not in PLAYER_COUNTS:
            raise ValueError(f"{self.players} players is not 2-5")
        if not 0 <= self.seed < SEED_LIMIT:
            raise ValueError(f"seed {self.seed} is not in 0-{SEED_LIMIT - 1}")
        if not 0 <= self.number < GAME_LIMIT:
            raise ValueError(f"game number {self.number} is not in 0-{GAME_LIMIT - 1}")

    def to_code(self) -> str:
        """The canonical code, grouped 5-5: 'XXXXX-XXXXX'."""
        table = MODES.index(self.mode) * len(PLAYER_COUNTS) + PLAYER_COUNTS.index(self.players)
        value = self.version + VERSION_LIMIT * (table + 8 * (self.number + GAME_LIMIT * self.seed))
        value = (value * _SCRAMBLE_MULTIPLIER + _SCRAMBLE_OFFSET) % PAYLOAD_LIMIT
        digits = []
        for _ in range(PAYLOAD_LENGTH):
            value, digit = divmod(value, BASE)
            digits.append(digit)
        digits.reverse()
        digits.append(_check_value(digits))
        text = "".join(ALPHABET[d] for d in digits)
        return f"{text[:5]}-{text[5:]}"

    @classmethod
    def from_code(cls, code: str, *, known_versions: frozenset[int] | None = None) -> "GameId":
        """Parse a code typed by a person; raises GameCodeError with an actionable message."""
        text = normalize_code(code)
        if not text:
            raise GameCodeError("empty", example=EXAMPLE_CODE)
        if _is_map_code(text):
            raise GameCodeError("map_code", example=EXAMPLE_CODE)
        bad = sorted({ch for ch in text if ch not in _VALUE}, key=text.index)
        if bad:
            shown = ", ".join(f"“{ch}”" for ch in bad)
            raise GameCodeError("bad_characters", characters=shown)
        if len(text) < CODE_LENGTH:
            raise GameCodeError("too_short", length=len(text))
        if len(text) > CODE_LENGTH:
            raise GameCodeError("too_long", length=len(text))
        digits = [_VALUE[ch] for ch in text]
        if _check_value(digits[:PAYLOAD_LENGTH]) != digits[-1]:
            raise GameCodeError("typo")
        value = 0
        for digit in digits[:PAYLOAD_LENGTH]:
            value = value * BASE + digit
        value = ((value - _SCRAMBLE_OFFSET) * _UNSCRAMBLE_MULTIPLIER) % PAYLOAD_LIMIT
        value, version = divmod(value, VERSION_LIMIT)
        if version == 0 or (known_versions is not None and version not in known_versions):
            raise GameCodeError("unknown_version", version=version)
        value, table = divmod(value, 8)
        seed, number = divmod(value, GAME_LIMIT)
        mode = MODES[table // len(PLAYER_COUNTS)]
        return cls(version, mode, PLAYER_COUNTS[table % len(PLAYER_COUNTS)], seed, number)


def normalize_code(code: str) -> str:
    """Upper-case a typed code and drop spaces and dashes (any dash-like character)."""
    return "".join(ch for ch in code.upper() if not (ch.isspace() or ch in "-‐‑‒–—―_."))


def _is_map_code(text: str) -> bool:
    """Whether a typed text is an official site's map code (docs/cryptid-rules.md section 6), which people confuse with codes."""
    try:
        Board.from_map_code(text)
    except MapCodeError:
        return False
    return True


def _check_value(payload: list[int]) -> int:
    # Choose v10 with sum(i * v_i, i = 1..10) = 0 (mod 31): v10 = -S * 10^-1.
    partial = sum((i + 1) * d for i, d in enumerate(payload))
    return (-partial * pow(CODE_LENGTH, -1, BASE)) % BASE


