"""What every `python -m companion load` run shares: the server under load, on this machine only; a timed HTTP
client per simulated phone or screen; the threads they run on; and the report of errors.

The runs themselves: box_tables (`load`: box-game tables, host screens and seat pages), refereed_tables
(`load --play`: the site referees, phones hold live updates and move), computer_tables (`load --play
--computers`: one phone against four computer players per table) and held_updates (`load --hold N`: N live
updates held at once while the site is probed). Standard library only, so the client costs little of the
machine it shares with the server.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from urllib.parse import urlencode, urlsplit

from companion.web.core.network import is_local_host

from ..measure import machine_line
from ..server import STOP_SECONDS

ARRIVAL_SECONDS = 10.0  # tables sit down over the first seconds, as at a real game night
# Every simulated host and phone comes from 127.0.0.1, where a real game night's phones each have an address
# of their own: the server started for a load run counts per-address limits far higher.
RATE_LIMITS = {
    "COMPANION_RATE_LIMIT_NEW_GAMES": "100000 per minute",
    "COMPANION_RATE_LIMIT_ACTIONS": "1000000 per minute",
}
LOAD_LIMITS = RATE_LIMITS | {  # a fair share as big as the server: every simulated phone is 127.0.0.1
    "COMPANION_REQUESTS_PER_ADDRESS": "1000000", "COMPANION_BODIES_PER_ADDRESS": "1000000",
}
START_SECONDS = 60  # a busy machine (tests running beside it) can take half a minute to start the server
# Longer than the server ever holds a live update (30 s), so only a stalled request times out.
REQUEST_TIMEOUT_SECONDS = 60
SHUTDOWN_SECONDS = STOP_SECONDS + 10  # the server first lets requests in progress finish
ERRORS_SHOWN = 10


def arrival_seconds(seconds: float) -> float:
    """How long tables keep arriving: ARRIVAL_SECONDS, or half a shorter run, so every table gets to play."""
    return min(ARRIVAL_SECONDS, seconds / 2)


@dataclass(frozen=True)
class Schedule:
    """A run's clock: when its traffic started and stops, and how long its tables or phones keep arriving."""

    started: float
    until: float
    arrival: float

    @classmethod
    def lasting(cls, seconds: float) -> Schedule:
        """A schedule that starts now and runs for `seconds`."""
        started = time.monotonic()
        return cls(started, started + seconds, arrival_seconds(seconds))

    def arrive(self, rng: random.Random) -> None:
        """Wait for a random moment of the arrival, so clients do not all start at once."""
        time.sleep(rng.uniform(0, self.arrival))

    def running(self) -> bool:
        return time.monotonic() < self.until

    def traffic_seconds(self) -> float:
        """How long the traffic has lasted, leaving out what comes after `until` (held long polls winding down)."""
        return min(time.monotonic(), self.until) - self.started


