"""`python -m companion load --play --computers`: tables of one phone against four computer players, against the
production server this run starts on this machine.

Each table is dealt through the JSON API (5 players, seats 2-5 computers of a level in turn: beginner, solid,
expert). Its phone holds a long poll and, on its turn, thinks for a few seconds and sends a legal move, as in
`load --play`. The computers' moves are made on the server, by the worker `serve` starts beside its web workers;
the time from a move's commit (the move log's `made_at`, read from the run's own SQLite database after the run)
to the phone's long poll delivering it is the move-to-phone latency. Tables whose game ends are dealt again.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import threading
import time
from datetime import datetime, timezone
from functools import partial

from companion.cryptid.board import Board
from companion.cryptid.clues import Clue, clue_area

from ..measure import machine_line, summarize
from . import (
    Client,
    Schedule,
    Site,
    Tally,
    report_errors,
    run_together,
    server_under_load,
)
from .refereed_tables import THINK_SECONDS, Phone, _move

LEVELS = ("beginner", "solid", "expert")
COMPUTERS = (2, 3, 4, 5)


class Arrivals:
    """When the phones received each move: (code, seq) -> the wall-clock time its long poll answered."""

    def __init__(self) -> None:
        self.times: dict[tuple[str, int], float] = {}
        self.lock = threading.Lock()

    def received(self, code: str, since: int, now_at: int) -> None:
        moment = time.time()
        with self.lock:
            for seq in range(since + 1, now_at + 1):
                self.times.setdefault((code, seq), moment)


def _table(site: Site, schedule: Schedule, tally: Tally, arrivals: Arrivals, index: int, rng: random.Random) -> None:
    schedule.arrive(rng)
    dealer = Client(site, tally)
    level = LEVELS[index % len(LEVELS)]
    while schedule.running():
        answer = dealer.request("POST", "/api/tables", expect=(201,), json_body={
            "players": 5, "advanced": rng.random() < 0.5,
            "computers": [{"seat": seat, "level": level} for seat in COMPUTERS]})
        if not answer.ok:
            return
        table = answer.json()
        if not _play(site, table["code"], table["seats"][0]["url"], schedule, tally, arrivals, rng):
            return


def _play(site: Site, code: str, url: str, schedule: Schedule, tally: Tally, arrivals: Arrivals,
          rng: random.Random) -> bool:
    """The phone of seat 1 plays one game; False if the site stopped answering it."""
    phone = Phone(site, url, tally)
    state = phone.state()
    if state is None:
        return False
    area = clue_area(Board.from_map_code(state["map_code"]), Clue.from_json(state["clue"]))
    while schedule.running() and state["phase"] != "over":
        if state["turn"] == 1:
            time.sleep(rng.uniform(*THINK_SECONDS))
            answer = phone.send(_move(state, area, 1, rng))
            moved = answer.json() if answer.ok else {}
            state = moved if "phase" in moved else phone.state() or state
            continue
        fresh = phone.next_state(state["version"])
        if fresh is None:
            return False
        arrivals.received(code, state["version"], fresh["version"])
        state = fresh
    return True


def _made(database: str, codes: set[str]) -> dict[tuple[str, int], tuple[float, int | None]]:
    """(code, seq) -> (commit time, seat) of every move of these tables, from the run's SQLite database."""
    found = {}
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        for code, seq, data, made_at in connection.execute("SELECT code, seq, data, made_at FROM moves"):
            if code in codes:
                moment = datetime.fromisoformat(made_at)
                if moment.tzinfo is None:
                    moment = moment.replace(tzinfo=timezone.utc)
                found[code, seq] = (moment.timestamp(), json.loads(data).get("seat"))
    return found


def run_computer_tables(tables: int = 100, seconds: float = 60) -> dict:
    """Run the simulation and print its figures, with the machine's cores and load before and after."""
    print(machine_line(), flush=True)
    tally, arrivals = Tally(), Arrivals()
    rng = random.Random(2028)
    with server_under_load(None) as site:
        schedule = Schedule.lasting(seconds)
        run_together(partial(_table, site, schedule, tally, arrivals, index, random.Random(rng.random()))
                     for index in range(tables))
        elapsed = schedule.traffic_seconds()
        made = _made(os.path.join(site.instance, "companion.sqlite3"), {code for code, _ in arrivals.times})
    delays = [arrivals.times[key] - made[key][0] for key in arrivals.times
              if key in made and made[key][1] in COMPUTERS]
    paces = [made[code, seq][0] - made[code, seq - 1][0] for code, seq in made
             if seq > 1 and (code, seq - 1) in made and made[code, seq][1] in COMPUTERS]
    moves, pace, requests = summarize(delays), summarize(paces), summarize(tally.latencies)
    result = {
        "tables": tables,
        "seconds": round(elapsed, 1),
        "computer_moves_seen": moves.count,
        **moves.fields("move_to_phone_"),
        **pace.fields("computer_pace_"),
        "requests": requests.count,
        **requests.fields("request_"),
        "errors": len(tally.errors),
    }
    print(
        f"{tables} tables x (1 phone + 4 computer players) for {result['seconds']} s against {site.url}: "
        f"{moves.count} computer moves seen by phones, move-to-phone {moves.text()}; "
        f"computer moves after the move before (pause included) {pace.text()}; "
        f"{requests.count} immediate requests, {requests.text()}; {result['errors']} errors",
        flush=True,
    )
    report_errors(tally)
    return result
