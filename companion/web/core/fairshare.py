"""A fair share of each server process per client address: how many of its threads one address may hold at once.

Every request in progress holds a thread until it is answered; a live update holds one for up to 25 s. One phone
(or one script on the same Wi-Fi) opening thousands of them, or sending bodies a byte at a time, must not take
every thread from everyone else. Per process and per client address (the phone's, behind a trusted proxy):

- at most REQUESTS_PER_ADDRESS requests in progress at once: `serve` sets half of a worker's threads (532 of
  1,064 by default), 500 elsewhere. That still holds a convention behind one NAT: 532 phones holding a live
  update per worker process, which the kernel spreads evenly (1,064 phones on a 2-core machine). An address
  over it gets a 429 at once, its connection closed;
- at most BODIES_PER_ADDRESS request bodies being read at once. A phone's body (a form, a move) arrives with its
  headers and is read in microseconds, so even a busy NAT has a few at once; a body that trickles in holds its
  thread as long as the client likes (granian reads the whole body before the site sees a byte of it, and has
  no timeout for it), so one address gets this many such threads and no more. Behind nginx
  (`client_body_timeout`) slow bodies never reach the site at all.

The body is read here, before anything else of the site touches the request (CSRF checks read forms), so the
cap sees every body. Counts live in the process's memory: each process protects its own threads.
"""

from __future__ import annotations

import threading
from collections import Counter
from contextlib import contextmanager

from flask import Flask, abort, current_app, g, request

DEFAULTS = {"REQUESTS_PER_ADDRESS": 500, "BODIES_PER_ADDRESS": 16}
RETRY_SECONDS = 5  # the Retry-After of a 429 for a full share: about when held live updates start to answer


class Shares:
    """Counts per client address, under one lock; a slot is taken or refused at once, never waited for."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: Counter[tuple[str, str]] = Counter()

    def take(self, kind: str, address: str, limit: int) -> bool:
        with self.lock:
            if self.counts[kind, address] >= limit:
                return False
            self.counts[kind, address] += 1
            return True

    def give_back(self, kind: str, address: str) -> None:
        with self.lock:
            self.counts[kind, address] -= 1
            if not self.counts[kind, address]:
                del self.counts[kind, address]

    @contextmanager
    def holding(self, kind: str, address: str, limit: int):
        if not self.take(kind, address, limit):
            _refuse()
        try:
            yield
        finally:
            self.give_back(kind, address)


def _refuse() -> None:
    g.full_share = True
    abort(429)


def _has_body() -> bool:
    return bool(request.content_length) or "chunked" in request.headers.get("Transfer-Encoding", "").lower()


def _take_share() -> None:
    shares: Shares = current_app.extensions["companion.fair_share"]
    address = request.remote_addr or "unknown"
    if not shares.take("requests", address, current_app.config["REQUESTS_PER_ADDRESS"]):
        _refuse()
    g.share_address = address
    if _has_body():
        with shares.holding("bodies", address, current_app.config["BODIES_PER_ADDRESS"]):
            request.get_data(cache=True)  # 413 beyond MAX_CONTENT_LENGTH, read no further


def _give_back(error: BaseException | None) -> None:
    address = g.pop("share_address", None)
    if address is not None:
        current_app.extensions["companion.fair_share"].give_back("requests", address)


def full_share() -> bool:
    """Whether this request was refused because its address already holds its share (then it says when to retry)."""
    return bool(g.get("full_share"))


def init_app(app: Flask) -> None:
    """Call before anything else that reads the request (CSRF): before_request functions run in order."""
    for name, value in DEFAULTS.items():
        app.config.setdefault(name, value)
    app.extensions["companion.fair_share"] = Shares()
    app.before_request(_take_share)
    app.teardown_request(_give_back)
