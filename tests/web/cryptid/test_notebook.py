"""The solver (the exact deduction notebook of cryptid.notebook) on the phones of a table that chose it
(docs/cryptid-play.md section 9; the after-game review is test_review.py's): what each screen and each JSON body
shows, and that a phone's solver figures are drawn from its own seat's view and nothing more. The JSON keeps the
solver's figures under "notebook", its name before the notebook that keeps the books (test_seat_notes.py)."""

from __future__ import annotations

import gzip
import html
import random
import re
import threading
from urllib.parse import urlsplit

import pytest
from sqlalchemy import create_engine, inspect, text

from companion.cryptid.clues import CLUES
from companion.cryptid.notebook import notebook
from companion.cryptid.text import clue_text
from companion.cryptid.view import view
from companion.web.core.db import create_tables, db
from companion.web.core.i18n import LANGUAGES
from companion.web.cryptid.models import RefereedTable
from companion.web.cryptid.notebook import _Remembered
from companion.web.cryptid.tokens import host_token
from tests.cryptid.test_play import turn_moves
from tests.helpers import without_books
from tests.web.cryptid.test_play import (  # noqa: F401
    Phone,
    apps,
    hex_json,
    play_a_move,
    referee_state,
)

NOTES = re.compile(r'<details class="nb(\d) notes" data-seat="\d">(.*?)</details>', re.S)


def table(apps, players: int, advanced: bool, notebook: bool) -> tuple[str, list[Phone], list[str]]:  # noqa: F811
    """A table with the solver (`notebook`) or without."""
    response = apps[0].test_client().post("/api/tables", json={"players": players, "advanced": advanced, "solver": notebook})
    assert response.status_code == 201
    seats = response.get_json()["seats"]
    phones = [Phone(apps[i % 2].test_client(), s["url"]) for i, s in enumerate(seats)]
    return response.get_json()["code"], phones, [urlsplit(s["url"]).path.rsplit("/", 1)[1] for s in seats]


def host_path(app, code: str) -> str:
    with app.app_context():
        return f"/h/{host_token(code)}"


def notebook_lists(page: str) -> dict[int, list[str]]:
    """Per opponent, the clue sentences a page's notebook lists for them."""
    return {int(seat): [html.unescape(item) for item in re.findall(r"<li>(.*?)</li>", body)]
            for seat, body in NOTES.findall(page)}


def without_notebook(page: str) -> str:
    start = page.find('<section class="notebook solver"')
    return page if start < 0 else page[:start] + page[page.index("</section>", start):]


def test_a_table_without_the_option_shows_no_notebook_anywhere(apps):  # noqa: F811
    code, phones, tokens = table(apps, 4, True, notebook=False)
    client = apps[1].test_client()
    state = referee_state(apps[0], code)
    pages = [f"/s/{tokens[0]}", f"/s/{tokens[1]}/live", host_path(apps[0], code), f"/games/{code}"]
    pages.append(f"/s/{tokens[state.turn - 1]}?hex={hexes_choice(state)}")
    for path in pages:
        page = client.get(path).get_data(as_text=True)
        assert 'id="solver"' not in page and "odds-marks" not in page and "From what you know" not in page
        assert "solver" not in page.lower()
    assert all(phone.get()["notebook"] is None for phone in phones)
    assert "notebook" not in client.get(f"/api/tables/{code}/play").get_json()


def hexes_choice(state) -> int:
    return next(move.hex for move in turn_moves(state) if move.hex is not None)


