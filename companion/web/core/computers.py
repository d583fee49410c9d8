"""Computer players' turns, for any game: each game registers what its computers owe the table and how to take
one such turn; a worker takes them after a short human-like pause.

The core knows no game and no engine: a game's web part calls register() with two functions. `pending()` lists
the turns its computer players owe now, each a hashable value that names the position it was read from (so a
turn seen again after the game moved on is a new turn); `take(turn)` decides and plays it through the game's
own move log. A third, `table(turn)`, may name the table a turn is owed at. Exactly once is the move log's
business (its unique position and expected version): two workers taking the same turn both decide the same
move, and the second one's insert is refused.

Where the worker runs: `serve` starts it as a process of its own beside the web workers (`python -m companion
computers`), so that a long decision never holds a web worker's interpreter lock; with COMPUTER_THREAD set
(tests, `flask run`) each app runs it as a thread instead. docs/cryptid-bots.md says why. `serve` starts one worker
a core; each has a share of the turns (a stable split of the turns' tables, so that one worker keeps what its
computers worked out about a table from one turn to the next) and takes the others' turns only once
they are well overdue, so that the decisions are spread over the cores without any worker deciding a turn twice
over, and a worker that is stuck or gone delays its turns by seconds, not for ever.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import zlib
from dataclasses import dataclass
from typing import Callable, Hashable, Iterable

from flask import Flask

from . import store
from .errors import DATABASE_UNAVAILABLE
from .outage import Outage

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25  # how often the worker looks for turns owed (one small query per game)
DEFAULT_PAUSE = (1.5, 3.0)  # seconds a computer "thinks" before its move shows, at random between the two
TAKEOVER_SECONDS = 2.0  # how long past its due time another worker's turn waits before this one takes it


@dataclass(frozen=True)
class Share:
    """Which of the turns a worker takes first: those whose name falls to `index` of `count` workers. The split
    must agree between processes, so it hashes the turn's repr with CRC-32 (Python's own str hash is seeded
    differently in each process)."""

    index: int = 0
    count: int = 1

    def __post_init__(self) -> None:
        if not 0 <= self.index < self.count:
            raise ValueError(f"a worker's share must be i/N with 0 <= i < N, not {self.index}/{self.count}")

    @classmethod
    def from_text(cls, text: str) -> Share:
        """"i/N" (as `computers --share` takes it): worker i of N."""
        index, _, count = text.partition("/")
        return cls(int(index), int(count))

    def mine(self, key: tuple[str, Hashable]) -> bool:
        return self.count == 1 or zlib.crc32(repr(key).encode()) % self.count == self.index


@dataclass(frozen=True)
class TurnKeeper:
    """One game's computer players: the turns they owe now, and how to take one."""

    name: str
    pending: Callable[[], Iterable[Hashable]]
    take: Callable[[Hashable], None]
    table: Callable[[Hashable], Hashable] = lambda turn: turn  # the table a turn is owed at: shares split tables


_KEEPERS: dict[str, TurnKeeper] = {}


def register(
    name: str,
    pending: Callable[[], Iterable[Hashable]],
    take: Callable[[Hashable], None],
    table: Callable[[Hashable], Hashable] = lambda turn: turn,
) -> None:
    """Let the worker take `name`'s computer turns (a game's init_app calls this; registering again replaces).
    `table(turn)` names the table a turn is owed at: every turn of a table falls to the same worker's share."""
    _KEEPERS[name] = TurnKeeper(name, pending, take, table)


def keepers() -> list[TurnKeeper]:
    return list(_KEEPERS.values())


def take_all_pending(app: Flask, rounds: int = 1000) -> int:
    """Take every turn owed, at once and over again until none is left (tests and the worker's catch-up);
    returns how many were taken. `rounds` bounds a game that would never stop owing turns."""
    taken = 0
    with app.app_context():
        for _ in range(rounds):
            turns = [(keeper, turn) for keeper in keepers() for turn in keeper.pending()]
            if not turns:
                break
            for keeper, turn in turns:
                keeper.take(turn)
                taken += 1
    return taken


