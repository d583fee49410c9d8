"""`python -m companion load --play`: refereed tables against the production server, on this machine only.

Each table is dealt through the JSON API (5 players, started at once). Its five phones each hold a long poll
(`GET /api/seats/<token>/play?wait=V`) and, when the game waits for them, think for a few seconds and send a
legal move chosen from what a phone knows: the public state and its own clue. For every move, the time until
each other phone's long poll delivers it is the move-to-other-phone latency; every request's latency is kept
too. Tables whose game ends are dealt again. Bounded: a fixed number of tables for a fixed time.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from urllib.parse import urlsplit

from companion.cryptid.board import Board
from companion.cryptid.clues import Clue, clue_area
from companion.cryptid.hexgrid import ALL_HEXES, COLS, hexes_of

from .tables import (
    Tally,
    _loopback,
    _start_server,
    arrival_seconds,
    machine_line,
    percentile_ms,
    print_errors_and_machine,
)

THINK_SECONDS = (2.0, 5.0)  # how long a player looks at the board before moving


class Phone:
    """One player's phone: a keep-alive connection that times every request and keeps the latest state."""

    def __init__(self, host: str, port: int, url: str, tally: Tally) -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=60)
        self.path = "/api/seats/" + urlsplit(url).path.rsplit("/", 1)[1] + "/play"
        self.tally = tally

    def call(self, method: str, path: str, body: dict | None = None, expect=(200,)) -> dict | None:
        data = json.dumps(body) if body is not None else None
        headers = {"Content-Type": "application/json"} if body is not None else {}
        start = time.perf_counter()
        try:
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
            text = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.tally.record(time.perf_counter() - start, f"{method} {path[:40]}: {exc!r}")
            self.connection.close()
            return None
        waited = "wait=" in path
        # A long poll's own waiting is not server latency: only count requests that answer at once.
        if not waited:
            self.tally.record(time.perf_counter() - start, None if response.status in expect else f"{method}: HTTP {response.status}")
        elif response.status not in expect:
            self.tally.record(0.0, f"{method} (long poll): HTTP {response.status}")
        return json.loads(text) if response.status in expect else None


def _move(state: dict, area: int, seat: int, rng: random.Random) -> dict:
    """A legal move from a phone's knowledge: the public pieces and its own clue's area."""
    cubes = 0
    for piece in state["cubes"]:
        cubes |= 1 << (piece["row"] * COLS + piece["col"])
    pick = lambda mask: (lambda h: {"row": h // COLS, "col": h % COLS})(rng.choice(hexes_of(mask)))  # noqa: E731
    if state["pending"] == "cube":
        return {"action": "cube", "hex": pick(ALL_HEXES & ~area & ~cubes), "version": state["version"]}
    searchable = area & ~cubes
    if rng.random() < 0.15 and searchable:
        return {"action": "search", "hex": pick(searchable), "version": state["version"]}
    others = [s["seat"] for s in state["seats"] if s["seat"] != seat]
    target = rng.choice(others)
    discs = 0
    for piece in state["discs"]:
        if piece["seat"] == target:
            discs |= 1 << (piece["row"] * COLS + piece["col"])
    return {"action": "ask", "seat": target, "hex": pick(ALL_HEXES & ~cubes & ~discs), "version": state["version"]}


def _table(host: str, port: int, arrival: float, until: float, tally: Tally, delays: list, rng: random.Random) -> None:
    time.sleep(rng.uniform(0, arrival))
    while time.monotonic() < until:
        dealer = Phone(host, port, "/s/x", tally)
        table = dealer.call("POST", "/api/tables", {"players": 5, "advanced": rng.random() < 0.5}, expect=(201,))
        if table is None:
            return
        sent: dict[int, float] = {}  # state version -> when the move that made it was sent
        lock = threading.Lock()
        phones = [threading.Thread(target=_phone, args=(host, port, s["url"], s["seat"], until, tally, delays, sent, lock, random.Random(rng.random())))
                  for s in table["seats"]]
        for thread in phones:
            thread.start()
        for thread in phones:
            thread.join()


def _phone(host, port, url, seat, until, tally, delays, sent, lock, rng) -> None:
    phone = Phone(host, port, url, tally)
    state = phone.call("GET", phone.path)
    if state is None:
        return
    area = clue_area(Board.from_map_code(state["map_code"]), Clue.from_json(state["clue"]))
    while time.monotonic() < until and state["phase"] != "over":
        if state["turn"] == seat:
            time.sleep(rng.uniform(*THINK_SECONDS))
            if time.monotonic() >= until:
                return
            with lock:
                sent[state["version"] + 1] = time.perf_counter()
            answer = phone.call("POST", phone.path, _move(state, area, seat, rng), expect=(200, 409))
            if answer is not None and "phase" in answer:
                state = answer
            else:
                state = phone.call("GET", phone.path) or state
            continue
        fresh = phone.call("GET", f"{phone.path}?wait={state['version']}")
        if fresh is None:
            return
        if fresh["version"] != state["version"]:
            with lock:
                moved = sent.get(fresh["version"])
            if moved is not None:
                delays.append(time.perf_counter() - moved)
        state = fresh


def run_play_load(tables: int = 40, seconds: float = 60, url: str | None = None) -> dict:
    """Run the refereed-play simulation and print its figures, with the machine's cores and load before and after."""
    print(machine_line(), flush=True)
    server = None
    if url is None:
        server, url = _start_server()
    host, port = _loopback(url)
    tally, delays = Tally(), []
    rng = random.Random(2027)
    started = time.monotonic()
    until = started + seconds
    workers = [threading.Thread(target=_table, args=(host, port, arrival_seconds(seconds), until, tally, delays, random.Random(rng.random())))
               for _ in range(tables)]
    try:
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        if server:
            server.terminate()
            server.wait(timeout=10)
    latencies = tally.latencies
    result = {
        "tables": tables,
        "seconds": round(min(time.monotonic(), until) - started, 1),  # the traffic, not the last long polls' wind-down
        "moves_seen": len(delays),
        "move_to_phone_p50_ms": percentile_ms(delays, 0.5),
        "move_to_phone_p95_ms": percentile_ms(delays, 0.95),
        "move_to_phone_p99_ms": percentile_ms(delays, 0.99),
        "requests": len(latencies),
        "request_p50_ms": percentile_ms(latencies, 0.5),
        "request_p95_ms": percentile_ms(latencies, 0.95),
        "request_p99_ms": percentile_ms(latencies, 0.99),
        "errors": len(tally.errors),
    }
    print(
        f"{tables} refereed tables x 5 phones for {result['seconds']} s against {url}: {result['moves_seen']} move deliveries, "
        f"move-to-other-phone p50 {result['move_to_phone_p50_ms']} ms, p95 {result['move_to_phone_p95_ms']} ms, "
        f"p99 {result['move_to_phone_p99_ms']} ms; {result['requests']} immediate requests, p50 {result['request_p50_ms']} ms, "
        f"p95 {result['request_p95_ms']} ms, p99 {result['request_p99_ms']} ms; {result['errors']} errors",
        flush=True,
    )
    print_errors_and_machine(tally)
    return result
