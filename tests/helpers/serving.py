"""Run `python -m companion serve` for a test: on a free loopback port, stopped and reaped afterwards."""

import contextlib
import socket
import subprocess
import sys
import tempfile
import time

START_SECONDS = 30
# `python -m companion serve` with one computer players' worker, not one per core: a test whose point is not the
# computers' share of turns gains nothing from a second, which costs a process loading the site.
SERVE = [sys.executable, "-m", "companion", "serve", "--computer-workers", "1"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def running_server(command: list, port: int, **popen):
    """Start the server, wait until it accepts connections, yield its banner; stop it however the test ends."""
    with tempfile.TemporaryFile(mode="w+") as errors:
        server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True, **popen)
        try:
            deadline = time.monotonic() + START_SECONDS
            while True:
                if server.poll() is not None:
                    errors.seek(0)
                    raise AssertionError(f"the server stopped with status {server.returncode}: {errors.read()}")
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "the server did not start"
                    time.sleep(0.1)
            banner = []
            for line in server.stdout:  # the banner is out by now: the socket listens before it is printed
                banner.append(line)
                if line.startswith("Press Ctrl+C"):
                    break
            yield "".join(banner)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            server.stdout.close()
