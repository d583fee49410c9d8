"""`python -m companion load --hold N`: N phones holding a live-update request at once, on this machine only.

Deals N/5 refereed tables through the JSON API, then opens N phones that each keep a long poll
(`GET /api/seats/<token>/play?wait=V`) waiting, asking again whenever one answers, for the whole run. While
they wait, one table's seats make a move every second (each wakes that table's waiting phones) and a probe
opens a seat page and reads a seat's state twice a second, so the figures say whether the site still answers
everyone else at once. Counts every request refused, reset or answered with an error: the target is none.
Phones arrive over the first seconds (as tables do in the other loads), then hold until the run ends.
"""

from __future__ import annotations

import random
import threading
import time
from functools import partial
from urllib.parse import urlsplit

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
from .refereed_tables import Phone, deal

PHONES_PER_TABLE = 5


class HeldCount:
    """How many long polls are held now, and the most at once."""

    def __init__(self) -> None:
        self.now = self.peak = 0
        self.lock = threading.Lock()

    def change(self, by: int) -> None:
        with self.lock:
            self.now += by
            self.peak = max(self.peak, self.now)


def _holder(site: Site, url: str, schedule: Schedule, tally: Tally, held: HeldCount, rng: random.Random) -> None:
    """One phone: arrives at a random moment of the arrival, holds a long poll, asks again as soon as it answers."""
    schedule.arrive(rng)
    phone = Phone(site, url, tally)
    state = phone.state()
    if state is None:
        return
    held.change(+1)
    try:
        while schedule.running():
            state = phone.next_state(state["version"])
            if state is None:
                return
    finally:
        held.change(-1)


def _mover(site: Site, table: dict, schedule: Schedule, tally: Tally, answered: list) -> None:
    """One table's seats, through their own phones: a name change a second (a move that wakes every phone
    of the table), each answer timed."""
    phones = [Phone(site, seat["url"], tally) for seat in table["seats"]]
    for move in range(10**9):
        time.sleep(1.0)
        if not schedule.running():
            return
        answer = phones[move % len(phones)].send({"action": "name", "name": f"P{move}"})
        if answer.ok:
            answered.append(answer.seconds)


def _waker(site: Site, tables: list[dict], schedule: Schedule, tally: Tally) -> None:
    """When the run is over, a name change at every table wakes its held phones, which would otherwise hold their
    long polls to the server's limit (about 25 s) before they notice."""
    time.sleep(max(0.0, schedule.until - time.monotonic()))
    for table in tables:
        Phone(site, table["seats"][0]["url"], tally).send({"action": "name", "name": "P0"})


def other_user(site: Site, url: str, schedule: Schedule, probes: Tally) -> None:
    """Someone else at the site: opens a seat page and reads a seat's state now and then."""
    phone = Phone(site, url, probes)
    while schedule.running():
        phone.client.request("GET", urlsplit(url).path)
        phone.state()
        time.sleep(0.5)


def run_held_updates(phones: int = 1000, seconds: float = 60, url: str | None = None) -> dict:
    """Hold `phones` live-update requests for `seconds` and print what the rest of the site saw meanwhile."""
    print(machine_line(), flush=True)
    tally, probes = Tally(), Tally()
    held, answered = HeldCount(), []
    rng = random.Random(2028)
    with server_under_load(url) as site:
        dealer = Client(site, tally)
        tables = []
        for _ in range(-(-phones // PHONES_PER_TABLE)):
            table = deal(dealer, PHONES_PER_TABLE, advanced=False)
            if table is None:
                break
            tables.append(table)
        if not tables:
            raise SystemExit(f"no table was dealt: {tally.errors[0]}")
        urls = [seat["url"] for table in tables for seat in table["seats"]][:phones]
        schedule = Schedule.lasting(seconds)
        run_together(
            [partial(_holder, site, u, schedule, tally, held, random.Random(rng.random())) for u in urls]
            + [partial(_mover, site, tables[0], schedule, tally, answered)]
            + [partial(other_user, site, urls[-1], schedule, probes)]
            + [partial(_waker, site, tables, schedule, tally)]
        )
        elapsed = schedule.traffic_seconds()
    others, moves = summarize(probes.latencies), summarize(answered)
    result = {
        "phones": len(urls),
        "seconds": round(elapsed, 1),
        "held_at_once": held.peak,
        "errors": len(tally.errors) + len(probes.errors),
        "probe_requests": others.count,
        **others.fields("probe_"),
        "moves": moves.count,
        "move_p95_ms": moves.p95_ms,
    }
    print(
        f"{result['phones']} phones holding live updates for {result['seconds']} s against {site.url}: "
        f"{result['held_at_once']} held at once; meanwhile {others.count} other requests, {others.text()}; "
        f"{moves.count} moves answered, p95 {moves.p95_ms} ms; {result['errors']} errors",
        flush=True,
    )
    tally.errors.extend(probes.errors)
    report_errors(tally)
    return result
