import os
import signal
import sys
import time
import uuid

# Python's own default, whatever the environment says: modules compiled once are kept in __pycache__. Where
# PYTHONDONTWRITEBYTECODE is set (as on this project's CI machines), each of the suite's processes (the xdist
# workers, and the servers, workers and commands the tests start) would compile every module it imports again,
# and pytest would rewrite every test module again in each: about 3 CPU-seconds a worker and a few tenths a server.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import pytest
from flask import Flask
from jinja2 import BytecodeCache
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from companion.web.core.app import create_app
from companion.web.core.db import db
from tests.helpers import empty_database, make_app
from tests.helpers.processes import HAS_PROC, RUN_MARK, marked

# Processes told to stop at the end of the run get this long to go (bounds a hang only). The guard's own test sets
# it short: its leaked process never goes by itself.
LEAVE_SECONDS = float(os.environ.get("COMPANION_TEST_LEAVE_SECONDS", 10))


class _TemplatesOfThisProcess(BytecodeCache):
    """Compiled templates kept for every app this test process builds: the suite builds hundreds of apps, and each
    would otherwise compile each template it draws again (Jinja checks the source's checksum before reusing one)."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


Flask.jinja_options = {**Flask.jinja_options, "bytecode_cache": _TemplatesOfThisProcess()}


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: a worker more than the machine has cores. Many tests wait part of their time (a server starting,
    a load run that lasts its seconds, computer players' pauses, a live update's answer), and the extra worker's
    tests use the core meanwhile: on two cores the suite took 207 s with two workers, 187 s with three, 210 s with
    four (docs/testing.md)."""
    return (os.cpu_count() or 1) + 1


def pytest_collection_modifyitems(config, items):
    """Mark every browser test `slow` (each drives Chromium), then run every slow test first: on a few cores the
    suite ends when its last long test does, so long tests started last would leave the other workers idle
    meanwhile. (Every xdist worker sorts the same collection the same way, as xdist requires.)"""
    for item in items:
        if item.nodeid.startswith("tests/browser/"):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: slow ones first, in order


@pytest.fixture(scope="session", autouse=True)
def no_process_left_behind():
    """Fail the run if any process it started (servers, their workers, the computer players' worker, browsers)
    is still running at its end. Each carries this run's mark in its environment, so one whose parent died and
    which init adopted is found too. Survivors are killed, so that the next run starts clean, and named."""
    mark = f"{os.getpid()}-{uuid.uuid4().hex}"
    os.environ[RUN_MARK] = mark
    yield
    if not HAS_PROC:
        return
    hang = time.monotonic() + LEAVE_SECONDS
    while (survivors := marked(mark)) and time.monotonic() < hang:  # some may be on their way out
        time.sleep(0.1)
    for pid in survivors:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not survivors, "processes outlived the test run: " + "; ".join(
        f"{pid}: {command}" for pid, command in survivors.items())


@pytest.fixture(autouse=True)
def instance_folder(tmp_path, monkeypatch):
    """Every app a test builds keeps its secret key and SQLite database in the test's own folder."""
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    return tmp_path


@pytest.fixture
def app(instance_folder):
    return create_app({"TESTING": True, "SECRET_KEY": "test-secret", "WTF_CSRF_ENABLED": False})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture(scope="session")
def postgresql_url():
    """TEST_DATABASE_URL, or rather a database of this test process's own on that server: processes running
    tests side by side (pytest-xdist) each drop and create tables, and must not do it in one database."""
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        if os.environ.get("CI"):
            pytest.fail("CI must test PostgreSQL: TEST_DATABASE_URL is not set")
        pytest.skip("PostgreSQL tests need TEST_DATABASE_URL (see .ci/run)")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return url
    base = make_url(url)
    own = base.set(database=f"{base.database}_{worker}")
    server = create_engine(url, isolation_level="AUTOCOMMIT")
    with server.connect() as connection:
        if connection.scalar(text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": own.database}) is None:
            connection.execute(text(f'CREATE DATABASE "{own.database}"'))
    server.dispose()
    return own.render_as_string(hide_password=False)


def pytest_generate_tests(metafunc):
    """The databases a web test runs on: SQLite always; PostgreSQL as well (when TEST_DATABASE_URL names a server,
    as in CI) where the database is the point, marked `postgresql`: transactions and their constraints, races
    between two servers, notifications, stored state read back, and a whole game of each kind. The other web tests
    draw pages and refuse input the same way on either, so they run once, on SQLite (docs/testing.md)."""
    if "database_url" in metafunc.fixturenames:
        both = metafunc.definition.get_closest_marker("postgresql") is not None
        metafunc.parametrize("database_url", ["sqlite", "postgresql"] if both else ["sqlite"], indirect=True)


@pytest.fixture
def database_url(request, tmp_path):
    """The test's database: SQLite, or PostgreSQL for a test marked `postgresql` (pytest_generate_tests)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'table.sqlite3'}"
    return request.getfixturevalue("postgresql_url")


@pytest.fixture
def fresh_database_app(database_url, tmp_path):
    """The site on an empty database of each kind."""
    app = make_app(database_url, tmp_path)
    empty_database(app)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
