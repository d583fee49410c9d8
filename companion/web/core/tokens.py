"""Signed tokens: the unguessable part of a host's or a player's URL, signed with the app's SECRET_KEY.

A token is a payload (a game code, a seat, a table and player id) and an HMAC signature (itsdangerous). Every
kind of token uses its own salt, so one can never stand in for another. A guessed, altered or malformed token
reads as None and the views answer 404. Each game names its own kinds of token.
"""

from __future__ import annotations

import re
import secrets
from functools import lru_cache
from urllib.parse import unquote

from flask import current_app
from itsdangerous import BadSignature, Signer
from werkzeug.routing import Map

# Longer than any genuine token by a margin; anything longer is junk and is not even verified.
MAX_TOKEN_LENGTH = 64
# Ids the site makes up (tables, players): letters and digits that no one misreads (no 0/O, 1/I/L).
ID_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"


def new_id(length: int) -> str:
    """A random id of `length` characters of ID_ALPHABET."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(length))


def _signer(salt: str) -> Signer:
    return _signer_for(current_app.config["SECRET_KEY"], salt)


@lru_cache(maxsize=64)
def _signer_for(secret_key: str, salt: str) -> Signer:
    return Signer(secret_key, salt=salt)


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


def redact(path: str) -> str:
    """A URL path fit for a log: every path segment that a route reads as its <token> becomes "<token>". It is
    read as routing reads it, so no spelling hides a token: percent-escapes decoded (twice-encoded ones too),
    runs of slashes taken as one; a query, which may carry a link (?back=/s/...), is left out."""
    path, query_mark, _ = path.partition("?")
    for _ in range(MAX_DECODINGS):
        decoded = unquote(path)
        if decoded == path:
            break
        path = decoded
    path = _SLASHES.sub("/", path)
    return _token_paths(current_app.url_map).sub(lambda m: f"{m.group(1)}<token>", path) + (
        "?<query>" if query_mark else "")


MAX_DECODINGS = 4  # percent-escapes decoded this many times over at most (a path encoded more is junk anyway)
_SLASHES = re.compile(r"/{2,}")


def is_token_path(path: str) -> bool:
    """Whether a route reads a <token> from this path (a seat's, a host's...), whatever the rest of it."""
    return _token_paths(current_app.url_map).match(path) is not None


@lru_cache(maxsize=8)
def _token_paths(url_map: Map) -> re.Pattern:
    """What comes before a <token> in the site's routes (/s/, /decrypto/p/...), as one pattern."""
    prefixes = {rule.rule.partition("<token>")[0] for rule in url_map.iter_rules() if "token" in rule.arguments}
    alternatives = "|".join(re.escape(prefix) for prefix in sorted(prefixes, key=len, reverse=True))
    return re.compile(rf"({alternatives})[^/?#]+") if prefixes else re.compile(r"(?!)()")
