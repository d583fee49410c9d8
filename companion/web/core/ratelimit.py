"""Rate limits per client address (Flask-Limiter): dealing games and acting at a table, generous enough for a
whole game night behind one router, tight enough that one client cannot flood the database.

Counts live in each server process's memory: with several worker processes a client may get up to that many
times the limit, which still bounds it. Behind a reverse proxy, set COMPANION_TRUST_PROXY so that the address
counted is the phone's, not the proxy's.
"""

from __future__ import annotations

import functools
import threading

from flask import Flask, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits.storage import MemoryStorage


def _one_call_at_a_time(method):
    @functools.wraps(method)
    def serialized(storage: SerializedMemoryStorage, *args, **kwargs):
        with storage.calls_lock:
            return method(storage, *args, **kwargs)

    return serialized


class SerializedMemoryStorage(MemoryStorage):
    """limits' in-memory counts, one call at a time. limits (5.8, its latest release) restarts its expiry timer
    from any call that counts, unguarded: two requests at once could start the same timer twice (RuntimeError,
    a vote answered with HTTP 500), and the first counts of a new address could be lost. A call is a few
    dictionary operations, so requests hardly wait for each other."""

    STORAGE_SCHEME = ["companion-memory"]

    def __init__(self, *args, **kwargs) -> None:
        self.calls_lock = threading.RLock()  # re-entrant: incr reads the count through get
        super().__init__(*args, **kwargs)

    incr = _one_call_at_a_time(MemoryStorage.incr)
    decr = _one_call_at_a_time(MemoryStorage.decr)
    get = _one_call_at_a_time(MemoryStorage.get)
    get_expiry = _one_call_at_a_time(MemoryStorage.get_expiry)
    clear = _one_call_at_a_time(MemoryStorage.clear)
    reset = _one_call_at_a_time(MemoryStorage.reset)
    acquire_entry = _one_call_at_a_time(MemoryStorage.acquire_entry)
    get_moving_window = _one_call_at_a_time(MemoryStorage.get_moving_window)
    acquire_sliding_window_entry = _one_call_at_a_time(MemoryStorage.acquire_sliding_window_entry)
    get_sliding_window = _one_call_at_a_time(MemoryStorage.get_sliding_window)
    clear_sliding_window = _one_call_at_a_time(MemoryStorage.clear_sliding_window)


STORAGE_URI = "companion-memory://"
limiter = Limiter(key_func=get_remote_address, storage_uri=STORAGE_URI, default_limits=[], headers_enabled=True)


@limiter.request_filter
def reading_is_never_limited() -> bool:
    """Every limited view changes something and answers POST only. Flask-Limiter checks every request before its
    view for application-wide limits (the site has none); this ends that check at once for pages and polls,
    about a fifth of a millisecond each, while the limited views' own checks see POST and go on."""
    return request.method in ("GET", "HEAD", "OPTIONS")


DEFAULT_LIMITS = {
    # A host deals a game every few minutes; a club behind one address deals a few dozen an hour.
    "RATE_LIMIT_NEW_GAMES": "30 per minute;300 per hour",
    # Votes, unlocks and moves: a table of five taps a few times a minute; a shop full of tables far more.
    "RATE_LIMIT_ACTIONS": "600 per minute",
}


def new_games_limit() -> str:
    return current_app.config["RATE_LIMIT_NEW_GAMES"]


def actions_limit() -> str:
    return current_app.config["RATE_LIMIT_ACTIONS"]


def init_app(app: Flask) -> None:
    for name, value in DEFAULT_LIMITS.items():
        app.config.setdefault(name, value)
    # Said outright: the limiter is one object for every app in the process, and without this an app would
    # inherit the switch of the app made before it (a benchmark's app turns limits off).
    app.config.setdefault("RATELIMIT_ENABLED", True)
    limiter.init_app(app)
