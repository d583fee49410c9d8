"""Markers tables on the web (docs/cryptid-markers.md section 5): dealt by the home page's form and by JSON, played
through the seat routes (forms and JSON) to the end, with 400 for malformed moves and 409 for illegal ones, and no
other seat's clue or sealed claim in anything a phone receives before the end."""

from __future__ import annotations

import html as html_text
import json
import random
import re
from urllib.parse import urlsplit

import pytest

from companion.cryptid import markers
from companion.cryptid.hexgrid import ALL_HEXES, HEX_COUNT, hex_name, hex_row_col, hexes_of
from companion.cryptid.text import clue_text
from companion.web.cryptid.tokens import host_token, seat_token


@pytest.fixture
def site(fresh_database_app):
    fresh_database_app.config.update(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=False)
    with fresh_database_app.app_context():  # the seat and host tokens are signed with the app's key
        yield fresh_database_app


def server_state(app, code: str) -> markers.State:
    from companion.web.cryptid.common import game_or_404
    from companion.web.cryptid.refereed import load_play

    with app.test_request_context():
        return load_play(game_or_404(code))


def deal_by_form(client, players: int = 3, **extra) -> str:
    response = client.post("/", data={"players": players, "how": "referee", "variant": "markers"} | extra)
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    return urlsplit(response.headers["Location"]).path


def code_of(client, host_path: str) -> str:
    from companion.web.cryptid.tokens import read_host_token

    with client.application.test_request_context():
        return read_host_token(host_path.rstrip("/").rsplit("/", 1)[1])


def test_the_deal_form_makes_a_markers_table_that_the_host_starts(site):
    client = site.test_client()
    host = deal_by_form(client, 3)
    code = code_of(client, host)
    page = client.get(host).get_data(as_text=True)
    assert "Markers" in page and "Start the game" in page
    assert server_state(site, code).phase == markers.LOBBY
    assert client.post(f"/h/{host_token(code)}/markers/play", data={"action": "start"}).status_code == 303
    state = server_state(site, code)
    assert state.phase == markers.TURNS and state.hands == (3, 3, 3)
    # The classic table's routes refuse a Markers table; its own pages answer.
    assert client.get(f"/games/{code}/live").status_code == 404
    assert client.post(f"/s/{seat_token(code, 1)}/play", data={"do": "cube", "hex": "0"}).status_code == 404
    assert "Markers in hand" in client.get(f"/games/{code}").get_data(as_text=True)
    assert client.get(f"/games/{code}/markers/live").status_code == 200


@pytest.mark.parametrize("data, message", [
    ({"players": 3, "how": "box", "variant": "markers"}, "Markers needs the app as referee."),
    ({"players": 5, "how": "referee", "variant": "markers"}, "Markers is for 2 to 4 players."),
    ({"players": 2, "how": "referee", "variant": "markers", "seat1": "solid", "seat2": "solid"},
     "At least one seat must be a person."),
])
def test_the_deal_form_refuses_what_markers_cannot_play(site, data, message):
    response = site.test_client().post("/", data=data)
    assert response.status_code == 400 and message in response.get_data(as_text=True)


def test_two_players_may_deal_markers_but_not_a_classic_refereed_game(site):
    client = site.test_client()
    assert client.post("/", data={"players": 2, "how": "referee", "variant": "markers"}).status_code == 303
    refused = client.post("/", data={"players": 2, "how": "referee"})
    # Without JavaScript the server's refusal says why and what to choose; the note beside the choice says it first.
    reason = ("With 2 players the app referees only the Markers variant: classic Cryptid's questions need at least "
              "two other players.")
    assert refused.status_code == 400 and reason in html_text.unescape(refused.get_data(as_text=True))
    home = html_text.unescape(client.get("/").get_data(as_text=True))
    assert f'<p class="note" id="two-players-note">{reason}</p>' in home
    assert '<input aria-describedby="two-players-note" id="how-1" name="how" type="radio" value="referee">' in home


def test_json_deals_markers_and_refuses_bad_variants(site):
    client = site.test_client()
    response = client.post("/api/tables", json={"players": 2, "variant": "markers"})
    assert response.status_code == 201 and response.get_json()["variant"] == "markers"
    code = response.get_json()["code"]
    assert server_state(site, code).phase == markers.TURNS
    assert client.post("/api/tables", json={"players": 5, "variant": "markers"}).status_code == 400
    assert client.post("/api/tables", json={"players": 3, "variant": "chess"}).status_code == 400
    seat = client.get(f"/api/seats/{seat_token(code, 1)}/play").get_json()
    assert seat["variant"] == "markers" and seat["you"] == 1 and len(seat["clues"]) == 2


