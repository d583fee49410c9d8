"""`python -m companion fuzz URL`: junk requests at every route of a running site, reporting any 5xx answer.

The requests come from the site's own URL map (every route, every method, the methods it lacks too), with genuine
tokens and codes harvested from the site itself (a 2-player box game, a refereed game, a Decrypto table), game
codes of every player count, junk in every path part, query parameter, header and form field, JSON nested deep
and JSON of the wrong type in every field the API reads. The test suite runs a seeded sample of the same requests.
"""

from __future__ import annotations

import http.client
import itertools
import json
import random
import re
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterator
from urllib.parse import quote, urlencode, urlsplit

METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
JUNK = [
    "", "0", "-1", "99999999999999999999", "²", "１２", "\x00", "%00", "\r\nX-Injected: 1", "../../etc/passwd",
    "<script>alert(1)</script>", "' OR 1=1 --", "ZZZZZ-ZZZZZ", "ρ" * 300, "😀" * 50, "a" * 5000, "\u202e\u200b",
    "12345625037B0B3472", "hint", "tile", "reveal", "everything", "nonsense.token", "{}", "[]", "null", "3", "W1",
]
# Every type JSON has, in every field the API reads: a list or an object where a word or a number belongs, etc.
JSON_VALUES = [None, True, False, 0, 1, 3, -1, 1.5, 2**70, "", "x", "cube", "ask", "a" * 3000, [], {}, [1], ["cube"],
               {"row": 1, "col": 1}, {"row": "1", "col": 1}, {"row": [], "col": {}}]
JSON_FIELDS = ["players", "advanced", "action", "hex", "seat", "name", "version", "row", "col", "target"]
FORM_FIELDS = ["players", "advanced", "how", "seat", "confirmed", "action", "hex", "target", "version", "name",
               "white", "black", "split", "keywords", "language", "team", "code", "step", "clue", "clues", "guess"]
QUERY_NAMES = ["hex", "next", "back", "lang", "code", "wait", "step", "do", "seat", "replay", "team"]
HEADER_SETS = [
    {}, {"Accept-Language": "el"}, {"Accept-Language": "x;q=0.5," * 400}, {"Accept-Language": "\u00e9;q=abc"},
    {"Host": "a" * 70 + ".example"}, {"Host": "exa mple"}, {"Host": "[::1"}, {"If-None-Match": '"' + "x" * 3000 + '"'},
    {"If-None-Match": '"1"'}, {"If-None-Match": "*"}, {"X-Requested-With": "fetch"}, {"Cookie": "lang=" + "x" * 2000},
    {"Cookie": "session=garbage.garbage.garbage"}, {"X-Forwarded-Proto": "https", "X-Forwarded-For": "1.2.3.4"},
]
TOKEN_LINK = re.compile(r"/(s|h|api/seats|decrypto/[hpj])/([A-Za-z0-9._-]{8,64})")
CSRF_FIELD = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


@dataclass
class Answer:
    status: int
    location: str = ""
    text: str = ""


# send(method, path with query, headers, body) -> Answer: the test client or a connection to a running server.
Send = Callable[[str, str, dict, bytes | None], Answer]


@dataclass
class Genuine:
    """Real tokens by the path before them (/s/, /decrypto/p/...) and real game codes, harvested from the site."""

    tokens: dict[str, list[str]] = field(default_factory=dict)
    codes: list[str] = field(default_factory=list)

    def add_links(self, text: str) -> None:
        for kind, token in TOKEN_LINK.findall(text):
            found = self.tokens.setdefault(f"/{kind}/", [])
            if token not in found:
                found.append(token)


def harvest(send: Send) -> Genuine:
    """Deal games on the site the way people do: a 2-player box game and a 4-player one through the home page's
    form, a refereed 3-player game through the API, a Decrypto table through its form; keep their links."""
    genuine = Genuine()

    def form_post(page: str, fields: dict) -> None:
        found = CSRF_FIELD.search(send("GET", page, {}, None).text)
        body = urlencode(fields | ({"csrf_token": found.group(1)} if found else {})).encode()
        answer = send("POST", page, {"Content-Type": "application/x-www-form-urlencoded"}, body)
        if answer.location:
            genuine.add_links(answer.location)
            path = urlsplit(answer.location).path
            genuine.add_links(send("GET", path, {}, None).text)

    answer = send("POST", "/api/tables", {"Content-Type": "application/json"}, json.dumps({"players": 3}).encode())
    if answer.status == 201:  # first: its seats are the first tokens, which json_requests() uses
        genuine.codes.append(json.loads(answer.text)["code"])
        genuine.add_links(answer.text)
    for players in (2, 4):
        form_post("/", {"players": players, "how": "box"})
    form_post("/decrypto/new", {"white": 2, "black": 2, "keywords": "site", "language": "en"})
    for hosts in genuine.tokens.get("/h/", []):
        genuine.add_links(send("GET", f"/h/{hosts}", {}, None).text)
    pages = " ".join(send("GET", f"/h/{token}", {}, None).text for token in genuine.tokens.get("/h/", []))
    genuine.codes += sorted(set(re.findall(r"\b([0-9A-Z]{5}-[0-9A-Z]{5})\b", pages)) - set(genuine.codes))
    genuine.tokens["/api/seats/"] = genuine.tokens.get("/s/", [])  # the API reads a seat's token too
    return genuine


