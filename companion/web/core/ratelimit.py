"""Rate limits per client address (Flask-Limiter): dealing games and acting at a table, generous enough for a
whole game night behind one router, tight enough that one client cannot flood the database.

Two budgets per address, each shared by every route of its kind: one for dealing (every game's forms and the
API: `@deals`), one for acting at a table (votes, unlocks, moves, hand-overs, taking a seat over: `@acts`).
A route that accepts anything but GET, HEAD or OPTIONS must spend one of them: the site refuses to start
otherwise (check_every_route_spends_a_budget), so a new route cannot forget its limit.

Counts are kept once for the whole site, however many worker processes and machines serve it: by default in the
site's own database (DatabaseStorage, a storage registered through limits' public Storage interface as
`companion-database://`), or wherever COMPANION_RATE_LIMIT_STORAGE says (`redis://host:6379`, with the redis
package installed; `companion-memory://` counts in each process's memory, each process then allowing the
limit). Behind a reverse proxy, set COMPANION_TRUST_PROXY so that the address counted is the phone's, not the
proxy's.
"""

from __future__ import annotations

import functools
import threading
import time
from contextlib import nullcontext

from flask import Flask, current_app, g, has_request_context, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits.storage import MemoryStorage, Storage
from sqlalchemy import Float, Integer, String, case, delete, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Mapped, mapped_column

from .db import Base, db


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


class RateLimitCount(Base):
    """One fixed window of one limit for one address: how many requests it counted and when the window ends."""

    __tablename__ = "rate_limits"
    key: Mapped[str] = mapped_column(String(255), primary_key=True)  # limit and address, as Flask-Limiter names it
    count: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[float] = mapped_column(Float, index=True)  # seconds since the epoch


COUNTED_THIS_REQUEST = "companion_rate_counts"  # flask.g: {key: (count, end of window)} this request counted


class DatabaseStorage(Storage):
    """limits' counts in the site's database (SQLite or PostgreSQL), so every process and machine counts against
    the same numbers. Each count is one upsert in its own short transaction (on SQLite, taking its turn with the
    site's other writers); a window that has ended starts again at the first count after it. A request that has
    counted reads its window (for the X-RateLimit-* and Retry-After headers) from that count's answer, not from
    the database twice more: a third of a vote's CPU went to the limiter before."""

    STORAGE_SCHEME = ["companion-database"]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    @property
    def base_exceptions(self) -> type[Exception]:
        return SQLAlchemyError

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        table = RateLimitCount.__table__
        engine = db.engine
        insert = postgresql_insert if engine.dialect.name == "postgresql" else sqlite_insert
        ended = table.c.expires_at <= now  # in the update, the stored row's values
        counted = insert(table).values(key=key, count=amount, expires_at=now + expiry).on_conflict_do_update(
            index_elements=[table.c.key],
            set_={"count": case((ended, amount), else_=table.c.count + amount),
                  "expires_at": case((ended, now + expiry), else_=table.c.expires_at)},
        ).returning(table.c.count, table.c.expires_at)
        turns = current_app.extensions["companion.write_turns"]
        with turns.turn() if turns else nullcontext(), engine.begin() as connection:
            count, expires_at = connection.execute(counted).one()
        if has_request_context():
            g.setdefault(COUNTED_THIS_REQUEST, {})[key] = (count, expires_at)
        return count

    def _window(self, key: str) -> tuple[int, float] | None:
        counted = g.get(COUNTED_THIS_REQUEST, {}) if has_request_context() else {}
        if key in counted:
            return counted[key]
        with db.engine.connect() as connection:
            row = connection.execute(select(RateLimitCount.count, RateLimitCount.expires_at).where(
                RateLimitCount.key == key, RateLimitCount.expires_at > time.time())).first()
        return tuple(row) if row else None

    def get(self, key: str) -> int:
        window = self._window(key)
        return window[0] if window else 0

    def get_expiry(self, key: str) -> float:
        window = self._window(key)
        return window[1] if window else time.time()

    def check(self) -> bool:
        try:
            with db.engine.connect() as connection:
                connection.execute(select(1))
        except SQLAlchemyError:
            return False
        return True

    def clear(self, key: str) -> None:
        with db.engine.begin() as connection:
            connection.execute(delete(RateLimitCount).where(RateLimitCount.key == key))

    def reset(self) -> int | None:
        with db.engine.begin() as connection:
            return connection.execute(delete(RateLimitCount)).rowcount


def forget_ended_windows() -> int:
    """Delete the counts of windows that have ended (the hourly purge): an address seen once leaves no row."""
    with db.engine.begin() as connection:
        return connection.execute(delete(RateLimitCount).where(RateLimitCount.expires_at <= time.time())).rowcount


STORAGE_URI = "companion-database://"
MEMORY_STORAGE_URI = "companion-memory://"
# The storage comes from each app's settings (RATELIMIT_STORAGE_URI), set in init_app below.
limiter = Limiter(key_func=get_remote_address, default_limits=[], headers_enabled=True)


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


DEALING, ACTING = "dealing", "acting"
BUDGETS = {DEALING: new_games_limit, ACTING: actions_limit}
CHANGING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def _spends(budget: str):
    """A view decorator: the view's requests count against `budget`, one count per address for every route
    that spends it (Flask-Limiter's shared limit, whose scope is the budget's name)."""
    shared = limiter.shared_limit(BUDGETS[budget], scope=budget)

    def decorate(view):
        limited = shared(view)
        limited.rate_budget = budget
        return limited

    return decorate


deals = _spends(DEALING)  # a route that deals a new game, of any game, by any form or the API
acts = _spends(ACTING)  # a route that changes a table: a vote, an unlock, a move, a hand-over, a take-over


def rate_budget(app: Flask, endpoint: str) -> str | None:
    """The budget an endpoint's view spends (DEALING or ACTING), or None."""
    return getattr(app.view_functions.get(endpoint), "rate_budget", None)


class UnlimitedRoute(RuntimeError):
    """A route that changes something spends no rate-limit budget: a programming error, found at start."""


def check_every_route_spends_a_budget(app: Flask) -> None:
    """Refuse to build a site with a route that accepts a changing method but spends no budget."""
    unlimited = sorted(f"{' '.join(sorted(rule.methods & CHANGING_METHODS))} {rule.rule}"
                       for rule in app.url_map.iter_rules()
                       if rule.methods & CHANGING_METHODS and rate_budget(app, rule.endpoint) not in BUDGETS)
    if unlimited:
        raise UnlimitedRoute("these routes change something but spend no rate-limit budget (decorate each view "
                             "with core.ratelimit.deals or acts): " + "; ".join(unlimited))


def init_app(app: Flask) -> None:
    for name, value in DEFAULT_LIMITS.items():
        app.config.setdefault(name, value)
    # Said outright: the limiter is one object for every app in the process, and without this an app would
    # inherit the switch of the app made before it (a benchmark's app turns limits off).
    app.config.setdefault("RATELIMIT_ENABLED", True)
    app.config.setdefault("RATELIMIT_STORAGE_URI", app.config.get("RATE_LIMIT_STORAGE") or STORAGE_URI)
    limiter.init_app(app)
