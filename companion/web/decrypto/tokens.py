"""Decrypto's tokens: the host's, the table's join link and each player's, carrying the table id and the
player id. See core.tokens for how tokens are signed and read."""

from __future__ import annotations

import re

from companion.web.core.tokens import ID_ALPHABET, sign, unsign

from .store import TABLE_ID_LENGTH

DECRYPTO_HOST_SALT = "decrypto-host-v1"
DECRYPTO_JOIN_SALT = "decrypto-join-v1"
DECRYPTO_PLAYER_SALT = "decrypto-player-v1"

# Decrypto tables: a table id is TABLE_ID_LENGTH characters of ID_ALPHABET; a player id is the
# seat it was printed for ("w1".."b4") or, at tables that split into teams on their phones, "p" and 8 more.
_DECRYPTO_TABLE = re.compile(rf"[{ID_ALPHABET}]{{{TABLE_ID_LENGTH}}}")
_DECRYPTO_PLAYER = re.compile(rf"[wb][1-4]|p[{ID_ALPHABET}]{{8}}")


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