@dataclass(frozen=True)
class Route:
    rule: str  # werkzeug's rule, such as /s/<token>/votes/<step>
    methods: tuple[str, ...]
    arguments: tuple[str, ...]


def routes_of(url_map) -> list[Route]:
    return [Route(r.rule, tuple(sorted(r.methods - {"HEAD", "OPTIONS"})), tuple(sorted(r.arguments)))
            for r in sorted(url_map.iter_rules(), key=lambda r: r.rule)]


def site_routes() -> list[Route]:
    """The routes of this version of the site (built in a throwaway instance folder, on nothing but SQLite)."""
    import os

    from companion.web.core.app import create_app

    with tempfile.TemporaryDirectory() as folder:
        os.environ["COMPANION_INSTANCE_PATH"] = folder
        app = create_app({"SECRET_KEY": "x" * 32, "SQLALCHEMY_DATABASE_URI": "sqlite://"})
        return routes_of(app.url_map)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict
    body: bytes | None


def _value(rng: random.Random, name: str, prefix: str, genuine: Genuine) -> str:
    if name == "token" and genuine.tokens.get(prefix) and rng.random() < 0.5:
        token = rng.choice(genuine.tokens[prefix])
        return token if rng.random() < 0.8 else token[:-1] + rng.choice("AZaz09-_.")
    if name == "code" and genuine.codes and rng.random() < 0.5:
        return rng.choice(genuine.codes)
    if name == "step" and rng.random() < 0.5:
        return rng.choice(["hint", "tile", "reveal", "everything"])
    if name == "filename" and rng.random() < 0.5:
        return rng.choice(["app.js", "play.js", "style.css", "decrypto/decrypto.js", "nothing.js"])
    return rng.choice(JUNK)


def fill(route: Route, rng: random.Random, genuine: Genuine) -> str:
    """The route's path with each part genuine (half the time, when known) or junk, escaped as a browser would."""
    path = route.rule
    for name in route.arguments:
        prefix = route.rule.partition(f"<{name}>")[0]  # such as /s/ or /decrypto/p/
        value = _value(rng, name, prefix, genuine)
        path = re.sub(rf"<(?:[^:>]+:)?{name}>", quote(value, safe="") if value else "x", path)
    return path


def _json_body(rng: random.Random) -> bytes:
    pick = rng.random()
    if pick < 0.2:
        depth = rng.choice([100, 1000, 3000, 8000])
        opener, closer = rng.choice([("[", "]"), ('{"a":', "}"), ('{"action":', "}")])
        return (opener * depth + "1" + closer * depth).encode()
    if pick < 0.3:
        return rng.choice([b"{", b"", b"null", b"[]", b'"text"', b"1e999999", b"\xff\xfe", b'{"players": 3,}'])
    fields = rng.sample(JSON_FIELDS, rng.randint(1, 4))
    body = {name: rng.choice(JSON_VALUES) for name in fields}
    if rng.random() < 0.5:
        body["action"] = rng.choice(["cube", "ask", "search", "leave", "name", "vote_gone", rng.choice(JSON_VALUES)])
    return json.dumps(body).encode()


def _form_body(rng: random.Random) -> bytes:
    pairs = [(rng.choice(FORM_FIELDS), rng.choice(JUNK)) for _ in range(rng.randint(1, 6))]
    return urlencode(pairs).encode()


def request_for(route: Route, method: str, rng: random.Random, genuine: Genuine) -> Request:
    path = fill(route, rng, genuine)
    if rng.random() < 0.4:
        path += "?" + urlencode([(rng.choice(QUERY_NAMES), rng.choice(JUNK + ["/s/x", "https://evil.example"]))
                                 for _ in range(rng.randint(1, 3))])
    headers = dict(rng.choice(HEADER_SETS))
    body = None
    if method in ("POST", "PUT", "PATCH", "DELETE") or rng.random() < 0.1:
        kind = rng.random()
        if kind < 0.45:
            body, headers["Content-Type"] = _json_body(rng), rng.choice(["application/json", "text/plain"])
        elif kind < 0.9:
            body, headers["Content-Type"] = _form_body(rng), "application/x-www-form-urlencoded"
        else:
            body = rng.choice([b"\xff\xfe" * 50, b"x" * 20_000, b"--b\r\n\r\n"])
            headers["Content-Type"] = rng.choice(["multipart/form-data; boundary=b", "application/octet-stream"])
    return Request(method, path, headers, body)


