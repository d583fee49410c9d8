"""Computer players at refereed tables (docs/cryptid-play.md section 10): dealt from the home page, the solo form and
the JSON API, marked wherever a seat is named, never given a seat link, handed a seat by the host, and their turns
taken once, from their own seat's view only."""

from __future__ import annotations

import random
import re
import threading
from urllib.parse import urlsplit

import pytest

from companion.cryptid.hexgrid import hex_row_col, hexes_of
from companion.cryptid.play import State
from companion.cryptid.view import view
from companion.web.core.computers import take_all_pending
from companion.web.core.db import db
from companion.web.cryptid import computers
from companion.web.cryptid.models import ComputerSeat
from companion.web.cryptid.tokens import (
    host_token,
    read_host_token,
    read_seat_token,
    seat_token,
)
from tests.cryptid.test_play import turn_moves
from tests.helpers import empty_database, make_app


@pytest.fixture
def site(database_url, tmp_path):
    app = make_app(database_url, tmp_path)
    app.config.update(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=False)
    empty_database(app)
    with app.test_request_context():  # for signing links in the tests
        yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def referee_state(app, code: str) -> State:
    from companion.web.cryptid.refereed import load_play

    with app.app_context():
        return load_play(app.extensions["dealer"].load(code))


def stored_computers(app, code: str) -> dict[int, str]:
    with app.app_context():
        rows = db.session.query(ComputerSeat).filter_by(code=code).all()
        return {row.seat: row.level for row in rows}


def solo(site, client, opponents: int = 3, level: str = "solid") -> tuple[str, str]:
    """Press "Play against the computer": the game's code and the person's seat page."""
    response = client.post("/solo", data={"solo-opponents": str(opponents), "solo-level": level})
    assert response.status_code == 303
    page = urlsplit(response.headers["Location"]).path
    with site.app_context():
        code, seat = read_seat_token(page.split("/")[2])
    assert seat == 1
    return code, page


def form_body(move) -> dict:
    data = move.to_json()
    from companion.cryptid.play import hex_from_row_col

    body = {"hex": str(hex_from_row_col(data["row"], data["col"]))}
    body["do"] = data["action"] if data["action"] in ("cube", "disc", "search") else f"ask-{data['target']}"
    return body


@pytest.mark.postgresql
def test_play_against_the_computer_to_the_end(site):
    client = site.test_client()
    home = client.get("/").get_data(as_text=True)
    assert "Play against the computer" in home and 'action="/solo"' in home
    code, page = solo(site, client, opponents=3, level="beginner")
    assert stored_computers(site, code) == {2: "beginner", 3: "beginner", 4: "beginner"}
    rng, moves = random.Random(3), 0
    while True:
        take_all_pending(site)
        state = referee_state(site, code)
        if state.phase == "over":
            break
        assert state.turn == 1, "the computers owe nothing once the worker has run"
        choices = turn_moves(state)
        hunt = [m for m in choices if m.action == "search" and m.hex == state.game.habitat]
        move = hunt[0] if hunt and moves > 12 else rng.choice(choices)
        response = client.post(page.replace("/s/", "/s/", 1) + "/play",
                               data=form_body(move) | {"version": str(state.version)})
        assert response.status_code == 303
        moves += 1
        assert moves < 200
    end = client.get(page).get_data(as_text=True)
    assert "Results" in end and "Player 2 (computer, beginner)" in end
    # The log names the computers with their mark too.
    assert re.search(r"Player [234] \(computer, beginner\) (asked|placed|searched)", end)
    # The end offers the same settings again on a new map, and the home page for others.
    again = re.search(r'<form method="post" action="/solo" class="play-again">(.*?)</form>', end, re.S).group(1)
    assert 'name="solo-opponents" value="3"' in again and 'name="solo-level" value="beginner"' in again
    assert "solo-advanced" not in again and "solo-solver" not in again
    assert ">Play again</button>" in again and 'href="/#solo-heading">Next game: other settings</a>' in again
    fields = dict(re.findall(r'name="(solo-[a-z]+)" value="([^"]*)"', again))
    response = client.post("/solo", data=fields)
    assert response.status_code == 303
    with site.app_context():
        following, seat = read_seat_token(urlsplit(response.headers["Location"]).path.split("/")[2])
    assert following != code and seat == 1
    assert stored_computers(site, following) == {2: "beginner", 3: "beginner", 4: "beginner"}