def _secrets_of_others(state: markers.State, seat: int) -> list[str]:
    """Texts that would give away another seat's clue."""
    game = state.game
    return [clue_text(clue) for other in state.seats if other != seat for clue in game.seat_clues(other)]


def _check_phone_saw_nothing_secret(state: markers.State, seat: int, html: str, data: dict) -> None:
    for text in _secrets_of_others(state, seat):
        assert text not in html
    assert data["reveal"] is None
    assert data["clues"] == [clue.to_json() for clue in state.game.seat_clues(seat)]
    own = next((hex for s, hex in state.sealed if s == seat), None)
    assert data["sealed"] == (None if own is None else hex_name(own))
    assert ("Your sealed claim" in html) == (own is not None)
    assert not any(key in json.dumps(data) for key in ("habitat",))


@pytest.mark.postgresql
@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_games_through_the_seat_routes(site, players):
    client = site.test_client()
    code = client.post("/api/tables", json={"players": players, "variant": "markers"}).get_json()["code"]
    rng = random.Random(players)
    for turn in range(40):
        state = server_state(site, code)
        if state.phase == markers.OVER:
            break
        for seat in state.seats:  # every phone looks at its page and its JSON before each move
            html = client.get(f"/s/{seat_token(code, seat)}").get_data(as_text=True)
            html += client.get(f"/s/{seat_token(code, seat)}/markers/live").get_data(as_text=True)
            data = client.get(f"/api/seats/{seat_token(code, seat)}/play").get_json()
            _check_phone_saw_nothing_secret(state, seat, html, data)
        seat = state.turn
        claims = [m for m in markers.legal_moves(state, seat) if isinstance(m, (markers.NotHere, markers.ItsHere))]
        move = rng.choice(claims)
        kind = move.action
        other_kind = markers.ITS_HERE if kind == markers.NOT_HERE else markers.NOT_HERE
        token = seat_token(code, seat)
        # Malformed (400), illegal (409): nothing changes.
        assert client.post(f"/s/{token}/markers/play", data={"do": kind, "hex": "999"}).status_code == 400
        assert client.post(f"/s/{token}/markers/play", data={"do": "fly", "hex": str(move.hex)}).status_code == 400
        assert client.post(f"/s/{token}/markers/play", data={"do": other_kind, "hex": str(move.hex)}).status_code == 409
        assert client.post(f"/api/seats/{token}/play", json={"action": kind}).status_code == 400
        row, col = hex_row_col(move.hex)
        assert client.post(f"/api/seats/{token}/play",
                           json={"action": other_kind, "hex": {"row": row, "col": col}}).status_code == 409
        waiting = next(s for s in state.seats if s != seat)
        assert client.post(f"/s/{seat_token(code, waiting)}/markers/play",
                           data={"do": kind, "hex": str(move.hex)}).status_code == 409
        assert server_state(site, code).version == state.version
        if turn % 2:
            response = client.post(f"/s/{token}/markers/play",
                                   data={"do": kind, "hex": str(move.hex), "version": str(state.version)})
            assert response.status_code == 303
        else:
            response = client.post(f"/api/seats/{token}/play",
                                   json={"action": kind, "hex": {"row": row, "col": col}, "version": state.version})
            assert response.status_code == 200 and response.get_json()["version"] == state.version + 1
    state = server_state(site, code)
    assert state.phase == markers.OVER
    page = client.get(f"/s/{seat_token(code, 1)}").get_data(as_text=True)
    assert "Results" in page
    for clue in state.game.clues:
        assert clue_text(clue) in page
    assert client.get(f"/api/tables/{code}/play").get_json()["reveal"]["habitat"] is not None
    # The log reads in the order things happened, as the classic table's: an item per move, its answers and
    # payments as its lines, the first claim first.
    log = page.split('id="log-heading"')[1].split("</ol>")[0]
    items = [re.findall(r'<span class="log-line">(.*?)</span>', item) for item in re.findall(r"<li[^>]*>(.*?)</li>", log)]
    starts = [entry for entry in state.log if entry.action in (markers.NOT_HERE, markers.SEAL, markers.LEAVE)]
    assert len(items) == len(starts) and sum(map(len, items)) == len(state.log)
    first = starts[0]
    assert html_text.unescape(items[0][0]).startswith(f"Player {first.seat} ")


