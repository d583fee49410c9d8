"""Every seat route of every game, walked from the URL map: once a phone holds a seat, another browser opening
any of the seat's routes (pages, live updates, moves, votes, the API) leaves the seat with the first phone; only
the take-over, which its player confirms, moves it (docs/architecture.md, "Seats and devices")."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from companion.web.core.claims import SeatClaim
from companion.web.core.db import db
from tests.web.decrypto.test_views import LINK, open_table

SEAT_PREFIXES = ("/s/<token>", "/api/seats/<token>", "/decrypto/p/<token>", "/decrypto/j/<token>")
# A body that would change the game on any move route, if the route let this browser move the seat.
MOVES = {"action": "leave", "do": "leave", "hex": "0", "target": "2", "name": "Mallory"}


def seat_routes(app) -> list[tuple[str, str]]:
    """(method, rule) of every route under a seat's token but the take-over, each method it answers."""
    return sorted((method, rule.rule) for rule in app.url_map.iter_rules()
                  if rule.rule.startswith(SEAT_PREFIXES) and not rule.rule.endswith("/take-over")
                  for method in rule.methods - {"HEAD", "OPTIONS"})


def held_seats(app) -> dict[tuple[str, str], str]:
    with app.app_context():
        return {(row.code, row.seat): row.device for row in db.session.execute(select(SeatClaim)).scalars()}


def walk_every_seat_route(app, stranger, token: str) -> None:
    held = held_seats(app)
    assert len(held) == 1
    for method, rule in seat_routes(app):
        path = rule.replace("<token>", token).replace("<step>", "hint")
        answer = stranger.open(path, method=method, **({"data": MOVES} if method == "POST" else {}))
        assert answer.status_code < 500, (method, rule)
        assert held_seats(app) == held, f"{method} {rule} took a seat held by another phone"


@pytest.fixture
def site(app):
    app.config["RATELIMIT_ENABLED"] = False
    return app


@pytest.mark.parametrize("variant, live", [("classic", "live"), ("markers", "markers/live")])
def test_no_cryptid_seat_route_but_the_take_over_takes_a_held_seat(site, variant, live):
    phone, stranger = site.test_client(), site.test_client()
    made = phone.post("/api/tables", json={"players": 3, "variant": variant}).get_json()
    token = made["seats"][0]["url"].rpartition("/s/")[2]
    assert phone.get(f"/s/{token}").status_code == 200
    assert phone.get(f"/s/{token}/{live}").status_code == 200  # the page's script: this phone holds the seat now
    walk_every_seat_route(site, stranger, token)
    before = held_seats(site)
    assert stranger.post(f"/s/{token}/take-over").status_code == 303
    assert held_seats(site).keys() == before.keys() and held_seats(site) != before  # the guard sees a take-over


def test_no_decrypto_seat_route_but_the_take_over_takes_a_held_seat(site):
    _, page = open_table(site.test_client())
    path = urlsplit(LINK.findall(page)[0]).path
    phone, stranger = site.test_client(), site.test_client()
    assert phone.get(path).status_code == 200
    assert phone.post(f"{path}/play", data={"action": "join", "name": "Ann"}).status_code == 303
    assert phone.get(f"{path}/live").status_code == 200
    walk_every_seat_route(site, stranger, path.rpartition("/")[2])
    before = held_seats(site)
    assert stranger.post(f"{path}/take-over").status_code == 303
    assert held_seats(site) != before
