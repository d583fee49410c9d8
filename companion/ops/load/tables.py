"""`python -m companion load`: game-night traffic against the production server, on this machine only.

Starts `python -m companion serve` on a free loopback port (or uses --url, which must be loopback), then
simulates tables arriving over the first 10 seconds (over half the run, if shorter): each host deals a game
and keeps its screen open, and each phone opens its seat page and polls the table panel every 3 seconds with
If-None-Match, as the page's script does, asking for the hint, the stronger hint and the reveal now and then.
Prints requests per second, latency percentiles and errors. Everything is bounded: a fixed number of clients
for a fixed time.
"""

from __future__ import annotations

import http.client
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

from companion.web.core.network import is_local_host

POLL_SECONDS = 3.0
STEPS = ("hint", "tile", "reveal")


@dataclass
class Tally:
    """Latencies and failures from every client, guarded by one lock."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, seconds: float, error: str | None = None) -> None:
        with self.lock:
            self.latencies.append(seconds)
            if error:
                self.errors.append(error)


class Client:
    """One browser: a keep-alive connection, a cookie jar of one session cookie, timing every request."""

    def __init__(self, host: str, port: int, tally: Tally) -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=30)
        self.cookie = ""
        self.tally = tally

    def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None, expect=(200,)):
        headers = dict(headers or {})
        if self.cookie:
            headers["Cookie"] = self.cookie
        data = None
        if body is not None:
            data = urlencode(body)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        start = time.perf_counter()
        try:
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
            text = response.read().decode()
        except (OSError, http.client.HTTPException) as exc:
            self.tally.record(time.perf_counter() - start, f"{method} {path}: {exc!r}")
            self.connection.close()
            return None, "", http.client.HTTPMessage()
        elapsed = time.perf_counter() - start
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        error = None if response.status in expect else f"{method} {path}: HTTP {response.status}"
        self.tally.record(elapsed, error)
        return response.status, text, response.headers  # names match in any case, as HTTP says


def _csrf(page: str) -> str:
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    return match.group(1) if match else ""


ARRIVAL_SECONDS = 10.0  # tables sit down over the first seconds, as at a real game night


def arrival_seconds(seconds: float) -> float:
    """How long tables keep arriving: ARRIVAL_SECONDS, or half a shorter run, so every table gets to play."""
    return min(ARRIVAL_SECONDS, seconds / 2)


def _table(host: str, port: int, phones: int, arrival: float, until: float, tally: Tally, rng: random.Random) -> None:
    """One table: sits down within `arrival` seconds, the host deals a game, then the host screen and every
    phone run until `until`."""
    time.sleep(rng.uniform(0, arrival))
    screen = Client(host, port, tally)
    _, home, _ = screen.request("GET", "/")
    players = min(5, max(2, phones))
    status, _, headers = screen.request("POST", "/", {"csrf_token": _csrf(home), "players": players}, expect=(303,))
    if status != 303 or not headers.get("Location"):
        return
    setup_path = urlsplit(headers["Location"]).path
    _, setup, _ = screen.request("GET", setup_path)
    seat_paths = [urlsplit(url).path for url in re.findall(r'class="seat-link"[^>]*>([^<]+)<', setup)]
    threads = [threading.Thread(target=_screen, args=(screen, setup_path + "/table", until, tally, rng))]
    for path in seat_paths[:phones]:
        threads.append(threading.Thread(target=_phone, args=(host, port, path, until, tally, random.Random(rng.random()))))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _poll(client: Client, path: str, etag: str | None) -> str | None:
    headers = {"If-None-Match": etag} if etag else {}
    status, _, response_headers = client.request("GET", path, headers=headers, expect=(200, 304))
    return response_headers.get("ETag", etag) if status == 200 else etag


def _screen(client: Client, panel: str, until: float, tally: Tally, rng: random.Random) -> None:
    etag = None
    time.sleep(rng.uniform(0, POLL_SECONDS))
    while time.monotonic() < until:
        etag = _poll(client, panel, etag)
        time.sleep(POLL_SECONDS)


def _phone(host: str, port: int, seat_path: str, until: float, tally: Tally, rng: random.Random) -> None:
    time.sleep(rng.uniform(0, POLL_SECONDS))  # players scan their QR codes one after another
    client = Client(host, port, tally)
    _, page, _ = client.request("GET", seat_path)
    token = _csrf(page)
    etag = None
    next_vote = time.monotonic() + rng.uniform(5, 25)
    step = 0
    while time.monotonic() < until:
        etag = _poll(client, seat_path + "/table", etag)
        if time.monotonic() >= next_vote and step < len(STEPS):
            action = "/withdraw" if rng.random() < 0.15 else ""
            status, _, _ = client.request(
                "POST", f"{seat_path}/votes/{STEPS[step]}{action}", {"csrf_token": token}, expect=(303, 409)
            )
            if status == 303 and not action:
                step += 1
            next_vote = time.monotonic() + rng.uniform(8, 20)
        time.sleep(POLL_SECONDS)


def percentile_ms(values: list[float], fraction: float) -> float | None:
    """The value below which `fraction` of the (seconds) values lie, in milliseconds; None without values."""
    return round(sorted(values)[min(len(values) - 1, int(len(values) * fraction))] * 1000, 1) if values else None


def print_errors_and_machine(tally: Tally) -> None:
    for error in tally.errors[:10]:
        print("  error:", error, flush=True)
    if any("HTTP 429" in error for error in tally.errors):
        limits = " ".join(f'{name}="{value}"' for name, value in LOAD_LIMITS.items())
        print(f"  (429: the server's per-address rate limits; start it with {limits} for a load run)", flush=True)
    print(machine_line(), flush=True)


def machine_line() -> str:
    """The machine a figure was measured on: cores and load average (figures mean little without them)."""
    try:
        one, five, fifteen = os.getloadavg()
        load = f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} (1, 5, 15 min)"
    except (AttributeError, OSError):  # Windows has no load average
        load = "load average not available on this system"
    return f"Machine: {os.cpu_count()} cores, {load}, Python {sys.version.split()[0]} on {sys.platform}."


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# Stopping, the server lets requests in progress finish for up to 30 seconds (server.STOP_SECONDS).
SHUTDOWN_SECONDS = 40


# Every simulated host and phone comes from 127.0.0.1, where a real game night's phones each have an address
# of their own: the server started for a load run counts per-address limits far higher.
LOAD_LIMITS = {
    "COMPANION_RATE_LIMIT_NEW_GAMES": "100000 per minute",
    "COMPANION_RATE_LIMIT_ACTIONS": "1000000 per minute",
}


def _start_server() -> tuple[subprocess.Popen, str]:
    port = _free_port()
    environment = dict(os.environ, COMPANION_INSTANCE_PATH=tempfile.mkdtemp(prefix="companion-load-"), **LOAD_LIMITS)
    server = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return server, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("the server did not start")


def _loopback(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    if not is_local_host(parts.netloc) or parts.scheme != "http":
        raise SystemExit(f"refusing {url}: the load test only targets http:// on this machine (127.0.0.1, ::1)")
    return parts.hostname, parts.port or 80


def run_load(tables: int = 40, phones: int = 5, seconds: float = 60, url: str | None = None) -> dict:
    """Run the simulation and print its figures, with the machine's cores and load before and after."""
    print(machine_line(), flush=True)
    server = None
    if url is None:
        server, url = _start_server()
    host, port = _loopback(url)
    tally = Tally()
    rng = random.Random(2026)
    until = time.monotonic() + seconds
    started = time.monotonic()
    workers = [
        threading.Thread(
            target=_table,
            args=(host, port, phones, arrival_seconds(seconds), until, tally, random.Random(rng.random())),
        )
        for _ in range(tables)
    ]
    try:
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        elapsed = time.monotonic() - started  # the traffic alone, not the server's shutdown
    finally:
        if server:
            server.terminate()
            server.wait(timeout=SHUTDOWN_SECONDS)
    latencies = sorted(tally.latencies)
    result = {
        "tables": tables,
        "phones_per_table": phones,
        "seconds": round(elapsed, 1),
        "requests": len(latencies),
        "requests_per_second": round(len(latencies) / elapsed, 1),
        "p50_ms": percentile_ms(latencies, 0.5),
        "p95_ms": percentile_ms(latencies, 0.95),
        "p99_ms": percentile_ms(latencies, 0.99),
        "errors": len(tally.errors),
    }
    print(
        f"{tables} tables x {phones} phones for {result['seconds']} s against {url}: "
        f"{result['requests']} requests, {result['requests_per_second']} req/s, "
        f"p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, p99 {result['p99_ms']} ms, {result['errors']} errors",
        flush=True,
    )
    print_errors_and_machine(tally)
    return result
