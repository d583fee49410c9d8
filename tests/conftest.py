import os

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from companion.web.core.app import create_app
from companion.web.core.db import Base, db
from tests.helpers import make_app

# Long tests in modules other engineers keep: marked `slow` here rather than in their files (tests named by
# node id prefix; a renamed test merely loses the mark). Modules of this suite's own mark theirs in place.
SLOW_ELSEWHERE = (
    "tests/cryptid/test_play_properties.py::test_thousands_of_seeded_random_games_keep_every_rule",
    "tests/cryptid/test_play_properties.py::test_random_tables_keep_every_rule_and_every_secret",
    "tests/decrypto/test_properties.py::test_thousands_of_random_games_follow_the_rules_and_reach_every_ending",
    "tests/decrypto/test_properties.py::test_random_games_follow_the_rules_and_views_never_leak",
    "tests/ops/test_cli.py::test_phones_holding_live_updates_are_all_held_at_once_and_the_site_still_answers",
    "tests/ops/test_cli.py::test_a_short_load_run_lasts_as_long_as_asked",
    "tests/ops/test_server.py::test_worker_processes_share_one_secret_key",
    "tests/ops/test_server.py::test_oversized_requests_are_refused_early",
    "tests/ops/test_deploy.py::",
    "tests/web/core/test_qr_and_network.py::test_qr_codes_are_the_codes_qrcode_draws",
    "tests/web/cryptid/test_play.py::test_no_phone_ever_receives_another_seats_clue_the_habitat_or_the_hint",
    "tests/web/cryptid/test_play.py::test_a_forced_cube_with_no_room_is_skipped_and_logged",
)


def pytest_collection_modifyitems(config, items):
    """Mark the browser tests and the long tests elsewhere `slow`, then run every slow test first: on a few cores the suite ends
    when its last long test does, so long tests started last would leave the other workers idle meanwhile.
    (Every xdist worker sorts the same collection the same way, as xdist requires.)"""
    for item in items:
        if item.nodeid.startswith(SLOW_ELSEWHERE + ("tests/browser/",)):  # every browser test drives Chromium
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: slow ones first, in order


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


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    """SQLite always, PostgreSQL when TEST_DATABASE_URL names a server (CI)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'table.sqlite3'}"
    return request.getfixturevalue("postgresql_url")


@pytest.fixture
def fresh_database_app(database_url, tmp_path):
    """The site on an empty database of each kind."""
    app = make_app(database_url, tmp_path)
    with app.app_context():
        Base.metadata.drop_all(db.engine)
        Base.metadata.create_all(db.engine)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
