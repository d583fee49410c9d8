"""A fuzz client of the tests' own (it shares no code with `companion fuzz`): every route of the URL map with every
HTTP method, its path filled with genuine tokens and codes of every kind of table, and a malformed body of every
shape (broken and wrongly typed JSON, junk forms, bytes that are no UTF-8, a content type that lies). No answer
may be a 5xx. INDEPENDENT_FUZZ_REQUESTS sets how many (the suite sends a seeded sample of 1,500, 20,000 with
COMPANION_THOROUGH=1)."""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter
from urllib.parse import urlencode, urlsplit

import pytest

from tests.helpers import how_many

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
FIELDS = ("players", "advanced", "notebook", "computers", "variant", "action", "hex", "seat", "name", "version",
          "row", "col", "target", "level", "do", "team", "guess", "clues", "keywords", "white", "black", "language",
          "how", "confirmed", "step", "split", "code", "solo-opponents", "solo-level", "seat2", "csrf_token")
VALUES = (None, True, False, 0, -1, 1, 2, 3, 5, 2**64, 1e308, -0.0, "", "x", "cube", "ask", "search", "leave",
          "its_here", "not_here", "start", "host_gone", "markers", "classic", "expert", "ü" * 40, "\u0000", "9" * 400,
          [], {}, [None], [{"seat": 1, "level": []}], {"row": 1, "col": "1"}, {"row": -1, "col": 99}, [[[]]])
RAW_BODIES = (b"", b"{", b"[", b"}", b'{"players":', b"null", b"true", b"1e999999", b'"just a string"',
              b"\xff\xfe\xfa", b'{"a":"\\ud800"}', b"[" * 5000 + b"]" * 5000, b"players=&&&=&==", b"%zz=%%",
              b"--x\r\nContent-Disposition: form-data\r\n\r\nbroken", b"a" * 4000)
CONTENT_TYPES = ("application/json", "application/x-www-form-urlencoded", "multipart/form-data",
                 "multipart/form-data; boundary=x", "text/plain", "application/json; charset=latin-1", None)
TOKEN = re.compile(r"/(s|h|api/seats|decrypto/[hpj])/([A-Za-z0-9._-]{8,80})")
CODE = re.compile(r"\b[0-9A-Z]{5}-[0-9A-Z]{5}\b")


class Table:
    """Genuine path values, found by dealing tables of every kind the way a phone does."""

    def __init__(self, client) -> None:
        self.tokens: dict[str, set[str]] = {}
        self.codes: set[str] = set()
        for body in ({"players": 3}, {"players": 2, "variant": "markers"}, {"players": 4, "variant": "markers"},
                     {"players": 4, "computers": [{"seat": 2, "level": "solid"}]}):
            self.read(client.post("/api/tables", json=body).get_data(as_text=True))
        for form in ({"players": "2", "how": "box"}, {"players": "5", "how": "box", "advanced": "y"}):
            self.follow(client, client.post("/", data=form))
        self.follow(client, client.post("/decrypto/new", data={"white": "2", "black": "2", "keywords": "site",
                                                                "language": "en"}))
        self.tokens["api/seats"] = set(self.tokens.get("s", ()))
        self.codes |= {spelling for code in list(self.codes) for spelling in (code.lower(), code.replace("-", ""))}
        assert {"s", "h", "api/seats", "decrypto/h", "decrypto/p"} <= set(self.tokens) and self.codes

    def read(self, text: str) -> None:
        for kind, token in TOKEN.findall(text):
            self.tokens.setdefault(kind, set()).add(token)
        self.codes |= set(CODE.findall(text))

    def follow(self, client, answer) -> None:
        assert answer.status_code == 303
        self.read(answer.headers["Location"])
        self.read(client.get(urlsplit(answer.headers["Location"]).path).get_data(as_text=True))


def fill(rule: str, table: Table, rng: random.Random) -> str:
    """The rule's path with each variable part a genuine value of its kind (now and then a broken one)."""
    kind = next((k for k in sorted(table.tokens, key=len, reverse=True) if rule.startswith(f"/{k}/<token>")), None)

    def value(match: re.Match) -> str:
        name = match.group(1)
        if rng.random() < 0.1:
            return rng.choice(["x", "%00", "..", "a" * 300, "ZZZZZ-ZZZZZ"])
        if name == "token" and kind:
            return rng.choice(sorted(table.tokens[kind]))
        if name == "code":
            return rng.choice(sorted(table.codes))
        if name == "step":
            return rng.choice(["hint", "reveal", "tile", "x"])
        return rng.choice(["1", "x", "hint"])

    return re.sub(r"<(?:\w+:)?(\w+)>", value, rule)


def malformed(rng: random.Random) -> tuple[bytes | None, str | None]:
    """A body and its content type, of one of the shapes a confused or hostile client sends."""
    shape = rng.randrange(5)
    if shape == 0:
        return rng.choice(RAW_BODIES), rng.choice(CONTENT_TYPES)
    if shape == 1:  # a JSON object with wrongly typed fields
        fields = {name: rng.choice(VALUES) for name in rng.sample(FIELDS, rng.randint(1, 5))}
        return json.dumps(fields).encode(), rng.choice(("application/json", "text/plain", None))
    if shape == 2:  # JSON that is no object
        return json.dumps(rng.choice(VALUES)).encode(), "application/json"
    if shape == 3:  # a form with junk in its fields
        fields = [(name, str(rng.choice(VALUES))) for name in rng.sample(FIELDS, rng.randint(1, 6))]
        return urlencode(fields).encode(), rng.choice(("application/x-www-form-urlencoded", "application/json"))
    return None, None


def send_all(app, count: int, seed: int) -> Counter:
    client = app.test_client()
    table = Table(client)
    rng = random.Random(seed)
    rules = sorted(app.url_map.iter_rules(), key=lambda rule: rule.rule)
    statuses: Counter = Counter()
    for number in range(count):
        rule = rules[number % len(rules)]
        method = METHODS[number // len(rules) % len(METHODS)]  # every route with every method, over and over
        body, content_type = malformed(rng) if method not in ("GET", "HEAD") or rng.random() < 0.2 else (None, None)
        headers = {"Content-Type": content_type} if content_type else {}
        if rng.random() < 0.2:
            headers["X-Requested-With"] = "fetch"
        path = fill(rule.rule, table, rng)
        if rng.random() < 0.2:
            path += "?" + urlencode({rng.choice(("wait", "hex", "next", "back", "lang", "do")): str(rng.choice(VALUES))})
        answer = client.open(path, method=method, data=body, headers=headers)
        statuses[answer.status_code] += 1
        assert answer.status_code < 500, (method, rule.rule, headers, (body or b"")[:100])
    return statuses


@pytest.mark.slow
def test_no_route_answers_a_malformed_body_with_a_server_error(instance_folder):
    from companion.web.core.app import create_app

    # No rate limits (every request reaches its view: the limiter reads this setting when the site is built).
    app = create_app({"TESTING": True, "SECRET_KEY": "test-secret", "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False})
    count = int(os.environ.get("INDEPENDENT_FUZZ_REQUESTS", how_many(1500, 20000)))
    statuses = send_all(app, count, seed=int(os.environ.get("INDEPENDENT_FUZZ_SEED", "34")))
    print(f"\nindependent fuzz: {sum(statuses.values())} requests, statuses {dict(sorted(statuses.items()))}")
    assert sum(statuses.values()) == count and not any(status >= 500 for status in statuses)
    assert {200, 400, 404, 405} <= set(statuses) and 429 not in statuses
