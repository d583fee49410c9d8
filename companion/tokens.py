"""Host and seat tokens: the unguessable part of a host's or a seat's URL, signed with the app's SECRET_KEY.

A token is the game code (without its dash), for a seat also the seat number, and an HMAC signature
(itsdangerous). Host and seat tokens use different salts, so one can never stand in for the other. A guessed,
altered or malformed token reads as None and the views answer 404.
"""

from __future__ import annotations

import re

from flask import current_app
from itsdangerous import BadSignature, Signer

from .cryptid import GameCodeError, GameId
from .cryptid.codes import normalize_code

_SEAT_SALT = "cryptid-seat-v1"
_HOST_SALT = "cryptid-host-v1"
# Longer than any genuine token by a margin; anything longer is junk and is not even verified.
MAX_TOKEN_LENGTH = 64
# Path segments that carry a token: never written to a log as they are.
TOKEN_PATH = re.compile(r"/(s|h|api/seats|api/hosts)/[^/?#]+")


def _signer(salt: str) -> Signer:
    return Signer(current_app.config["SECRET_KEY"], salt=salt)


def seat_token(code: str, seat: int) -> str:
    """Token for one seat of one game: the code without its dash, the seat, and an HMAC signature."""
    return _signer(_SEAT_SALT).sign(f"{normalize_code(code)}{seat}").decode()


def host_token(code: str) -> str:
    """Token for the host of one game: the code without its dash and an HMAC signature."""
    return _signer(_HOST_SALT).sign(normalize_code(code)).decode()


def _unsign(token: str, salt: str) -> str | None:
    if not token or len(token) > MAX_TOKEN_LENGTH or not token.isascii():
        return None
    try:
        return _signer(salt).unsign(token).decode()
    except (BadSignature, UnicodeDecodeError):
        return None


def read_seat_token(token: str) -> tuple[str, int] | None:
    """(canonical code, seat) of a genuine seat token; None for a guessed, altered or malformed one."""
    payload = _unsign(token, _SEAT_SALT)
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
    payload = _unsign(token, _HOST_SALT)
    if payload is None:
        return None
    try:
        return GameId.from_code(payload).to_code()
    except GameCodeError:
        return None


def redact(path: str) -> str:
    """A URL path fit for a log: host and seat tokens replaced by a placeholder."""
    return TOKEN_PATH.sub(lambda m: f"/{m.group(1)}/<token>", path)
