"""Configuration: the instance folder, COMPANION_* settings parsed by type, the secret key made once for every
process, tables created by racing processes, and the request body limit."""

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect

from companion.web.core.app import create_app
from companion.web.core.config import (
    APP_NAME,
    MAX_REQUEST_BODY,
    ConfigurationError,
    default_instance_folder,
    environment_settings,
    secret_key,
)
from companion.web.core.config import instance_folder as instance_folder_setting
from companion.web.core.db import Base, create_tables
from tests.helpers import GOLDEN, REPO


@pytest.mark.parametrize(
    "platform, variables, expected",
    [
        ("linux", {"XDG_DATA_HOME": "/data/alice"}, "/data/alice"),
        ("linux", {"XDG_DATA_HOME": "relative/ignored"}, "{home}/.local/share"),
        ("linux", {}, "{home}/.local/share"),
        ("darwin", {}, "{home}/Library/Application Support"),
        ("win32", {"LOCALAPPDATA": "/users/alice/AppData/Local"}, "/users/alice/AppData/Local"),
    ],
)
def test_the_default_instance_folder_is_the_platforms_per_user_data_folder(
    platform, variables, expected, monkeypatch, tmp_path
):
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("XDG_DATA_HOME", "LOCALAPPDATA"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert default_instance_folder() == Path(expected.format(home=tmp_path)) / APP_NAME


def test_companion_instance_path_wins_and_is_made_absolute(monkeypatch, tmp_path, instance_folder):
    assert create_app({"TESTING": True}).instance_path == str(instance_folder)  # tests never touch the real one
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", "here")
    assert instance_folder_setting() == tmp_path / "here"


def test_settings_from_the_environment_keep_their_types(monkeypatch):
    monkeypatch.setenv("COMPANION_PURGE_AFTER_DAYS", "7")
    monkeypatch.setenv("COMPANION_PUBLIC_URL", "https://cryptid.example.org")
    monkeypatch.setenv("COMPANION_TRUST_PROXY", "1")
    monkeypatch.setenv("COMPANION_RATE_LIMIT_NEW_GAMES", "10 per minute;100 per hour")
    settings = {
        "PURGE_AFTER_DAYS": 7,
        "PUBLIC_URL": "https://cryptid.example.org",
        "TRUST_PROXY": 1,
        "RATE_LIMIT_NEW_GAMES": "10 per minute;100 per hour",
    }
    assert environment_settings() == settings
    config = create_app({"TESTING": True}).config
    assert {name: config[name] for name in settings} == settings


@pytest.mark.parametrize(
    "name, value, words",
    [
        ("COMPANION_PURGE_AFTER_DAYS", "30d", "must be a whole number of days"),
        ("COMPANION_PURGE_AFTER_DAYS", "0", "must be at least 1 day"),
        ("COMPANION_PUBLIC_URL", "cryptid.example.org", "must be a full address"),
        ("COMPANION_TRUST_PROXY", "yes", "must be the number of reverse proxies"),
        ("COMPANION_RATE_LIMIT_ACTIONS", "lots", "must be rate limits such as 600 per minute"),
        ("COMPANION_SECRET_KEY", "", "has 0 characters; it needs at least 32"),
        ("COMPANION_SECRET_KEY", "s3cret", "has 6 characters"),
    ],
)
def test_unusable_settings_are_refused_with_the_reason(name, value, words, monkeypatch):
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError, match=words):
        create_app({"TESTING": True})


def test_a_numeric_secret_key_is_a_plain_string_and_every_page_works(monkeypatch, instance_folder):
    monkeypatch.setenv("COMPANION_SECRET_KEY", "1234567890" * 4)
    app = create_app({"TESTING": True})
    assert app.config["SECRET_KEY"] == "1234567890" * 4
    assert secret_key() == "1234567890" * 4
    assert not (instance_folder / "secret_key").exists()
    client = app.test_client()
    assert client.get("/").status_code == 200
    assert client.get(f"/games/{GOLDEN[0]['code']}").status_code == 200


@pytest.mark.parametrize("content", ["", "abc\n"])
def test_an_empty_or_short_key_file_is_refused(content, tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_SECRET_KEY", raising=False)
    (tmp_path / "secret_key").write_text(content)
    with pytest.raises(ConfigurationError, match=f"{tmp_path / 'secret_key'} has {len(content.strip())} characters"):
        secret_key(tmp_path)


PROCESSES = 8
FOLDERS = 100
# Each process loads the app module, says so, and waits for the word to go, which the test gives once all of
# them are loaded; then each asks for the key of each new instance folder in turn, so that the processes race
# for every one of them. (A start time agreed in advance would race only if loading took less than it.)
ASK_TOGETHER = (
    "import sys; from pathlib import Path; from companion.web.core.config import secret_key; "
    "print('ready', flush=True); sys.stdin.readline(); "
    "print(*(secret_key(Path(sys.argv[1], str(n))) for n in range(int(sys.argv[2]))))"
)


@pytest.mark.slow
def test_processes_starting_together_all_end_with_one_key(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_SECRET_KEY", raising=False)
    command = [sys.executable, "-c", ASK_TOGETHER, str(tmp_path), str(FOLDERS)]
    processes = [subprocess.Popen(command, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                 for _ in range(PROCESSES)]
    assert [process.stdout.readline() for process in processes] == ["ready\n"] * PROCESSES
    for process in processes:  # all loaded: go, as nearly at once as the pipes allow
        process.stdin.write("go\n")
        process.stdin.flush()
    answers = [process.communicate(timeout=60)[0].split() for process in processes]
    assert [process.returncode for process in processes] == [0] * PROCESSES
    for folder in range(FOLDERS):
        keys = {answer[folder] for answer in answers}
        assert keys == {(tmp_path / str(folder) / "secret_key").read_text()}
        assert len(keys.pop()) == 64
        assert os.listdir(tmp_path / str(folder)) == ["secret_key"]  # no draft left behind


def test_racing_processes_create_the_tables_once(tmp_path):
    """Worker processes starting together on a new database: every one of them gets going."""
    engines = [create_engine(f"sqlite:///{tmp_path / 'race.sqlite3'}") for _ in range(PROCESSES)]
    together = threading.Barrier(PROCESSES)
    failures = []

    def start(engine):
        together.wait()
        try:
            create_tables(engine)
        except Exception as exc:
            failures.append(exc)

    workers = [threading.Thread(target=start, args=(engine,)) for engine in engines]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == []
    assert set(inspect(engines[0]).get_table_names()) == set(Base.metadata.tables)


def test_a_body_over_the_limit_is_a_413_with_a_message(client):
    response = client.post("/", data={"players": "4", "pad": "x" * MAX_REQUEST_BODY})
    assert response.status_code == 413
    assert "That request was too large for the companion." in response.get_data(as_text=True)
