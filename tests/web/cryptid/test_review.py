"""The after-game review on every screen of a refereed game and in its JSON, and the Solver in a finished game's
replay (docs/cryptid-play.md section 9.2): plain sentences, the failed search named, no bits."""

from __future__ import annotations

import dataclasses
import html
import random
import re
from urllib.parse import urlsplit

from companion.cryptid.hexgrid import hex_name, hexes_of
from companion.cryptid.review import review, solver_view
from companion.cryptid.deduction import Evidence
from companion.cryptid.play import State, log_turns
from companion.cryptid.view import view
from companion.web.cryptid.tokens import host_token
from tests.web.cryptid.test_play import (  # noqa: F401
    Phone,
    apps,
    hex_json,
    play_a_move,
    referee_state,
)

REVIEWS = re.compile(r'<details class="review"(?: open)?><summary>(.*?)</summary><ul>(.*?)</ul></details>', re.S)


def table(apps, players: int) -> tuple[str, list[Phone], list[str]]:  # noqa: F811
    response = apps[0].test_client().post("/api/tables", json={"players": players})
    assert response.status_code == 201
    seats = response.get_json()["seats"]
    phones = [Phone(apps[i % 2].test_client(), s["url"]) for i, s in enumerate(seats)]
    return response.get_json()["code"], phones, [urlsplit(s["url"]).path.rsplit("/", 1)[1] for s in seats]


def finished_with_a_failed_search(apps, players: int = 4, seed: int = 5):  # noqa: F811
    """A game whose first turn is a search the next seat stops with a cube, then random moves, then a search of
    the habitat: (code, phones, tokens, the failed search's searcher, hex and stopper)."""
    code, phones, tokens = table(apps, players)
    rng = random.Random(seed)
    while (state := referee_state(apps[0], code)).pending == "cube":
        play_a_move(phones[state.turn - 1], state, state.turn, rng, hunt=False)
    game = state.game
    searcher = state.turn
    stopper = searcher % players + 1
    hex = hexes_of(game.allowed(searcher) & ~game.allowed(stopper) & ~state.all_cubes)[0]
    phones[searcher - 1].post({"action": "search", "hex": hex_json(hex)})
    while (state := referee_state(apps[0], code)).phase != "over":
        seat = state.turn
        hunt = state.version > 24 and state.pending == "move"
        play_a_move(phones[seat - 1], state, seat, rng, hunt=hunt)
    return code, phones, tokens, (searcher, hex, stopper)


def host_path(app, code: str) -> str:
    with app.app_context():
        return f"/h/{host_token(code)}"


def test_every_screen_reviews_each_player_in_plain_sentences_and_names_the_failed_search(apps):  # noqa: F811
    code, phones, tokens, (searcher, hex, stopper) = finished_with_a_failed_search(apps)
    state = referee_state(apps[0], code)
    client = apps[1].test_client()
    names = state.display_names()
    for page in (host_path(apps[0], code), f"/s/{tokens[0]}", f"/s/{tokens[3]}/live", f"/games/{code}"):
        body = html.unescape(client.get(page).get_data(as_text=True))
        reviews = REVIEWS.findall(body)
        assert len(reviews) == 4, page
        # A phone opens its own player's review; the host screen and the public page open none.
        assert body.count('<details class="review" open>') == (1 if page.startswith("/s/") else 0), page
        assert not any(re.search(r"\bbits?\b", summary + lines) for summary, lines in reviews)
        text = " ".join(summary + lines for summary, lines in reviews)
        # Moves numbered as the page's log numbers them: one item per move, its answers and owed cube with it.
        searches = [(n, turn[0]) for n, turn in enumerate(log_turns(state.log), 1) if turn[0].action == "search"]
        assert f"Searched {hex_name(hex)} at move {searches[0][0]}, " in text
        (move, last), = searches[-1:]
        assert last.n != move and f"Searched {hex_name(last.hex)} at move {move}, " in text
        assert f"{names[stopper]} stopped the search with a cube." in text
        stopped = f"Stopped the search of {names[searcher]} on {hex_name(hex)} at move {searches[0][0]} with a cube."
        assert stopped in text
        assert "The search found the habitat." in text
        assert re.search(r"\([^()]*\(", text) is None  # one level of brackets at most
        assert "The Solver, counting every possible setup, was" in text


