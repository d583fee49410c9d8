"""`python -m companion load`: game-night traffic of box-game tables against the production server, on this
machine only.

Starts `python -m companion serve` on a free loopback port (or uses --url, which must be loopback), then
simulates tables arriving over the first 10 seconds (over half the run, if shorter): each host deals a game
and keeps its screen open, and each phone opens its seat page and polls the table panel every 3 seconds with
If-None-Match, as the page's script does, asking for the hint, the stronger hint and the reveal now and then.
Prints requests per second, latency percentiles and errors. Everything is bounded: a fixed number of clients
for a fixed time.
"""

from __future__ import annotations

import random
import re
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

POLL_SECONDS = 3.0
STEPS = ("hint", "tile", "reveal")


def _csrf(page: str) -> str:
    """The CSRF token of a page's forms, which every form post must carry back ("" if the page has none)."""
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    return match.group(1) if match else ""


def _table(site: Site, phones: int, schedule: Schedule, tally: Tally, rng: random.Random) -> None:
    """One table: sits down at a random moment of the arrival, the host deals a game, then the host screen and
    every phone run until the schedule ends."""
    schedule.arrive(rng)
    screen = Client(site, tally)
    home = screen.request("GET", "/")
    players = min(5, max(2, phones))
    dealt = screen.request("POST", "/", form={"csrf_token": _csrf(home.text), "players": players}, expect=(303,))
    if not dealt.ok or not dealt.headers.get("Location"):
        return
    setup_path = urlsplit(dealt.headers["Location"]).path
    setup = screen.request("GET", setup_path).text
    seat_paths = [urlsplit(url).path for url in re.findall(r'class="seat-link"[^>]*>([^<]+)<', setup)]
    run_together(
        [partial(_screen, screen, setup_path + "/table", schedule, rng)]
        + [partial(_phone, site, path, schedule, tally, random.Random(rng.random())) for path in seat_paths[:phones]]
    )


def _poll(client: Client, path: str, etag: str | None) -> str | None:
    """One poll of a table panel, as the page's script sends it; the ETag to send next time."""
    headers = {"If-None-Match": etag} if etag else {}
    panel = client.request("GET", path, headers=headers, expect=(200, 304))
    return panel.headers.get("ETag", etag) if panel.status == 200 else etag


def _screen(client: Client, panel: str, schedule: Schedule, rng: random.Random) -> None:
    """The host screen, left open on the table: polls its panel until the schedule ends."""
    etag = None
    time.sleep(rng.uniform(0, POLL_SECONDS))
    while schedule.running():
        etag = _poll(client, panel, etag)
        time.sleep(POLL_SECONDS)


def _phone(site: Site, seat_path: str, schedule: Schedule, tally: Tally, rng: random.Random) -> None:
    """One player's phone: opens its seat page, polls the panel and votes for the next step now and then."""
    time.sleep(rng.uniform(0, POLL_SECONDS))  # players scan their QR codes one after another
    client = Client(site, tally)
    token = _csrf(client.request("GET", seat_path).text)
    etag = None
    next_vote = time.monotonic() + rng.uniform(5, 25)
    step = 0
    while schedule.running():
        etag = _poll(client, seat_path + "/table", etag)
        if time.monotonic() >= next_vote and step < len(STEPS):
            action = "/withdraw" if rng.random() < 0.15 else ""
            vote = client.request(
                "POST", f"{seat_path}/votes/{STEPS[step]}{action}", form={"csrf_token": token}, expect=(303, 409)
            )
            if vote.status == 303 and not action:
                step += 1
            next_vote = time.monotonic() + rng.uniform(8, 20)
        time.sleep(POLL_SECONDS)


def run_box_tables(tables: int = 40, phones: int = 5, seconds: float = 60, url: str | None = None) -> dict:
    """Run the simulation and print its figures, with the machine's cores and load before and after."""
    print(machine_line(), flush=True)
    tally = Tally()
    rng = random.Random(2026)
    with server_under_load(url) as site:
        schedule = Schedule.lasting(seconds)
        run_together(partial(_table, site, phones, schedule, tally, random.Random(rng.random())) for _ in range(tables))
        # Until the last client is done (its pause after its last poll included), as the README's req/s were
        # measured; not the server's shutdown.
        elapsed = time.monotonic() - schedule.started
    requests = summarize(tally.latencies)
    result = {
        "tables": tables,
        "phones_per_table": phones,
        "seconds": round(elapsed, 1),
        "requests": requests.count,
        "requests_per_second": round(requests.count / elapsed, 1),
        **requests.fields(),
        "errors": len(tally.errors),
    }
    print(
        f"{tables} tables x {phones} phones for {result['seconds']} s against {site.url}: "
        f"{requests.count} requests, {result['requests_per_second']} req/s, {requests.text()}, "
        f"{result['errors']} errors",
        flush=True,
    )
    report_errors(tally)
    return result
