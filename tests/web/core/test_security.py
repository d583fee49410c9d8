"""Secrets stay secret: what a curious player can do with the game code alone, and junk input of every kind."""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

import flask
import pytest

from companion.cryptid import load_game
from companion.cryptid.hexgrid import hex_row_col
from companion.cryptid.text import clue_text, hint_text
from companion.web.core import security
from companion.web.core.tokens import redact
from companion.web.cryptid.tokens import host_token, seat_token
from tests.helpers import GOLDEN

CODE = GOLDEN[2]["code"]  # normal, 4 players


def signed(app, make, *args) -> str:
    with app.test_request_context():
        return make(*args)


def secrets_of(game) -> list[str]:
    """Every text that would give a clue, the hint or the habitat away."""
    texts = [clue_text(c) for c in game.clues] + [hint_text(game.hint)]
    row, col = hex_row_col(game.habitat)
    return texts + [f"Row {row + 1}, column {col + 1}"]


def test_the_code_alone_shows_the_board_and_nothing_secret(client):
    game = load_game(CODE)
    response = client.get(f"/games/{CODE}")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert all(step in page for step in game.tile_steps() + game.structure_steps())
    assert "/s/" not in page and "/h/" not in page and 'class="qr' not in page
    assert "host link" in page  # the host who only remembers the code learns where their screen went
    assert not re.search(r'<form[^>]*method="post"', page)  # nothing to act on
    for path in (f"/games/{CODE}", f"/games/{CODE}/print", f"/games/{CODE}/table", f"/api/games/{CODE}"):
        body = client.get(path).get_data(as_text=True)
        assert not any(secret in body for secret in secrets_of(game)), path


@pytest.mark.parametrize(
    "method, path",
    [
        ("post", f"/games/{CODE}/clue"),
        ("post", f"/games/{CODE}/unlock/reveal"),
        ("post", f"/games/{CODE}/unlock/hint"),
        ("post", f"/games/{CODE}/next"),
        ("get", f"/games/{CODE}/reveal"),
        ("get", f"/h/{CODE}"),
        ("get", f"/h/{CODE.replace('-', '')}.forged"),
        ("get", f"/s/{CODE.replace('-', '')}1"),
    ],
)
def test_a_curious_player_cannot_act_for_the_host_or_a_seat(client, method, path):
    game = load_game(CODE)
    response = getattr(client, method)(path, data={"seat": "2", "confirmed": "yes", "reveal-agree": "y", "hint-agree": "y"})
    assert response.status_code in (403, 404, 405)
    assert not any(secret in response.get_data(as_text=True) for secret in secrets_of(game))
    assert client.get(f"/games/{CODE}/reveal").status_code == 403  # and nothing got unlocked on the way


def test_links_signed_by_another_server_open_nothing(app, client):
    from companion.web.core.app import create_app

    other = create_app({"TESTING": True, "SECRET_KEY": "another server's key"})
    assert client.get("/h/" + signed(other, host_token, CODE)).status_code == 404
    assert client.get("/s/" + signed(other, seat_token, CODE, 1)).status_code == 404
    assert client.get("/api/seats/" + signed(other, seat_token, CODE, 1)).status_code == 404


def test_a_host_token_is_not_a_seat_token_and_back(app, client):
    host = signed(app, host_token, CODE)
    seat = signed(app, seat_token, CODE, 1)
    assert client.get("/h/" + host).status_code == 200 and client.get("/s/" + seat).status_code == 200
    assert client.get("/s/" + host).status_code == 404 and client.get("/h/" + seat).status_code == 404


def test_the_host_screen_is_private_and_the_public_view_says_where_the_host_went(app, client):
    response = client.get("/h/" + signed(app, host_token, CODE))
    assert response.headers["Cache-Control"] == "no-store" and response.headers["Referrer-Policy"] == "no-referrer"
    assert all(link.startswith("http") for link in re.findall(r'class="seat-link"[^>]*>([^<]+)<', response.get_data(as_text=True)))


def test_tokens_are_redacted_for_logs(app):
    host, seat = signed(app, host_token, CODE), signed(app, seat_token, CODE, 3)
    with app.app_context():
        for path in (f"/h/{host}", f"/h/{host}/unlock/hint", f"/s/{seat}/votes/hint", f"/api/seats/{seat}",
                     f"/decrypto/h/{host}/live", f"/decrypto/p/{seat}", f"/decrypto/j/{seat}"):
            assert host not in redact(path) and seat not in redact(path) and "<token>" in redact(path)
        assert redact("/games/ABC-DEF/live") == "/games/ABC-DEF/live"


@pytest.mark.parametrize("spelling", ["/%73/{seat}", "/s%2F{seat}", "/s%252F{seat}", "/api/%73eats/{seat}/play",
                                      "/%68/{host}", "//api//seats/{seat}/play", "/%2568/{host}/live",
                                      "/help/refereed?%62ack=/s/{seat}", "/decrypto%2Fp%2F{seat}"])
def test_tokens_are_redacted_however_the_path_spells_them(app, spelling):
    """The decoded, normalised path is what routing reads, so it is what redaction reads."""
    host, seat = signed(app, host_token, CODE), signed(app, seat_token, CODE, 3)
    with app.app_context():
        logged = redact(spelling.format(host=host, seat=seat))
    assert host not in logged and seat not in logged and ("<token>" in logged or "<query>" in logged)


def test_cookies_are_secure_over_https_only(app):
    client = app.test_client()
    plain = client.get("/language?lang=el&next=/")
    assert "Secure" not in plain.headers["Set-Cookie"]
    secure = client.get("/language?lang=el&next=/", base_url="https://cryptid.example.org")
    assert "Secure" in secure.headers["Set-Cookie"]


