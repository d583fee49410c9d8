"""`python -m companion serve`: the site on a production server, every core busy, with one clear banner.

Where gunicorn runs (Linux, macOS) the site runs in one worker process per core, each with a pool of
threads (gthread workers): a phone's live-update connection, held open for up to 30 seconds, takes one
thread, never a whole process. Elsewhere (Windows) waitress runs the site in one process with threads.

Workers are not preloaded: each worker process calls create_app() after it starts, so anything the site
starts (threads, connection pools) belongs to that worker. The secret key is settled in the first process,
before any worker starts, so every worker signs with the same key.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import select
import socket
import sys
from importlib.util import find_spec
from typing import TYPE_CHECKING

from .network import lan_address

if TYPE_CHECKING:  # the command line reads this module's defaults without loading Flask
    from flask import Flask

SERVERS = ("gunicorn", "waitress")
# Connections open at once: every phone of a big game night (40 tables of 5 phones and their host screens)
# and some to spare. Each may hold a live update, so the threads of all processes add up to this number;
# idle keep-alive connections between polls cost no thread.
LIVE_CONNECTIONS = 1000
REQUEST_THREADS = 64  # beyond the live connections: pages, polls and moves answered meanwhile
# Phones poll every 3 seconds over a kept-alive connection; one that stays silent for this long is closed,
# so a client holding hundreds of idle connections lets go of them within seconds, not minutes. A request
# in progress (a live update held for up to 30 seconds) is never idle.
IDLE_SECONDS = 10
IDLE_CHECK_SECONDS = 5  # waitress looks for idle connections this often
WORKER_SILENCE_SECONDS = 30  # gunicorn restarts a worker process whose main loop stays silent this long
MAX_REQUEST_HEADERS = 16 * 1024  # all header lines together (waitress); a browser sends about 1 KiB
MAX_REQUEST_LINE = 4094  # method, address and query: the site's longest address is a few hundred bytes
MAX_HEADER_FIELD = 8190  # one header line (gunicorn has no limit for all of them together)
MAX_HEADER_FIELDS = 50  # header lines per request (gunicorn); a browser sends about 15
SELECT_SOCKET_LIMIT = 500  # without poll() (Windows), select() watches at most 512 sockets
LISTEN_BACKLOG = 2048  # phones scanning their QR codes at once wait here, not refused


class ServeError(Exception):
    """The server cannot start; the message says why and what to do instead."""


def gunicorn_available() -> bool:
    return sys.platform != "win32" and find_spec("gunicorn") is not None


def default_server() -> str:
    return "gunicorn" if gunicorn_available() else "waitress"


def default_workers(server: str) -> int:
    return (os.cpu_count() or 1) if server == "gunicorn" else 1


def default_threads(workers: int) -> int:
    """Threads per worker process: enough to hold every live connection of a game night and still answer
    everyone else at once. Connections are not dealt out evenly among workers (whichever accepts first takes
    one), so each worker gets room for all of them; threads start only when needed."""
    return LIVE_CONNECTIONS + REQUEST_THREADS


def serve(
    host: str = "0.0.0.0",
    port: int = 5000,
    workers: int | None = None,
    threads: int | None = None,
    server: str | None = None,
) -> None:
    """Check the settings and the port, print the banner, then serve until interrupted; raises ServeError
    (or companion.app.ConfigurationError) with a message for the user instead of starting."""
    from .app import create_app, environment_settings, instance_folder, secret_key

    server = server or default_server()
    if server == "gunicorn" and not gunicorn_available():
        raise ServeError("gunicorn runs on Linux and macOS only: use --server waitress here.")
    if server == "waitress" and workers not in (None, 1):
        raise ServeError("waitress runs one process (with threads): leave out --workers, or use gunicorn.")
    workers = workers or default_workers(server)
    threads = threads or default_threads(workers)
    public_url = environment_settings().get("PUBLIC_URL")
    instance = instance_folder()
    secret_key(instance)  # made (or refused) here, once, before any worker reads it
    site = create_app() if server == "waitress" else None  # gunicorn's workers each build their own
    listener = listen(host, port)
    print(banner(host, port, public_url, lan_address(), server, workers, threads, str(instance)), flush=True)
    if server == "gunicorn":
        _run_gunicorn(listener, workers, threads)
    else:
        _run_waitress(site, listener, threads)


def listen(host: str, port: int) -> socket.socket:
    """A listening socket, opened before the banner so that a busy port gets a message, not a traceback."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
        both = family == socket.AF_INET6 and host in ("::", "") and socket.has_dualstack_ipv6()
        return socket.create_server((host, port), family=family, backlog=LISTEN_BACKLOG, dualstack_ipv6=both)
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


def _run_gunicorn(listener: socket.socket, workers: int, threads: int) -> None:
    from gunicorn.app.base import BaseApplication  # imports fcntl: only where gunicorn runs

    from .app import APP_NAME, create_app

    options = {
        "bind": [f"fd://{listener.detach()}"],  # gunicorn owns the socket from here on
        "workers": workers,
        "worker_class": "gthread",
        "threads": threads,
        "worker_connections": LIVE_CONNECTIONS + threads,  # every thread busy and every phone idle between polls
        "keepalive": IDLE_SECONDS,
        "timeout": WORKER_SILENCE_SECONDS,
        "limit_request_line": MAX_REQUEST_LINE,
        "limit_request_field_size": MAX_HEADER_FIELD,
        "limit_request_fields": MAX_HEADER_FIELDS,
        "preload_app": False,
        "proc_name": APP_NAME,
        "loglevel": "warning",
        "control_socket_disable": True,
    }

    class Site(BaseApplication):
        """The companion as a gunicorn application: each worker builds its own site."""

        def load_config(self) -> None:
            for name, value in options.items():
                self.cfg.set(name, value)

        def load(self) -> Flask:
            return create_app()

    Site().run()


def _run_waitress(site: Flask, listener: socket.socket, threads: int) -> None:
    import waitress

    from .app import APP_NAME, MAX_REQUEST_BODY

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