def test_leaving_and_ending(site):
    client = site.test_client()
    code = client.post("/api/tables", json={"players": 3, "variant": "markers"}).get_json()["code"]
    assert client.post(f"/s/{seat_token(code, 2)}/markers/play", data={"action": "leave"}).status_code == 303
    state = server_state(site, code)
    assert 2 in state.left and state.hands[1] == 0
    assert client.post(f"/s/{seat_token(code, 2)}/markers/play", data={"action": "leave"}).status_code == 409
    assert client.post(f"/h/{host_token(code)}/markers/play", data={"action": "end"}).status_code == 303
    assert server_state(site, code).outcome == markers.ENDED
    assert "nobody wins" in client.get(f"/h/{host_token(code)}").get_data(as_text=True)


@pytest.mark.postgresql
def test_the_next_game_of_a_markers_table_is_markers_and_phones_are_offered_it(site):
    client = site.test_client()
    code = client.post("/api/tables", json={"players": 3, "variant": "markers"}).get_json()["code"]
    assert client.post(f"/h/{host_token(code)}/markers/play", data={"action": "end"}).status_code == 303
    response = client.post(f"/h/{host_token(code)}/next", data={"players": 3})
    assert response.status_code == 303
    following = code_of(client, urlsplit(response.headers["Location"]).path)
    assert server_state(site, following).phase == markers.LOBBY
    assert seat_token(following, 2) in client.get(f"/s/{seat_token(code, 2)}").get_data(as_text=True)


@pytest.mark.postgresql
@pytest.mark.parametrize("level", ["beginner", "expert"])
def test_computer_seats_play_a_markers_table_through_the_one_worker(site, level):
    from companion.web.core.computers import take_all_pending

    client = site.test_client()
    data = client.post("/api/tables", json={"players": 3, "variant": "markers", "computers": [
        {"seat": 2, "level": level}, {"seat": 3, "level": level}]}).get_json()
    code = data["code"]
    assert [s["computer"] for s in data["seats"]] == [None, level, level]
    token = seat_token(code, 1)
    for _ in range(20):
        take_all_pending(site)
        state = server_state(site, code)
        if state.phase == markers.OVER:
            break
        assert state.turn == 1  # every computer turn was taken: the person's turn again
        assert client.post(f"/s/{seat_token(code, 2)}/markers/play",
                           data={"do": markers.NOT_HERE, "hex": "0"}).status_code == 409  # a computer's seat
        move = markers.legal_moves(state, 1)[0]
        assert client.post(f"/s/{token}/markers/play", data={"do": move.action, "hex": str(move.hex)}).status_code == 303
    assert server_state(site, code).phase == markers.OVER
    assert any(entry.seat in (2, 3) and entry.action in (markers.NOT_HERE, markers.SEAL)
               for entry in server_state(site, code).log)


@pytest.mark.parametrize("players, allows, rules_out", [
    (2, "both your clues allow this hex.", "at least one of your clues rules this hex out."),
    (3, "your clue allows this hex.", "your clue rules this hex out."),
])
def test_a_tapped_hex_says_what_the_seats_clues_say_without_discs_or_cubes(site, players, allows, rules_out):
    client = site.test_client()
    code = client.post("/api/tables", json={"players": players, "variant": "markers"}).get_json()["code"]
    state = server_state(site, code)
    allowed = state.allowed(1)
    inside = next(hex for hex in range(HEX_COUNT) if allowed >> hex & 1)
    outside = next(hex for hex in range(HEX_COUNT) if not allowed >> hex & 1)
    for hex, sentence in ((inside, allows), (outside, rules_out)):
        page = client.get(f"/s/{seat_token(code, 1)}?hex={hex}").get_data(as_text=True)
        sheet = page[page.index('id="sheet"'):]
        assert sentence in sheet
        assert "(disc)" not in sheet and "(cube)" not in sheet


def _objections(state: markers.State, seat: int, hex: int) -> int:
    """How many other seats' clues allow the hex (the referee's secret, as the engine's tests read it)."""
    return sum(1 for other in state.seats if other != seat
               for position in state.clue_positions(other) if state._areas[position] >> hex & 1)


