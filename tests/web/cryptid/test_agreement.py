"""Votes and unlocks in a real database: SQLite always, PostgreSQL when TEST_DATABASE_URL names one (CI)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from companion.cryptid import load_game
from companion.cryptid.agreement import UnknownStep, agreement_needed
from companion.ops.cli import main
from companion.web.core.app import create_app
from companion.web.core.db import TableRecord, db, utcnow
from companion.web.core.store import purge_idle
from companion.web.cryptid.agreement import (
    StepNotOpen,
    cast_vote,
    load_agreement,
    unlock,
    withdraw_vote,
)
from companion.web.cryptid.models import Unlock
from tests.helpers import GOLDEN, make_app

pytestmark = pytest.mark.postgresql  # the database is the point of every test here


GAMES = {g["players"]: load_game(g["code"]) for g in GOLDEN if g["mode"] == "normal" and g["game"] == 1}


@pytest.fixture
def app(fresh_database_app):
    return fresh_database_app


@pytest.mark.parametrize("players, needed", [(2, 2), (3, 3), (4, 3), (5, 4)])
def test_a_step_unlocks_when_enough_seats_agree(app, players, needed):
    game = GAMES[players]
    with app.app_context():
        for seat in range(1, needed):
            state = cast_vote(game, seat, "hint")
            assert "hint" not in state.unlocked
        state = cast_vote(game, needed, "hint")
        assert "hint" in state.unlocked and state.voters("hint") == frozenset(range(1, needed + 1))


def test_voting_twice_counts_once_and_votes_can_be_withdrawn(app):
    game = GAMES[4]
    with app.app_context():
        cast_vote(game, 1, "hint")
        state = cast_vote(game, 1, "hint")
        assert state.voters("hint") == {1}
        state = withdraw_vote(game, 1, "hint")
        assert state.voters("hint") == frozenset()
        withdraw_vote(game, 1, "hint")  # nothing to take back: harmless


def test_after_the_unlock_votes_change_nothing(app):
    game = GAMES[3]
    with app.app_context():
        for seat in (1, 2, 3):
            cast_vote(game, seat, "hint")
        before = load_agreement(game)
        assert withdraw_vote(game, 2, "hint") == before
        assert cast_vote(game, 3, "hint") == before


def test_the_stronger_hint_waits_for_the_first(app):
    game = GAMES[3]
    with app.app_context():
        with pytest.raises(StepNotOpen):
            cast_vote(game, 1, "tile")
        with pytest.raises(UnknownStep):
            cast_vote(game, 1, "everything")
        unlock(game, "hint")
        assert load_agreement(game).is_open("tile")
        cast_vote(game, 1, "tile")
        assert load_agreement(game).voters("tile") == {1}


def test_the_host_can_unlock_and_the_reveal_needs_no_hint(app):
    game = GAMES[5]
    with app.app_context():
        assert unlock(game, "reveal").unlocked == {"reveal"}


def test_state_version_changes_with_every_visible_change(app):
    game = GAMES[4]
    with app.app_context():
        versions = {load_agreement(game).version}
        versions.add(cast_vote(game, 2, "hint").version)
        versions.add(cast_vote(game, 3, "reveal").version)
        versions.add(withdraw_vote(game, 2, "hint").version)
        assert len(versions) == 4


def test_a_process_that_remembers_a_state_sees_every_change_another_process_makes(app, database_url, tmp_path):
    """Each app keeps the states it read while the table's stamp holds still; a change made through another
    app (another server process) moves the stamp, so the remembered state is never served stale."""
    other = make_app(database_url, tmp_path)
    game = GAMES[4]
    with app.app_context():
        assert load_agreement(game).votes == {}  # remembered by this app
    for seat, step in ((1, "hint"), (2, "hint"), (3, "hint"), (1, "reveal")):
        with other.app_context():
            cast_vote(game, seat, step)
        with app.app_context():
            state = load_agreement(game)
            assert seat in state.voters(step)
            assert load_agreement(game) is state  # unchanged table: the remembered state, no second read
    assert "hint" in state.unlocked
    with other.app_context():
        withdraw_vote(game, 1, "reveal")
        db.engine.dispose()
    with app.app_context():
        assert load_agreement(game).voters("reveal") == frozenset()


def test_changes_in_the_same_microsecond_still_get_different_stamps(app, monkeypatch):
    """Two changes stamped with the same clock reading (two processes, one instant) still differ: the stamp
    counts changes under the row's lock rather than trusting the clock."""
    from companion.web.core import store

    instant = utcnow()
    monkeypatch.setattr(store, "utcnow", lambda: instant)
    game = GAMES[3]
    with app.app_context():
        stamps = [load_agreement(game).stamp]
        stamps.append(cast_vote(game, 1, "hint").stamp)
        stamps.append(cast_vote(game, 2, "hint").stamp)
        stamps.append(withdraw_vote(game, 2, "hint").stamp)
        assert len(set(stamps)) == 4
        assert load_agreement(game).voters("hint") == {1}


