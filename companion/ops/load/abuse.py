"""`python -m companion load --abuse KIND`: one client on the same Wi-Fi tries to stop everyone else's game night.

The attacker comes from an address of its own (127.0.0.66: all of 127.0.0.0/8 reaches this machine), as a phone
on the Wi-Fi would, while the other users (from 127.0.0.1) keep playing a refereed table: seat pages, a seat's
state and a move every second, each timed. Kinds of attack, each with its figure from the issue that asked
for them:

- `held`: 3,000 live updates held at once, each asked again as soon as it answers;
- `slow`: 2,500 connections that send a request's headers with `Content-Length: 1000`, then a byte a second;
- `reconnect`: a client that opens a live update and drops it at once, again and again (each dropped one would
  otherwise keep a server thread for 25 s).

The figures: the other users' latencies (p95) and failures (the target: p95 under 200 ms, none failing), and what
the attacker got (answers by status, connections held at most). Through nginx, pass its address with --url.
"""

from __future__ import annotations

import selectors
import socket
import time
from collections import Counter
from functools import partial
from urllib.parse import urlsplit

from ..measure import machine_line, summarize
from . import (
    RATE_LIMITS,
    Client,
    Schedule,
    Site,
    Tally,
    report_errors,
    run_together,
    server_under_load,
)
from .held_updates import other_user
from .refereed_tables import Phone, deal

ATTACKER = "127.0.0.66"
ATTACKS = {"held": 3000, "slow": 2500, "reconnect": 200}  # connections (reconnect: new connections a second)
CONNECTS_PER_TICK = 250  # the attacker opens its connections this fast (a tick is 0.1 s)
TICK_SECONDS = 0.1
DROP_AFTER_SECONDS = 0.2  # `reconnect` drops each live update this soon
# `held` and `slow` ask again after a 429 once its Retry-After has passed; a client ignoring it is a flood of
# requests, which nginx's limit_req bounds (`reconnect` does ignore it).
RETRY_AFTER_SECONDS = 5


def _own_ports(connection: socket.socket) -> None:
    """Let the attacker's closed connections (tens of thousands a minute, each waiting out TCP's TIME_WAIT) use up
    only its own ports, as on a machine of its own. A port bound before connecting is taken from every address of
    this machine: `reconnect` once took all 28,000 of them, and the other users' connections then failed. Where
    the system can (Linux), the port is chosen at connect, for this address and the site's only."""
    if hasattr(socket, "IP_BIND_ADDRESS_NO_PORT"):
        connection.setsockopt(socket.IPPROTO_IP, socket.IP_BIND_ADDRESS_NO_PORT, 1)


