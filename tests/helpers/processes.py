"""The processes a test run started, found through Linux's /proc: children of a pid, whether one is still alive,
and every process that carries a mark in its environment (so that one whose parent died, and which init took
over, is found as well)."""

from __future__ import annotations

import os
import sys

# Every process the test run starts inherits this variable; its value names the run (see tests/conftest.py).
RUN_MARK = "COMPANION_TEST_RUN"
HAS_PROC = sys.platform.startswith("linux") and os.path.isdir("/proc")


def _pids() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid`."""
    found = []
    for child in _pids():
        try:
            stat = open(f"/proc/{child}/stat").read()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[1]) == pid:
            found.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether `pid` is running (a zombie has ended: it waits only for its parent to read its status)."""
    try:
        state = open(f"/proc/{pid}/stat").read().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def marked(value: str) -> dict[int, str]:
    """{pid: command line} of every living process but this one whose environment has RUN_MARK=value."""
    wanted = f"{RUN_MARK}={value}".encode()
    found = {}
    for pid in _pids():
        if pid == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as environ:
                if wanted not in environ.read().split(b"\0"):
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:  # gone meanwhile, or another user's
            continue
        if alive(pid):
            found[pid] = command
    return found
