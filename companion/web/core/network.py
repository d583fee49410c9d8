"""Where phones can reach this server: a configured public URL, or this machine's address on the LAN."""

from __future__ import annotations

import ipaddress
import os
import socket
from functools import lru_cache
from urllib.parse import urlsplit

from flask import current_app, request

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def lan_address() -> str | None:
    """This machine's LAN IPv4 address, or None. A UDP socket's connect() only picks a route: no packet leaves."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 1))
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if ipaddress.ip_address(address).is_loopback else address


def is_local_host(host: str) -> bool:
    """Whether a Host header names this machine only (phones could not follow a link to it)."""
    name = urlsplit(f"//{host}").hostname or ""
    if name in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@lru_cache(maxsize=1)
def machine_names() -> frozenset[str]:
    """Names and addresses that belong to this machine: the only Host values a QR code may be built from."""
    names = {socket.gethostname().lower()}
    try:
        names.add(socket.getfqdn().lower())
        for *_, address in socket.getaddrinfo(socket.gethostname(), None):
            names.add(str(address[0]).lower())
    except OSError:
        pass
    names |= {f"{name.split('.')[0]}.local" for name in list(names) if name and not name[0].isdigit()}
    lan = lan_address()
    if lan:
        names.add(lan)
    return frozenset(names)


DEFAULT_PORTS = {"http": 80, "https": 443}


def phone_base_url(host_url: str, configured: str | None, lan: str | None, known: frozenset[str] = frozenset(),
                   server_port: int | None = None) -> str:
    """Base URL to put in QR codes: the configured one, else the request's when its host is one of this
    machine's names (`known`), with localhost swapped for the LAN address. A Host header naming anything else
    (a typo, or a forged header) is never copied into a QR code: the LAN address stands in for it, with the
    port the request really came in on (`server_port`), not the header's."""
    if configured:
        return configured.rstrip("/")
    parts = urlsplit(host_url)
    hostname = (parts.hostname or "").lower()
    foreign = not is_local_host(parts.netloc) and hostname not in known | ({lan} if lan else set())
    number = server_port if foreign and server_port else parts.port
    port = f":{number}" if number and number != DEFAULT_PORTS.get(parts.scheme) else ""
    if lan and (is_local_host(parts.netloc) or hostname not in known | {lan}):
        return f"{parts.scheme}://{lan}{port}"
    if not is_local_host(parts.netloc) and hostname not in known:
        return f"{parts.scheme}://localhost{port}"
    return f"{parts.scheme}://{hostname}{port}" if ":" not in hostname else f"{parts.scheme}://[{hostname}]{port}"


# Set by `serve` to the address it listens on, for every worker process it starts.
LISTEN_HOST_VARIABLE = "COMPANION_LISTEN_HOST"


def listens_on_loopback() -> bool:
    """Whether `serve` listens on an address only this computer reaches (--host 127.0.0.1): then no LAN address
    works for phones, however the host's browser reached the site."""
    host = os.environ.get(LISTEN_HOST_VARIABLE, "")
    return host == "localhost" or (is_local_host(host) if host else False)


def phone_base() -> tuple[str, bool]:
    """(base URL for QR codes, whether phones can probably reach it)."""
    configured = current_app.config.get("PUBLIC_URL")
    lan = None if configured else lan_address()
    port = request.environ.get("SERVER_PORT", "")
    base = phone_base_url(request.host_url, configured, lan, machine_names(), int(port) if port.isdigit() else None)
    if not configured and listens_on_loopback():
        return base, False
    return base, bool(configured) or not is_local_host(urlsplit(base).netloc)