def json_requests(routes: list[Route], genuine: Genuine, rng: random.Random) -> Iterator[Request]:
    """To every JSON route that takes a body, with genuine path parts: every JSON type in every field (beside each
    action), and JSON nested deeper than Python's parser recurses."""
    headers = {"Content-Type": "application/json"}
    for route in routes:
        if not route.rule.startswith("/api/") or "POST" not in route.methods:
            continue
        path = route.rule
        for name in route.arguments:
            known = genuine.tokens.get(route.rule.partition(f"<{name}>")[0]) or genuine.codes or ["x"]
            path = path.replace(f"<{name}>", known[0])
        for name in JSON_FIELDS:
            for value in JSON_VALUES:
                action = rng.choice(["cube", "ask", "search", "leave", "name", "vote_gone"])
                yield Request("POST", path, headers, json.dumps({"action": action, "players": 3} | {name: value}).encode())
        for depth in (100, 1000, 5000):
            for opener, closer in (("[", "]"), ('{"action":', "}"), ('{"hex":', "}")):
                yield Request("POST", path, headers, (opener * depth + "1" + closer * depth).encode())


def junk_requests(routes: list[Route], genuine: Genuine, seed: int, count: int) -> Iterator[Request]:
    """`count` requests: first every route with every method once (genuine parts where known), then every JSON
    type in every field of the JSON routes, then junk at random."""
    rng = random.Random(seed)
    sent = 0
    every_method = (request_for(route, method, rng, genuine) for route in routes for method in METHODS)
    for request in itertools.chain(every_method, json_requests(routes, genuine, rng)):
        if sent == count:
            return
        sent += 1
        yield request
    while sent < count:
        sent += 1
        route = rng.choice(routes)
        method = rng.choice(list(route.methods) * 3 + METHODS)
        yield request_for(route, method, rng, genuine)


def redacted(path: str) -> str:
    """A path fit for a report: whatever follows a token's prefix becomes <token>."""
    return TOKEN_LINK.sub(lambda m: f"/{m.group(1)}/<token>", path)


# Running against a server ----------------------------------------------------------------------------------------

class Connection:
    """One kept-alive HTTP/1.1 connection to the server, opened again whenever the server closed it."""

    def __init__(self, url: str, timeout: float) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.timeout = parts.hostname, parts.port or 80, timeout
        self.cookie = ""
        self.http: http.client.HTTPConnection | None = None

    def send(self, method: str, path: str, headers: dict, body: bytes | None) -> Answer:
        for attempt in (1, 2):
            if self.http is None:
                self.http = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                self.http.putrequest(method, path, skip_host="Host" in headers, skip_accept_encoding=True)
                sent = {"Cookie": self.cookie} if self.cookie and "Cookie" not in headers else {}
                for name, value in (sent | headers).items():
                    self.http.putheader(name, value.encode("utf-8"))
                if body is not None:
                    self.http.putheader("Content-Length", str(len(body)))
                self.http.endheaders(body)
                response = self.http.getresponse()
                text = response.read().decode("utf-8", "replace")
            except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine):
                self.close()
                if attempt == 2:
                    raise
                continue
            cookie = response.getheader("Set-Cookie")
            if cookie and cookie.startswith("session="):
                self.cookie = cookie.split(";", 1)[0]
            if response.will_close:
                self.close()
            return Answer(response.status, response.getheader("Location") or "", text)
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.http is not None:
            self.http.close()
            self.http = None


def run_fuzz(url: str, count: int, seed: int, concurrency: int = 8, timeout: float = 40.0,
             out=sys.stdout) -> dict:
    """Send `count` junk requests to the site at `url` over `concurrency` connections; print and return what came
    back (status counts, every 5xx and every failure to answer, their paths redacted)."""
    genuine = harvest(Connection(url, timeout).send)
    requests = list(junk_requests(site_routes(), genuine, seed, count))
    statuses: Counter[int] = Counter()
    server_errors: list[str] = []
    failures: list[str] = []
    lock = threading.Lock()
    cursor = iter(requests)
    started = time.monotonic()

    def worker() -> None:
        connection = Connection(url, timeout)
        while True:
            with lock:
                request = next(cursor, None)
            if request is None:
                connection.close()
                return
            try:
                status = connection.send(request.method, request.path, request.headers, request.body).status
            except (OSError, http.client.HTTPException) as exc:
                connection.close()
                with lock:
                    failures.append(f"{request.method} {redacted(request.path)[:200]}: {type(exc).__name__}")
                continue
            with lock:
                statuses[status] += 1
                if status >= 500:
                    server_errors.append(f"{status} {request.method} {redacted(request.path)[:200]}")

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.monotonic() - started
    tokens = sum(len(found) for found in genuine.tokens.values())
    print(f"{len(requests)} requests to {url} in {seconds:.0f} s (seed {seed}, {concurrency} connections, "
          f"{tokens} genuine tokens, {len(genuine.codes)} codes)", file=out)
    print("statuses: " + ", ".join(f"{status}: {n}" for status, n in sorted(statuses.items())), file=out)
    for line in server_errors[:50] + failures[:50]:
        print("  " + line, file=out)
    print(f"server errors (5xx): {len(server_errors)}; no answer: {len(failures)}", file=out, flush=True)
    return {"requests": len(requests), "statuses": dict(statuses), "server_errors": server_errors,
            "failures": failures}
