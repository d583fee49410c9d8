"""The notebook that keeps the books on a seat's phone (docs/cryptid-play.md section 9.3): what a player crosses off
and marks is stored per seat, survives a reload and the next phone taking the seat, wakes that seat's live
updates only, and never reaches another seat, the host or the public; "check my notes" checks without solving;
the page shows no chance or count the player did not work out and stays within its weight budget."""

from __future__ import annotations

import gzip
import html
import json
import random
import re
from urllib.parse import urlsplit

import pytest

from companion.cryptid.books import clue_list, possible_clues
from companion.cryptid.clues import CLUES
from companion.cryptid.play import Search
from companion.cryptid.text import clue_text
from companion.cryptid.view import view
from companion.web.core.i18n import LANGUAGES
from companion.web.cryptid.tokens import host_token
from tests.cryptid.test_play import turn_moves
from tests.helpers import BOOKS_START
from tests.web.cryptid.test_play import (  # noqa: F401
    Phone,
    apps,
    hex_json,
    play_a_move,
    referee_state,
)

MARK = re.compile(r'class="own-mark m-(maybe|no)" data-hex="(\d+)"')
CROSSED = re.compile(r'<input type="checkbox" name="off" value="(\d+)" id="x\d+-\d+" checked>')


def new_table(apps, players: int = 4, advanced: bool = False, **options):  # noqa: F811
    data = apps[0].test_client().post("/api/tables", json={"players": players, "advanced": advanced} | options).get_json()
    return data["code"], [urlsplit(s["url"]).path.rsplit("/", 1)[1] for s in data["seats"]], data


def play_on(apps, code: str, tokens: list[str], moves: int, rng: random.Random) -> None:  # noqa: F811
    """Random questions and cubes (never a search, which might end the game) through the seats' API."""
    client = apps[0].test_client()
    phones = [Phone(client, f"https://x/s/{t}") for t in tokens]
    for _ in range(moves):
        state = referee_state(apps[0], code)
        phone = phones[state.turn - 1]
        if state.pending == "cube":
            play_a_move(phone, state, state.turn, rng, hunt=False)
            continue
        ask = rng.choice([m for m in turn_moves(state) if m.action == "ask"])
        phone.post({"action": "ask", "seat": ask.target, "hex": hex_json(ask.hex)})


def books_of(page: str) -> str:
    start = page.find(BOOKS_START)
    return "" if start < 0 else page[start:page.index("</section>", start)]


def written(page: str) -> tuple[set[tuple[str, int]], set[int]]:
    """The marks on the board and the crossed-off clues a page shows."""
    return {(mark, int(hex)) for mark, hex in MARK.findall(page)}, {int(i) for i in CROSSED.findall(page)}


def cross(client, token: str, opponent: int, indices, **query):
    return client.post(f"/s/{token}/notes", query_string=query,
                       data={"action": "cross", "opponent": str(opponent), "off": [str(i) for i in indices]})


def mark(client, token: str, hex: int, value: str, fetch: bool = False):
    headers = {"X-Requested-With": "fetch"} if fetch else {}
    return client.post(f"/s/{token}/notes", query_string={"hex": hex},
                       data={"action": "mark", "hex": str(hex), "mark": value}, headers=headers)


@pytest.mark.postgresql
def test_notes_survive_a_reload_and_the_next_phone_taking_the_seat(apps):  # noqa: F811
    code, tokens, _ = new_table(apps)
    phone, other = apps[0].test_client(), apps[1].test_client()
    assert cross(phone, tokens[0], 3, [0, 5, 12], nb=3).status_code == 303
    answer = mark(phone, tokens[0], 40, "maybe")
    assert answer.status_code == 303 and answer.headers["Location"].endswith("?hex=40#here")
    assert mark(phone, tokens[0], 41, "no", fetch=True).status_code == 200
    for client in (phone,):  # a reload on the same phone
        page = client.get(f"/s/{tokens[0]}?nb=3").get_data(as_text=True)
        assert written(page) == ({("maybe", 40), ("no", 41)}, {0, 5, 12})
    # Another phone opens the seat: it must take it over first, then finds everything written.
    assert cross(other, tokens[0], 3, [1]).status_code == 409
    assert other.post(f"/s/{tokens[0]}/take-over").status_code == 303
    page = other.get(f"/s/{tokens[0]}?nb=3").get_data(as_text=True)
    assert written(page) == ({("maybe", 40), ("no", 41)}, {0, 5, 12})
    assert "Maybe: " in html.unescape(page) and "No: " in html.unescape(page)
    # The first phone no longer writes in it; the new one does, and taking a mark off works.
    assert mark(phone, tokens[0], 42, "no").status_code == 409
    assert mark(other, tokens[0], 40, "none").status_code == 303
    assert cross(other, tokens[0], 3, []).status_code == 303
    assert written(other.get(f"/s/{tokens[0]}?nb=3").get_data(as_text=True)) == ({("no", 41)}, set())