@pytest.mark.parametrize("players, advanced", [pytest.param(4, True, marks=pytest.mark.slow), (3, False)])
def test_each_phone_notebook_comes_from_its_own_view_and_states_no_other_clue(apps, players, advanced):  # noqa: F811
    """Every page, live fragment and JSON body each phone receives: its notebook is exactly the one its own view
    gives (cryptid.notebook), the rest of the page names its own clue only, and the host screen and public page
    show no notebook. At the end the notebook is gone and the review is there."""
    code, phones, tokens = table(apps, players, advanced, notebook=True)
    game = apps[0].extensions["dealer"].load(code)
    client = apps[1].test_client()
    host = host_path(apps[0], code)
    own = {seat: clue_text(game.seat_clues(seat)[0]) for seat in range(1, players + 1)}
    rng = random.Random(players)
    counts_seen = set()
    while (state := referee_state(apps[0], code)).phase != "over":
        for seat, token in enumerate(tokens, 1):
            expected = notebook(view(state, seat))
            lists = {o.seat: [clue_text(CLUES[i]) for i in o.clues] for o in expected.opponents}
            for path in (f"/s/{token}", f"/s/{token}/live", f"/s/{token}?hex={rng.randrange(108)}"):
                page = client.get(path).get_data(as_text=True)
                assert notebook_lists(page) == lists, path
                rest = html.unescape(without_books(without_notebook(page)))
                assert {s for s, clue in own.items() if clue in rest} == ({seat} if "live" not in path else set()), path
                assert "odds-marks" in page
            data = phones[seat - 1].get()
            assert data["notebook"] == expected.to_json() and data["review"] is None
            counts_seen.add(tuple(o.count for o in expected.opponents))
        for path in (host, f"{host}/live", f"/games/{code}", f"/games/{code}/live"):
            page = client.get(path).get_data(as_text=True)
            assert 'id="solver"' not in page and "odds-marks" not in page
            assert "This table uses the solver" in page  # every screen says the table uses it
        seat = state.turn
        if state.version > 6 * players and state.pending == "move":
            phones[seat - 1].post({"action": "search", "hex": hex_json(game.habitat)})
        else:
            play_a_move(phones[seat - 1], state, seat, rng, hunt=False)
    assert len(counts_seen) > 1  # the counts moved with the game
    final = phones[0].get()
    assert final["notebook"] is None and final["review"] is not None
    assert 'id="solver"' not in client.get(f"/s/{tokens[0]}").get_data(as_text=True)



@pytest.mark.postgresql
def test_the_unlocked_hint_reaches_the_notebook_and_wakes_its_phones(apps):  # noqa: F811
    """Once the table unlocks the hint, no clue the notebook lists mentions its category, on the page, in the
    live fragment (whose version changes, so a waiting phone gets it) and in the JSON."""
    # A deal whose hint rules out a clue the notebook lists (on a few deals it rules out none of them).
    for _ in range(20):
        code, phones, tokens = table(apps, 4, False, notebook=True)
        game = apps[0].extensions["dealer"].load(code)
        seen = view(referee_state(apps[0], code), 1)
        before, after = notebook(seen), notebook(seen, game.hint)
        if [o.clues for o in before.opponents] != [o.clues for o in after.opponents]:
            break
    assert [o.clues for o in before.opponents] != [o.clues for o in after.opponents]  # the hint rules clues out
    client = apps[1].test_client()

    def lists(notes):
        return {o.seat: [clue_text(CLUES[i]) for i in o.clues] for o in notes.opponents}

    live = client.get(f"/s/{tokens[0]}/live")
    assert notebook_lists(live.get_data(as_text=True)) == lists(before)
    assert phones[0].get()["notebook"] == before.to_json()
    unlocked = client.post(host_path(apps[0], code) + "/unlock/hint", data={"hint-agree": "y"})
    assert unlocked.status_code in (200, 303)
    waited = client.get(f"/s/{tokens[0]}/live", headers={"If-None-Match": live.headers["ETag"]})
    assert waited.status_code == 200 and waited.headers["ETag"] != live.headers["ETag"]
    assert notebook_lists(waited.get_data(as_text=True)) == lists(after)
    assert notebook_lists(client.get(f"/s/{tokens[0]}").get_data(as_text=True)) == lists(after)
    assert phones[0].get()["notebook"] == after.to_json()

def test_the_sheet_gives_the_hex_chance_from_the_seat_view(apps):  # noqa: F811
    code, phones, tokens = table(apps, 3, False, notebook=True)
    state = referee_state(apps[0], code)
    notes = notebook(view(state, 1))
    likely = max(range(108), key=notes.probability)
    impossible = next(hex for hex in range(108) if not notes.probability(hex))
    client = apps[0].test_client()
    sheet = client.get(f"/s/{tokens[0]}?hex={likely}").get_data(as_text=True)
    assert re.search(r"From what you know, the habitat is here with a chance of (&lt; )?\d+%\.", sheet)
    sheet = client.get(f"/s/{tokens[0]}?hex={impossible}").get_data(as_text=True)
    assert "From what you know, the habitat cannot be here." in sheet