@pytest.mark.postgresql
def test_play_again_keeps_the_solver_and_advanced_mode_and_seat_pages_link_home(site):
    from companion.web.cryptid.head import read_head

    client = site.test_client()
    response = client.post("/solo", data={"solo-opponents": "2", "solo-level": "expert", "solo-advanced": "y",
                                          "solo-solver": "y"})
    page = urlsplit(response.headers["Location"]).path
    with site.app_context():
        code, _ = read_seat_token(page.split("/")[2])
        assert read_head(code).solver
    seat = client.get(page).get_data(as_text=True)
    assert re.search(r'<nav aria-label="Site"><a href="/">Home</a>', seat)
    assert "play-again" not in seat  # only once the game is over
    assert client.post(page + "/play", data={"action": "leave"}).status_code == 303
    for _ in range(100):  # the two computers play on to the end
        take_all_pending(site)
        if referee_state(site, code).phase == "over":
            break
    assert referee_state(site, code).game.mode == "advanced"
    end = client.get(page).get_data(as_text=True)
    again = re.search(r'<form method="post" action="/solo" class="play-again">(.*?)</form>', end, re.S).group(1)
    assert dict(re.findall(r'name="(solo-[a-z]+)" value="([^"]*)"', again)) == {
        "solo-opponents": "2", "solo-level": "expert", "solo-advanced": "y", "solo-solver": "y"}


def test_a_table_of_people_has_no_play_again(site):
    client = site.test_client()
    response = client.post("/", data={"players": "3", "how": "referee", "seat2": "solid"})
    with site.app_context():
        code = read_host_token(response.headers["Location"].split("/")[2])
    client.post(f"/h/{host_token(code)}/play", data={"action": "start"})
    for seat in (1, 3):
        client.post(f"/s/{seat_token(code, seat)}/play", data={"action": "leave"})
    for _ in range(100):
        take_all_pending(site)
        if referee_state(site, code).phase == "over":
            break
    assert referee_state(site, code).phase == "over"
    assert "play-again" not in client.get(f"/s/{seat_token(code, 1)}").get_data(as_text=True)


def test_the_forms_describe_every_level_and_solo_starts_with_the_gentlest(site):
    client = site.test_client()
    home = client.get("/").get_data(as_text=True)
    solo_form = home[home.index('id="solo-heading"'):]
    deal_form = home[:home.index('id="solo-heading"')]
    for level in ("novice", "beginner", "solid", "expert"):
        line = str(computers.LEVEL_LINES[level])
        assert line.startswith(level.capitalize() + ":")
        assert line in solo_form and line in deal_form
        assert f'value="{level}"' in solo_form and f'value="{level}"' in deal_form
    assert '<option selected value="novice">' in solo_form
    assert 'aria-describedby="solo-levels"' in solo_form and 'id="solo-levels"' in solo_form
    # Pressing the button without touching the level deals novices.
    response = client.post("/solo", data={"solo-opponents": "2"})
    code, _ = read_seat_token(urlsplit(response.headers["Location"]).path.split("/")[2])
    assert stored_computers(site, code) == {2: "novice", 3: "novice"}


