"""Rate limits per client address (Flask-Limiter): dealing games and acting at a table, generous enough for a
whole game night behind one router, tight enough that one client cannot flood the database.

Counts live in each server process's memory: with several worker processes a client may get up to that many
times the limit, which still bounds it. Behind a reverse proxy, set COMPANION_TRUST_PROXY so that the address
counted is the phone's, not the proxy's.
"""

from __future__ import annotations

import threading

from flask import Flask, current_app
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits.storage import MemoryStorage


class ThreadSafeMemoryStorage(MemoryStorage):
    """limits' in-memory counts, with its expiry timer restarted under a lock. limits (5.x) restarts the timer
    from any request that counts: two at once could both start the same new timer, and the second start raised
    RuntimeError, answering a vote with HTTP 500 on a busy night."""

    STORAGE_SCHEME = ["companion-memory"]

    def __init__(self, *args, **kwargs) -> None:
        self._timer_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def _MemoryStorage__schedule_expiry(self) -> None:  # the name limits' own calls resolve to
        with self._timer_lock:
            if not self.timer.is_alive():
                timer = threading.Timer(0.01, self._MemoryStorage__expire_events)
                timer.daemon = True
                timer.start()
                self.timer = timer


limiter = Limiter(
    key_func=get_remote_address, storage_uri="companion-memory://", default_limits=[], headers_enabled=True
)

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
    # Only the decorated views have limits, and their decorators check them when called; the extension's
    # hook before every request would look for application-wide limits there are none of, costing every
    # poll about a third of a millisecond.
    hooks = app.before_request_funcs.get(None, [])
    if limiter._check_request_limit in hooks:  # not there when limits are switched off
        hooks.remove(limiter._check_request_limit)
