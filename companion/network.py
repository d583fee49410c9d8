"""Where phones can reach this server: a configured public URL, or this machine's address on the LAN."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

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


def phone_base_url(host_url: str, configured: str | None, lan: str | None) -> str:
    """Base URL to put in QR codes: the configured one, else the request's, with localhost swapped for the LAN."""
    if configured:
        return configured.rstrip("/")
    parts = urlsplit(host_url)
    if lan and is_local_host(parts.netloc):
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{lan}{port}"
    return f"{parts.scheme}://{parts.netloc}"