def test_the_deal_form_makes_computer_seats_without_seat_links(site):
    client = site.test_client()
    response = client.post("/", data={"players": "4", "how": "referee", "seat2": "expert", "seat4": "beginner",
                                      "seat5": "solid"})  # seat 5 is beyond the player count: left out
    assert response.status_code == 303
    with site.app_context():
        code = read_host_token(response.headers["Location"].split("/")[2])
    assert stored_computers(site, code) == {2: "expert", 4: "beginner"}
    host = client.get(response.headers["Location"]).get_data(as_text=True)
    for seat in (2, 4):
        assert seat_token(code, seat) not in host
    for seat in (1, 3):
        assert seat_token(code, seat) in host
    assert host.count("A computer player: nothing to scan.") == 2
    assert "Player 2 (computer, expert)" in host and "Player 4 (computer, beginner)" in host
    client.post(f"/h/{host_token(code)}/play", data={"action": "start"})
    # The host's game: computers play their opening cubes as soon as their turns come.
    take_all_pending(site)
    state = referee_state(site, code)
    assert state.turn in (1, 3)
    printed = client.get(f"/h/{host_token(code)}/print").get_data(as_text=True)
    assert seat_token(code, 2) not in printed


@pytest.mark.parametrize("form, words", [
    ({"players": "4", "how": "box", "seat2": "solid"}, "Computer players need the app as referee."),
    ({"players": "3", "how": "referee", "seat1": "solid", "seat2": "solid", "seat3": "expert"},
     "At least one seat must be a person."),
    ({"players": "3", "how": "referee", "seat2": "grandmaster"}, "Not a valid choice."),
])
def test_the_deal_form_refuses_bad_computer_seats(site, form, words):
    response = site.test_client().post("/", data=form)
    assert response.status_code == 400 and words in response.get_data(as_text=True)


@pytest.mark.parametrize("form", [{"solo-opponents": "5"}, {"solo-opponents": "x"}, {"solo-level": "god"}, {}])
def test_the_solo_form_refuses_junk(site, form):
    assert site.test_client().post("/solo", data={"solo-opponents": "3"} | form if form else {}).status_code == 400


def test_the_json_api_adds_computer_seats(site):
    client = site.test_client()
    response = client.post("/api/tables", json={"players": 4, "advanced": True,
                                                 "computers": [{"seat": 1, "level": "expert"}, {"seat": 3, "level": "beginner"}]})
    assert response.status_code == 201
    data = response.get_json()
    assert [s.get("computer") for s in data["seats"]] == ["expert", None, "beginner", None]
    novices = client.post("/api/tables", json={"players": 3, "computers": [{"seat": 2, "level": "novice"}]})
    assert stored_computers(site, novices.get_json()["code"]) == {2: "novice"}
    assert "url" not in data["seats"][0] and "url" in data["seats"][1]
    code = data["code"]
    assert stored_computers(site, code) == {1: "expert", 3: "beginner"}
    public = client.get(f"/api/tables/{code}/play").get_json()
    assert [s["computer"] for s in public["seats"]] == ["expert", None, "beginner", None]
    # A computer's seat cannot be played from its link (were it ever found).
    state = referee_state(site, code)
    computer_link = f"/api/seats/{seat_token(code, 1)}/play"
    answer = client.post(computer_link, json={"action": "leave"})
    assert answer.status_code == 409 and "computer player" in answer.get_json()["error"]
    assert referee_state(site, code).version == state.version


@pytest.mark.parametrize("computers", [
    "solid", [{"seat": 2}], [{"seat": 2, "level": "hard"}], [{"seat": 5, "level": "solid"}],
    [{"seat": 0, "level": "solid"}], [{"seat": True, "level": "solid"}], [{"seat": 2, "level": "solid", "x": 1}],
    [{"seat": 2, "level": "solid"}, {"seat": 2, "level": "expert"}],
    [{"seat": s, "level": "solid"} for s in (1, 2, 3)], [[2, "solid"]],
])
def test_the_json_api_refuses_bad_computer_seats(site, computers):
    response = site.test_client().post("/api/tables", json={"players": 3, "computers": computers})
    assert response.status_code == 400 and '"computers"' in response.get_json()["error"]


