"""`python -m companion serve`: the site on a production server, every core busy, with one clear banner.

On Linux and macOS granian runs the site in one worker process per core: connections, keep-alive and HTTP
parsing are handled in Rust outside Python's interpreter lock, and each worker runs the site itself on a
pool of threads. A phone's live-update request, held open for up to 30 seconds, takes one thread, never a
whole process. Elsewhere (Windows) waitress runs the site in one process with threads.

Each worker process calls create_app() after it starts, so anything the site starts (threads, connection
pools) belongs to that worker. The secret key is settled in the first process, before any worker starts,
so every worker signs with the same key.
"""

from __future__ import annotations

import errno
import gc
import ipaddress
import os
import select
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from importlib.util import find_spec
from typing import TYPE_CHECKING, Callable

from companion.web.core.network import lan_address

if TYPE_CHECKING:  # the command line reads this module's defaults without loading Flask
    from flask import Flask

    from companion.web.core.computers import Share

SERVERS = ("granian", "waitress")
# Connections open at once: every phone of a big game night (40 tables of 5 phones and their host screens)
# and some to spare. Each may hold a live update, so the threads of all processes add up to this number;
# idle keep-alive connections between polls cost no thread.
LIVE_CONNECTIONS = 1000
REQUEST_THREADS = 64  # beyond the live connections: pages, polls and moves answered meanwhile
# Connections one granian worker keeps open at once, kept-alive idle ones included (its "backpressure" counts
# connections, not requests: a worker holding that many accepts no more until one closes). A phone may keep a
# few (its page's live update, a form it sent, an asset), so far more than the threads.
CONNECTIONS_PER_WORKER = 8192
FILES_TO_SPARE = 256  # open files a worker needs besides its connections: the database, logs, its pipes
# Phones poll every 3 seconds over a kept-alive connection; one that stays silent for this long is closed,
# so a client holding hundreds of idle connections lets go of them within seconds, not minutes. A request
# in progress (a live update held for up to 30 seconds) is never idle.
IDLE_SECONDS = 10
IDLE_CHECK_SECONDS = 5  # waitress looks for idle connections this often
MAX_REQUEST_HEADERS = 16 * 1024  # the request line and all header lines together; a browser sends about 1 KiB
STOP_SECONDS = 30  # stopping, requests in progress (a held live update at most) get this long to finish
SELECT_SOCKET_LIMIT = 500  # without poll() (Windows), select() watches at most 512 sockets
LISTEN_BACKLOG = 2048  # phones scanning their QR codes at once wait here, not refused


class ServeError(Exception):
    """The server cannot start; the message says why and what to do instead."""


def granian_available() -> bool:
    return sys.platform != "win32" and find_spec("granian") is not None


def default_server() -> str:
    return "granian" if granian_available() else "waitress"


def default_workers(server: str) -> int:
    return (os.cpu_count() or 1) if server == "granian" else 1


def default_threads(workers: int) -> int:
    """Threads per worker process: enough to hold every live connection of a game night and still answer
    everyone else at once. Connections are not dealt out to workers by how busy they are (the kernel spreads
    them by address and port), so each worker gets room for all of them; threads start only when needed and
    stop when idle."""
    return LIVE_CONNECTIONS + REQUEST_THREADS


