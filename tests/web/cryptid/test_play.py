"""Refereed play through the HTTP API, as scripted phones play it: whole games against two app instances sharing
one database (SQLite always, PostgreSQL when TEST_DATABASE_URL names one), races, errors and secrets."""

from __future__ import annotations

import html
import json
import random
import re
import threading
from urllib.parse import urlsplit

import pytest

from companion.cryptid.hexgrid import hex_name, hex_row_col, hexes_of
from companion.cryptid.play import Search, State
from companion.cryptid.text import clue_text, hint_text
from companion.web.core.db import db
from companion.web.cryptid.tokens import host_token
from tests.cryptid.test_play import turn_moves
from tests.helpers import empty_database, make_app, without_books


@pytest.fixture
def apps(database_url, tmp_path):  # noqa: F811
    """Two app instances (two connection pools, as two server processes have) on one fresh database."""
    first = make_app(database_url, tmp_path)
    empty_database(first)
    first.config.update(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=False)
    second = make_app(database_url, tmp_path)
    second.config.update(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=False)
    yield first, second
    for app in (first, second):
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


class Phone:
    """One seat's phone, talking to the API through one of the two app instances; keeps every response body."""

    def __init__(self, client, url: str) -> None:
        self.client = client
        self.path = "/api/seats/" + urlsplit(url).path.rsplit("/", 1)[1] + "/play"
        self.received: list[str] = []

    def get(self) -> dict:
        response = self.client.get(self.path)
        self.received.append(response.get_data(as_text=True))
        assert response.status_code == 200
        return response.get_json()

    def post(self, body: dict, status: int = 200) -> dict:
        response = self.client.post(self.path, json=body)
        self.received.append(response.get_data(as_text=True))
        assert response.status_code == status, response.get_json()
        return response.get_json()


def new_table(apps, players: int, advanced: bool) -> tuple[str, list[Phone]]:
    clients = [app.test_client() for app in apps]
    response = clients[0].post("/api/tables", json={"players": players, "advanced": advanced})
    assert response.status_code == 201
    data = response.get_json()
    assert [s["seat"] for s in data["seats"]] == list(range(1, players + 1))
    phones = [Phone(clients[i % 2], s["url"]) for i, s in enumerate(data["seats"])]
    return data["code"], phones


def hex_json(index: int) -> dict:
    row, col = hex_row_col(index)
    return {"row": row, "col": col}


def referee_state(app, code: str) -> State:
    """What the server holds, folded in-process: the scripted players' eyes (they pick legal moves from it)."""
    from companion.web.cryptid.refereed import load_play

    with app.app_context():
        return load_play(app.extensions["dealer"].load(code))


def play_a_move(phone: Phone, state: State, seat: int, rng: random.Random, hunt: bool) -> dict:
    """A random legal move for the seat to act; with hunt, search the habitat when a move is due."""
    if state.pending == "cube":
        return phone.post({"action": "cube", "hex": hex_json(rng.choice(hexes_of(state.cube_choices(seat)))), "version": state.version})
    if state.pending == "disc":
        return phone.post({"action": "disc", "hex": hex_json(rng.choice(hexes_of(state.disc_choices(seat))))})
    if hunt:
        return phone.post({"action": "search", "hex": hex_json(state.game.habitat)})
    move = rng.choice(turn_moves(state))
    body = move.to_json()
    request = {"action": body["action"], "hex": {"row": body["row"], "col": body["col"]}}
    if body["action"] == "ask":
        request["seat"] = body["target"]
    return phone.post(request)