class Worker:
    """Takes computer turns as they fall due: a turn seen now is taken after the pause (COMPUTER_PAUSE, a pair
    of seconds), unless the game moved on meanwhile. Nothing is kept but the due times: after a restart every
    owed turn is simply seen again."""

    def __init__(self, app: Flask, pause: tuple[float, float] | None = None, share: Share = Share()) -> None:
        self.app = app
        self.share = share
        low, high = pause or app.config.get("COMPUTER_PAUSE", DEFAULT_PAUSE)
        self.pause = (float(low), float(high))
        self.due: dict[tuple[str, Hashable], float] = {}
        self.stopping = threading.Event()
        self.nudged = threading.Event()  # a table of this process changed: look now, not at the next poll
        self.rng = random.Random()
        self.outage = Outage("computer players", log)
        self.wait = POLL_SECONDS  # until the next look: longer and longer while the database is away

    def step(self) -> int:
        """Look once for owed turns, take those whose pause is over; returns how many were taken."""
        now, taken = time.monotonic(), 0
        self.wait = POLL_SECONDS
        with self.app.app_context():
            owed = set()
            for keeper in keepers():
                try:
                    owed.update((keeper.name, turn) for turn in keeper.pending())
                except DATABASE_UNAVAILABLE as error:  # a database that is away: one line, then look less often
                    self.wait = max(POLL_SECONDS, self.outage.failed(error))
                    return taken
                except Exception:
                    log.exception("computer players of %s: cannot read the turns owed", keeper.name)
            self.outage.succeeded()
            self.due = {key: self.due.get(key, now + self.rng.uniform(*self.pause)
                                          + (0.0 if self._mine(key) else TAKEOVER_SECONDS)) for key in owed}
            for (name, turn), at in sorted(self.due.items(), key=lambda item: item[1]):
                if at > now or self.stopping.is_set():
                    continue
                try:
                    _KEEPERS[name].take(turn)
                    taken += 1
                except DATABASE_UNAVAILABLE as error:  # the turn stays owed: taken once the database is back
                    self.wait = max(POLL_SECONDS, self.outage.failed(error))
                    break
                except Exception:  # one table's trouble must not stop the others' computers
                    log.exception("computer players of %s: turn %r failed", name, turn)
                del self.due[name, turn]
        if self.due and self.wait == POLL_SECONDS:  # wake when the next pause ends, not up to a poll later
            self.wait = min(POLL_SECONDS, max(0.0, min(self.due.values()) - time.monotonic()))
        return taken

    def _mine(self, key: tuple[str, Hashable]) -> bool:
        name, turn = key
        return self.share.mine((name, _KEEPERS[name].table(turn)))

    def run(self) -> None:
        while not self.stopping.is_set():
            self.step()
            self.nudged.wait(self.wait)
            self.nudged.clear()

    def nudge(self, code: str | None = None, stamp: str | None = None) -> None:
        """A table changed in this process (a commit): look for owed turns at once."""
        self.nudged.set()

    def stop(self) -> None:
        self.stopping.set()
        self.nudged.set()


def start_thread(app: Flask, pause: tuple[float, float] | None = None, share: Share = Share()) -> Worker:
    """Run the worker in a daemon thread of this process (COMPUTER_THREAD: tests, `flask run`)."""
    worker = Worker(app, pause, share)
    store.on_commit_of_changes(app, worker.nudge)
    threading.Thread(target=worker.run, name="computer-players", daemon=True).start()
    return worker


def init_app(app: Flask) -> None:
    app.config.setdefault("COMPUTER_PAUSE", DEFAULT_PAUSE)
    if app.config.get("COMPUTER_THREAD"):
        app.extensions["companion.computers"] = start_thread(app)