def test_the_json_review_gives_the_same_facts_with_hexes_as_row_and_column(apps):  # noqa: F811
    code, phones, tokens, (searcher, hex, stopper) = finished_with_a_failed_search(apps, seed=7)
    state = referee_state(apps[0], code)
    expected = review(state)
    data = phones[1].get()
    assert apps[0].test_client().get(f"/api/tables/{code}/play").get_json()["review"] == data["review"]
    assert [r["seat"] for r in data["review"]] == [1, 2, 3, 4]
    for row, seat_review in zip(data["review"], expected):
        assert (row["known_at"], row["solver_at"], row["in_opening"]) == (
            seat_review.known_at, seat_review.solver_at, seat_review.in_opening)
        assert [s["entry"] for s in row["searches"]] == [s.entry for s in seat_review.searches]
        assert [c["possible"] for c in row["cubes"]] == [c.possible for c in seat_review.cubes]
    failed = data["review"][searcher - 1]["searches"][0]
    assert (failed["hex"], failed["found"], failed["stopped_by"]) == (hex_json(hex), False, stopper)
    assert data["review"][state.winner - 1]["searches"][-1]["found"] is True


def test_the_winners_own_search_is_not_when_they_could_have_known(apps):  # noqa: F811
    """A seat that searches the habitat on its first turn won by searching: its summary says so, and names no
    move of its own search as when it could have known."""
    code, phones, tokens = table(apps, 3)
    rng = random.Random(2)
    while (state := referee_state(apps[0], code)).pending == "cube":
        play_a_move(phones[state.turn - 1], state, state.turn, rng, hunt=False)
    seat = state.turn
    phones[seat - 1].post({"action": "search", "hex": hex_json(state.game.habitat)})
    page = html.unescape(apps[0].test_client().get(f"/s/{tokens[seat - 1]}").get_data(as_text=True))
    summaries = [summary for summary, _ in REVIEWS.findall(page)]
    assert "Won with a search before the pieces left one hex." in summaries
    assert not any("Could have known" in summary for summary in summaries)


def test_the_replay_shows_the_solver_from_the_seat_view_of_each_step(apps):  # noqa: F811
    code, phones, tokens, _ = finished_with_a_failed_search(apps, players=3, seed=3)
    client = apps[0].test_client()
    state = referee_state(apps[0], code)
    end = client.get(f"/s/{tokens[0]}").get_data(as_text=True)
    assert "the replay shows, at every move, what your clue and the pieces allowed" in end
    assert 'class="replay-solver"' not in end
    for step in (0, 3, 9):
        page = html.unescape(client.get(f"/s/{tokens[0]}?replay={step}").get_data(as_text=True))
        section = re.search(r'<section class="replay-solver".*?</section>', page, re.S).group()
        shown = view(State.replay(state.game, moves_until(apps[0], code, step)), 1)
        expected = solver_view(Evidence.from_view(shown))
        names = state.display_names()
        for seat in (2, 3):
            count = expected.clues[seat - 1]
            assert f"{names[seat]}: {count} clue{'s' if count != 1 else ''} possible" in section
        hexes = len(expected.chances)
        assert f"The habitat could be on {hexes} hex{'es' if hexes != 1 else ''}." in section
        assert hex_name(expected.chances[0][0]) in section
    host = client.get(host_path(apps[0], code) + "?replay=3").get_data(as_text=True)
    assert 'class="replay-solver"' not in host  # the Solver reasons from a seat's clue: phones only


def moves_until(app, code: str, step: int) -> list:
    from companion.web.cryptid.play import replay_versions, state_moves

    with app.app_context():
        state = referee_state(app, code)
        return state_moves(state)[:replay_versions(state)[step]]


def test_the_sentences_for_an_opening_that_decided_and_for_an_extra_disc(apps):  # noqa: F811
    """The review's rarer sentences, from review facts set by hand on a finished game: a seat whose clue and the
    opening cubes left one hex is told so plainly, and a search's extra disc (or the lack of room for it) is named."""
    from companion.web.cryptid import review as review_web

    code, phones, tokens, (searcher, hex, stopper) = finished_with_a_failed_search(apps, players=3, seed=4)
    state = referee_state(apps[0], code)
    facts = list(review(state))
    search = facts[searcher - 1].searches[0]
    facts[searcher - 1] = dataclasses.replace(
        facts[searcher - 1], known_at=3, in_opening=True,
        searches=(dataclasses.replace(search, extra_disc=0), dataclasses.replace(search, no_room=True)))
    with apps[0].test_request_context():
        review_web._REVIEWS.items[(state.game.code, state.version)] = tuple(facts)  # the game's last JSON filled it
        rows = review_web.review_rows(state.game, state, state.display_names())
    mine = rows[searcher]
    assert mine["summary"] == "Could have known after the opening cubes."
    name = state.display_names()[searcher]
    assert mine["lines"][0] == (f"After the opening cubes, the clue of {name} and the pieces on the board already left "
                                f"one hex only: {hex_name(state.game.habitat)}.")
    assert "Their disc was there already, so they placed an extra disc on A1." in mine["lines"][2]
    assert "Their disc was there already, and no hex could take an extra disc." in mine["lines"][3]
    assert all("opening" not in rows[seat]["summary"] for seat in rows if seat != searcher)