@pytest.mark.postgresql
def test_the_host_hands_a_silent_seat_to_a_computer(site):
    client = site.test_client()
    data = client.post("/api/tables", json={"players": 3}).get_json()
    code, token = data["code"], host_token(data["code"])
    take_all_pending(site)
    state = referee_state(site, code)
    silent = state.turn
    page = client.get(f"/h/{token}").get_data(as_text=True)
    assert "hand-over" in page and "Yes, hand" in page
    assert client.post(f"/h/{token}/computer", data={"target": str(silent), "level": "wizard"}).status_code == 400
    assert client.post(f"/h/{token}/computer", data={"target": "x", "level": "solid"}).status_code == 400
    assert client.post(f"/h/{token}/computer", data={"target": "7", "level": "solid"}).status_code == 400
    assert client.post("/h/nonsense/computer", data={"target": "1", "level": "solid"}).status_code == 404
    response = client.post(f"/h/{token}/computer", data={"target": str(silent), "level": "expert"})
    assert response.status_code == 303
    assert stored_computers(site, code) == {silent: "expert"}
    assert client.post(f"/h/{token}/computer", data={"target": str(silent), "level": "solid"}).status_code == 409
    # The computer takes the turn the player left waiting, and the seat's phone is told.
    assert take_all_pending(site) == 1
    assert referee_state(site, code).version == state.version + 1
    phone = client.get(f"/s/{seat_token(code, silent)}").get_data(as_text=True)
    assert "A computer player now plays this seat." in phone
    # A seat that left stays left: leaving is final.
    other = next(s for s in (1, 2, 3) if s != silent)
    client.post(f"/api/seats/{seat_token(code, other)}/play", json={"action": "leave"})
    assert client.post(f"/h/{token}/computer", data={"target": str(other), "level": "solid"}).status_code == 409


