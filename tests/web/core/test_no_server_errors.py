"""No input gets a 500: the causes once found (each with its regression test) and the seeded fuzz over every route,
every method, genuine tokens of every kind of game, deep JSON and every JSON type in every field."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from companion.ops.fuzz import Answer, harvest, junk_requests, redacted, routes_of
from companion.web.cryptid.tokens import host_token, seat_token
from tests.helpers import GOLDEN, how_many

TWO_PLAYERS = next(game["code"] for game in GOLDEN if game["players"] == 2)


def signed(app, make, *args) -> str:
    with app.test_request_context():
        return make(*args)


def refereed_seat(client) -> str:
    answer = client.post("/api/tables", json={"players": 3})
    assert answer.status_code == 201
    return answer.get_json()["seats"][0]["url"].rpartition("/s/")[2]


def test_a_two_player_game_has_no_live_part_on_any_route(app, client):
    for path in (f"/games/{TWO_PLAYERS}/live", f"/h/{signed(app, host_token, TWO_PLAYERS)}/live",
                 f"/s/{signed(app, seat_token, TWO_PLAYERS, 1)}/live"):
        for headers in ({}, {"If-None-Match": '"1"'}):
            assert client.get(path, headers=headers).status_code == 404, path


@pytest.mark.parametrize("opener, closer", [("[", "]"), ('{"a":', "}"), ('{"action":', "}")])
def test_json_nested_too_deep_is_a_400_on_every_json_route(client, opener, closer):
    deep = opener * 1000 + "1" + closer * 1000  # a few kilobytes, past Python's parser's recursion limit
    for path in ("/api/tables", f"/api/seats/{refereed_seat(client)}/play"):
        answer = client.post(path, data=deep, content_type="application/json")
        assert answer.status_code == 400 and answer.get_json()["error"], path


@pytest.mark.parametrize("action", [[], ["cube"], {}, {"cube": 1}, 1, 1.5, None, True])
def test_an_action_of_the_wrong_json_type_is_a_400(client, action):
    answer = client.post(f"/api/seats/{refereed_seat(client)}/play", json={"action": action})
    assert answer.status_code == 400
    assert answer.get_json()["error"] == '"action" must be one of: cube, ask, search, disc, leave, name, vote_gone, withdraw_gone.'


def test_a_body_too_large_closes_its_connection(client):
    answer = client.post("/", data=b"players=4&pad=" + b"x" * 20_000, content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 413 and answer.headers["Connection"] == "close"


def test_errors_under_a_token_path_are_never_stored(app, client):
    seat = signed(app, seat_token, GOLDEN[2]["code"], 1)
    for method, path in [("DELETE", f"/s/{seat}"), ("GET", f"/s/{seat}/nothing"), ("PUT", f"/h/{seat}/live"),
                         ("GET", "/decrypto/p/junk.junk"), ("POST", f"/s/{seat}/votes/nothing")]:
        answer = client.open(path, method=method)
        assert answer.status_code in (400, 404, 405), path
        assert answer.headers["Cache-Control"] == "no-store", (method, path)
        assert answer.headers["Referrer-Policy"] == "no-referrer"


def send_with(client):
    def send(method: str, path: str, headers: dict, body: bytes | None) -> Answer:
        answer = client.open(path, method=method, headers=headers, data=body)
        return Answer(answer.status_code, answer.headers.get("Location", ""), answer.get_data(as_text=True))

    return send


@pytest.mark.slow
def test_junk_requests_never_get_a_server_error(app):
    """The fuzz command's requests (python -m companion fuzz), seeded, through the test client: every route with
    every method, then every JSON type in every field of the JSON routes, then junk at random (a few hundred
    requests of it; thousands with COMPANION_THOROUGH=1, and `fuzz` sends as many as asked to a running site)."""
    app.config["RATELIMIT_ENABLED"] = False
    app.config["WTF_CSRF_ENABLED"] = True
    send = send_with(app.test_client())
    genuine = harvest(send)
    assert {"/s/", "/h/", "/decrypto/h/", "/decrypto/p/"} <= set(genuine.tokens)
    assert any(code.replace("-", "") in "".join(genuine.tokens["/h/"]) for code in genuine.codes)
    seen = Counter()
    for request in junk_requests(routes_of(app.url_map), genuine, seed=20261201, count=how_many(1500, 20000)):
        status = send(request.method, request.path, request.headers, request.body).status
        seen[status] += 1
        assert status < 500, (request.method, redacted(request.path), request.headers, (request.body or b"")[:80])
    assert {200, 303, 400, 404, 405, 413} <= set(seen)


def test_the_fuzz_sends_every_route_every_method_and_wrong_types_in_every_field(app):
    routes = routes_of(app.url_map)
    genuine = harvest(send_with(app.test_client()))
    requests = list(junk_requests(routes, genuine, seed=1, count=7 * len(routes) + 700))
    sent = {(r.method, r.path.split("?")[0]) for r in requests[: 7 * len(routes)]}
    assert len({method for method, _ in sent}) == 7 and len(sent) >= 6 * len(routes)
    bodies = [json.loads(r.body) for r in requests[7 * len(routes):] if (r.body or b"").startswith(b'{"action": ')]
    for field in ("players", "action", "hex", "seat", "name", "version"):
        assert {type(body.get(field)) for body in bodies} >= {list, dict, str, int, float, bool}, field


@pytest.mark.parametrize("level", [[], {}, ["beginner"], {"beginner": 1}])
def test_a_computer_level_of_the_wrong_json_type_is_a_400(client, level):
    answer = client.post("/api/tables", json={"players": 3, "computers": [{"seat": 1, "level": level}]})
    assert answer.status_code == 400 and answer.get_json()["error"].startswith('"computers" must be a list')


@pytest.mark.parametrize("players", [2, 3])
def test_a_markers_table_read_through_any_spelling_of_its_code_answers_its_own_state(client, players):
    """The route reads the table by its canonical code, not the URL's spelling: before, a lower-case or dashless
    code read a Markers table as classic (500 for two players, the classic state's shape for more)."""
    made = client.post("/api/tables", json={"players": players, "variant": "markers"})
    code = made.get_json()["code"]
    canonical = client.get(f"/api/tables/{code}/play").get_json()
    for spelling in (code.lower(), code.replace("-", ""), code.replace("-", "").lower()):
        answer = client.get(f"/api/tables/{spelling}/play")
        assert answer.status_code == 200, spelling
        assert answer.get_json() == canonical, spelling


BOX_GAMES = [next(game["code"] for game in GOLDEN if game["players"] == players) for players in (2, 4)]


@pytest.mark.parametrize("code", BOX_GAMES)
@pytest.mark.parametrize("path, form", [("computer", {"target": "2", "level": "solid"}),
                                        ("play", {"action": "start"}), ("play", {"action": "host_gone", "target": "2"})])
def test_a_box_game_takes_no_refereed_move_and_no_computer_seat(app, client, code, path, form):
    """A game dealt for the box has no referee: the host's play and hand-over routes are not there (404), and
    nothing is written for it (before: a 500 for two players; a 303 with move rows and a computer seat for more)."""
    from companion.web.core.store import load_log
    from companion.web.cryptid.computers import computer_seats

    answer = client.post(f"/h/{signed(app, host_token, code)}/{path}", data=form)
    assert answer.status_code == 404
    with app.app_context():
        assert load_log(code) == [] and computer_seats(code) == {}
    assert client.get(f"/games/{code}").status_code == 200


@pytest.mark.parametrize("body", [1, [[1]], ["ab", 3], "text", None, True, {"players": [3]}])
@pytest.mark.parametrize("path", ["/", "/solo", "/decrypto/new"])
def test_a_json_body_to_a_form_is_a_400_whatever_its_type(client, path, body):
    """Forms read form fields only: before, Flask-WTF read a JSON body as the fields, and one that is no object
    raised TypeError or ValueError (a 500)."""
    answer = client.post(path, data=json.dumps(body), content_type="application/json")
    assert answer.status_code == 400
