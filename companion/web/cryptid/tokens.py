"""Cryptid's tokens: a seat's token carries the game code (without its dash) and the seat number, a host's the
code alone. See core.tokens for how tokens are signed and read."""

from __future__ import annotations

from companion.cryptid import GameCodeError, GameId
from companion.cryptid.codes import normalize_code
from companion.web.core.tokens import sign, unsign

_SEAT_SALT = "cryptid-seat-v1"
_HOST_SALT = "cryptid-host-v1"


def seat_token(code: str, seat: int) -> str:
    """Token for one seat of one game: the code without its dash, the seat, and an HMAC signature."""
    return sign(f"{normalize_code(code)}{seat}", _SEAT_SALT)


def host_token(code: str) -> str:
    """Token for the host of one game: the code without its dash and an HMAC signature."""
    return sign(normalize_code(code), _HOST_SALT)


def read_seat_token(token: str) -> tuple[str, int] | None:
    """(canonical code, seat) of a genuine seat token; None for a guessed, altered or malformed one."""
    payload = unsign(token, _SEAT_SALT)
    if payload is None:
        return None
    try:
        game_id = GameId.from_code(payload[:-1])
        seat = int(payload[-1])
    except (GameCodeError, ValueError):
        return None
    if not 1 <= seat <= game_id.players:
        return None
    return game_id.to_code(), seat


def read_host_token(token: str) -> str | None:
    """The canonical code of a genuine host token; None otherwise."""
    payload = unsign(token, _HOST_SALT)
    if payload is None:
        return None
    try:
        return GameId.from_code(payload).to_code()
    except GameCodeError:
        return None
