"""A fair share of each server process per client address: how many of its threads one address may hold at once.

Every request in progress holds a thread until it is answered; a live update holds one for up to 25 s. One phone
(or one script on the same Wi-Fi) opening thousands of them, or sending bodies a byte at a time, must not take
every thread from everyone else. Per process and per client address (the phone's, behind a trusted proxy):

- at most REQUESTS_PER_ADDRESS requests in progress at once: `serve` sets half of a worker's threads (532 of
  1,064 by default), 500 elsewhere. That still holds a convention behind one NAT: 532 phones holding a live
  update per worker process, which the kernel spreads evenly (1,064 phones on a 2-core machine). An address
  over it gets a 429 at once, its connection closed;
- at most BODIES_PER_ADDRESS request bodies being read at once. A phone's body (a form, a move) arrives with its
  headers and is read in microseconds, so even a busy NAT has a few at once; a body that trickles in holds its
  thread as long as the client likes (granian reads the whole body before the site sees a byte of it, and has
  no timeout for it), so one address gets this many such threads and no more. Behind nginx
  (`client_body_timeout`) slow bodies never reach the site at all.

Past both, a request waits its turn for one of WORKING_REQUESTS work slots of its process (addresses served in
rotation) before the site runs it. Python runs one thread of a process at a time: a thousand threads at work at once
each wait for the interpreter lock by turns, a request needs it a few hundred times, and no one is answered for
minutes (3,000 held live updates from one address did that). Waiting for a slot costs no interpreter time, and
a long poll gives its slot back while it waits (live.py), so held live updates, however many, take threads but
no turns. The share per address still bounds the threads one address may hold.

Both are checked around the site (WSGI middleware, inside the trusted proxy's fix of the address), so a refusal
costs next to nothing: a flood of them must not starve the others either. Its message is in the phone's
language, made once per language. The body is read here, before anything of the site touches the request.
Counts live in the process's memory: each process protects its own threads.
"""

from __future__ import annotations

import io
import json
import threading
from collections import Counter, deque
from contextlib import contextmanager, nullcontext
from html import escape

from flask import Flask, request
from werkzeug.wrappers import Request

from .config import MAX_REQUEST_BODY
from .errors import MESSAGES, RETRY_SECONDS, closing_headers
from .i18n import ACCEPT_LANGUAGE_PREFIX, language_of

# Work slots per process: enough to keep its core busy while a request waits on the database for a moment (a
# query is a fraction of a millisecond), few enough that each gets the interpreter at once. Every query releases
# the interpreter lock, and taking it back waits for the other threads at work to let go, each up to its switch
# interval (5 ms): with 15 at work, a request of ten queries behind an attacker's burst waited about 0.4 s through
# nginx on PostgreSQL. At 300 box tables on two cores (`load --tables 300`, docs/benchmarks.md), 4 at work gave p95
# 89 and 94 ms and 2 gave 63, 76 and 83 ms, p50 23-30 -> 14-15 ms, with 5% less of the server's CPU (less handing
# the lock about); on PostgreSQL 2 did better than 4 as well, and 1 did worse on SQLite (a request waiting on the
# database idles its process). 2 also fit in a server database's pool with the live watcher's connection (db.py:
# 5 kept open).
DEFAULTS = {"REQUESTS_PER_ADDRESS": 500, "BODIES_PER_ADDRESS": 16, "WORKING_REQUESTS": 2}
LANGUAGES_REMEMBERED = 1024  # refusals' languages by the headers that chose them, per process
WORK_SLOT = "companion.work_slot"  # the environ key of a request's WorkSlot


class WorkSlots:
    """A process's work slots, handed out in turn by client address: when one is free, the next address in the
    rotation that has requests waiting gets it (each address's own requests in order). A burst of hundreds from
    one address (its live updates, all asked again as one) then delays another phone's request by one of
    theirs, not by all of them. A slot given back goes straight to the next waiter: none can jump the queue.

    Live updates whose wait ended (`later`: a change woke them) queue behind every request a person is waiting
    on (a tap, a vote, a page). Past what the cores can draw, updates then arrive a little later and each draws
    the table as it is by then, several changes in one, while taps stay quick, instead of every request
    queueing behind every screen's update."""

    def __init__(self, count: int) -> None:
        self.lock = threading.Lock()
        self.free = count
        self.waiting: dict[str, deque[threading.Lock]] = {}  # address -> its waiters, in order; dict order: the rotation
        self.waiting_later: dict[str, deque[threading.Lock]] = {}  # the same, for woken live updates

    def take(self, address: str, later: bool = False) -> None:
        with self.lock:
            if self.free and not self.waiting and not self.waiting_later:
                self.free -= 1
                return
            turn = threading.Lock()
            turn.acquire()
            (self.waiting_later if later else self.waiting).setdefault(address, deque()).append(turn)
        turn.acquire()  # blocks, off the interpreter lock, until give_back() hands this request the slot

    def give_back(self) -> None:
        with self.lock:
            waiting = self.waiting or self.waiting_later
            if not waiting:
                self.free += 1
                return
            address, queue = next(iter(waiting.items()))
            turn = queue.popleft()
            del waiting[address]
            if queue:  # the address goes to the end of the rotation
                waiting[address] = queue
            turn.release()

    @contextmanager
    def held(self, address: str):
        self.take(address)
        try:
            yield
        finally:
            self.give_back()


