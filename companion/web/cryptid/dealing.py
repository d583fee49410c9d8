"""This server's dealer: every game it deals or loads is computed with a key derived from SECRET_KEY, so the
clue sets behind a code are known to this server only (the map stays public). One dealer per process, with
a pool of checked maps refilled by a background thread started in that process (after any fork)."""

from __future__ import annotations

import hashlib
import hmac
import os

from flask import Flask, current_app

from companion.cryptid import Dealer


def clue_key(secret_key: str) -> bytes:
    """The engine's key for clue sets, derived from the site's secret (never the secret itself)."""
    return hmac.new(secret_key.encode(), b"cryptid companion: clue sets", hashlib.sha256).digest()


def dealer() -> Dealer:
    return current_app.extensions["dealer"]


def init_app(app: Flask) -> None:
    app.extensions["dealer"] = Dealer(clue_key(app.config["SECRET_KEY"]), background=False)
    started_in = []

    def start_refills() -> None:
        # A worker process forked from a parent that built the app has no threads: start its own, once.
        if started_in != [os.getpid()]:
            started_in[:] = [os.getpid()]
            app.extensions["dealer"].start()

    if not app.testing or app.config.get("DEALER_REFILL"):
        app.before_request(start_refills)
