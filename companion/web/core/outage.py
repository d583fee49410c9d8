"""A database outage as the logs tell it: one line when a part of the site (the requests, the live-update
watcher, the computer players) first fails to reach the database, one when it reaches it again, and nothing in
between however many tries fail; loops that keep trying wait longer after each failure, up to a few seconds."""

from __future__ import annotations

import logging
import threading
import time

FIRST_PAUSE_SECONDS = 0.25
LONGEST_PAUSE_SECONDS = 5.0
# A success this soon after a failure does not end an outage: while requests fail and succeed by turns (every
# pooled connection busy under a flood), the log keeps one line, not two per turn.
SETTLED_SECONDS = 1.0


class Outage:
    """The state of one part's link to the database. `failed(error)` on every failure (logs only the first,
    returns the pause before the next try, doubling up to LONGEST_PAUSE_SECONDS); `succeeded()` after any
    success (logs the end of an outage once SETTLED_SECONDS passed without a failure; one attribute read
    otherwise)."""

    def __init__(self, part: str, log: logging.Logger, first_pause: float = FIRST_PAUSE_SECONDS,
                 longest_pause: float = LONGEST_PAUSE_SECONDS) -> None:
        self.part, self.log = part, log
        self.first_pause, self.longest_pause = first_pause, longest_pause
        self.lock = threading.Lock()
        self.started: float | None = None  # time.monotonic() of the first failure, while the outage lasts
        self.last_failure = 0.0
        self.failures = 0

    @property
    def ongoing(self) -> bool:
        return self.started is not None

    def failed(self, error: BaseException) -> float:
        with self.lock:
            self.failures += 1
            self.last_failure = time.monotonic()
            if self.started is None:
                self.started = time.monotonic()
                reason = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
                self.log.warning("%s: cannot reach the database (%s%s); trying again, less and less often, "
                                 "until it answers", self.part, type(error).__name__, f": {reason}" if reason else "")
            return min(self.longest_pause, self.first_pause * 2 ** min(self.failures - 1, 30))

    def succeeded(self) -> None:
        if self.started is None:
            return
        with self.lock:
            if self.started is None or time.monotonic() - self.last_failure < SETTLED_SECONDS:
                return
            lasted, failures = time.monotonic() - self.started, self.failures
            self.started, self.failures = None, 0
        self.log.warning("%s: the database answers again, after %.1f s and %d failed tries", self.part, lasted, failures)
