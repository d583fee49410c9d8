"""Run `python -m companion serve` for a test: on a free loopback port, stopped and reaped afterwards."""

import contextlib
import socket
import subprocess
import sys
import tempfile
import time

START_SECONDS = 30
# `python -m companion serve` without computer players' workers: no test that starts it this way plays a
# computer's turn, and each worker is a process loading the whole site (half a CPU-second). The tests of the
# computers' workers under serve (tests/ops/test_computer_players.py) start them.
SERVE = [sys.executable, "-m", "companion", "serve", "--computer-workers", "0"]


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
