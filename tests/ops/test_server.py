"""`python -m companion serve`: the banner, refusals with a message instead of a traceback, the request limits
of both servers, and several worker processes signing with one key."""

import http.client
import json
import os
import re
import select
import signal
import socket
import stat
import subprocess
import sys
import time

import pytest

from companion.ops.server import banner, granian_available
from companion.web.core.app import create_app
from companion.web.core.config import MAX_REQUEST_BODY
from companion.web.cryptid.tokens import host_token
from tests.helpers import GOLDEN, REPO
from tests.helpers.processes import alive, children
from tests.helpers.serving import SERVE, free_port, running_server

LAN = "192.168.1.20"
PUBLIC = "https://cryptid.example.org"
needs_granian = pytest.mark.skipif(not granian_available(), reason="granian runs on Linux and macOS here")


@pytest.mark.parametrize(
    "host, public_url, lan, local, phones",
    [
        ("0.0.0.0", None, LAN, "http://localhost:5000", f"Phones on the same Wi-Fi: http://{LAN}:5000"),
        ("::", None, LAN, "http://localhost:5000", f"Phones on the same Wi-Fi: http://{LAN}:5000"),
        ("0.0.0.0", None, None, "http://localhost:5000", "No network address found: phones can reach this site only"),
        ("127.0.0.1", None, LAN, "http://127.0.0.1:5000", "Phones cannot reach this server: it listens on 127.0.0.1"),
        ("::1", None, LAN, "http://[::1]:5000", "Phones cannot reach this server: it listens on ::1"),
        ("localhost", None, None, "http://localhost:5000", "Phones cannot reach this server: it listens on localhost"),
        (LAN, None, "10.0.0.3", f"http://{LAN}:5000", f"Phones on the same network: http://{LAN}:5000"),
        ("127.0.0.1", PUBLIC, None, "http://127.0.0.1:5000", f"Phones will open {PUBLIC}"),
    ],
)
def test_the_banner_says_where_the_host_and_the_phones_go(host, public_url, lan, local, phones):
    lines = banner(host, 5000, public_url, lan, "granian", 4, 250, "/data/instance").splitlines()
    assert lines[0] == f"Cryptid companion on {local}"
    assert lines[1].startswith(phones)
    assert lines[2:] == [
        "Server: granian, 4 worker processes with 250 threads each.",
        "Instance folder (secret key, SQLite database): /data/instance",
        "Press Ctrl+C to stop.",
    ]
    assert banner(host, 5000, public_url, lan, "waitress", 1, 1000, "/i").splitlines()[2] == (
        "Server: waitress, 1 process with 1000 threads."
    )


def _serve(*arguments: str, env: dict | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", *arguments]
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, env=env, timeout=60)


@pytest.mark.parametrize(
    "arguments, environment, words",
    [
        (["--server", "waitress", "--workers", "2"], {}, "waitress runs one process"),
        ([], {"COMPANION_SECRET_KEY": ""}, "COMPANION_SECRET_KEY has 0 characters; it needs at least 32"),
        ([], {"COMPANION_SECRET_KEY": "hunter2"}, "COMPANION_SECRET_KEY has 7 characters"),
        ([], {"COMPANION_PURGE_AFTER_DAYS": "soon"}, "COMPANION_PURGE_AFTER_DAYS must be a whole number of days"),
        ([], {"COMPANION_PUBLIC_URL": "cryptid.example.org"}, "COMPANION_PUBLIC_URL must be a full address"),
    ],
)
def test_serve_refuses_what_cannot_work_with_a_message(arguments, environment, words):
    result = _serve("--port", str(free_port()), *arguments, env=dict(os.environ, **environment))
    assert result.returncode == 1
    assert result.stdout == ""  # no banner for a server that does not start
    assert result.stderr.startswith("error: ") and words in result.stderr
    assert "Traceback" not in result.stderr