@pytest.mark.postgresql
def test_a_notes_change_wakes_that_seat_and_no_other(apps):  # noqa: F811
    code, tokens, _ = new_table(apps, 3)
    client = apps[0].test_client()
    tags = {seat: client.get(f"/s/{tokens[seat - 1]}/live").headers["ETag"] for seat in (1, 2)}
    assert mark(client, tokens[0], 7, "maybe").status_code == 303
    after = {seat: client.get(f"/s/{tokens[seat - 1]}/live").headers["ETag"] for seat in (1, 2)}
    assert after[1] != tags[1] and after[2] == tags[2]
    # A live update waiting with the old tag comes back at once with the mark on the board.
    waited = client.get(f"/s/{tokens[0]}/live", headers={"If-None-Match": tags[1]})
    assert waited.status_code == 200 and ("maybe", 7) in written(waited.get_data(as_text=True))[0]


@pytest.mark.parametrize("form, status", [
    ({"action": "cross", "opponent": "1", "off": ["0"]}, 400),  # one's own seat is no opponent
    ({"action": "cross", "opponent": "9", "off": ["0"]}, 400),
    ({"action": "cross", "opponent": "2", "off": ["30"]}, 400),  # a negation is not on the normal mode's list
    ({"action": "cross", "opponent": "2", "off": ["x"]}, 400),
    ({"action": "mark", "hex": "108", "mark": "no"}, 400),
    ({"action": "mark", "hex": "5", "mark": "perhaps"}, 400),
    ({"action": "scribble"}, 400),
])
def test_bad_notes_forms_say_why(apps, form, status):  # noqa: F811
    code, tokens, _ = new_table(apps)
    response = apps[0].test_client().post(f"/s/{tokens[0]}/notes", data=form)
    assert response.status_code == status and "<h1" in response.get_data(as_text=True)
    assert apps[0].test_client().post("/s/forged.token/notes", data=form).status_code == 404


def test_check_my_notes_says_whether_then_which_and_never_more(apps):  # noqa: F811
    code, tokens, _ = new_table(apps)
    game = apps[0].extensions["dealer"].load(code)
    client = apps[0].test_client()
    assert "You have not crossed off any clue yet." in client.get(f"/s/{tokens[0]}?check=1").get_data(as_text=True)
    truth = game.seat_clues(3)[0]
    cross(client, tokens[0], 3, [truth.index])
    whether = html.unescape(client.get(f"/s/{tokens[0]}?nb=3&check=1").get_data(as_text=True))
    assert "At least one clue you crossed off could still be a player's clue." in whether
    assert clue_text(truth) not in books_of(whether).split("check-result")[1]  # "whether" names no clue
    which = html.unescape(client.get(f"/s/{tokens[0]}?nb=3&check=2").get_data(as_text=True))
    assert f"From what you know, Player 3 could still hold this clue you crossed off: {clue_text(truth)}" in which
    # Crossing off only clues seat 1 can rule out for seat 3 (none of its pieces' clues, say) passes the check.
    impossible = [i for i in clue_list("normal") if not possible_clues(view(referee_state(apps[0], code), 1))[2] >> i & 1]
    assert impossible
    cross(client, tokens[0], 3, impossible)
    passed = html.unescape(client.get(f"/s/{tokens[0]}?nb=3&check=2").get_data(as_text=True))
    assert "Every clue you crossed off is ruled out by what you know" in passed and "could still" not in passed


def test_the_books_show_no_chance_or_count_the_player_did_not_work_out(apps):  # noqa: F811
    code, tokens, _ = new_table(apps, 5, True)
    play_on(apps, code, tokens, 25, random.Random(4))
    client = apps[0].test_client()
    for seat, token in enumerate(tokens, 1):
        page = client.get(f"/s/{token}").get_data(as_text=True)
        books = html.unescape(books_of(page))
        assert books and "%" not in books and "chance" not in books and "possible" not in books
        assert "odds-marks" not in page and "From what you know" not in page and 'id="solver"' not in page
        # Every clue of the mode is listed, the same list on every phone, whoever holds which.
        assert sum(books.count(clue_text(CLUES[i])) for i in clue_list("advanced")) == 48
        assert "You crossed off 0 of these 48 clues." in books