def serve(
    host: str = "0.0.0.0",
    port: int = 5000,
    workers: int | None = None,
    threads: int | None = None,
    server: str | None = None,
    unix_socket: str | None = None,
    computer_workers: int | None = None,
) -> None:
    """Check the settings and the port, print the banner, then serve until interrupted; raises ServeError
    (or companion.web.core.config.ConfigurationError) with a message for the user instead of starting.

    unix_socket: listen on this socket file instead of an address and port, for a reverse proxy on the same
    machine: only users that may open the file (its owner and group: mode 660) reach the site, so nobody can
    bypass the proxy and forge the X-Forwarded-For header it sets.
    computer_workers: computer players' worker processes (default: one per core), each with its share of turns;
    0 starts none, where another `serve` on the same database or `python -m companion computers` takes them."""
    from companion.web.core.app import create_app
    from companion.web.core.config import (
        environment_settings,
        instance_folder,
        secret_key,
    )
    from companion.web.core.network import LISTEN_HOST_VARIABLE

    server = server or default_server()
    if server == "granian" and not granian_available():
        raise ServeError("granian runs on Linux and macOS here: use --server waitress on this system.")
    if server == "waitress" and workers not in (None, 1):
        raise ServeError("waitress runs one process (with threads): leave out --workers, or use granian.")
    workers = workers or default_workers(server)
    threads = threads or default_threads(workers)
    public_url = environment_settings().get("PUBLIC_URL")
    instance = instance_folder()
    secret_key(instance)  # made (or refused) here, once, before any worker reads it
    # One client address may hold at most half of a worker's threads (core/fairshare.py), whatever --threads says.
    os.environ.setdefault("COMPANION_REQUESTS_PER_ADDRESS", str(max(1, threads // 2)))
    if unix_socket:
        if not hasattr(socket, "AF_UNIX"):
            raise ServeError("This system has no Unix sockets: use --host 127.0.0.1 and --port instead.")
        os.environ.pop(LISTEN_HOST_VARIABLE, None)
    else:
        os.environ[LISTEN_HOST_VARIABLE] = host  # pages then tell the host when phones cannot reach this address
    site = create_app() if server == "waitress" else None  # granian's workers each build their own
    if unix_socket:
        listener = listen_on_file(unix_socket, accept=server == "waitress")
        text = socket_banner(unix_socket, public_url, server, workers, threads, str(instance))
    else:
        listener = listen(host, port, accept=server == "waitress")  # granian opens its own sockets
        text = banner(host, port, public_url, lan_address(), server, workers, threads, str(instance))
    print(text, flush=True)
    os.environ[PARENT_VARIABLE] = str(os.getpid())  # granian's workers leave with this process (worker_site)
    count = default_computer_workers() if computer_workers is None else computer_workers
    players = [start_computer_players(index, count) for index in range(count)]
    try:
        if server == "granian":
            _run_granian(listener, workers, threads)
        else:
            _run_waitress(site, listener, threads)
    finally:
        for worker in players:
            worker.terminate()  # all asked at once: they stop together, not one after the other
        for worker in players:
            stop_computer_players(worker)


def listen(host: str, port: int, accept: bool = True) -> socket.socket:
    """A socket bound to the port, opened before the banner so that a busy port gets a message, not a
    traceback; listening if `accept`, else only holding the address for a server that opens its own."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
        both = family == socket.AF_INET6 and host in ("::", "") and socket.has_dualstack_ipv6()
        if accept:
            return socket.create_server((host, port), family=family, backlog=LISTEN_BACKLOG, dualstack_ipv6=both)
        # Bound as create_server() binds, but not listening: until the real server listens, a phone is
        # refused (and retries) instead of waiting on a connection nobody will answer.
        held = socket.socket(family, socket.SOCK_STREAM)
        if os.name == "posix":
            held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if both:
            held.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        held.bind((host, port))  # a refusal leaves with the process, which stops with a message
        return held
    except socket.gaierror:
        raise ServeError(
            f"{host} is no name or address this computer knows: use --host 0.0.0.0 (every address)."
        ) from None
    except OSError as exc:
        if _is(exc, "EADDRNOTAVAIL"):
            raise ServeError(
                f"{host} is not an address of this computer: use --host 0.0.0.0 (every address)."
            ) from None
        if _is(exc, "EADDRINUSE"):
            airplay = " (on recent macOS, the AirPlay Receiver uses port 5000)" if port == 5000 else ""
            raise ServeError(
                f"Port {port} is already in use by another program{airplay}. "
                "Pick another port, for example --port 5050."
            ) from None
        if _is(exc, "EACCES"):
            raise ServeError(
                f"This user may not listen on port {port}. Pick another port, for example --port 5050."
            ) from None
        raise ServeError(f"Cannot listen on {host} port {port}: {exc.strerror}.") from None


SOCKET_FILE_MODE = 0o660  # the server's user and group (the proxy's) may connect; no one else


def listen_on_file(path: str, accept: bool = True) -> socket.socket:
    """A Unix socket at `path`, mode 660 (listening if `accept`); a file left there by a server that was killed
    is replaced, a socket another server still listens on is a ServeError."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        pass
    else:
        raise ServeError(f"Another server already listens on {path}.")
    finally:
        probe.close()
    if os.path.exists(path) and not stat.S_ISSOCK(os.stat(path).st_mode):
        raise ServeError(f"{path} is a file, not a socket: pick another --unix-socket.")
    try:
        if os.path.exists(path):
            os.unlink(path)
        held = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        held.bind(path)
        os.chmod(path, SOCKET_FILE_MODE)
    except OSError as exc:
        raise ServeError(f"Cannot listen on {path}: {exc.strerror}.") from None
    if accept:
        held.listen(LISTEN_BACKLOG)
    return held


def socket_banner(path: str, public_url: str | None, server: str, workers: int, threads: int, instance: str) -> str:
    """What `serve --unix-socket` prints: the socket, where phones go (through the proxy), the server's size."""
    lines = [f"Cryptid companion on the Unix socket {path}, for a reverse proxy on this machine."]
    lines.append(f"Phones will open {public_url} (COMPANION_PUBLIC_URL)." if public_url else
                 "Set COMPANION_PUBLIC_URL to the address phones open through the proxy.")
    return "\n".join(lines + banner("127.0.0.1", 0, None, None, server, workers, threads, instance).splitlines()[2:])


def _is(error: OSError, name: str) -> bool:
    """Whether `error` is errno `name`, as POSIX numbers it or as Windows sockets do (WSA...)."""
    return error.errno in {getattr(errno, name), getattr(errno, "WSA" + name, None)}


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def banner(
    host: str,
    port: int,
    public_url: str | None,
    lan: str | None,
    server: str,
    workers: int,
    threads: int,
    instance: str,
) -> str:
    """What `serve` prints: where the host's browser and the phones go, the server's size, the instance folder."""
    every_address = host in ("0.0.0.0", "::", "")
    lines = [f"Cryptid companion on {_url('localhost' if every_address else host, port)}"]
    if public_url:
        lines.append(f"Phones will open {public_url} (COMPANION_PUBLIC_URL).")
    elif _loopback(host):
        lines.append(
            f"Phones cannot reach this server: it listens on {host}, which only this computer can reach. "
            "Use --host 0.0.0.0 to let phones on the same Wi-Fi in."
        )
    elif not every_address:
        lines.append(f"Phones on the same network: {_url(host, port)}")
    elif lan:
        lines.append(f"Phones on the same Wi-Fi: {_url(lan, port)}")
    else:
        lines.append("No network address found: phones can reach this site only if you set COMPANION_PUBLIC_URL.")
    if workers > 1:
        lines.append(f"Server: {server}, {workers} worker processes with {threads} threads each.")
    else:
        lines.append(f"Server: {server}, 1 process with {threads} threads.")
    lines.append(f"Instance folder (secret key, SQLite database): {instance}")
    lines.append("Press Ctrl+C to stop.")
    return "\n".join(lines)


def connection_budget(wanted: int = CONNECTIONS_PER_WORKER) -> int:
    """How many connections a worker process may keep open: `wanted`, after raising this process's limit of open
    files toward it (its workers inherit the limit; many systems start at 1,024 or 256), or what the limit
    allows where it cannot be raised so far."""
    try:
        import resource
    except ImportError:  # Windows: waitress, whose limit is its own (connection_limit)
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = wanted + FILES_TO_SPARE
    if soft != resource.RLIM_INFINITY and soft < needed:
        for target in (needed if hard == resource.RLIM_INFINITY else min(needed, hard), 10240):  # macOS: 10,240 at most
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                soft = target
                break
            except (ValueError, OSError):
                continue
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(REQUEST_THREADS, min(wanted, soft - FILES_TO_SPARE))


def _run_granian(listener: socket.socket, workers: int, threads: int) -> None:
    import logging
    from pathlib import Path

    from granian import Granian
    from granian.constants import HTTPModes, Interfaces
    from granian.http import HTTP1Settings
    from granian.log import LogLevels

    if listener.family == getattr(socket, "AF_UNIX", None):
        where = {"uds": Path(listener.getsockname()), "uds_permissions": SOCKET_FILE_MODE}
        listener.close()
        os.unlink(where["uds"])  # granian makes the socket file again
    else:
        address, port = listener.getsockname()[:2]
        where = {"address": address, "port": port}
        listener.close()  # granian binds the port again at once (on Linux, one socket per worker)
    logging.getLogger("_granian").addFilter(_QuietAboutThreads())
    if hasattr(os, "register_at_fork"):  # where granian forks its workers (Linux); a spawned worker has no gap
        os.register_at_fork(after_in_child=leave_if_stopped_while_loading)
        os.register_at_fork(after_in_child=take_stops_from_serve_only)
        # Forked workers start with what this process imported: the site's modules, loaded once here, spare
        # each worker about 0.3 CPU-seconds of its start. Each worker still builds its own app.
        from companion.web.core.app import import_site

        import_site()
    server = Granian(
        "companion.ops.server:worker_site",
        factory=True,
        interface=Interfaces.WSGI,
        **where,
        workers=workers,
        blocking_threads=threads,
        # Connections per worker (granian counts connections here, idle ones too): never the threads' number,
        # or kept-alive phones beyond it would stall every new connection until one of theirs closed.
        backpressure=max(threads, connection_budget()),
        backlog=LISTEN_BACKLOG,
        http=HTTPModes.http1,  # behind a proxy or on a LAN; phones speak HTTP/1.1 to it
        websockets=False,
        http1_settings=HTTP1Settings(
            header_read_timeout=IDLE_SECONDS * 1000,  # also how long a kept-alive connection may stay silent
            max_buffer_size=MAX_REQUEST_HEADERS,  # longer request headers get a 431
        ),
        respawn_failed_workers=True,
        workers_kill_timeout=STOP_SECONDS,
        log_level=LogLevels.warning,
    )
    server.on_startup(run_stop_handlers_off_the_main_thread)
    server.serve()


def run_stop_handlers_off_the_main_thread() -> None:
    """Run in `serve`'s main process once granian has set its handlers for a stop (SIGINT, SIGTERM) and a reload
    (SIGHUP): each now runs on a thread of its own. Such a handler sets a threading.Event, and Python runs signal
    handlers on the main thread between two of its steps; a second stop arriving while the first one's handler held
    the Event's lock (a SIGTERM from `timeout` and one from a kill, together) waited for that lock forever: `serve`
    hung, its workers gone. On a thread of its own, a handler waits for the lock and takes it."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        handler = signal.getsignal(signum) if signum is not None else None
        if callable(handler):
            signal.signal(signum, off_the_main_thread(handler))


def off_the_main_thread(handler: Callable[[int, object], object]) -> Callable[[int, object], None]:
    """A signal handler that runs `handler` on a new thread (without the frame, which belongs to the main one)."""

    def start(signum: int, frame: object) -> None:
        threading.Thread(target=handler, args=(signum, None), name=f"signal-{signum}", daemon=True).start()

    return start


# Set for every process `serve` starts (the computer players' worker, granian's workers): the pid of the `serve`
# process they belong to, so that each can tell at once whether that parent is already gone.
PARENT_VARIABLE = "COMPANION_SERVE_PID"
# Set for the computer players' worker only: its standard input is a pipe whose other end `serve` holds, so the
# end of that input (the parent gone, however it went) tells the worker to leave, on any system.
PARENT_PIPE_VARIABLE = "COMPANION_PARENT_PIPE"
PARENT_POLL_SECONDS = 1.0  # where neither a parent-death signal nor the pipe is there, the parent is looked for this often


def default_computer_workers() -> int:
    return os.cpu_count() or 1


def start_computer_players(index: int = 0, count: int = 1) -> subprocess.Popen:
    """The computer players' worker, a process of its own beside the web workers (docs/cryptid-bots.md): its
    decisions, up to hundreds of milliseconds of pure Python, never hold a web worker's interpreter lock. It
    leaves with this process, however this one ends (even killed outright, even before the worker has
    started: see leave_with_parent); a `serve` started again starts it again, and it takes every turn still
    owed at once. The caller keeps the returned process: its standard input is the pipe the worker watches.
    index, count: worker `index` of `count`, which takes its share of the turns first (`serve` starts one a core)."""
    environment = dict(os.environ, **{PARENT_VARIABLE: str(os.getpid()), PARENT_PIPE_VARIABLE: "stdin"})
    command = [sys.executable, "-m", "companion", "computers", "--share", f"{index}/{count}"]
    return subprocess.Popen(command, stdin=subprocess.PIPE, env=environment)


def stop_computer_players(players: subprocess.Popen) -> None:
    """Ask the worker to stop (SIGTERM: it leaves between two steps of a turn) and reap it."""
    players.terminate()
    try:
        players.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        players.kill()
        players.wait()
    if players.stdin:
        players.stdin.close()


def run_computer_players(share: Share | None = None) -> None:
    """`python -m companion computers`: take computer turns until stopped. SIGTERM stops it at once, even in
    the middle of a decision or a database call that is failing: a turn cut short writes nothing (its move is
    one transaction), and the next worker takes it again."""
    signal.signal(signal.SIGTERM, _leave_now)  # first: a stop asked for while the site loads is not missed
    leave_with_parent()
    from companion.web.core.app import create_app
    from companion.web.core.computers import Share, Worker

    worker = Worker(create_app(), share=share or Share())
    try:
        worker.run()
    except KeyboardInterrupt:
        pass


def _leave_now(signum, frame) -> None:
    """End the process at once, with status 0, skipping the interpreter's shutdown: its finalizers may wait for a
    lock that a daemon thread (the dealer's, the live watcher's) held when it was frozen. A worker stopped by
    raising SystemExit once outlived a test by two minutes. The database rolls back an open transaction."""
    os._exit(0)


def worker_site() -> Flask:
    """What each granian worker serves: the site, in a process that leaves when `serve`'s main process does,
    even when that one is killed outright (SIGKILL: no handler of its own can tell the workers), so that a
    restart finds the port free."""
    leave_with_parent()
    from companion.web.core.app import create_app

    site = create_app()
    # What the site holds for its life (modules, templates, tables built at import) leaves the collector's care:
    # its full collections then look over a request's garbage, not over the whole site each time.
    gc.freeze()
    return site


def leave_if_stopped_while_loading() -> None:
    """Run in each granian worker as it is forked. A worker starts as a copy of `serve`'s main process, its signal
    handlers included, and sets its own only once the site has loaded (about half a second). A stop asked in
    between (Ctrl+C, or `serve` stopped just after it started) went to the main process's copied handler and was
    lost: the worker served on until granian killed it STOP_SECONDS later. Until granian's handlers replace
    these, a stop ends the worker at once: it has answered nothing yet."""
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, _leave_now)


def take_stops_from_serve_only() -> None:
    """Run in each granian worker as it is forked: the worker leaves the terminal's process group, so that Ctrl+C
    reaches `serve`'s main process alone, which stops every worker with SIGTERM. A worker that got the terminal's
    SIGINT and the main process's SIGTERM at once missed the stop in one Ctrl+C of three, and granian killed it
    STOP_SECONDS later. The workers still leave with the main process however it ends (leave_with_parent)."""
    os.setpgid(0, 0)


def leave_with_parent() -> None:
    """End this process when the `serve` process that started it ends, however it ends. Three ways, so that no
    gap is left: on Linux the kernel kills it at once (a parent-death signal); the parent's pid comes in the
    environment, so a parent that died before this line ran (the signal is then never sent) is found at once;
    and a thread watches the parent all along (the end of the pipe on standard input, where `serve` gave one,
    else the parent's pid once a second), which is all macOS and Windows have. A process not started by `serve`
    (run by hand, or under another server) has no such parent and stays."""
    expected = os.environ.get(PARENT_VARIABLE, "")
    if not expected.isdigit():
        return
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != int(expected):  # the parent died before the line above (or before this process ran)
        os._exit(1)
    pipe = os.environ.get(PARENT_PIPE_VARIABLE) == "stdin" and sys.stdin is not None
    threading.Thread(target=_watch_pipe if pipe else _watch_parent_pid, args=(int(expected),), name="parent-watch",
                     daemon=True).start()


def _watch_pipe(parent: int) -> None:
    """Read standard input until its end: nothing is ever written, so the end means the parent let go of it.
    Read from the descriptor itself: a thread blocked in sys.stdin's buffered reader holds its lock, and the
    interpreter, stopping on SIGTERM, would abort on that lock."""
    descriptor = sys.stdin.fileno()
    while os.read(descriptor, 4096):
        pass
    os._exit(1)


def _watch_parent_pid(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


class _QuietAboutThreads:
    """Drops granian's warning that a thousand threads per worker is many for the cores: it is deliberate,
    each held live update takes one, and they start only when needed."""

    def filter(self, record) -> bool:
        return "Python threads" not in record.getMessage()


def _run_waitress(site: Flask, listener: socket.socket, threads: int) -> None:
    import waitress

    from companion.web.core.config import APP_NAME, MAX_REQUEST_BODY

    server = waitress.create_server(
        site,
        sockets=[listener],
        threads=threads,
        connection_limit=LIVE_CONNECTIONS + threads if hasattr(select, "poll") else SELECT_SOCKET_LIMIT,
        asyncore_use_poll=True,
        channel_timeout=IDLE_SECONDS,
        cleanup_interval=IDLE_CHECK_SECONDS,
        max_request_header_size=MAX_REQUEST_HEADERS,
        max_request_body_size=MAX_REQUEST_BODY,
        ident=APP_NAME,
    )
    server.run()
