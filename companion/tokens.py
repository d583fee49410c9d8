"""Host and seat tokens: the unguessable part of a host's or a seat's URL, signed with the app's SECRET_KEY.

A token is the game code (without its dash), for a seat also the seat number, and an HMAC signature
(itsdangerous). Decrypto tables have their own host, join and player tokens (table id, player id, signature).
Every kind uses its own salt, so one can never stand in for another. A guessed, altered or malformed token
reads as None and the views answer 404.
"""

from __future__ import annotations

import re
from functools import lru_cache

from flask import current_app
from itsdangerous import BadSignature, Signer

from .cryptid import GameCodeError, GameId
from .cryptid.codes import ALPHABET, normalize_code

_SEAT_SALT = "cryptid-seat-v1"
_HOST_SALT = "cryptid-host-v1"
TABLE_ID_LENGTH = 10
DECRYPTO_HOST_SALT = "decrypto-host-v1"
DECRYPTO_JOIN_SALT = "decrypto-join-v1"
DECRYPTO_PLAYER_SALT = "decrypto-player-v1"
# Longer than any genuine token by a margin; anything longer is junk and is not even verified.
MAX_TOKEN_LENGTH = 64
# Path segments that carry a token: never written to a log as they are.
TOKEN_PATH = re.compile(r"/(s|h|api/seats|api/hosts|decrypto/h|decrypto/j|decrypto/p)/[^/?#]+")


def _signer(salt: str) -> Signer:
    return _signer_for(current_app.config["SECRET_KEY"], salt)


@lru_cache(maxsize=64)
def _signer_for(secret_key: str, salt: str) -> Signer:
    return Signer(secret_key, salt=salt)


def seat_token(code: str, seat: int) -> str:
    """Token for one seat of one game: the code without its dash, the seat, and an HMAC signature."""
    return sign(f"{normalize_code(code)}{seat}", _SEAT_SALT)


def host_token(code: str) -> str:
    """Token for the host of one game: the code without its dash and an HMAC signature."""
    return sign(normalize_code(code), _HOST_SALT)


def sign(payload: str, salt: str) -> str:
    """A token carrying `payload`, signed with the app's key under `salt` (one salt per kind of token)."""
    return _signer(salt).sign(payload).decode()


def unsign(token: str, salt: str) -> str | None:
    """The payload of a genuine token of the kind `salt` names; None for anything else."""
    if not token or len(token) > MAX_TOKEN_LENGTH or not token.isascii():
        return None
    return _verified(current_app.config["SECRET_KEY"], salt, token)


@lru_cache(maxsize=8192)
def _verified(secret_key: str, salt: str, token: str) -> str | None:
    """A token's payload, or None; remembered, as every phone sends its token with each poll (a few thousand
    entries: a busy night's seats, bounded so that junk tokens only push out old ones)."""
    try:
        return _signer_for(secret_key, salt).unsign(token).decode()
    except (BadSignature, UnicodeDecodeError):
        return None


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


def redact(path: str) -> str:
    """A URL path fit for a log: host and seat tokens replaced by a placeholder."""
    return TOKEN_PATH.sub(lambda m: f"/{m.group(1)}/<token>", path)


# Decrypto tables: a table id is TABLE_ID_LENGTH characters of the game codes' alphabet; a player id is the
# seat it was printed for ("w1".."b4") or, at tables that split into teams on their phones, "p" and 8 more.
_DECRYPTO_TABLE = re.compile(rf"[{ALPHABET}]{{{TABLE_ID_LENGTH}}}")
_DECRYPTO_PLAYER = re.compile(rf"[wb][1-4]|p[{ALPHABET}]{{8}}")


def decrypto_host_token(table: str) -> str:
    return sign(table, DECRYPTO_HOST_SALT)


def decrypto_join_token(table: str) -> str:
    """The table's generic join link, for tables whose phones pick their teams."""
    return sign(table, DECRYPTO_JOIN_SALT)


def decrypto_player_token(table: str, player: str) -> str:
    return sign(f"{table}{player}", DECRYPTO_PLAYER_SALT)


def _decrypto_table(payload: str | None) -> str | None:
    return payload if payload is not None and _DECRYPTO_TABLE.fullmatch(payload) else None


def read_decrypto_host_token(token: str) -> str | None:
    return _decrypto_table(unsign(token, DECRYPTO_HOST_SALT))


def read_decrypto_join_token(token: str) -> str | None:
    return _decrypto_table(unsign(token, DECRYPTO_JOIN_SALT))


def read_decrypto_player_token(token: str) -> tuple[str, str] | None:
    """(table id, player id) of a genuine player token; None otherwise."""
    payload = unsign(token, DECRYPTO_PLAYER_SALT)
    if payload is None:
        return None
    table, player = payload[:TABLE_ID_LENGTH], payload[TABLE_ID_LENGTH:]
    if _decrypto_table(table) is None or not _DECRYPTO_PLAYER.fullmatch(player):
        return None
    return table, player