@pytest.mark.slow
def test_no_response_of_a_whole_game_shows_another_seats_notes(apps):  # noqa: F811
    """Each seat crosses off its own clues and marks its own hexes while a whole game is played; every page, live
    fragment, move and notes answer and JSON body each seat receives shows its own notes only, and the host
    screen and public page show none."""
    code, tokens, _ = new_table(apps, 4, False)
    game = apps[0].extensions["dealer"].load(code)
    clients = [apps[i % 2].test_client() for i in range(4)]
    host_client = apps[1].test_client()
    with apps[0].app_context():
        host = f"/h/{host_token(code)}"
    own_marks = {s: {("maybe" if h % 2 else "no", 20 * s + h) for h in range(3)} for s in range(1, 5)}
    own_crossed = {s: set(range(4 * s - 4, 4 * s)) for s in range(1, 5)}
    received: dict[int, list[str]] = {s: [] for s in range(1, 5)}
    public: list[str] = []

    def keep(seat: int, response) -> None:
        received[seat].append(response.get_data(as_text=True))

    for seat, token in enumerate(tokens, 1):
        client = clients[seat - 1]
        for kind, hex in own_marks[seat]:
            keep(seat, mark(client, token, hex, kind, fetch=True))
        for opponent in (s for s in range(1, 5) if s != seat):
            keep(seat, cross(client, token, opponent, own_crossed[seat], nb=opponent))
    rng = random.Random(8)
    while (state := referee_state(apps[0], code)).phase != "over":
        for seat, token in enumerate(tokens, 1):
            client = clients[seat - 1]
            for path in (f"/s/{token}", f"/s/{token}?nb={seat % 4 + 1}", f"/s/{token}/live?hex={rng.randrange(108)}",
                         f"/s/{token}?check=2", f"/api/seats/{token}/play"):
                keep(seat, client.get(path))
        for path in (host, f"{host}/live", f"/games/{code}", f"/games/{code}/live", f"/api/tables/{code}/play"):
            public.append(host_client.get(path).get_data(as_text=True))
        move = rng.choice(turn_moves(state))
        if state.version > 20 and state.pending == "move" and state.search_choices(state.turn) >> game.habitat & 1:
            move = Search(state.turn, game.habitat)
        form = {"action": move.action, "hex": move.hex, "version": state.version}
        form |= {"target": move.target} if move.action == "ask" else {}
        token = tokens[state.turn - 1]
        keep(state.turn, clients[state.turn - 1].post(f"/s/{token}/play", data=form, headers={"X-Requested-With": "fetch"}))
    shown_somewhere = set()
    for seat, bodies in received.items():
        for body in bodies:
            marks, crossed = written(body)
            assert marks <= own_marks[seat] and crossed <= own_crossed[seat], seat
            shown_somewhere |= {(seat, m) for m in marks}
            if body.startswith("{"):  # the JSON state carries no notes at all
                assert "own-mark" not in body and set(json.loads(body)) & {"notes", "marks", "crossed"} == set()
    assert all(any(seat == s for s, _ in shown_somewhere) for s in range(1, 5))  # each seat did see its own
    for body in public:
        assert written(body) == (set(), set()) and BOOKS_START not in body and "own-mark" not in body


def test_the_seat_page_with_the_books_stays_within_its_budget_in_every_language(apps):  # noqa: F811
    """Advanced, 5 players, mid-game, with notes written: the page and its assets as the site sends them."""
    code, tokens, _ = new_table(apps, 5, True)
    play_on(apps, code, tokens, 30, random.Random(1))
    client = apps[0].test_client()
    cross(client, tokens[0], 2, clue_list("advanced")[:20])
    for hex in range(0, 108, 9):
        mark(client, tokens[0], hex, "no")
    for language in LANGUAGES:
        client.set_cookie("lang", language)
        page = client.get(f"/s/{tokens[0]}", headers={"Accept-Encoding": "gzip"})
        assert page.headers["Content-Encoding"] == "gzip"
        body = gzip.decompress(page.get_data()).decode()
        assets = set(re.findall(r'(?:src|href)="(/static/[^"]+)"', body))
        weight = len(page.get_data()) + sum(
            len(client.get(a, headers={"Accept-Encoding": "gzip"}).get_data()) for a in assets)
        assert weight < 30_000, (language, weight)
        assert BOOKS_START in body


def test_the_solver_is_offered_on_the_solo_form_off_by_default(app, client):
    page = client.get("/").get_data(as_text=True)
    assert 'name="solo-solver"' in page and 'id="solo-solver" name="solo-solver" type="checkbox" value="y">' in page
    plain = client.post("/solo", data={"solo-opponents": "2", "solo-level": "beginner"})
    solved = client.post("/solo", data={"solo-opponents": "2", "solo-level": "beginner", "solo-solver": "y"})
    assert plain.status_code == solved.status_code == 303
    plain_page = client.get(urlsplit(plain.headers["Location"]).path).get_data(as_text=True)
    solved_page = client.get(urlsplit(solved.headers["Location"]).path).get_data(as_text=True)
    assert 'id="solver"' not in plain_page and BOOKS_START in plain_page
    assert 'id="solver"' in solved_page and "This table uses the solver" in solved_page and BOOKS_START in solved_page
