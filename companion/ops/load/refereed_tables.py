"""`python -m companion load --play`: refereed tables against the production server, on this machine only.

Each table is dealt through the JSON API (5 players, started at once). Its five phones each hold a long poll
(`GET /api/seats/<token>/play?wait=V`) and, when the game waits for them, think for a few seconds and send a
legal move chosen from what a phone knows: the public state and its own clue. For every move, the time until
each other phone's long poll delivers it is the move-to-other-phone latency; every request's latency is kept
too. Tables whose game ends are dealt again. Bounded: a fixed number of tables for a fixed time.
"""

from __future__ import annotations

import random
import threading
import time
from functools import partial
from urllib.parse import urlsplit

from companion.cryptid.board import Board
from companion.cryptid.clues import Clue, clue_area
from companion.cryptid.hexgrid import ALL_HEXES, COLS, hexes_of

from ..measure import machine_line, summarize
from . import (
    Client,
    Response,
    Schedule,
    Site,
    Tally,
    report_errors,
    run_together,
    server_under_load,
)

THINK_SECONDS = (2.0, 5.0)  # how long a player looks at the board before moving


class Phone:
    """One player's phone, through the seat's JSON API: its state, its moves and its long polls."""

    def __init__(self, site: Site, seat_url: str, tally: Tally) -> None:
        self.client = Client(site, tally)
        self.path = "/api/seats/" + urlsplit(seat_url).path.rsplit("/", 1)[1] + "/play"

    def state(self) -> dict | None:
        """The seat's state now; None if the site did not give it."""
        answer = self.client.request("GET", self.path)
        return answer.json() if answer.ok else None

    def next_state(self, version: int) -> dict | None:
        """The seat's state once it is newer than `version`, or the same one when the server stops waiting."""
        answer = self.client.request("GET", f"{self.path}?wait={version}", long_poll=True)
        return answer.json() if answer.ok else None

    def send(self, move: dict) -> Response:
        """Send a move; ok with the new state, or with why it was refused (409: the state moved on meanwhile)."""
        return self.client.request("POST", self.path, json_body=move, expect=(200, 409))


def deal(dealer: Client, players: int, advanced: bool) -> dict | None:
    """A new refereed table through the JSON API: its code and its seats' links; None if none was dealt."""
    answer = dealer.request(
        "POST", "/api/tables", json_body={"players": players, "advanced": advanced}, expect=(201,)
    )
    return answer.json() if answer.ok else None


def _move(state: dict, area: int, seat: int, rng: random.Random) -> dict:
    """A legal move from a phone's knowledge: the public pieces and its own clue's area."""
    cubes = 0
    for piece in state["cubes"]:
        cubes |= 1 << (piece["row"] * COLS + piece["col"])
    pick = lambda mask: (lambda h: {"row": h // COLS, "col": h % COLS})(rng.choice(hexes_of(mask)))  # noqa: E731
    if state["pending"] == "cube":
        return {"action": "cube", "hex": pick(ALL_HEXES & ~area & ~cubes), "version": state["version"]}
    if state["pending"] == "disc":  # the extra disc of a search on a hex that held the seat's own disc
        return {"action": "disc", "hex": pick(area & ~cubes & ~_discs_of(state, seat)), "version": state["version"]}
    searchable = area & ~cubes
    if rng.random() < 0.15 and searchable:
        return {"action": "search", "hex": pick(searchable), "version": state["version"]}
    others = [s["seat"] for s in state["seats"] if s["seat"] != seat]
    target = rng.choice(others)
    return {"action": "ask", "seat": target, "hex": pick(ALL_HEXES & ~cubes & ~_discs_of(state, target)),
            "version": state["version"]}


def _discs_of(state: dict, seat: int) -> int:
    """The mask of the hexes where the JSON state shows a disc of `seat`."""
    discs = 0
    for piece in state["discs"]:
        if piece["seat"] == seat:
            discs |= 1 << (piece["row"] * COLS + piece["col"])
    return discs


class Deliveries:
    """When each move was sent, by the state version it makes, and how long each took to reach another phone."""

    def __init__(self) -> None:
        self.sent: dict[int, float] = {}
        self.delays: list[float] = []
        self.lock = threading.Lock()

    def sending(self, version: int) -> None:
        with self.lock:
            self.sent[version] = time.perf_counter()

    def seen(self, version: int) -> None:
        with self.lock:
            sent = self.sent.get(version)
            if sent is not None:
                self.delays.append(time.perf_counter() - sent)


def _table(site: Site, schedule: Schedule, tally: Tally, delays: list, rng: random.Random) -> None:
    """One table: sits down at a random moment of the arrival, then plays game after game until the schedule ends."""
    schedule.arrive(rng)
    dealer = Client(site, tally)
    while schedule.running():
        table = deal(dealer, 5, rng.random() < 0.5)
        if table is None:
            return
        deliveries = Deliveries()
        run_together(
            partial(_phone, site, seat["url"], seat["seat"], schedule, tally, deliveries, random.Random(rng.random()))
            for seat in table["seats"]
        )
        delays.extend(deliveries.delays)


def _phone(
    site: Site, url: str, seat: int, schedule: Schedule, tally: Tally, deliveries: Deliveries, rng: random.Random
) -> None:
    """One player: moves on its turn after thinking, otherwise holds a long poll and notes each move it sees."""
    phone = Phone(site, url, tally)
    state = phone.state()
    if state is None:
        return
    area = clue_area(Board.from_map_code(state["map_code"]), Clue.from_json(state["clue"]))
    while schedule.running() and state["phase"] != "over":
        if state["turn"] == seat:
            time.sleep(rng.uniform(*THINK_SECONDS))
            if not schedule.running():
                # The run is over: a name change wakes the table's other phones, which would otherwise hold their
                # long polls to the server's limit (about 25 s) before they notice.
                phone.send({"action": "name", "name": f"P{seat}"})
                return
            deliveries.sending(state["version"] + 1)
            answer = phone.send(_move(state, area, seat, rng))
            moved = answer.json() if answer.ok else {}
            state = moved if "phase" in moved else phone.state() or state
            continue
        fresh = phone.next_state(state["version"])
        if fresh is None:
            return
        if fresh["version"] != state["version"]:
            deliveries.seen(fresh["version"])
        state = fresh


def run_refereed_tables(tables: int = 40, seconds: float = 60, url: str | None = None) -> dict:
    """Run the refereed-play simulation and print its figures, with the machine's cores and load before and after."""
    print(machine_line(), flush=True)
    tally, delays = Tally(), []
    rng = random.Random(2027)
    with server_under_load(url) as site:
        schedule = Schedule.lasting(seconds)
        run_together(partial(_table, site, schedule, tally, delays, random.Random(rng.random())) for _ in range(tables))
        elapsed = schedule.traffic_seconds()
    moves, requests = summarize(delays), summarize(tally.latencies)
    result = {
        "tables": tables,
        "seconds": round(elapsed, 1),
        "moves_seen": moves.count,
        **moves.fields("move_to_phone_"),
        "requests": requests.count,
        **requests.fields("request_"),
        "errors": len(tally.errors),
    }
    print(
        f"{tables} refereed tables x 5 phones for {result['seconds']} s against {site.url}: "
        f"{moves.count} move deliveries, "
        f"move-to-other-phone {moves.text()}; {requests.count} immediate requests, {requests.text()}; "
        f"{result['errors']} errors",
        flush=True,
    )
    report_errors(tally)
    return result
