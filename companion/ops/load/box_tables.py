"""`python -m companion load`: game-night traffic of box-game tables against the production server, on this
machine only.

Starts `python -m companion serve` on a free loopback port (or uses --url, which must be loopback), then
simulates tables arriving over the first 10 seconds (over half the run, if shorter): each host deals a game
and keeps its screen open, and each phone opens its seat page; as the pages' script does, the host screen and
every phone each hold one long poll of the table panel (`.../table?wait=1` with If-None-Match), asked again as
soon as it is answered, while each phone asks for the hint, the stronger hint and the reveal now and then on a
connection of its own. A table whose habitat is revealed is done: its screens stop asking. At the end of the
run one phone per table takes back its request for the reveal, which wakes the table's held polls, as
refereed_tables' last move does. Prints the immediate requests' rate and latency percentiles, the panel updates
the long polls delivered, and errors. Everything is bounded: a fixed number of clients for a fixed time.
"""

from __future__ import annotations

import random
import re
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

SCAN_SECONDS = 3.0  # players scan their QR codes one after another
RETRY_SECONDS = 3.0  # how long the page's script waits after a long poll that failed (its first retry)
STEPS = ("hint", "tile", "reveal")
REVEAL = STEPS[-1]
_PANEL_ETAG = re.compile(r'id="table" data-poll="[^"]*" data-etag="([^"]*)"')
_REVEALED = 'class="step unlocked" id="step-reveal"'  # the panel of a table that revealed its habitat


def _csrf(page: str) -> str:
    """The CSRF token of a page's forms, which every form post must carry back ("" if the page has none)."""
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    return match.group(1) if match else ""


def _panel_etag(page: str) -> str | None:
    """The version of the panel a page shows, which its script sends with its first long poll."""
    match = _PANEL_ETAG.search(page)
    return f'"{match.group(1)}"' if match else None


class PanelUpdates:
    """How many panel updates the held long polls delivered (a 200: the table changed while they waited)."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def delivered(self) -> None:
        with self.lock:
            self.count += 1


def _table(site: Site, phones: int, schedule: Schedule, tally: Tally, updates: PanelUpdates,
           rng: random.Random) -> None:
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
        [partial(_follow_panel, screen, setup_path + "/table", _panel_etag(setup), schedule, updates)]
        + [partial(_phone, site, path, schedule, tally, updates, random.Random(rng.random()), wakes_table=seat == 0)
           for seat, path in enumerate(seat_paths[:phones])]
    )


def _follow_panel(client: Client, panel: str, etag: str | None, schedule: Schedule, updates: PanelUpdates) -> None:
    """A page's script: one long poll of its panel at a time, until the schedule ends or the table revealed its
    habitat (nothing on the panel changes after that)."""
    while schedule.running():
        headers = {"If-None-Match": etag} if etag else {}
        answer = client.request("GET", panel + "?wait=1", headers=headers, expect=(200, 304), long_poll=True)
        if not answer.ok:
            time.sleep(RETRY_SECONDS)
        elif answer.status == 200:
            updates.delivered()
            etag = answer.headers.get("ETag", etag)
            if _REVEALED in answer.text:
                return


def _phone(site: Site, seat_path: str, schedule: Schedule, tally: Tally, updates: PanelUpdates,
           rng: random.Random, wakes_table: bool) -> None:
    """One player's phone: opens its seat page, then holds the panel's long poll while it votes now and then
    on a second connection, as a browser sends a form while a request waits."""
    time.sleep(rng.uniform(0, SCAN_SECONDS))
    page = Client(site, tally)
    opened = page.request("GET", seat_path)
    voter = Client(site, tally)
    voter.cookies = page.cookies  # one browser: the session the page's CSRF token belongs to
    run_together([
        partial(_follow_panel, page, seat_path + "/table", _panel_etag(opened.text), schedule, updates),
        partial(_vote_now_and_then, voter, seat_path, _csrf(opened.text), schedule, rng, wakes_table),
    ])


def _vote_now_and_then(client: Client, seat_path: str, token: str, schedule: Schedule, rng: random.Random,
                       wakes_table: bool) -> None:
    """Ask for the next step every 8 to 20 s (and take a request back now and then); at the end, the table's
    waking phone takes back its request for the reveal, a change that answers every long poll its table holds."""
    next_vote = time.monotonic() + rng.uniform(5, 25)
    step = 0
    while True:
        time.sleep(max(0.0, min(next_vote, schedule.until) - time.monotonic()))
        if not schedule.running():
            break
        if step < len(STEPS):
            action = "/withdraw" if rng.random() < 0.15 else ""
            vote = client.request(
                "POST", f"{seat_path}/votes/{STEPS[step]}{action}", form={"csrf_token": token}, expect=(303, 409)
            )
            if vote.status == 303 and not action:
                step += 1
        next_vote = time.monotonic() + rng.uniform(8, 20)
    if wakes_table:
        # Taking back a request changes the table unless its reveal is unlocked, and then its screens stopped.
        # Every table does it in the same instant, which no game night does: counted if it fails, not timed.
        client.request("POST", f"{seat_path}/votes/{REVEAL}/withdraw", form={"csrf_token": token}, expect=(303,),
                       timed=False)


def run_box_tables(tables: int = 40, phones: int = 5, seconds: float = 60, url: str | None = None) -> dict:
    """Run the simulation and print its figures, with the machine's cores and load before and after."""
    print(machine_line(), flush=True)
    tally, updates = Tally(), PanelUpdates()
    rng = random.Random(2026)
    with server_under_load(url) as site:
        schedule = Schedule.lasting(seconds)
        run_together(partial(_table, site, phones, schedule, tally, updates, random.Random(rng.random()))
                     for _ in range(tables))
        elapsed = schedule.traffic_seconds()  # the held long polls winding down after the end are no traffic
    requests = summarize(tally.latencies)
    result = {
        "tables": tables,
        "phones_per_table": phones,
        "seconds": round(elapsed, 1),
        "requests": requests.count,
        "requests_per_second": round(requests.count / elapsed, 1),
        **requests.fields(),
        "panel_updates": updates.count,
        "errors": len(tally.errors),
    }
    print(
        f"{tables} tables x {phones} phones for {result['seconds']} s against {site.url}: "
        f"{requests.count} immediate requests, {result['requests_per_second']} req/s, {requests.text()}; "
        f"{updates.count} panel updates delivered by held long polls; {result['errors']} errors",
        flush=True,
    )
    report_errors(tally)
    return result