def test_a_busy_port_is_reported_before_the_banner():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = _serve("--port", str(port))
    assert result.returncode == 1 and result.stdout == ""
    assert f"Port {port} is already in use by another program" in result.stderr
    assert "--port 5050" in result.stderr and "Traceback" not in result.stderr


def _raw_status(port: int, request: bytes) -> int:
    """The status the server answers a raw request with."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        try:
            connection.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before the whole request was sent: the answer is waiting
        status_line = connection.makefile("rb").readline()
    return int(status_line.split()[1])


SERVERS = [pytest.param("granian", marks=needs_granian), "waitress"]


@pytest.mark.slow
@pytest.mark.parametrize("server", SERVERS)
def test_oversized_requests_are_refused_early(server, tmp_path):
    port = free_port()
    workers = ["--workers", "1"] if server == "granian" else []
    command = [*SERVE, "--host", "127.0.0.1", "--port", str(port),
               "--server", server, "--threads", "4", *workers]
    with running_server(command, port, cwd=REPO, env=dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path))):
        assert _raw_status(port, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n") == 200
        huge_header = b"GET / HTTP/1.1\r\nHost: localhost\r\nAccept-Language: " + b"el," * 78_000 + b"\r\n\r\n"
        assert _raw_status(port, huge_header) == 431
        body = b"players=4&pad=" + b"x" * MAX_REQUEST_BODY
        big_post = b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        assert _raw_status(port, big_post + b"Content-Length: %d\r\n\r\n" % len(body) + body) == 413


def hold(port: int, path: str) -> http.client.HTTPConnection:
    """A connection whose request for `path` is sent and not yet read."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path)
    return connection


def answered(connection: http.client.HTTPConnection) -> bool:
    """Whether the server has answered the connection's request already (it is no longer held)."""
    return bool(select.select([connection.sock], [], [], 0)[0])


@pytest.mark.slow
@needs_granian
def test_kept_alive_connections_beyond_the_threads_do_not_stall_a_new_one(tmp_path):
    """Granian's limit on a worker's open connections counts idle kept-alive ones too: set to the threads' number,
    phones keeping their connections open made every new connection wait until one of theirs closed (28-second
    stalls at 300 tables). Twelve idle connections to a worker of four threads, and a new one is answered while
    all twelve are still open."""
    port = free_port()
    command = [*SERVE, "--host", "127.0.0.1", "--port", str(port),
               "--threads", "4", "--workers", "1"]
    with running_server(command, port, cwd=REPO, env=dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path))):
        idle = []
        for _ in range(12):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("GET", "/help")
            connection.getresponse().read()
            idle.append(connection)  # kept alive, silent
        assert _raw_status(port, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n") == 200
        assert not any(answered(connection) for connection in idle)  # none was closed to make room
        for connection in idle:
            connection.close()


@pytest.mark.slow
@pytest.mark.parametrize("server", ["waitress", pytest.param("granian", marks=needs_granian)])
def test_an_address_over_its_share_gets_a_429_not_a_500(tmp_path, server):
    """The fair share's refusal under each server (waitress refuses a hop-by-hop header from the site, PEP 3333,
    with a 500 of its own: the refusal asks for the connection's close only where the server allows it). One
    worker process: each process counts its own threads' share."""
    port = free_port()
    command = [*SERVE, "--host", "127.0.0.1", "--port", str(port),
               "--server", server, "--threads", "4", *(["--workers", "1"] if server == "granian" else [])]
    env = dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path), COMPANION_REQUESTS_PER_ADDRESS="1")
    with running_server(command, port, cwd=REPO, env=env):
        dealer = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        dealer.request("POST", "/api/tables", body='{"players": 3}', headers={"Content-Type": "application/json"})
        table = json.loads(dealer.getresponse().read())
        dealer.request("GET", f"/api/tables/{table['code']}/play")
        version = json.loads(dealer.getresponse().read())["version"]
        dealer.close()
        held = f"/api/tables/{table['code']}/play?wait={version}"  # a long poll: the address's one share, held
        waiting = hold(port, held)
        # Ask until the held request has taken the share (nothing else tells when it has): then the answer is a
        # 429. A probe may reach the site first (granian runs requests on several threads, in no set order) and
        # take the share for a moment, so that the held request is the one refused: it is then asked again.
        for _ in range(600):
            refused = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            refused.request("GET", "/")
            answer = refused.getresponse()
            answer.read()
            refused.close()
            if answer.status != 200:
                break
            if answered(waiting):
                waiting.close()
                waiting = hold(port, held)
            time.sleep(0.05)
        assert answer.status == 429 and answer.getheader("Retry-After")
        waiting.close()


