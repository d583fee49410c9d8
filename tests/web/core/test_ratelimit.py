"""The limiter's in-memory counts under requests that arrive at the same instant."""

from __future__ import annotations

import sys
import threading

from limits.storage import storage_from_string

from companion.web.core.app import create_app
from companion.web.core.ratelimit import STORAGE_URI, SerializedMemoryStorage, limiter

THREADS = 16
ROUNDS = 400


def test_the_site_counts_in_the_serialized_storage():
    create_app({"TESTING": True, "SECRET_KEY": "k" * 32})
    assert isinstance(limiter.storage, SerializedMemoryStorage)


def test_counts_at_the_same_instant_never_fail_and_are_all_kept(monkeypatch):
    """Sixteen threads count at once, round after round, each round just after the storage's expiry timer has
    ended, so all of them race to start the next one. With limits' own MemoryStorage (5.8) this fails in
    nearly every run: a count raises RuntimeError (the same timer started twice; HTTP 500 for a vote), or one
    timer is started twice in two threads, or counts are lost."""
    storage = storage_from_string(STORAGE_URI)
    failures: list[BaseException] = []
    # A timer started twice concurrently fails inside its second new thread, not in the caller.
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: failures.append(unraisable.exc_value))
    round_starts, round_ends = threading.Barrier(THREADS + 1), threading.Barrier(THREADS + 1)

    def count() -> None:
        for _ in range(ROUNDS):
            round_starts.wait()
            try:
                storage.incr("phone", 60)
            except Exception as exc:  # noqa: BLE001 - collected and asserted below
                failures.append(exc)
            round_ends.wait()

    threads = [threading.Thread(target=count) for _ in range(THREADS)]
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns every few bytecodes, so the race is met in most rounds
    try:
        for thread in threads:
            thread.start()
        for _ in range(ROUNDS):
            storage.timer.cancel()  # the expiry timer ends now rather than in 10 ms
            storage.timer.join()
            round_starts.wait()
            round_ends.wait()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch_interval)
    assert failures == []
    assert storage.get("phone") == THREADS * ROUNDS