class Attacker:
    """One client holding many connections from one address, on one thread (a selector), as a script would."""

    def __init__(self, site: Site, kind: str, count: int, poll_path: str, schedule: Schedule) -> None:
        self.site, self.kind, self.count, self.poll_path, self.schedule = site, kind, count, poll_path, schedule
        self.statuses: Counter[str] = Counter()
        self.peak = 0
        self.opened = 0
        self.resting: list[float] = []  # refused connections, each asked again at the time it was told

    def request(self) -> bytes:
        host = f"Host: {self.site.host}:{self.site.port}\r\n"
        if self.kind == "slow":
            return (f"POST /api/tables HTTP/1.1\r\n{host}Content-Type: application/json\r\n"
                    "Content-Length: 1000\r\n\r\n").encode()
        return f"GET {self.poll_path} HTTP/1.1\r\n{host}\r\n".encode()

    def _open(self, selector: selectors.BaseSelector) -> None:
        connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            _own_ports(connection)
            connection.bind((ATTACKER, 0))
            connection.settimeout(2)
            connection.connect((self.site.host, self.site.port))
            connection.sendall(self.request())
        except OSError as exc:
            connection.close()
            self.statuses[f"no connection ({type(exc).__name__})"] += 1
            return
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ, [time.monotonic(), b""])
        self.opened += 1

    def _close(self, selector: selectors.BaseSelector, connection: socket.socket) -> None:
        selector.unregister(connection)
        connection.close()

    def run(self) -> None:
        selector = selectors.DefaultSelector()
        next_byte = time.monotonic() + 1
        while self.schedule.running():
            now = time.monotonic()
            self.resting = [until for until in self.resting if until > now]
            held = len(selector.get_map()) + len(self.resting)
            wanted = CONNECTS_PER_TICK if self.kind != "reconnect" else max(1, int(self.count * TICK_SECONDS))
            for _ in range(min(wanted, max(0, self.count - held) if self.kind != "reconnect" else wanted)):
                self._open(selector)
            self.peak = max(self.peak, len(selector.get_map()))
            for key, _ in selector.select(timeout=TICK_SECONDS):
                try:
                    data = key.fileobj.recv(65536)
                except OSError:
                    data = b""
                if not key.data[1] and data:
                    status = data.split(b" ", 2)[1].decode(errors="replace")
                    self.statuses[status] += 1
                    key.data[1] = data[:16]
                    if status == "429":  # asked again once its Retry-After has passed, as HTTP asks
                        self.resting.append(time.monotonic() + RETRY_AFTER_SECONDS)
                if not data:
                    if not key.data[1]:
                        self.statuses["closed unanswered"] += 1
                    self._close(selector, key.fileobj)
                elif self.kind != "slow":  # answered: a live update is asked again on a new connection
                    self._close(selector, key.fileobj)
            now = time.monotonic()
            if self.kind == "reconnect":
                for key in list(selector.get_map().values()):
                    if now - key.data[0] > DROP_AFTER_SECONDS:
                        self.statuses["dropped"] += 1
                        self._close(selector, key.fileobj)
            if self.kind == "slow" and now >= next_byte:
                next_byte = now + 1
                for key in list(selector.get_map().values()):
                    try:
                        key.fileobj.send(b" ")
                    except OSError:
                        self._close(selector, key.fileobj)
        for key in list(selector.get_map().values()):
            self._close(selector, key.fileobj)


def _mover(site: Site, table: dict, schedule: Schedule, probes: Tally) -> None:
    """That table's seats, through their phones: a move (a name) a second, each answer timed."""
    phones = [Phone(site, seat["url"], probes) for seat in table["seats"]]
    for move in range(10**9):
        time.sleep(1.0)
        if not schedule.running():
            return
        phones[move % len(phones)].send({"action": "name", "name": f"P{move}"})


def run_abuse(kind: str, seconds: float = 60, url: str | None = None, count: int | None = None) -> dict:
    """Run one attack for `seconds` while other users play; print and return what they and the attacker saw."""
    print(machine_line(), flush=True)
    count = count or ATTACKS[kind]
    tally, probes = Tally(), Tally()
    with server_under_load(url, RATE_LIMITS) as site:  # its per-address share as shipped
        others = deal(Client(site, tally), 5, advanced=False)
        attacker_client = Client(site, tally)
        attacker_client.connection.source_address = (ATTACKER, 0)
        target = deal(attacker_client, 3, advanced=False)
        if others is None or target is None:
            raise SystemExit(f"no table was dealt: {tally.errors[:1]}")
        seat = urlsplit(target["seats"][0]["url"]).path.rsplit("/", 1)[1]
        version = Phone(site, target["seats"][0]["url"], tally).state()["version"]
        schedule = Schedule.lasting(seconds)
        attacker = Attacker(site, kind, count, f"/api/seats/{seat}/play?wait={version}", schedule)
        urls = [s["url"] for s in others["seats"]]
        run_together([attacker.run, partial(_mover, site, others, schedule, probes)]
                     + [partial(other_user, site, u, schedule, probes) for u in urls])
    seen = summarize(probes.latencies)
    result = {"attack": kind, "count": count, "seconds": seconds, "attacker_peak": attacker.peak,
              "attacker_statuses": dict(attacker.statuses), "errors": len(probes.errors),
              "other_requests": seen.count, **seen.fields("other_")}
    statuses = ", ".join(f"{status}: {n}" for status, n in attacker.statuses.most_common())
    print(f"attack {kind} ({count}) from {ATTACKER} for {seconds} s against {site.url}: the attacker held up to "
          f"{attacker.peak} connections and got {statuses or 'nothing'}", flush=True)
    print(f"other users meanwhile: {seen.count} requests, {seen.text()}; {len(probes.errors)} failed", flush=True)
    report_errors(probes)
    return result