@pytest.mark.postgresql
@pytest.mark.parametrize("players, advanced", [(3, False), (4, True), (5, False), (5, True)])
def test_whole_games_through_the_api_on_two_servers(apps, players, advanced):
    rng = random.Random(players * 10 + advanced)
    code, phones = new_table(apps, players, advanced)
    game = apps[0].extensions["dealer"].load(code)
    leaver = players  # the last seat leaves after the opening
    turns = 0
    while True:
        state = referee_state(apps[0], code)
        if state.phase == "over":
            break
        if state.phase == "turns" and leaver not in state.left:
            phones[leaver - 1].post({"action": "leave"})
            continue
        seat = state.turn
        play_a_move(phones[seat - 1], state, seat, rng, hunt=turns > 6 * players)
        turns += 1
        assert turns < 400
    final = phones[0].get()
    assert final["phase"] == "over" and final["winner"] is not None
    assert final["ranks"][str(final["winner"])] == 1 and final["ranks"][str(leaver)] == 3
    assert sum(1 for rank in final["ranks"].values() if rank == 2) == players - 2
    assert final["reveal"]["habitat"] == hex_json(game.habitat)
    assert phones[1].get() == phones[1].get()  # both servers tell the same story
    public = apps[1].test_client().get(f"/api/tables/{code}/play").get_json()
    assert public["log"] == final["log"] and "clue" not in public and "you" not in public


@pytest.mark.slow
def test_a_forced_cube_with_no_room_is_skipped_and_logged(apps):
    """A seat that keeps asking where the answer is a cube runs out of hexes for its own cubes: a logged skip."""
    code, phones = new_table(apps, 3, False)
    rng = random.Random(7)
    for _ in range(600):
        state = referee_state(apps[0], code)
        if any(entry.action == "skip" for entry in state.log):
            break
        seat = state.turn
        if state.pending == "cube":
            play_a_move(phones[seat - 1], state, seat, rng, hunt=False)
            continue
        assert state.phase == "turns"  # nobody searches here, so nobody can win before the board fills with cubes
        asks = [m for m in turn_moves(state) if m.action == "ask"]
        failing = [m for m in asks if not state._allowed[m.target - 1] >> m.hex & 1]
        move = rng.choice(failing or asks).to_json()
        body = {"action": move["action"], "hex": {"row": move["row"], "col": move["col"]}}
        if move["action"] == "ask":
            body["seat"] = move["target"]
        phones[seat - 1].post(body)
    log = phones[0].get()["log"]
    assert any(entry["action"] == "skip" for entry in log)


def test_a_search_on_ones_own_disc_waits_for_the_extra_disc_by_json_and_by_the_sheet(apps):
    """docs/cryptid-play.md section 4: the searcher places a disc on another hex its clue allows, then the others
    answer; the JSON says pending "disc", the sheet offers the highlighted hexes and says why."""
    code, phones = new_table(apps, 3, False)
    rng = random.Random(3)
    state = referee_state(apps[0], code)
    while state.phase == "opening":
        play_a_move(phones[state.turn - 1], state, state.turn, rng, hunt=False)
        state = referee_state(apps[0], code)
    asker, searcher = state.turn, state.turn % 3 + 1
    target = next(h for h in hexes_of(state.game.allowed(searcher) & ~state.all_cubes) if h != state.game.habitat)
    phones[asker - 1].post({"action": "ask", "seat": searcher, "hex": hex_json(target)})
    waiting = phones[searcher - 1].post({"action": "search", "hex": hex_json(target)})
    assert (waiting["turn"], waiting["pending"]) == (searcher, "disc")
    assert waiting["log"][-1] == {"n": len(waiting["log"]), "seat": searcher, "action": "search", **hex_json(target)}
    refused = phones[searcher - 1].post({"action": "ask", "seat": asker, "hex": hex_json(0)}, status=409)
    assert f"You already have a disc on {hex_name(target)}" in refused["error"]
    assert phones[asker - 1].get()["pending"] == "disc"  # everyone sees what the table waits for

    token = phones[searcher - 1].path.split("/")[3]
    client = apps[1].test_client()
    state = referee_state(apps[0], code)
    extra = hexes_of(state.disc_choices(searcher))[0]
    page = client.get(f"/s/{token}", query_string={"hex": extra}).get_data(as_text=True)
    assert f"You already have a disc on {hex_name(target)}: place an extra disc on another hex your clue allows." in page
    sheet = page[page.index('<section class="sheet"'):]
    assert 'value="disc" required checked' in sheet and "Put my extra disc here" in sheet
    blocked = client.get(f"/s/{token}", query_string={"hex": target}).get_data(as_text=True)
    assert f"You already have a disc on {hex_name(target)}: your extra disc goes on a highlighted hex" in blocked
    with apps[1].app_context():
        host_path = f"/h/{host_token(code)}"
    host = client.get(host_path).get_data(as_text=True)
    assert f"already has a disc on {hex_name(target)}: they place an extra disc" in host
    response = client.post(f"/s/{token}/play", data={"do": "disc", "hex": extra, "version": state.version})
    assert response.status_code == 303
    after = phones[0].get()
    placed = after["log"][len(waiting["log"])]
    assert placed == {"n": placed["n"], "seat": searcher, "action": "disc", **hex_json(extra)}
    assert {"seat": searcher, **hex_json(extra)} in after["discs"]
    assert [e["action"] for e in after["log"][len(waiting["log"]) + 1:]][:1] == ["answer"]