@pytest.mark.slow
@needs_granian
def test_worker_processes_share_one_secret_key(tmp_path):
    """A fresh instance folder and several workers: every worker accepts the host link signed with the key
    file's key, and signs the seat links alike."""
    port = free_port()
    command = [*SERVE, "--host", "127.0.0.1", "--port", str(port),
               "--workers", "3", "--threads", "2"]
    code = GOLDEN[0]["code"]
    with running_server(command, port, cwd=REPO, env=dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path))) as text:
        assert "Server: granian, 3 worker processes with 2 threads each." in text
        key = (tmp_path / "secret_key").read_text()
        assert len(key) == 64
        with create_app({"TESTING": True, "SECRET_KEY": key}).test_request_context():
            host_page = f"/h/{host_token(code)}"
        pages = set()
        for _ in range(12):  # a new connection each time, so the workers take turns
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("GET", host_page)
            response = connection.getresponse()
            assert response.status == 200
            pages.add(tuple(re.findall(r'class="seat-link"[^>]*>([^<]+)<', response.read().decode())))
            connection.close()
    assert len(pages) == 1 and len(next(iter(pages))) == GOLDEN[0]["players"]


@pytest.mark.slow
@needs_granian
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_leave_with_their_parent_and_the_port_is_free_again(tmp_path):
    """Killing only serve's main process (SIGKILL: nothing of its own can react) takes its workers with it, so
    that the next serve on the same port starts, and the workers of that one answer. (Started with
    `--computer-workers 0`, it has no other child.)"""
    port = free_port()
    command = [*SERVE, "--host", "127.0.0.1", "--port", str(port),
               "--workers", "2", "--threads", "4"]
    environment = dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path))
    main = subprocess.Popen(command, cwd=REPO, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers, hang = [], time.monotonic() + 120  # bounds a hang only
        while len(workers) < 2 or _raw_status_or_none(port) != 200:
            assert main.poll() is None and time.monotonic() < hang, "serve did not start"
            workers = children(main.pid)
            time.sleep(0.1)
        assert sorted(workers) == sorted(_web_workers(main.pid))  # `--computer-workers 0`: no computers' worker
        main.kill()
        main.wait()
        while any(alive(worker) for worker in workers):  # they go at once
            assert time.monotonic() < hang, "the workers outlived their parent"
            time.sleep(0.05)
    finally:
        if main.poll() is None:
            main.kill()
            main.wait()
    with running_server(command, port, cwd=REPO, env=environment):
        # The port accepts before every worker of the new serve is up: wait for one to answer, as above.
        hang = time.monotonic() + 120  # bounds a hang only
        while (status := _raw_status_or_none(port)) is None:
            assert time.monotonic() < hang, "the restarted serve never answered"
            time.sleep(0.1)
        assert status == 200


@pytest.mark.slow
@needs_granian
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_stop_while_the_workers_load_the_site_reaches_them(tmp_path):
    """`serve` stopped while its workers are still loading the site (Ctrl+C just after starting it): every
    worker leaves with it. A worker forked with the main process's signal handlers lost such a stop, served on,
    and granian killed it 30 seconds later, saying so; it did in one stop of three of the test above."""
    command = [*SERVE, "--host", "127.0.0.1", "--port", str(free_port()), "--workers", "2", "--threads", "4"]
    environment = dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path))
    main = subprocess.Popen(command, cwd=REPO, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        hang = time.monotonic() + 120  # bounds a hang only
        while len(_web_workers(main.pid)) < 2:  # forked, and loading the site for about half a second
            assert main.poll() is None and time.monotonic() < hang, "serve did not start its workers"
            time.sleep(0.01)
        main.terminate()
        output = main.communicate(timeout=120)[0]  # bounds a hang only (granian logs on standard output)
    finally:
        if main.poll() is None:
            main.kill()
            main.communicate()
    assert "Press Ctrl+C to stop" in output  # what granian would say is said here
    assert "refused to gracefully stop" not in output
    assert main.returncode == 0


@pytest.mark.slow
@needs_granian
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_reaches_the_main_process_alone_which_stops_every_worker(tmp_path):
    """Ctrl+C in a terminal signals the whole process group of the job. `serve`'s workers keep to groups of their
    own, so the stop reaches the main process alone, which stops each worker once. A worker that got the
    terminal's SIGINT and the main process's SIGTERM together missed the stop in one Ctrl+C of three, and granian
    killed it 30 seconds later."""
    port = free_port()
    command = [*SERVE, "--host", "127.0.0.1", "--port", str(port), "--workers", "2", "--threads", "4"]
    environment = dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path))
    main = subprocess.Popen(command, cwd=REPO, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)  # a group of its own, as a terminal's job has
    try:
        hang = time.monotonic() + 120  # bounds a hang only
        while len(workers := _web_workers(main.pid)) < 2 or _raw_status_or_none(port) != 200:
            assert main.poll() is None and time.monotonic() < hang, "serve did not start"
            time.sleep(0.1)
        assert all(os.getpgid(worker) != main.pid for worker in workers)
        os.killpg(main.pid, signal.SIGINT)
        output = main.communicate(timeout=120)[0]  # bounds a hang only (granian logs on standard output)
    finally:
        if main.poll() is None:
            main.kill()
            main.communicate()
    assert "Press Ctrl+C to stop" in output and "refused to gracefully stop" not in output
    assert main.returncode == 0