class WorkSlot:
    """A request's turn at work: held while the site runs it, set aside while it only waits (a long poll)."""

    def __init__(self, slots: WorkSlots, address: str) -> None:
        self.slots, self.address = slots, address

    @contextmanager
    def set_aside(self):
        self.slots.give_back()
        try:
            yield
        finally:
            self.slots.take(self.address, later=True)


def waiting_without_work_slot():
    """Around a wait that needs no interpreter time (a long poll's): others take the request's slot meanwhile."""
    slot = request.environ.get(WORK_SLOT)
    return slot.set_aside() if slot else nullcontext()


class Shares:
    """Counts per client address, under one lock; a slot is taken or refused at once, never waited for."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: Counter[tuple[str, str]] = Counter()

    def take(self, kind: str, address: str, limit: int) -> bool:
        with self.lock:
            if self.counts[kind, address] >= limit:
                return False
            self.counts[kind, address] += 1
            return True

    def give_back(self, kind: str, address: str) -> None:
        with self.lock:
            self.counts[kind, address] -= 1
            if not self.counts[kind, address]:
                del self.counts[kind, address]


class FairShare:
    """WSGI middleware around the site: per client address, its requests in progress and its bodies being read."""

    def __init__(self, app: Flask, site) -> None:
        self.app, self.site = app, site
        self.shares = Shares()
        self.work_slots = WorkSlots(app.config["WORKING_REQUESTS"])
        self.refusals: dict[tuple[str, bool], bytes] = {}  # (language, JSON?) -> the 429's body, made once
        self.languages: dict[tuple[str, str], str] = {}  # (Cookie, Accept-Language) as sent -> language

    def __call__(self, environ: dict, start_response):
        address = environ.get("REMOTE_ADDR") or "unknown"
        config = self.app.config
        if not self.shares.take("requests", address, config["REQUESTS_PER_ADDRESS"]):
            return self.refuse(environ, start_response)
        try:
            if _has_body(environ):
                if not self.shares.take("bodies", address, config["BODIES_PER_ADDRESS"]):
                    self.shares.give_back("requests", address)
                    return self.refuse(environ, start_response)
                try:
                    _read_body(environ)
                finally:
                    self.shares.give_back("bodies", address)
            # The site's answers are made whole before they are returned (it streams none): the slot is free then.
            with self.work_slots.held(address):
                environ[WORK_SLOT] = WorkSlot(self.work_slots, address)
                return self.site(environ, start_response)
        finally:
            self.shares.give_back("requests", address)

    def refuse(self, environ: dict, start_response):
        """A 429 at once, in the phone's language, closing the connection (its body, if any, is never read)."""
        api = environ.get("PATH_INFO", "").startswith("/api/")
        key = (self._language(environ), api)
        if key not in self.refusals:
            self.refusals[key] = self._refusal(*key)
        start_response("429 Too Many Requests", [
            ("Content-Type", "application/json" if api else "text/html; charset=utf-8"),
            ("Content-Length", str(len(self.refusals[key]))),
            ("Retry-After", str(RETRY_SECONDS)),
            *closing_headers(environ),
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            ("Content-Security-Policy", "default-src 'none'"),
        ])
        return [self.refusals[key]]

    def _language(self, environ: dict) -> str:
        """The phone's language, remembered by its cookies and Accept-Language as sent (a client repeats them), so
        that a flood of refusals costs a lookup each; a client varying them fills the memory, then pays in full."""
        sent = (environ.get("HTTP_COOKIE", ""), environ.get("HTTP_ACCEPT_LANGUAGE", "")[:ACCEPT_LANGUAGE_PREFIX])
        language = self.languages.get(sent)
        if language is None:
            language = language_of(Request(environ))
            if len(self.languages) < LANGUAGES_REMEMBERED:
                self.languages[sent] = language
        return language

    def _refusal(self, language: str, api: bool) -> bytes:
        with self.app.test_request_context(headers={"Accept-Language": language}):
            message = str(MESSAGES[429])
        if api:
            return json.dumps({"error": message, "status": 429}).encode()
        return (f'<!doctype html><html lang="{language}"><meta charset="utf-8">'
                f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>429</title>'
                f"<p>{escape(message)}</p></html>").encode()


def _has_body(environ: dict) -> bool:
    return environ.get("CONTENT_LENGTH", "") not in ("", "0") or "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()


def _read_body(environ: dict) -> None:
    """Read the body now (all of it, up to the site's limit), so that nothing later waits on the client. A body
    over the limit is left unread: the site answers 413 from its length, and the connection is closed."""
    length = environ.get("CONTENT_LENGTH", "")
    if length.isdigit() and int(length) > MAX_REQUEST_BODY:
        return
    wanted = int(length) if length.isdigit() else MAX_REQUEST_BODY + 1
    environ["wsgi.input"] = io.BytesIO(environ["wsgi.input"].read(wanted))
    environ["wsgi.input_terminated"] = not length.isdigit()


def init_app(app: Flask) -> None:
    """Wrap the site; call before the proxy fix wraps it in turn, so that the address counted is the phone's."""
    for name, value in DEFAULTS.items():
        app.config.setdefault(name, value)
    app.wsgi_app = FairShare(app, app.wsgi_app)
    app.extensions["companion.fair_share"] = app.wsgi_app.shares