def test_a_database_from_before_the_change_counter_gets_the_column_on_start(tmp_path):
    """An earlier release's `tables` had no change counter: starting this version adds it, keeps the rows,
    and votes work on the old tables."""
    import sqlite3

    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE tables (code VARCHAR(11) PRIMARY KEY, last_activity DATETIME)")
        connection.execute("INSERT INTO tables VALUES (?, '2026-11-01 10:00:00.000000')", (GAMES[3].code,))
    started = make_app(f"sqlite:///{path}", tmp_path)
    with started.app_context():
        assert load_agreement(GAMES[3]).stamp != "0"
        assert cast_vote(GAMES[3], 2, "hint").voters("hint") == {2}
        db.engine.dispose()


def test_concurrent_votes_from_many_phones_and_two_servers(app, database_url, tmp_path):
    """Every seat votes twice for the hint, and all but enough seats twice for the reveal, all at once, through
    two app instances (two connection pools, as two server processes would have)."""
    other = make_app(database_url, tmp_path)
    games = [load_game(g["code"]) for g in GOLDEN] * 2
    games = list({g.code: g for g in games}.values())
    jobs = [(game, seat) for game in games for seat in range(1, game.players + 1) for _ in range(2)]
    barrier = threading.Barrier(16)
    errors = []

    def worker(index: int) -> None:
        target = (app, other)[index % 2]
        barrier.wait()
        with target.app_context():
            for game, seat in jobs[index::16]:
                try:
                    cast_vote(game, seat, "hint")
                    if seat < agreement_needed(game.players):  # one seat short of agreement
                        cast_vote(game, seat, "reveal")
                except Exception as exc:  # noqa: BLE001 - collected and asserted below
                    errors.append(exc)
            db.session.remove()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with app.app_context():
        for game in games:
            state = load_agreement(game)
            # Votes after the unlock are not needed and not stored; the unlock saw at least enough.
            assert "hint" in state.unlocked and len(state.voters("hint")) >= state.needed
            # The vote that completed the agreement counted every vote before it and stored the unlock itself.
            assert set(db.session.scalars(select(Unlock.step).where(Unlock.code == game.code))) == {"hint"}
            assert state.voters("reveal") == frozenset(range(1, state.needed))
            assert "reveal" not in state.unlocked
    with other.app_context():
        db.engine.dispose()


def test_votes_survive_a_restart(app, database_url, tmp_path):
    game = GAMES[4]
    with app.app_context():
        cast_vote(game, 1, "hint")
        cast_vote(game, 4, "hint")
    restarted = make_app(database_url, tmp_path)
    with restarted.app_context():
        assert load_agreement(game).voters("hint") == {1, 4}
        db.engine.dispose()


def test_idle_games_are_purged(app):
    idle, busy = GAMES[3], GAMES[4]
    with app.app_context():
        cast_vote(idle, 1, "hint")
        unlock(idle, "reveal")
        cast_vote(busy, 1, "hint")
        db.session.execute(
            update(TableRecord).where(TableRecord.code == idle.code).values(last_activity=utcnow() - timedelta(days=31))
        )
        db.session.commit()
        assert purge_idle(30) == 1
        assert load_agreement(idle).votes == {} and load_agreement(idle).unlocked == frozenset()
        assert load_agreement(busy).voters("hint") == {1}


def test_purge_command(app, database_url, monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", database_url)
    assert main(["purge", "--days", "0"]) == 0
    assert "Purged" in capsys.readouterr().out


def test_default_database_lives_in_the_instance_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    app = create_app({"TESTING": True, "SECRET_KEY": "s"})
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'companion.sqlite3'}"
    assert (tmp_path / "companion.sqlite3").exists()


def test_database_url_accepts_heroku_style_postgres(tmp_path, monkeypatch):
    from companion.web.core.db import database_url as resolve

    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    app = create_app({"TESTING": True, "SECRET_KEY": "s"})
    app.config["DATABASE_URL"] = "postgres://u:p@db.example/cryptid"
    assert resolve(app) == "postgresql+psycopg://u:p@db.example/cryptid"