def _web_workers(pid: int) -> list[int]:
    """The granian workers of a `serve` (its computer players' worker left out)."""
    found = []
    for child in children(pid):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as cmdline:
                if b"serve" in cmdline.read().split(b"\0"):
                    found.append(child)
        except OSError:  # gone meanwhile
            continue
    return found


def _raw_status_or_none(port: int) -> int | None:
    try:
        return _raw_status(port, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
    except OSError:
        return None


HANG_SECONDS = 60  # bounds a hang only


def _gone(pid: int) -> bool:
    hang = time.monotonic() + HANG_SECONDS
    while alive(pid):
        if time.monotonic() > hang:
            os.kill(pid, 9)  # started by this test: it must not outlive it either way
            return False
        time.sleep(0.05)
    return True


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("death", ["exit", "sigkill"])
def test_the_computer_players_leave_when_serve_is_gone_before_they_started(tmp_path, death):
    """`serve` starts the computer players' worker and dies at once, long before the worker has loaded the
    site (a kill -9 in serve's first half second): the worker, adopted by init, must still leave. Before, it
    read its parent's pid only once loaded (then init's) and ran on for good."""
    parent_code = ("import os, signal, sys\n"
                   "from companion.ops.server import start_computer_players\n"
                   "print(start_computer_players().pid, flush=True)\n"
                   + ("os._exit(0)\n" if death == "exit" else "os.kill(os.getpid(), signal.SIGKILL)\n"))
    parent = subprocess.Popen([sys.executable, "-c", parent_code], cwd=REPO, stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path)))
    worker = int(parent.stdout.readline())
    parent.wait()
    parent.stdout.close()
    assert _gone(worker), "the computer players' worker outlived serve"


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="SIGTERM")
def test_sigterm_stops_the_computer_players_in_the_middle_of_a_turn(tmp_path):
    """A stop asked for while a turn is being taken (a long decision, or a database call that keeps failing)
    ends the worker at once, with status 0; before, it only stopped looking for the next turn."""
    worker_code = ("import threading\n"
                   "from companion.web.core import computers\n"
                   "from companion.ops.server import run_computer_players\n"
                   "def take(turn):\n"
                   "    print('taking', flush=True)\n"
                   "    threading.Event().wait(3600)\n"
                   "computers.register('stuck', lambda: ['a turn'], take)\n"
                   "run_computer_players()\n")
    worker = subprocess.Popen([sys.executable, "-c", worker_code], cwd=REPO, stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path), COMPANION_COMPUTER_PAUSE="0"))
    try:
        assert worker.stdout.readline() == "taking\n"
        worker.terminate()
        assert worker.wait(timeout=HANG_SECONDS) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        worker.stdout.close()


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str) -> None:
        super().__init__("localhost", timeout=30)
        self.path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(self.path)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets")
