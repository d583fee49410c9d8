"""`python -m companion load --hold N`: N phones holding a live-update request at once, on this machine only.

Deals N/5 refereed tables through the JSON API, then opens N phones that each keep a long poll
(`GET /api/seats/<token>/play?wait=V`) waiting, asking again whenever one answers, for the whole run. While
they wait, one table's seats make a move every second (each wakes that table's waiting phones) and a probe
opens a seat page and reads a seat's state twice a second, so the figures say whether the site still answers
everyone else at once. Counts every request refused, reset or answered with an error: the target is none.
Phones arrive over the first seconds (as tables do in the other loads), then hold until the run ends.
"""

from __future__ import annotations

import http.client
import random
import threading
import time
from urllib.parse import urlsplit

from .play import Phone
from .tables import (
    Tally,
    _loopback,
    _start_server,
    arrival_seconds,
    machine_line,
    percentile_ms,
    print_errors_and_machine,
)

PHONES_PER_TABLE = 5


def _holder(host: str, port: int, url: str, arrival: float, until: float, tally: Tally, held: list,
            rng: random.Random) -> None:
    """One phone: arrives within `arrival` seconds, holds a long poll, asks again as soon as it answers."""
    time.sleep(rng.uniform(0, arrival))
    phone = Phone(host, port, url, tally)
    state = phone.call("GET", phone.path)
    if state is None:
        return
    with tally.lock:
        held[0] += 1
    try:
        while time.monotonic() < until:
            fresh = phone.call("GET", f"{phone.path}?wait={state['version']}")
            if fresh is None:
                return
            state = fresh
    finally:
        with tally.lock:
            held[0] -= 1


def _mover(host: str, port: int, table: dict, until: float, tally: Tally, delivered: list) -> None:
    """One table's seats, through their own phones: a name change a second (a move that wakes every phone
    of the table), each answer timed."""
    phones = {s["seat"]: Phone(host, port, s["url"], tally) for s in table["seats"]}
    names = iter(range(10**9))
    while time.monotonic() < until:
        time.sleep(1.0)
        seat = 1 + next(names) % len(phones)
        start = time.perf_counter()
        answer = phones[seat].call("POST", phones[seat].path, {"action": "name", "name": f"P{next(names)}"}, expect=(200, 409))
        if answer is not None:
            delivered.append(time.perf_counter() - start)


def _probe(host: str, port: int, url: str, until: float, probes: Tally) -> None:
    """Someone else at the site: opens a seat page and polls the public JSON now and then."""
    connection = http.client.HTTPConnection(host, port, timeout=60)
    path = urlsplit(url).path
    api = "/api/seats/" + path.rsplit("/", 1)[1] + "/play"
    while time.monotonic() < until:
        for target in (path, api):
            start = time.perf_counter()
            try:
                connection.request("GET", target)
                response = connection.getresponse()
                response.read()
                error = None if response.status == 200 else f"GET {target[:30]}: HTTP {response.status}"
            except (OSError, http.client.HTTPException) as exc:
                error = f"GET {target[:30]}: {exc!r}"
                connection.close()
            probes.record(time.perf_counter() - start, error)
        time.sleep(0.5)


def run_hold_load(phones: int = 1000, seconds: float = 60, url: str | None = None) -> dict:
    """Hold `phones` live-update requests for `seconds` and print what the rest of the site saw meanwhile."""
    print(machine_line(), flush=True)
    server = None
    if url is None:
        server, url = _start_server()
    host, port = _loopback(url)
    tally, probes = Tally(), Tally()
    dealer = Phone(host, port, "/s/x", tally)
    tables = []
    for _ in range(-(-phones // PHONES_PER_TABLE)):
        table = dealer.call("POST", "/api/tables", {"players": PHONES_PER_TABLE}, expect=(201,))
        if table is None:
            break
        tables.append(table)
    urls = [seat["url"] for table in tables for seat in table["seats"]][:phones]
    held, peak, delivered = [0], [0], []
    started = time.monotonic()
    until = started + seconds
    rng = random.Random(2028)
    arrival = arrival_seconds(seconds)
    threads = [threading.Thread(target=_holder, args=(host, port, u, arrival, until, tally, held, random.Random(rng.random())))
               for u in urls]
    threads.append(threading.Thread(target=_mover, args=(host, port, tables[0], until, tally, delivered)))
    threads.append(threading.Thread(target=_probe, args=(host, port, urls[-1], until, probes)))
    try:
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads):
            with tally.lock:
                peak[0] = max(peak[0], held[0])
            time.sleep(0.5)
    finally:
        if server:
            server.terminate()
            server.wait(timeout=40)
    result = {
        "phones": len(urls),
        "seconds": round(min(time.monotonic(), until) - started, 1),  # not the last long polls' wind-down
        "held_at_once": peak[0],
        "errors": len(tally.errors) + len(probes.errors),
        "probe_requests": len(probes.latencies),
        "probe_p50_ms": percentile_ms(probes.latencies, 0.5),
        "probe_p95_ms": percentile_ms(probes.latencies, 0.95),
        "probe_p99_ms": percentile_ms(probes.latencies, 0.99),
        "moves": len(delivered),
        "move_p95_ms": percentile_ms(delivered, 0.95),
    }
    print(
        f"{result['phones']} phones holding live updates for {result['seconds']} s against {url}: "
        f"{result['held_at_once']} held at once; meanwhile {result['probe_requests']} other requests, "
        f"p50 {result['probe_p50_ms']} ms, p95 {result['probe_p95_ms']} ms, p99 {result['probe_p99_ms']} ms; "
        f"{result['moves']} moves answered, p95 {result['move_p95_ms']} ms; {result['errors']} errors",
        flush=True,
    )
    tally.errors.extend(probes.errors)
    print_errors_and_machine(tally)
    return result