def _claim(client, code: str, seat: int, action: str, hex: int) -> None:
    row, col = hex_row_col(hex)
    response = client.post(f"/api/seats/{seat_token(code, seat)}/play",
                           json={"action": action, "hex": {"row": row, "col": col}})
    assert response.status_code == 200, response.get_data(as_text=True)


def test_three_right_claims_say_who_was_right_who_held_most_and_why_that_wins(site):
    """The first player's "not here" draws two objections (4 markers against 2 and 2), the others' none; in the
    next round all three claim the habitat: every page names the three right claimants and why the first wins."""
    client = site.test_client()
    for attempt in range(20):
        code = client.post("/api/tables", json={"players": 3, "variant": "markers"}).get_json()["code"]
        state = server_state(site, code)
        order = [(state.turn - 1 + step) % 3 + 1 for step in range(3)]
        wants = {order[0]: 2, order[1]: 0, order[2]: 0}
        picks = {}
        for seat in order:
            picks[seat] = next((h for h in hexes_of(ALL_HEXES & ~state.allowed(seat))
                                if _objections(state, seat, h) == wants[seat] and h not in picks.values()), None)
        if None not in picks.values():
            break
    else:
        pytest.skip("no deal with the needed hexes")
    for seat in order:
        _claim(client, code, seat, markers.NOT_HERE, picks[seat])
    habitat = state.game.habitat
    for seat in order:
        _claim(client, code, seat, markers.ITS_HERE, habitat)
    state = server_state(site, code)
    assert state.winners == (order[0],) and state.right == tuple(order)
    names = [f"Player {seat}" for seat in order]
    expected = (f"{names[0]}, {names[1]}, and {names[2]} were all right about {hex_name(habitat)} in the "
                f"same round. When several claims are right, the claimant with the most markers in hand wins: "
                f"{names[0]}, with 3 markers.")
    for path in (f"/s/{seat_token(code, 1)}", f"/h/{host_token(code)}", f"/games/{code}"):
        page = client.get(path).get_data(as_text=True)
        assert expected in page, path
        assert "3 markers in hand" in page and "1 marker in hand" in page and "right about the habitat" in page


def test_the_markers_sheet_names_the_hex_and_its_terrain(site):
    client = site.test_client()
    code = client.post("/api/tables", json={"players": 3, "variant": "markers"}).get_json()["code"]
    state = server_state(site, code)
    from companion.cryptid.text import TERRAIN_NAMES

    terrain = TERRAIN_NAMES[state.game.board.cell(40)[0]]
    page = client.get(f"/s/{seat_token(code, 1)}?hex=40").get_data(as_text=True)
    heading = page[page.index('id="sheet-heading"'):page.index("</h2>", page.index('id="sheet-heading"'))]
    assert hex_name(40) in heading and f'<span class="terrain">{terrain}</span>' in heading


def test_the_last_player_standing_is_named_as_the_winner(site):
    client = site.test_client()
    code = client.post("/api/tables", json={"players": 2, "variant": "markers"}).get_json()["code"]
    assert client.post(f"/api/seats/{seat_token(code, 2)}/play", json={"action": "leave"}).status_code == 200
    assert server_state(site, code).outcome == markers.LAST_STANDING
    for path in (f"/s/{seat_token(code, 1)}", f"/h/{host_token(code)}", f"/games/{code}"):
        assert "Player 1 is the last player who can claim, and wins." in client.get(path).get_data(as_text=True)


def test_one_right_claim_says_who_was_right_and_where(site):
    client = site.test_client()
    code = client.post("/api/tables", json={"players": 3, "variant": "markers"}).get_json()["code"]
    state = server_state(site, code)
    order = [(state.turn - 1 + step) % 3 + 1 for step in range(3)]
    _claim(client, code, order[0], markers.ITS_HERE, state.game.habitat)
    for seat in order[1:]:
        now = server_state(site, code)
        _claim(client, code, seat, markers.NOT_HERE, next(iter(hexes_of(now.not_here_choices(seat)))))
    state = server_state(site, code)
    assert state.right == (order[0],) == state.winners
    name, place = f"Player {order[0]}", hex_name(state.game.habitat)
    page = client.get(f"/games/{code}").get_data(as_text=True)
    assert f"{name} was right: the creature is on {place}. {name} wins." in page