@pytest.mark.postgresql
def test_two_racing_moves_cannot_both_apply(apps):
    code, phones = new_table(apps, 4, False)
    state = referee_state(apps[0], code)
    seat = state.turn
    hexes = hexes_of(state.cube_choices(seat))
    twins = [Phone(apps[i].test_client(), "http://x/s/" + phones[seat - 1].path.split("/")[3]) for i in (0, 1)]
    barrier = threading.Barrier(2)
    answers = []

    def tap(phone: Phone, hex_index: int) -> None:
        barrier.wait()
        response = phone.client.post(phone.path, json={"action": "cube", "hex": hex_json(hex_index), "version": state.version})
        answers.append((response.status_code, response.get_json()))

    threads = [threading.Thread(target=tap, args=(twin, h)) for twin, h in zip(twins, hexes[:2])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(status for status, _ in answers) == [200, 409]
    after = referee_state(apps[1], code)
    assert after.version == state.version + 1 and len(hexes_of(after.all_cubes)) == 1


@pytest.mark.parametrize(
    "body, status, words",
    [
        ("not json", 400, "JSON object"),
        ({"action": "fly"}, 400, "action"),
        ({"action": "cube"}, 400, "hex"),
        ({"action": "cube", "hex": {"row": 9, "col": 0}}, 400, '"row" from 0 to 8 and "col" from 0 to 11'),
        ({"action": "cube", "hex": {"row": 0, "col": -1}}, 400, '"row" from 0 to 8 and "col" from 0 to 11'),
        ({"action": "cube", "hex": {"row": "1", "col": 0}}, 400, "whole numbers"),
        ({"action": "cube", "hex": {"row": 1, "col": 1}, "extra": 1}, 400, "Unknown fields"),
        ({"action": "ask", "hex": {"row": 1, "col": 1}}, 400, "seat"),
        ({"action": "search", "hex": {"row": 1, "col": 1}, "version": "3"}, 400, "whole number"),
        ({"action": "search", "hex": {"row": 1, "col": 1}, "version": 0}, 409, "moved on"),
    ],
)
def test_bad_moves_say_why(apps, body, status, words):
    code, phones = new_table(apps, 3, False)
    state = referee_state(apps[0], code)
    response = phones[state.turn - 1].client.post(phones[state.turn - 1].path, **({"data": body} if isinstance(body, str) else {"json": body}))
    assert response.status_code == status and words in response.get_json()["error"]
    assert referee_state(apps[0], code).version == state.version  # nothing changed


def test_illegal_moves_are_409_in_the_phones_language(apps):
    code, phones = new_table(apps, 3, False)
    state = referee_state(apps[0], code)
    idle = phones[state.turn % 3]
    response = idle.client.post(idle.path, json={"action": "cube", "hex": {"row": 0, "col": 0}}, headers={"Accept-Language": "de"})
    assert response.status_code == 409 and response.get_json()["error"] != "It is not your turn."
    english = idle.client.post(idle.path, json={"action": "cube", "hex": {"row": 0, "col": 0}}, headers={"Accept-Language": "en"})
    assert english.get_json()["error"] == "It is not your turn."
    assert apps[0].test_client().get("/api/seats/forged.token/play").status_code == 404
    assert apps[0].test_client().post("/api/tables", json={"players": 2}).status_code == 400


@pytest.mark.slow
def test_no_phone_ever_receives_another_seats_clue_the_habitat_or_the_hint(apps):
    """Every body each seat received during a whole game, including live waits and errors, read for secrets."""
    code, phones = new_table(apps, 4, True)
    game = apps[0].extensions["dealer"].load(code)
    rng = random.Random(3)
    for phone in phones:
        phone.get()
    while (state := referee_state(apps[0], code)).phase != "over":
        seat = state.turn
        play_a_move(phones[seat - 1], state, seat, rng, hunt=state.version > 40)
        for phone in phones:
            phone.get()
            phone.client.post(phone.path, json={"action": "cube", "hex": {"row": 0, "col": 0}})  # mostly refused
        for seat_number, phone in enumerate(phones, 1):
            if referee_state(apps[0], code).phase == "over":
                break
            others = [c for i, c in enumerate(game.clues, 1) if i != seat_number]
            for body in phone.received:
                data = json.loads(body)
                assert data.get("reveal") is None
                text = json.dumps(data)
                assert hint_text(game.hint) not in text and "habitat" not in text
                for clue in others:
                    assert json.dumps(clue.to_json()) not in text or clue == game.seat_clues(seat_number)[0]
            phone.received.clear()


def test_no_seat_page_fragment_or_json_shows_another_seats_clue_before_the_end(apps):
    """docs/cryptid-play.md section 7, on everything a seat's phone receives: its page (with and without a tapped
    hex), its live fragment, the fragment its own move returns and its JSON state name its own clue only, until
    the game is over; the host screen and the public page name none. At the end every page shows every clue."""
    code, phones = new_table(apps, 3, True)
    game = apps[0].extensions["dealer"].load(code)
    client = apps[1].test_client()
    tokens = [phone.path.split("/")[3] for phone in phones]
    with apps[1].app_context():
        host = f"/h/{host_token(code)}"
    own = {seat: {clue_text(clue) for clue in game.seat_clues(seat)} for seat in range(1, 4)}
    every_clue = set().union(*own.values())

    def shown(path: str, **request) -> set[str]:
        body = (client.post(path, **request) if "data" in request else client.get(path, **request)).get_data(as_text=True)
        body = without_books(body)  # the mode's whole clue list, the same on every phone (test_seat_notes.py)
        return {text for text in every_clue if text in body or html.escape(text) in body}

    rng = random.Random(11)
    while (state := referee_state(apps[0], code)).phase != "over":
        for seat, token in enumerate(tokens, 1):
            probe = {"hex": rng.randrange(108)}
            assert shown(f"/s/{token}") == own[seat]
            assert shown(f"/s/{token}", query_string=probe) == own[seat]
            assert shown(f"/s/{token}/live", query_string=probe) <= own[seat]
            assert shown(phones[seat - 1].path) <= own[seat]
        for page in (host, f"{host}/live", f"/games/{code}", f"/games/{code}/live"):
            assert shown(page) == set()
        move = rng.choice(turn_moves(state))
        if state.version > 12 and state.pending == "move":
            move = Search(state.turn, game.habitat)
        form = {"action": move.action, "hex": move.hex, "version": state.version}
        form |= {"target": move.target} if move.action == "ask" else {}
        fragment = shown(f"/s/{tokens[state.turn - 1]}/play", data=form, headers={"X-Requested-With": "fetch"})
        assert fragment <= own[state.turn] or referee_state(apps[0], code).phase == "over"
    for token in tokens:
        assert shown(f"/s/{token}") == every_clue
    assert shown(host) == every_clue


def test_agreeing_to_the_reveal_ends_a_refereed_game_with_no_winner(apps):
    code, phones = new_table(apps, 3, False)
    client = apps[0].test_client()
    for phone in phones:
        token = phone.path.split("/")[3]
        assert client.post(f"/s/{token}/votes/reveal").status_code == 303
    final = phones[0].get()
    assert final["phase"] == "over" and final["winner"] is None and final["ranks"] is None
    assert final["reveal"]["clues"] and final["turn"] is None


def test_a_move_from_the_sheet_without_javascript_returns_to_the_board_and_a_second_send_is_not_an_error(apps):
    code, phones = new_table(apps, 3, False)
    state = referee_state(apps[0], code)
    seat = state.turn
    token = phones[seat - 1].path.split("/")[3]
    client = apps[1].test_client()
    hex_index = hexes_of(state.cube_choices(seat))[0]
    board = client.get(f"/s/{token}").get_data(as_text=True)
    assert f'href="/s/{token}?hex={hex_index}#here"' in board  # a tapped hex comes back to the board at that hex
    page = client.get(f"/s/{token}", query_string={"hex": hex_index}).get_data(as_text=True)
    sheet = page[page.index('<section class="sheet"'):]
    assert f'<span class="hex-name" dir="ltr">{hex_name(hex_index)}</span>' in sheet
    assert "your clue rules this hex out (cube)." in sheet  # a cube choice: the clue rules the hex out
    assert 'value="cube" required checked' in sheet and 'name="version"' in sheet and 'id="here"' in page
    move = {"do": "cube", "hex": hex_index, "version": state.version}
    response = client.post(f"/s/{token}/play", data=move)
    assert response.status_code == 303 and response.headers["Location"] == f"/s/{token}#board"
    assert referee_state(apps[0], code).cubes_of(seat) == 1 << hex_index
    again = client.post(f"/s/{token}/play", data=move)  # a double tap, or the form sent twice
    assert again.status_code == 303 and referee_state(apps[0], code).version == state.version + 1
    other = hexes_of(state.cube_choices(seat))[1]
    stale = client.post(f"/s/{token}/play", data={"do": "cube", "hex": other, "version": state.version})
    assert stale.status_code == 409 and "moved on" in stale.get_data(as_text=True)
    assert client.post(f"/s/{token}/play", data={"action": "cube", "hex": "x"}).status_code == 400


def test_every_hex_link_on_both_kinds_of_seat_page_is_named_by_elements_on_that_page(apps):
    """A screen reader names each of the 108 hex links from hidden labels by id: every id must be there, in
    the phone's language, on the refereed seat page as on the seat page of a box game."""
    import re

    code, phones = new_table(apps, 3, True)
    client = apps[0].test_client()
    client.set_cookie("lang", "el")
    refereed = f"/s/{phones[0].path.split('/')[3]}"
    pages = [client.get(refereed).get_data(as_text=True)]
    host_page = client.post("/", data={"players": "4"}, follow_redirects=True).get_data(as_text=True)
    seat_path = urlsplit(re.search(r'href="([^"]*/s/[^"]+)"', host_page).group(1)).path
    pages.append(client.get(seat_path).get_data(as_text=True))
    for page in pages:
        ids = set(re.findall(r' id="([^"]+)"', page))
        named = re.findall(r'<a href="[^"]*\?hex=\d+(?:#here)?" aria-labelledby="([^"]+)"', page)
        assert len(named) == 108
        assert all(set(value.split()) <= ids for value in named)
        # "E1": Latin, as the board's edges print it.
        assert '<span id="c5" translate="no">E</span>' in page and '<span id="r1" translate="no">1</span>' in page
        assert '<span id="f">δάσος</span>' in page


def test_a_gone_vote_is_confirmed_seen_by_the_accused_and_can_be_taken_back(apps):
    code, phones = new_table(apps, 4, False)
    tokens = [phone.path.split("/")[3] for phone in phones]
    voter, accused = apps[0].test_client(), apps[1].test_client()
    page = voter.get(f"/s/{tokens[0]}").get_data(as_text=True)
    assert "will see this" in page and 'value="vote_gone"' in page  # a confirmation inside its own fold first
    assert voter.post(f"/s/{tokens[0]}/play", data={"action": "vote_gone", "target": 3}).status_code == 303
    assert referee_state(apps[0], code).gone_votes[2] == {1}
    warned = accused.get(f"/s/{tokens[2]}").get_data(as_text=True)
    assert "1 player marked you as gone." in warned
    page = voter.get(f"/s/{tokens[0]}").get_data(as_text=True)
    assert 'value="withdraw_gone"' in page and "Take back my vote" in page
    assert voter.post(f"/s/{tokens[0]}/play", data={"action": "withdraw_gone", "target": 3}).status_code == 303
    assert referee_state(apps[0], code).gone_votes[2] == frozenset()
    assert "marked you as gone" not in accused.get(f"/s/{tokens[2]}").get_data(as_text=True)
    again = phones[0].post({"action": "withdraw_gone", "seat": 3}, status=409)
    assert again["error"] == "You have not marked that player as gone."


def test_the_replay_counts_the_moves_the_log_shows_and_is_not_the_games_end(apps):
    code, phones = new_table(apps, 3, False)
    rng = random.Random(3)
    phones[0].post({"action": "name", "name": "Ana"})  # a move that writes nothing in the log
    while (state := referee_state(apps[0], code)).phase != "over":
        play_a_move(phones[state.turn - 1], state, state.turn, rng, hunt=state.phase == "turns")
    state = referee_state(apps[0], code)
    steps = len({entry.n for entry in state.log}) - sum(entry.action in ("answer", "win") for entry in state.log)
    assert steps < state.version  # the start and the name are moves too, but show nothing
    client = apps[1].test_client()
    page = client.get(f"/s/{phones[1].path.split('/')[3]}", query_string={"replay": 0}).get_data(as_text=True)
    assert f"Replay: move 0 of {steps}" in page
    assert "The game is over" not in page and 'class="announce"' not in page
    last = client.get(f"/s/{phones[1].path.split('/')[3]}", query_string={"replay": steps}).get_data(as_text=True)
    assert f"Replay: move {steps} of {steps}" in last and "Forward" not in last


@pytest.mark.postgresql
def test_a_seat_is_held_by_the_phone_that_plays_it_not_by_one_that_only_fetched_the_link(apps):
    """A chat app's link preview fetches the page without running its script: that takes no seat. The first page
    whose live update runs (or that moves) holds the seat; another phone is asked before it takes the seat over."""
    code, phones = new_table(apps, 3, False)
    seat_path = f"/s/{phones[0].path.split('/')[3]}"
    preview, phone, other = (apps[0].test_client() for _ in range(3))
    assert preview.get(seat_path).status_code == 200
    assert phone.get(seat_path).status_code == 200  # the preview took nothing
    assert phone.get(seat_path + "/live").status_code == 200  # the page's script: now this phone holds the seat
    asked = other.get(seat_path)
    assert asked.status_code == 409 and "This seat is already open on another phone." in asked.get_data(as_text=True)
    assert other.post(seat_path + "/play", data={"action": "leave"}).status_code == 409
    assert other.post(seat_path + "/take-over").status_code == 303
    told = phone.get(seat_path + "/live").get_data(as_text=True)
    assert "This seat is now open on another phone." in told
    assert phone.post(seat_path + "/play", data={"action": "leave"}).status_code == 409
    assert referee_state(apps[0], code).left == frozenset()


@pytest.mark.postgresql
@pytest.mark.parametrize("variant", ["classic", "markers"])
def test_a_phone_opening_its_seat_finds_its_page_current_after_its_first_live_update(apps, variant):  # noqa: F811
    """Opening a seat only looks; the page's first live update claims the free seat and finds the page it shows
    unchanged (same ETag), so it waits instead of drawing the page a second time. Another phone's page does change:
    it now shows the seat held elsewhere."""
    client = apps[0].test_client()
    created = client.post("/api/tables", json={"players": 3, "variant": variant})
    token = created.get_json()["seats"][0]["url"].rsplit("/", 1)[1]
    live = f"/s/{token}/live" if variant == "classic" else f"/s/{token}/markers/live"
    opened = client.get(f"/s/{token}")
    # The page gives the browser its device id at once: its first live update may wait, and a tap sent meanwhile
    # must claim as the same device (without the cookie it would find the seat held elsewhere).
    assert "device=" in opened.headers.get("Set-Cookie", "")
    page = opened.get_data(as_text=True)
    shown = re.search(r'id="play" data-live="[^"]*" data-etag="([^"]*)"', page).group(1)
    first = client.get(live)
    assert first.headers["ETag"].strip('"').split(":")[0] == shown
    other = apps[1].test_client()
    assert other.get(f"/s/{token}").status_code == 409  # held by the first phone now: the take-over question


@pytest.mark.postgresql
def test_a_request_reads_the_table_once_and_again_only_after_it_changed_it(apps, monkeypatch):
    """One read of the table's head per request (a request-scoped snapshot): a seat's page reads it once
    however many of its parts ask; a move reads it before the seat's claim, after it and after the move (each of
    the two changes the table); another process's move is seen by the next request, and a long poll reads the
    table afresh at each wake-up (test_live.py)."""
    import companion.web.cryptid.head as head
    from companion.web.cryptid.refereed import load_play

    first, second = apps
    table = first.test_client().post("/api/tables", json={"players": 3}).get_json()
    game = first.extensions["dealer"].load(table["code"])
    reads = []
    read = head._read_head
    monkeypatch.setattr(head, "_read_head", lambda code: reads.append(code) or read(code))
    with first.app_context():
        state = load_play(game)
    token = urlsplit(table["seats"][state.turn - 1]["url"]).path.rsplit("/", 1)[1]
    client = first.test_client()
    reads.clear()
    assert client.get(f"/s/{token}").status_code == 200
    assert reads == [game.code]
    reads.clear()
    cube = {"do": "cube", "hex": str(hexes_of(state.cube_choices(state.turn))[0]), "version": str(state.version)}
    assert client.post(f"/s/{token}/play", data=cube, headers={"X-Requested-With": "fetch"}).status_code == 200
    assert len(reads) == 3
    # A move made by the other process: the first one's next request sees it.
    with second.app_context():
        moved = load_play(game)
    nxt = urlsplit(table["seats"][moved.turn - 1]["url"]).path.rsplit("/", 1)[1]
    cube = {"action": "cube", "hex": dict(zip(("row", "col"), hex_row_col(hexes_of(moved.cube_choices(moved.turn))[0])))}
    assert second.test_client().post(f"/api/seats/{nxt}/play", json=cube).status_code == 200
    assert first.test_client().get(f"/api/tables/{table['code']}/play").get_json()["version"] == moved.version + 1


@pytest.mark.postgresql
@pytest.mark.parametrize("variant", ["classic", "markers"])
def test_a_seats_page_and_its_live_answer_read_no_row_twice(apps, variant):
    """A seat's page and its live answer each read the seat's claim, the table's computer seats and the seat's
    notes once, though the ETag and the page both ask (each change of those touches the table, so the read holds
    for the request): no statement runs twice with the same values in a request that changes nothing."""
    from sqlalchemy import event

    first, _ = apps
    table = first.test_client().post("/api/tables", json={"players": 3, "variant": variant}).get_json()
    token = urlsplit(table["seats"][0]["url"]).path.rsplit("/", 1)[1]
    live = f"/s/{token}/live" if variant == "classic" else f"/s/{token}/markers/live"
    client = first.test_client()
    assert client.get(live).status_code == 200  # the first live answer claims the seat: a change
    statements = []
    with first.app_context():
        engine = db.engine
    record = lambda conn, cursor, statement, parameters, context, many: statements.append((statement, repr(parameters)))
    event.listen(engine, "before_cursor_execute", record)
    try:
        for path in (f"/s/{token}", live):
            statements.clear()
            response = client.get(path)
            assert response.status_code == 200
            reads = [s for s in statements if s[0].lstrip().upper().startswith("SELECT")]
            assert reads and len(reads) == len(set(reads)), (path, reads)
    finally:
        event.remove(engine, "before_cursor_execute", record)


def test_the_moves_since_a_seats_last_turn_are_labelled_while_it_plays_and_not_once_the_game_is_over(apps):
    code, phones = new_table(apps, 3, False)
    rng = random.Random(5)
    client = apps[0].test_client()
    seat_page = lambda seat: client.get(f"/s/{phones[seat - 1].path.split('/')[3]}").get_data(as_text=True)
    label = 'data-since="Since your last turn"'
    while (state := referee_state(apps[0], code)).phase != "turns" or state.turn != 1:
        play_a_move(phones[state.turn - 1], state, state.turn, rng, hunt=False)
    # Seat 1's turn after the others moved: the first of their moves carries the label, once.
    assert seat_page(1).count(label) == 1
    while (state := referee_state(apps[0], code)).phase != "over":
        play_a_move(phones[state.turn - 1], state, state.turn, rng, hunt=state.phase == "turns")
    for seat in (1, 2, 3):
        page = seat_page(seat)
        assert "Results" in page and label not in page