@pytest.mark.parametrize("server", SERVERS)
def test_serve_on_a_unix_socket_only_its_user_and_group_reach(server, tmp_path):
    """Behind a proxy on the same machine the back end listens on a socket file (mode 660), not on an address
    anyone could reach to bypass the proxy and forge X-Forwarded-For; a file left by a killed server is replaced."""
    path = tmp_path / "site.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # what a killed server leaves: a socket file nobody listens on
    stale.close()
    workers = ["--workers", "1"] if server == "granian" else []
    command = [*SERVE, "--unix-socket", str(path), "--server", server,
               "--threads", "4", *workers]
    process = subprocess.Popen(command, cwd=REPO, env=dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path)),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout.readline().startswith(f"Cryptid companion on the Unix socket {path}")
        hang = time.monotonic() + 120  # bounds a hang only
        while True:
            try:
                connection = _UnixConnection(str(path))
                connection.request("GET", "/", headers={"X-Forwarded-For": "198.51.100.7"})
                status = connection.getresponse().status
                connection.close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < hang, "serve did not answer on its socket"
                time.sleep(0.1)
        assert status == 200
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o660
    finally:
        process.terminate()
        process.wait(timeout=60)
        process.stdout.close()


# A handler as granian's is: a stop sets something under a lock. The first stop's handler, holding the lock, gets a
# second stop (sent from inside it, to have it arrive at that moment every time). On the main thread, the second
# handler would run among the first one's steps and wait for the lock that the first one holds, forever.
_TWO_STOPS_AT_ONCE = """
import os, signal, threading
from companion.ops.server import off_the_main_thread

lock = threading.Lock()
second_began = threading.Event()
held = []  # for each stop: whether the lock was held when its handler began
finished = []

def handler(signum, frame):
    held.append(lock.locked())
    if len(held) == 2:
        second_began.set()
    with lock:
        if len(held) == 1:
            os.kill(os.getpid(), signal.SIGTERM)  # the second stop, while this handler holds the lock
            second_began.wait()
    finished.append(signum)

signal.signal(signal.SIGTERM, off_the_main_thread(handler))
os.kill(os.getpid(), signal.SIGTERM)
while len(finished) < 2:
    threading.Event().wait(0.01)
print(held)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="os.kill with SIGTERM ends a Windows process outright")
def test_a_second_stop_during_the_first_ones_handler_is_handled():
    """`serve` runs granian's stop handlers on threads of their own (run_stop_handlers_off_the_main_thread): on
    the main thread, a second SIGTERM arriving while the first one's handler held its lock waited for that lock
    forever, and `serve` hung with its workers gone."""
    command = [sys.executable, "-c", _TWO_STOPS_AT_ONCE]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)  # bounds a hang only
    assert done.stdout == "[False, True]\n" and done.returncode == 0  # the second came while the first held the lock