def test_forwarded_proto_counts_only_behind_a_trusted_proxy(tmp_path):
    from companion.web.core.app import create_app

    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    trusting = create_app({"TESTING": True, "SECRET_KEY": "k" * 32, "TRUST_PROXY": 1}).test_client()
    assert "Secure" in trusting.get("/language?lang=el&next=/", headers=forwarded).headers["Set-Cookie"]
    wary = create_app({"TESTING": True, "SECRET_KEY": "k" * 32}).test_client()
    assert "Secure" not in wary.get("/language?lang=el&next=/", headers=forwarded).headers["Set-Cookie"]


def test_dealing_games_is_rate_limited_with_a_clear_page(tmp_path):
    from companion.web.core.app import create_app

    app = create_app({"TESTING": True, "SECRET_KEY": "k" * 32, "WTF_CSRF_ENABLED": False, "RATE_LIMIT_NEW_GAMES": "3 per minute"})
    client = app.test_client()
    statuses = [client.post("/", data={"players": "3"}).status_code for _ in range(4)]
    assert statuses == [303, 303, 303, 429]
    refused = client.post("/", data={"players": "3"})
    assert "Too many requests" in refused.get_data(as_text=True) and refused.headers["Retry-After"]
    other_address = client.post("/", data={"players": "3"}, environ_base={"REMOTE_ADDR": "192.0.2.77"})
    assert other_address.status_code == 303


def test_votes_and_refereed_moves_are_rate_limited_but_reading_never_is(tmp_path):
    """Votes and moves from one address share one budget: they stop at the limit with a 429, whichever route
    spent it, while the panel's polls and pages keep answering."""
    from companion.web.core.app import create_app

    app = create_app({"TESTING": True, "SECRET_KEY": "k" * 32, "WTF_CSRF_ENABLED": False, "RATE_LIMIT_ACTIONS": "3 per minute"})
    client = app.test_client()
    seat = urlsplit(client.post("/", data={"players": "4"}).headers["Location"]).path
    seat = re.search(r'class="seat-link"[^>]*>([^<]+)<', client.get(seat).get_data(as_text=True)).group(1)
    seat = urlsplit(seat).path
    votes = [client.post(f"{seat}/votes/hint").status_code for _ in range(4)]
    assert votes == [303, 303, 303, 429]
    assert all(client.get(f"{seat}/table").status_code == 200 for _ in range(10))
    table = client.post("/api/tables", json={"players": 3}).get_json()
    move = "/api/seats/" + urlsplit(table["seats"][0]["url"]).path.rsplit("/", 1)[1] + "/play"
    assert client.post(move, json={"action": "name", "name": "Ann"}).status_code == 429  # the votes spent it
    other = {"REMOTE_ADDR": "192.0.2.78"}
    moves = [client.post(move, json={"action": "name", "name": "Ann"}, environ_base=other).status_code for _ in range(4)]
    assert 429 not in moves[:3] and moves[3] == 429
    assert client.get(move).status_code == 200


def test_a_host_name_label_too_long_for_dns_gets_a_clean_400(client):
    response = client.get("/", headers={"Host": "a" * 70 + ".example"})
    assert response.status_code == 400 and "Traceback" not in response.get_data(as_text=True)


def test_the_language_switch_never_redirects_with_a_broken_header(client):
    response = client.get("/language", query_string={"lang": "el", "next": "/games\r\nX-Injected: 1"})
    assert response.status_code == 303 and response.headers["Location"] == "/"
    assert "X-Injected" not in response.headers


@pytest.mark.parametrize("junk", ["²", "١٢", "9" * 5000, "-3", "108"])
def test_a_junk_hex_on_a_seat_page_is_ignored(app, client, junk):
    response = client.get("/s/" + signed(app, seat_token, CODE, 1), query_string={"hex": junk})
    assert response.status_code == 200 and "No hex chosen yet" in response.get_data(as_text=True)


def test_only_a_bounded_prefix_of_accept_language_is_read(client):
    huge = "x-junk;q=0.1," * 20_000 + "el"  # 234 KB, the one real language at the very end
    page = client.get("/", headers={"Accept-Language": huge}).get_data(as_text=True)
    assert '<html lang="en"' in page
    assert '<html lang="el"' in client.get("/", headers={"Accept-Language": "el,en;q=0.5"}).get_data(as_text=True)


def test_a_remembered_session_cookie_still_expires(app, monkeypatch):
    """Each session cookie is checked once and remembered, but its age is checked on every request."""
    cookie = app.session_interface.get_signing_serializer(app).dumps({"csrf_token": "abc"})
    with app.test_request_context(headers={"Cookie": f"session={cookie}"}):
        assert dict(app.session_interface.open_session(app, flask.request)) == {"csrf_token": "abc"}
        opened = app.session_interface.open_session(app, flask.request)
        opened["csrf_token"] = "changed by one request"
        assert dict(app.session_interface.open_session(app, flask.request)) == {"csrf_token": "abc"}
        later = time.time() + app.permanent_session_lifetime.total_seconds() + 60
        monkeypatch.setattr(security.time, "time", lambda: later)
        assert dict(app.session_interface.open_session(app, flask.request)) == {}
    tampered = cookie[:-2] + ("AA" if not cookie.endswith("AA") else "BB")
    with app.test_request_context(headers={"Cookie": f"session={tampered}"}):
        assert dict(app.session_interface.open_session(app, flask.request)) == {}