@pytest.mark.postgresql
def test_a_computer_turn_is_taken_once_by_two_sites_racing_on_one_database(site, database_url, tmp_path):
    other = make_app(database_url, tmp_path)
    client = site.test_client()
    for _ in range(50):  # the first player is drawn: deal until a computer opens, so that turns are owed at once
        code = client.post("/api/tables", json={"players": 5, "computers": [
            {"seat": s, "level": "solid"} for s in (2, 3, 4, 5)]}).get_json()["code"]
        if referee_state(site, code).turn != 1:
            break
    taken = 0
    while True:
        with site.app_context():
            owed = computers.pending_turns()
        if not owed:
            break
        (turn,) = owed
        before = referee_state(site, code).version
        barrier = threading.Barrier(2)

        def take(app):
            with app.app_context():
                barrier.wait()
                computers.take_turn(turn)

        threads = [threading.Thread(target=take, args=(app,)) for app in (site, other)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert referee_state(other, code).version == before + 1  # one move, whoever won the race
        taken += 1
    state = referee_state(other, code)
    assert taken >= 1 and state.turn == 1
    assert len(state.log) == state.version - 1  # the start, then one logged cube per move: none twice
    with other.app_context():
        db.session.remove()
        db.engine.dispose()


def test_a_computer_decides_from_its_own_seat_view_only(site, monkeypatch):
    """The worker hands the bot exactly view(state, seat) of the computer's own seat, the phone's view."""
    client = site.test_client()
    code = client.post("/api/tables", json={"players": 4, "computers": [
        {"seat": s, "level": "expert"} for s in (1, 2, 3)]}).get_json()["code"]
    asked = []

    def watched_view(state, viewer=None, *args):
        asked.append((state.turn, viewer))
        return view(state, viewer, *args)

    monkeypatch.setattr(computers, "view", watched_view)
    take_all_pending(site)
    if not asked:  # the person was drawn to start: their cube first
        state = referee_state(site, code)
        cube = {"action": "cube", "hex": dict(zip(("row", "col"), hex_row_col(hexes_of(state.cube_choices(4))[0])))}
        assert client.post(f"/api/seats/{seat_token(code, 4)}/play", json=cube).status_code == 200
        take_all_pending(site)
    assert asked and all(turn == viewer for turn, viewer in asked)
    # A decision replays: the same position, seat and level give the same move.
    state = referee_state(site, code)
    with site.app_context():
        assert computers.decide(state, state.turn, "expert") == computers.decide(state, state.turn, "expert")


def test_computers_agree_once_every_person_has(site):
    """A hint, the reveal, and that a person has vanished: the computers follow the people's agreement."""
    client = site.test_client()
    data = client.post("/api/tables", json={"players": 5, "computers": [
        {"seat": s, "level": "beginner"} for s in (3, 4, 5)]}).get_json()
    code = data["code"]
    first, second = (seat_token(code, seat) for seat in (1, 2))
    take_all_pending(site)
    assert client.post(f"/s/{first}/votes/hint").status_code in (200, 303)
    take_all_pending(site)
    with site.app_context():
        from companion.web.cryptid.agreement import load_agreement

        assert "hint" not in load_agreement(site.extensions["dealer"].load(code)).unlocked  # seat 2 has not asked
    client.post(f"/s/{second}/votes/hint")
    take_all_pending(site)
    with site.app_context():
        assert "hint" in load_agreement(site.extensions["dealer"].load(code)).unlocked
    # Seat 1 marks seat 2 gone: the computers, the only others still playing, agree.
    state = referee_state(site, code)
    assert client.post(f"/api/seats/{first}/play", json={"action": "vote_gone", "seat": 2}).status_code == 200
    take_all_pending(site)
    state = referee_state(site, code)
    assert 2 in state.left
    # The reveal: seat 1 asks, the computers agree, and the game ends with no winner.
    client.post(f"/s/{first}/votes/reveal")
    take_all_pending(site)
    state = referee_state(site, code)
    assert state.phase == "over" and state.winner is None


def test_every_computer_move_is_its_strategy_choice_from_its_seat_view(site):
    """Each move a computer made equals what its level's strategy chooses from view(state, seat) of the position
    before it, with the decision's own seed: a decision that read anything else (the habitat, another seat's
    clue, the public view) would choose differently somewhere in the game."""
    from companion.cryptid.bots import LEVELS, choose_move
    from companion.web.cryptid.refereed import load_moves

    client = site.test_client()
    levels = {2: "beginner", 3: "solid", 4: "expert"}
    # The map is new each time: a computer may search right after the opening and win before any computer asked,
    # so tables are dealt until one has the computers ask too (every table's moves are checked all the same).
    for table in range(5):
        code = client.post("/api/tables", json={"players": 4, "computers": [
            {"seat": seat, "level": level} for seat, level in levels.items()]}).get_json()["code"]
        page, rng = f"/s/{seat_token(code, 1)}", random.Random(5 + table)
        for _ in range(25):  # the person's turns: enough for every computer to cube, ask and search
            take_all_pending(site)
            state = referee_state(site, code)
            if state.phase == "over":
                break
            # The person never searches, so that the game lasts until the computers have asked too.
            move = rng.choice([move for move in turn_moves(state) if move.action != "search"])
            assert client.post(f"{page}/play", data=form_body(move) | {"version": str(state.version)}).status_code == 303
        with site.app_context():
            game = site.extensions["dealer"].load(code)
            moves = load_moves(game)
        checked, before = 0, State.replay(game, [])
        for move in moves:
            seat = getattr(move, "seat", None)
            if seat in levels and before.turn == seat:
                chosen = choose_move(view(before, seat), LEVELS[levels[seat]], random.Random(f"{code}/{before.version}/{seat}"))
                assert move == chosen, (before.version, seat)
                checked += 1
            before = before.apply(move)
        # At least every computer's two opening cubes.
        assert checked >= 2 * len(levels)
        if {move.action for move in moves if getattr(move, "seat", None) in levels} >= {"cube", "ask"}:
            break
    else:
        pytest.fail("in five tables the computers never asked a question")
