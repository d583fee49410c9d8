"""Seat tokens: the unguessable part of a seat's URL, signed with the app's SECRET_KEY (itsdangerous)."""

from __future__ import annotations

from flask import current_app
from itsdangerous import BadSignature, Signer

from .cryptid import GameCodeError, GameId
from .cryptid.codes import normalize_code

_SALT = "cryptid-seat-v1"


def _signer() -> Signer:
    return Signer(current_app.config["SECRET_KEY"], salt=_SALT)


def seat_token(code: str, seat: int) -> str:
    """Token for one seat of one game: the code without its dash, the seat, and an HMAC signature."""
    return _signer().sign(f"{normalize_code(code)}{seat}").decode()


def read_seat_token(token: str) -> tuple[str, int] | None:
    """(canonical code, seat) of a genuine token; None for a guessed, altered or malformed one."""
    try:
        payload = _signer().unsign(token).decode()
        game_id = GameId.from_code(payload[:-1])
        seat = int(payload[-1])
    except (BadSignature, GameCodeError, ValueError, UnicodeDecodeError):
        return None
    if not 1 <= seat <= game_id.players:
        return None
    return game_id.to_code(), seat
