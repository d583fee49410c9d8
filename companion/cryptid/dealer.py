"""One server's dealer: its secret key, and a pool of kept maps per mode so a new game costs a next game's time.

Finding a kept map and dealing its first game takes milliseconds (in normal mode about ten maps are tried for
one kept). The pool holds maps checked ahead of time, with game 1 already dealt for every player count; each
is exactly the map its seed names, so a game dealt from the pool is the game its code names. A daemon thread
tops the pools up after each deal, sleeping a moment between its steps so that the requests it shares the
interpreter with get it at once; an empty pool never makes a request wait for the thread: the request finds a
map itself.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

from .board import MODES
from .codes import PLAYER_COUNTS, GameId
from .generator import (
    KNOWN_VERSIONS,
    VERSION,
    Game,
    MapPlan,
    first_game,
    following_game,
    game_for,
    kept_plan,
    map_seeds,
)
from .rng import secret_of

# How long the refill thread yields the interpreter between two steps of its search (seconds).
REFILL_PAUSE = 0.0002


class _Stopped(Exception):
    """Raised inside the refill thread's search when stop() is called, to leave it at once."""


class Dealer:
    """New, loaded and next games under one server key, with new games dealt from a pool of checked maps."""

    def __init__(self, key: bytes, pool_size: int = 8, background: bool = True) -> None:
        self._secret = secret_of(key)
        self.pool_size = pool_size
        self._pools: dict[str, deque[MapPlan]] = {mode: deque() for mode in MODES}
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False
        if background:
            self.start()

    def __repr__(self) -> str:
        pooled = ", ".join(f"{mode}={len(pool)}" for mode, pool in self._pools.items())
        return f"<Dealer pool_size={self.pool_size} pooled: {pooled}>"

    def new_game(self, players: int, mode: str) -> Game:
        """Game 1 on a fresh kept map: from the pool when it has one, else found now."""
        with self._wake:
            plan = self._pools[mode].popleft() if self._pools[mode] else None
        if plan is None:
            plan = kept_plan(mode, self._secret, map_seeds())
        game = first_game(plan, players)
        with self._wake:
            self._wake.notify()
        return game

    def load(self, code: str) -> Game:
        """The game a code names under this dealer's key; raises GameCodeError."""
        return game_for(GameId.from_code(code, known_versions=KNOWN_VERSIONS), self._secret)

    def next(self, game: Game, players: int | None = None) -> Game:
        """The next game on the same map; raises NoHabitatLeft when the map has none for that player count."""
        return following_game(game, players, self._secret)

    def pooled(self, mode: str) -> int:
        """How many checked maps of a mode wait in the pool."""
        return len(self._pools[mode])

    def fill(self) -> None:
        """Top every pool up now, in the calling thread (start-up, tests, benchmarks)."""
        for mode in MODES:
            while self.pooled(mode) < self.pool_size:
                self._add(mode, self._prepared_plan(mode))

    def start(self) -> None:
        """Start the daemon thread that keeps the pools full (once; again after stop())."""
        with self._wake:
            if self._thread is not None:
                return
            self._stopping = False
            self._thread = threading.Thread(target=self._refill, name="cryptid-dealer", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the refill thread and wait for it; the pools keep what they hold."""
        with self._wake:
            thread, self._thread = self._thread, None
            self._stopping = True
            self._wake.notify_all()
        if thread is not None:
            thread.join()

    def _prepared_plan(self, mode: str, between_steps: Callable[[], None] = lambda: None) -> MapPlan:
        """A kept map with game 1 already dealt for every player count, so taking it costs next to nothing."""
        plan = kept_plan(mode, self._secret, map_seeds(), between_steps)
        for players in PLAYER_COUNTS:
            between_steps()
            plan.game(GameId(VERSION, mode, players, plan.seed, 0))
        return plan

    def _add(self, mode: str, plan: MapPlan) -> None:
        with self._wake:
            if len(self._pools[mode]) < self.pool_size:
                self._pools[mode].append(plan)

    def _refill(self) -> None:
        while True:
            with self._wake:
                while not self._stopping and all(len(p) >= self.pool_size for p in self._pools.values()):
                    self._wake.wait()
                if self._stopping:
                    return
                mode = min(MODES, key=lambda m: len(self._pools[m]))
            try:
                plan = self._prepared_plan(mode, self._pause)
            except _Stopped:
                return
            self._add(mode, plan)

    def _pause(self) -> None:
        if self._stopping:
            raise _Stopped
        time.sleep(REFILL_PAUSE)
