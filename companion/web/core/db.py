"""The database every game shares: a row per table (its last change) and each table's move log. Games add
their own tables to the same metadata (each keyed by the table's code); every game itself stays derived
from its code and its moves.

SQLite in the instance folder by default, PostgreSQL through DATABASE_URL. Tables are created on start.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager, nullcontext
from datetime import datetime, timezone
from typing import Iterator

from flask import Flask, current_app
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import (
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    event,
    inspect,
    text,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DatabaseError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None


POOL_SIZE, POOL_OVERFLOW = 5, 10  # a server database's connections per worker process (README: allow for them)


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class TableRecord(Base):
    """A game some table has acted on: the time of its last action (for purging idle games) and how many
    changes it has seen, which together tell exactly whether anything changed since a page last looked."""

    __tablename__ = "tables"
    code: Mapped[str] = mapped_column(String(11), primary_key=True)
    last_activity: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    changes: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class MoveRecord(Base):
    """One move of a table's log. The unique (code, seq) means two racing moves cannot both be the next one."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("code", "seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(ForeignKey("tables.code", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)  # 1, 2, 3... per table
    data: Mapped[str] = mapped_column(Text)  # the move's JSON form
    made_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


def database_url(app: Flask) -> str:
    """DATABASE_URL (postgres:// accepted), else SQLite in the instance folder."""
    url = app.config.get("DATABASE_URL") or os.environ.get("DATABASE_URL")
    if not url:
        return "sqlite:///" + os.path.join(app.instance_path, "companion.sqlite3")
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


@event.listens_for(Engine, "connect")
def _sqlite_pragmas(connection, record) -> None:
    # WAL lets phones read while another writes; the busy timeout makes concurrent writers wait, not fail.
    # In WAL mode, synchronous=NORMAL syncs the log at checkpoints instead of at every commit: the database stays
    # consistent whatever happens, and only a power cut could undo the last moment's votes. Each commit holds
    # SQLite's one write lock a disk flush shorter, which is what a busy night's writers queue on.
    if type(connection).__module__.startswith("sqlite3"):
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=15000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()


def _sqlite_file(url: str) -> str | None:
    """The database file a SQLite URL names; None for a database in memory."""
    database = make_url(url).database
    return database if database and database != ":memory:" and not database.startswith("file:") else None


def init_app(app: Flask) -> None:
    app.config.setdefault("SQLALCHEMY_DATABASE_URI", database_url(app))
    # A server connection can drop between requests (a restart, a proxy's idle timeout): test it on checkout.
    # A SQLite file cannot, and the test would cost every request a query.
    url = app.config["SQLALCHEMY_DATABASE_URI"]
    if url.startswith("sqlite:///") and ":memory:" not in url:
        # Opening a SQLite connection (and setting its pragmas) costs more than a query: keep enough open for
        # the hundreds of threads of a busy worker, rather than opening and closing one per request.
        options = {"pool_size": 32, "max_overflow": 96}
    elif url.startswith("sqlite"):
        options = {}
    else:
        # Per worker process: 5 connections kept open, 10 more at peaks. Live updates wait without one (live.py),
        # so only requests at work hold one, for milliseconds; a request that still finds none within 10 s is
        # answered 503 with Retry-After (errors.py), and the phone asks again.
        options = {"pool_pre_ping": True, "pool_size": POOL_SIZE, "max_overflow": POOL_OVERFLOW, "pool_timeout": 10}
    app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", options)
    app.extensions["companion.write_turns"] = WriteTurns(_sqlite_file(url)) if url.startswith("sqlite") else None
    db.init_app(app)
    with app.app_context():
        create_tables(db.engine)


class WriteTurns:
    """SQLite's writers, one at a time: the threads of a process on a lock, the processes on a lock file.

    SQLite lets one writer in at a time, and its busy handler makes the others sleep in growing steps (up to
    100 ms) while they wait; under load a writer can lose every wake-up and starve past its timeout. Waiting
    here instead, each writer wakes the moment the one before it is done, and SQLite's lock is always free."""

    def __init__(self, database: str | None) -> None:
        self.threads = threading.Lock()
        self.file = None
        if database is not None and fcntl is not None:  # Windows runs one process: the thread lock does it all
            self.file = open(database + "-writers", "a+b")  # noqa: SIM115 (held for the life of the process)

    @contextmanager
    def turn(self) -> Iterator[None]:
        with self.threads:
            if self.file is None:
                yield
                return
            fcntl.flock(self.file, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(self.file, fcntl.LOCK_UN)


@contextmanager
def writing() -> Iterator[Connection]:
    """One write transaction on the session's connection: committed when the block ends, rolled back (and the
    error raised again) when it fails.

    On SQLite, writers take turns (WriteTurns); PostgreSQL locks rows and needs none."""
    turns: WriteTurns | None = current_app.extensions["companion.write_turns"]
    with turns.turn() if turns else nullcontext():
        try:
            yield db.session.connection()
            db.session.commit()
        except BaseException:
            db.session.rollback()
            raise


def create_tables(engine: Engine) -> None:
    """Create the missing tables and columns. Worker processes starting together on a new database race to
    create them: a process whose CREATE fails because another one got there first looks again."""
    attempts = len(Base.metadata.tables) + len(_ADDED_COLUMNS) + 1  # every lost race means one more exists
    for attempt in range(1, attempts + 1):
        try:
            Base.metadata.create_all(engine)
            _add_missing_columns(engine)
            return
        except DatabaseError:
            if attempt == attempts:
                raise


# Columns added after a release, as (table, column, SQL type and default): databases made by an earlier
# version get them on start; everything else about those tables is unchanged. A game's models add theirs
# with added_column.
_ADDED_COLUMNS = [("tables", "changes", "INTEGER NOT NULL DEFAULT 0")]


def added_column(table: str, column: str, definition: str) -> None:
    """Declare a column a game's table gained after a release, so that earlier databases get it on start."""
    if (table, column, definition) not in _ADDED_COLUMNS:
        _ADDED_COLUMNS.append((table, column, definition))


def _add_missing_columns(engine: Engine) -> None:
    for table, column, definition in _ADDED_COLUMNS:
        if column not in {c["name"] for c in inspect(engine).get_columns(table)}:
            with engine.begin() as connection:
                connection.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {definition}"))
