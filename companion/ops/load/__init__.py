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
import json
import os
import random
import select
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
MAX_LINE = 65536  # the longest status or header line an answer may send


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


class Headers:
    """A response's headers: names in any case, each name's values in the order they came (Set-Cookie comes
    several times); a missing name gives None, as the standard library's messages do."""

    def __init__(self, fields: Iterable[tuple[str, str]] = ()) -> None:
        self.values: dict[str, list[str]] = {}
        for name, value in fields:
            self.values.setdefault(name.lower(), []).append(value)

    def get(self, name: str, default: str | None = None) -> str | None:
        values = self.values.get(name.lower())
        return values[0] if values else default

    def __getitem__(self, name: str) -> str | None:
        return self.get(name)

    def get_all(self, name: str) -> list[str] | None:
        return self.values.get(name.lower())


class ConnectionClosed(ConnectionError):
    """The server closed the connection before its answer began."""


class Connection:
    """One kept-alive HTTP/1.1 connection, opened by the first request that needs it. The load client's own, for
    its cost: with thousands of simulated phones on the cores the server uses, the standard library's reading of
    an answer's headers (through the e-mail parser) was half of the client's CPU, and every bit of it is taken
    from the server and added to the latencies measured. It speaks only what the site answers: a length, chunks,
    or a body up to the close."""

    def __init__(self, host: str, port: int, timeout: float) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        name = f"[{host}]" if ":" in host else host  # an IPv6 address, as a URL writes it
        self.authority = name if port == 80 else f"{name}:{port}"
        self.source_address: tuple[str, int] | None = None  # the address to connect from (abuse's attacker)
        self.sock: socket.socket | None = None
        self.reader = None
        self.poller = None

    def request(self, method: str, path: str, body: bytes | None, headers: dict) -> tuple[int, Headers, bytes]:
        """Send one request and read its whole answer: (status, headers, body). Raises OSError (ConnectionClosed
        when the server closed the connection before answering) and ValueError for an answer it cannot read."""
        if self.sock is None:
            self._open()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.authority}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if body is not None:
            lines.append(f"Content-Length: {len(body)}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
        return self._answer(method)

    def closed_by_server(self) -> bool:
        """Whether the kept-alive connection has something to read between requests: the server's close (or bytes
        no request asked for), so a request sent on it would be lost, a body half-written into a broken pipe."""
        if self.sock is None:
            return False
        if self.poller is not None:
            return bool(self.poller.poll(0))
        # No poll() (Windows): a selector, not select.select, which cannot watch descriptors beyond 1,024.
        with selectors.DefaultSelector() as selector:
            selector.register(self.sock, selectors.EVENT_READ)
            return bool(selector.select(0))

    def close(self) -> None:
        if self.sock is not None:
            self.reader.close()
            self.sock.close()
        self.sock = self.reader = self.poller = None

    def _open(self) -> None:
        self.sock = socket.create_connection((self.host, self.port), self.timeout, self.source_address)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a request goes out whole, at once
        self.reader = self.sock.makefile("rb")
        if hasattr(select, "poll"):
            self.poller = select.poll()
            self.poller.register(self.sock, select.POLLIN)

    def _answer(self, method: str) -> tuple[int, Headers, bytes]:
        status_line = self.reader.readline(MAX_LINE)
        if not status_line:
            raise ConnectionClosed("the server closed the connection")
        version, status = status_line.split(None, 2)[:2]
        fields = []
        while (line := self.reader.readline(MAX_LINE)) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            fields.append((name.strip(), value.strip()))
        headers, status = Headers(fields), int(status)
        if method == "HEAD" or status in (204, 304) or status < 200:
            body = b""
        elif "chunked" in (headers.get("Transfer-Encoding") or "").lower():
            body = self._chunks()
        elif headers.get("Content-Length") is not None:
            body = self._exactly(int(headers.get("Content-Length")))
        else:
            return status, headers, self._up_to_the_close()
        if (headers.get("Connection") or "").lower() == "close" or version == b"HTTP/1.0":
            self.close()
        return status, headers, body

    def _up_to_the_close(self) -> bytes:
        body = self.reader.read()
        self.close()
        return body

    def _exactly(self, length: int) -> bytes:
        data = self.reader.read(length)
        if len(data) < length:
            # Not ConnectionClosed: the request was answered in part, so it is not sent again.
            raise OSError("the server closed the connection within an answer")
        return data

    def _chunks(self) -> bytes:
        parts = []
        while size := int(self.reader.readline(MAX_LINE).split(b";")[0], 16):
            parts.append(self._exactly(size))
            self.reader.readline(MAX_LINE)
        while self.reader.readline(MAX_LINE) not in (b"\r\n", b"\n", b""):  # the trailer
            pass
        return b"".join(parts)


@dataclass(frozen=True)
class Response:
    """One answer: status 0 when none came (the connection failed or timed out); `ok` when the status was one
    the caller expected."""

    status: int
    headers: Headers
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
        self.connection = Connection(site.host, site.port, REQUEST_TIMEOUT_SECONDS)
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
            body = urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif json_body is not None:
            body = json.dumps(json_body).encode()
            headers["Content-Type"] = "application/json"
        if self.connection.closed_by_server():
            self.connection.close()  # the next line connects again
        start = time.perf_counter()
        try:
            try:
                reused = self.connection.sock is not None
                status, answer_headers, data = self.connection.request(method, path, body, headers)
            except (BrokenPipeError, ConnectionResetError, ConnectionClosed):
                if not reused:
                    raise
                # The server closed the kept-alive connection as the request went out (it closes one silent for
                # 10 s): nothing of it was answered, so send it again on a new one, as browsers and urllib3 do.
                self.connection.close()
                status, answer_headers, data = self.connection.request(method, path, body, headers)
        except (OSError, ValueError) as exc:
            seconds = time.perf_counter() - start
            self.tally.record(seconds if timed else None, f"{method} {path}: {exc!r}")
            self.connection.close()  # the next request opens a new connection
            return Response(0, Headers(), b"", seconds, False)
        seconds = time.perf_counter() - start
        for cookie in answer_headers.get_all("Set-Cookie") or ():
            name, _, value = cookie.split(";", 1)[0].partition("=")
            self.cookies[name.strip()] = value.strip()
        ok = status in expect
        self.tally.record(seconds if timed else None, None if ok else f"{method} {path}: HTTP {status}")
        return Response(status, answer_headers, data, seconds, ok)


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