@dataclass
class Tally:
    """The latencies of requests answered at once and every failure, from all clients, guarded by one lock."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, seconds: float | None, error: str | None = None) -> None:
        """One request: its latency (None: not a latency worth counting, as a long poll's) and its error, if any."""
        with self.lock:
            if seconds is not None:
                self.latencies.append(seconds)
            if error:
                self.errors.append(error)


@dataclass(frozen=True)
class Response:
    """One answer: status 0 when none came (the connection failed or timed out); `ok` when the status was one
    the caller expected."""

    status: int
    headers: http.client.HTTPMessage
    body: bytes
    seconds: float
    ok: bool

    @property
    def text(self) -> str:
        return self.body.decode()

    def json(self):
        return json.loads(self.body)


@dataclass(frozen=True)
class Site:
    """The server under load: its address on this machine."""

    url: str
    host: str
    port: int
    instance: str | None = None  # the instance folder of a server this run started (its SQLite database)


class Client:
    """One phone or screen: one keep-alive connection, so one thread at a time; the cookies the site set, sent
    back as a browser would; every request timed into a Tally. A kept-alive connection the server has closed
    meanwhile (it closes one silent for 10 s) is not reused: a new one is opened, as browsers and urllib3 do."""

    def __init__(self, site: Site, tally: Tally) -> None:
        self.connection = http.client.HTTPConnection(site.host, site.port, timeout=REQUEST_TIMEOUT_SECONDS)
        self.cookies: dict[str, str] = {}
        self.tally = tally

    def request(
        self,
        method: str,
        path: str,
        *,
        form: dict | None = None,
        json_body: dict | None = None,
        headers: dict | None = None,
        expect: Iterable[int] = (200,),
        long_poll: bool = False,
        timed: bool = True,
    ) -> Response:
        """Send one request and read the whole answer. A status outside `expect` or no answer is an error in
        the tally; the time is a latency unless `long_poll` (the server holds those on purpose) or not `timed`
        (a request of the run's own winding down, which no table makes)."""
        timed = timed and not long_poll
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif json_body is not None:
            body = json.dumps(json_body)
            headers["Content-Type"] = "application/json"
        if _closed_by_server(self.connection.sock):
            self.connection.close()  # the next line connects again
        start = time.perf_counter()
        try:
            try:
                reused = self.connection.sock is not None
                self.connection.request(method, path, body=body, headers=headers)
                answer = self.connection.getresponse()
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                if not reused:
                    raise
                # The server closed the kept-alive connection as the request went out (it closes one silent for
                # 10 s): nothing of it was answered, so send it again on a new one, as browsers and urllib3 do.
                self.connection.close()
                self.connection.request(method, path, body=body, headers=headers)
                answer = self.connection.getresponse()
            data = answer.read()
        except (OSError, http.client.HTTPException) as exc:
            seconds = time.perf_counter() - start
            self.tally.record(seconds if timed else None, f"{method} {path}: {exc!r}")
            self.connection.close()  # the next request opens a new connection
            return Response(0, http.client.HTTPMessage(), b"", seconds, False)
        seconds = time.perf_counter() - start
        for cookie in answer.headers.get_all("Set-Cookie") or ():
            name, _, value = cookie.split(";", 1)[0].partition("=")
            self.cookies[name.strip()] = value.strip()
        ok = answer.status in expect
        self.tally.record(seconds if timed else None, None if ok else f"{method} {path}: HTTP {answer.status}")
        return Response(answer.status, answer.headers, data, seconds, ok)  # header names match in any case


def _closed_by_server(connection: socket.socket | None) -> bool:
    """Whether a kept-alive connection between requests has something to read: the server's close (or bytes no
    request asked for), so a request sent on it would be lost, a body half-written into a broken pipe."""
    if connection is None:
        return False
    # A selector, not select.select: a run holding thousands of connections has descriptors beyond select's 1024.
    with selectors.DefaultSelector() as selector:
        selector.register(connection, selectors.EVENT_READ)
        return bool(selector.select(0))


@contextlib.contextmanager
def server_under_load(url: str | None, limits: dict = LOAD_LIMITS) -> Iterator[Site]:
    """The site at `url`, refused unless it is http:// on this machine; without a url, `python -m companion
    serve` on a free loopback port with `limits` (LOAD_LIMITS), stopped when the run is over."""
    if url is not None:
        yield _loopback(url)
        return
    port = _free_port()
    instance = tempfile.mkdtemp(prefix="companion-load-")
    environment = dict(os.environ, COMPANION_INSTANCE_PATH=instance, **limits)
    server = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_until_listening(server, port)
        yield replace(_loopback(f"http://127.0.0.1:{port}"), instance=instance)
    finally:
        server.terminate()
        try:
            server.wait(timeout=SHUTDOWN_SECONDS)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _loopback(url: str) -> Site:
    """The Site at `url`; anything but http:// on this machine ends the command (a load run is an attack)."""
    parts = urlsplit(url)
    if not is_local_host(parts.netloc) or parts.scheme != "http":
        raise SystemExit(f"refusing {url}: the load test only targets http:// on this machine (127.0.0.1, ::1)")
    return Site(url, parts.hostname, parts.port or 80)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_until_listening(server: subprocess.Popen, port: int) -> None:
    """Return once the server accepts connections; end the command if it stops or takes too long."""
    deadline = time.monotonic() + START_SECONDS
    while server.poll() is None and time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the server did not start")


def run_together(calls: Iterable[Callable[[], object]]) -> None:
    """Run each call on a thread of its own (clients mostly wait: on the network or on purpose) until all end.

    Daemon threads: Python looks over every other live non-daemon thread each time one starts or ends, which
    with a run's thousands of clients took a third of a core from the server in the tables' arrival."""
    threads = [threading.Thread(target=call, daemon=True) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def report_errors(tally: Tally) -> None:
    """The first errors, what a 429 means here, and the machine's cores and load after the run."""
    for error in tally.errors[:ERRORS_SHOWN]:
        print("  error:", error, flush=True)
    if any("HTTP 429" in error for error in tally.errors):
        limits = " ".join(f'{name}="{value}"' for name, value in LOAD_LIMITS.items())
        print(f"  (429: per-address limits: the server's (start it with {limits} for a load run), or through the "
              "shipped nginx its own, such as 300 live updates held per address: deploy/nginx.conf)", flush=True)
    print(machine_line(), flush=True)
