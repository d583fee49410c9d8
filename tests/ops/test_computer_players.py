"""The computer players' worker as `serve` runs it: a computer's pending turn is taken after serve is killed and
started again, and two worker processes on one database take every turn exactly once."""

import json
import os
import random
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from companion.cryptid.play import State
from companion.web.core.app import create_app
from companion.web.core.db import db
from companion.web.cryptid import computers
from companion.web.cryptid.refereed import load_moves, load_play
from tests.cryptid.test_play import turn_moves
from tests.helpers import REPO, empty_database
from tests.helpers.serving import free_port, running_server

HANG = 120  # seconds: bounds a hang only
SECRET = "a test key that the workers share with the test"


def call(url: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=HANG) as response:
        return json.load(response)


def seat_api(url: str, base: str) -> str:
    return base + "/api/seats/" + url.rsplit("/", 1)[1] + "/play"


def serve_command(port: int) -> list[str]:
    return [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--workers", "1", "--threads", "8"]


def api_move(move) -> dict:
    data = move.to_json()
    body = {"action": data["action"], "hex": {"row": data["row"], "col": data["col"]}}
    if data["action"] == "ask":
        body["seat"] = data["target"]
    return body


@pytest.mark.slow
def test_a_pending_computer_turn_is_taken_after_serve_is_killed_and_started_again(tmp_path):
    port, base = free_port(), None
    environment = dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path), COMPANION_COMPUTER_PAUSE="60",
                       PYTHONPATH=str(REPO))
    command = serve_command(port)
    base = f"http://127.0.0.1:{port}"
    # First serve: computers that would think for a minute, so that the turn is still owed when it dies.
    main = subprocess.Popen(command, cwd=REPO, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        hang = time.monotonic() + HANG
        while True:
            assert main.poll() is None and time.monotonic() < hang, "serve did not start"
            try:
                table = call(base + "/api/tables", {"players": 3, "computers": [
                    {"seat": 2, "level": "solid"}, {"seat": 3, "level": "expert"}]})
                break
            except OSError:
                time.sleep(0.2)
        phone = seat_api(table["seats"][0]["url"], base)
        state = call(phone)
        if state["turn"] == 1:  # the person's opening cube first, then a computer owes its own
            hex_index = random.Random(1).choice(range(108))
            while True:
                try:
                    state = call(phone, {"action": "cube", "hex": {"row": hex_index // 12, "col": hex_index % 12}})
                    break
                except urllib.error.HTTPError:
                    hex_index = (hex_index + 1) % 108
        owed = state["version"]
        assert state["turn"] in (2, 3)
    finally:
        main.kill()  # SIGKILL: serve cannot tidy anything up
        main.wait()
    environment["COMPANION_COMPUTER_PAUSE"] = "0.05"
    with running_server(command, port, cwd=REPO, env=environment):
        hang = time.monotonic() + HANG
        while True:  # a held live update answers when the game moves on
            try:
                state = call(f"{phone}?wait={owed}")
            except OSError:
                time.sleep(0.2)
                continue
            if state["turn"] == 1:
                break
            assert time.monotonic() < hang, "the computers never took their turns"
            owed = state["version"]
    # Exactly once: after the start, one logged cube per move, every computer's turn in order.
    assert len(state["log"]) == state["version"] - 1
    cubes = [entry["seat"] for entry in state["log"]]
    assert all(cubes.count(seat) <= 2 for seat in (1, 2, 3))


@pytest.mark.slow
def test_worker_processes_on_one_database_take_each_turn_once(postgresql_url, tmp_path):
    os.environ["COMPANION_INSTANCE_PATH"] = str(tmp_path)
    app = create_app({"TESTING": True, "SECRET_KEY": SECRET, "SQLALCHEMY_DATABASE_URI": postgresql_url,
                      "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False})
    empty_database(app)
    environment = dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path), DATABASE_URL=postgresql_url, COMPANION_SECRET_KEY=SECRET,
                       COMPANION_COMPUTER_PAUSE="0-0.02", PYTHONPATH=str(REPO))
    client = app.test_client()
    tables = [client.post("/api/tables", json={"players": 4, "computers": [
        {"seat": s, "level": "solid"} for s in (2, 3, 4)]}).get_json() for _ in range(3)]
    # Two workers with a share each, as `serve` starts them on two cores, and one taking every turn, as someone
    # might start by hand beside them: the shared turns are raced for, and still taken once.
    workers = [subprocess.Popen([sys.executable, "-m", "companion", "computers", "--share", share], cwd=REPO,
                                env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for share in ("0/2", "1/2", "0/1")]
    rng = random.Random(5)
    try:
        for table in tables:
            phone = table["seats"][0]["url"].split("/s/", 1)[1]
            hang, moves = time.monotonic() + HANG, 0
            while moves < 6:  # the person plays six moves; the computers answer each time
                with app.app_context():
                    state = load_play(app.extensions["dealer"].load(table["code"]))
                if state.phase == "over":
                    break
                if state.turn != 1:
                    assert time.monotonic() < hang and all(w.poll() is None for w in workers), "no computer moved"
                    time.sleep(0.05)
                    continue
                body = api_move(rng.choice(turn_moves(state))) | {"version": state.version}
                assert client.post(f"/api/seats/{phone}/play", json=body).status_code == 200
                moves += 1
    finally:
        for worker in workers:
            worker.terminate()
            worker.wait(timeout=HANG)
    # Every computer move is the one its seat's view and seed decide: none made twice, none from a stale position.
    with app.app_context():
        for table in tables:
            game = app.extensions["dealer"].load(table["code"])
            levels, made = computers.computer_seats(game.code), load_moves(game)
            state = State.initial(game)
            for move in made:
                if state.turn in levels and getattr(move, "seat", None) == state.turn:
                    assert move == computers.decide(state, state.turn, levels[state.turn])
                state = state.apply(move)
            assert sum(1 for move in made if getattr(move, "seat", None) in levels) >= 6
        db.session.remove()
        db.engine.dispose()
