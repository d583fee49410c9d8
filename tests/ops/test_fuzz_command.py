"""`python -m companion fuzz` against a running server: a seeded sample of its requests, no 5xx; and what the
server does with a body too large (413, then the connection closes instead of reading the rest as a request)."""

import os
import socket
import subprocess
import sys

import pytest

from companion.ops.server import granian_available
from tests.helpers import REPO
from tests.helpers.serving import SERVE, free_port, running_server

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not granian_available(), reason="granian runs on Linux and macOS")]


@pytest.fixture
def site(tmp_path):
    port = free_port()
    command = [*SERVE, "--host", "127.0.0.1", "--port", str(port),
               "--workers", "1", "--threads", "32"]
    environment = dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path))
    with running_server(command, port, cwd=REPO, env=environment):
        yield port


def test_a_seeded_fuzz_of_the_running_site_sees_no_server_error(site):
    command = [sys.executable, "-m", "companion", "fuzz", "--requests", "1500", "--seed", "24",
               f"http://127.0.0.1:{site}"]
    finished = subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=600)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "1500 requests to" in finished.stdout
    assert "server errors (5xx): 0; no answer: 0" in finished.stdout
    assert "404: " in finished.stdout and "405: " in finished.stdout


def test_a_413_closes_its_connection(site):
    body = b"players=4&pad=" + b"x" * 64 * 1024
    request = (b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n"
               b"Content-Length: %d\r\n\r\n" % len(body))
    with socket.create_connection(("127.0.0.1", site), timeout=30) as connection:
        connection.sendall(request + body[:1024])  # the rest never comes: the server must not wait for it
        answer = connection.makefile("rb")
        assert answer.readline().split()[1] == b"413"
        headers = []
        while (line := answer.readline()) not in (b"\r\n", b""):
            headers.append(line.lower())
        assert b"connection: close\r\n" in headers
        length = next(int(h.split(b":")[1]) for h in headers if h.startswith(b"content-length:"))
        answer.read(length)
        assert answer.read() == b""  # closed by the server, nothing else on it