def test_the_deal_form_and_the_next_game_keep_the_option(app, client):
    page = client.get("/").get_data(as_text=True)
    assert 'name="solver"' in page and 'aria-describedby="solver-help"' in page
    assert "Solver: shows every possibility and each hex's chance" in page
    hosts = []
    for ticked in (True, False):
        form = {"players": "4", "how": "referee"} | ({"solver": "y"} if ticked else {})
        response = client.post("/", data=form)
        assert response.status_code == 303
        hosts.append(urlsplit(response.headers["Location"]).path)
    with app.app_context():
        assert sorted(record.solver for record in db.session.query(RefereedTable)) == [False, True]
    following = client.post(f"{hosts[0]}/next", data={"players": "3"})  # the ticked table's next game
    assert following.status_code == 303
    with app.app_context():
        assert sorted(record.solver for record in db.session.query(RefereedTable)) == [False, True, True]


def test_the_api_option_must_be_a_boolean(apps):  # noqa: F811
    client = apps[0].test_client()
    for option in ("solver", "notebook"):
        response = client.post("/api/tables", json={"players": 3, option: "yes"})
        assert response.status_code == 400 and f'"{option}"' in response.get_json()["error"]


def test_the_old_notebook_option_is_the_solver(app, client):
    """A client that still asks for "notebook": true, and a table stored with the old notebook option, get the
    solver: the figures they chose, under the solver's name."""
    seats = client.post("/api/tables", json={"players": 3, "notebook": True}).get_json()["seats"]
    page = client.get(urlsplit(seats[0]["url"]).path).get_data(as_text=True)
    assert 'id="solver"' in page and "This table uses the solver" in page and 'id="notebook"' in page
    with app.app_context():
        assert db.session.execute(text("SELECT notebook FROM refereed_tables")).scalar() in (True, 1)


def test_a_database_from_before_the_option_gains_its_column(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE tables (code VARCHAR(11) PRIMARY KEY, last_activity TIMESTAMP, changes INTEGER NOT NULL DEFAULT 0)"))
        connection.execute(text("CREATE TABLE refereed_tables (code VARCHAR(11) PRIMARY KEY REFERENCES tables(code), created_at TIMESTAMP, next_code VARCHAR(16))"))
        connection.execute(text("INSERT INTO tables VALUES ('OLD', '2026-01-01', 0)"))
        connection.execute(text("INSERT INTO refereed_tables VALUES ('OLD', '2026-01-01', NULL)"))
    create_tables(engine)
    assert "notebook" in {column["name"] for column in inspect(engine).get_columns("refereed_tables")}
    with engine.connect() as connection:
        assert connection.execute(text("SELECT notebook FROM refereed_tables")).scalar() in (False, 0)


def test_phones_asking_together_compute_a_figure_once():
    remembered = _Remembered(2)
    calls, started = [], threading.Barrier(5)

    def compute():
        calls.append(1)
        return len(calls)

    def ask():
        started.wait()
        assert remembered.get("key", compute) == 1

    threads = [threading.Thread(target=ask) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [1]
    remembered.get("a", lambda: 1), remembered.get("b", lambda: 2)
    assert list(remembered.items) == ["a", "b"]  # the least recently used went


NOTEBOOK_PAGE_BUDGET = 11_000  # bytes a phone downloads for its page, compressed as the site sends it (the books
# and the solver together since every seat keeps its books)


def test_the_notebook_keeps_the_phone_page_light_in_every_language(client):
    """The largest notebook (advanced, 5 players, at the start: every clue still possible for four opponents)."""
    seat = urlsplit(client.post("/api/tables", json={"players": 5, "advanced": True, "notebook": True})
                    .get_json()["seats"][0]["url"]).path
    for language in LANGUAGES:
        client.set_cookie("lang", language)
        response = client.get(seat, headers={"Accept-Encoding": "gzip"})
        assert response.headers["Content-Encoding"] == "gzip"
        assert len(response.get_data()) <= NOTEBOOK_PAGE_BUDGET, language
        assert 'id="solver"' in gzip.decompress(response.get_data()).decode()
