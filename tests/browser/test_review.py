"""The after-game review in a real browser on a phone (390x844) and a host screen (1280x900): one collapsed
section per player that a tap opens, no wider than the phone, axe-clean; the replay's Solver stepping with the
Forward button. Screenshots land in $REVIEW_SHOTS when it names a folder (English and Persian)."""

from __future__ import annotations

import os
import random
import re
from urllib.parse import urlsplit

from companion.cryptid.hexgrid import hex_row_col, hexes_of
from companion.web.cryptid.refereed import load_play
from tests.cryptid.test_play import turn_moves

from .conftest import PHONE
from .test_accessibility import axe_problems

SHOTS = os.environ.get("REVIEW_SHOTS")


def hex_json(index: int) -> dict:
    row, col = hex_row_col(index)
    return {"row": row, "col": col}


def finished_game(page, live_server, live_app, seed: int = 5) -> dict:
    """A 4-player refereed game played through the API to its end: its first turn a search that the next seat
    stops with a cube, then random moves, then a search of the habitat. The table's JSON (seat and host URLs)
    and the seat that stopped the search."""
    table = page.request.post(live_server + "/api/tables", data={"players": 4}).json()
    apis = [live_server + "/api/seats/" + urlsplit(s["url"]).path.rsplit("/", 1)[1] + "/play" for s in table["seats"]]
    game = live_app.extensions["dealer"].load(table["code"])
    rng = random.Random(seed)
    searched = False

    def state():
        with live_app.app_context():
            return load_play(game)

    while (now := state()).phase != "over":
        seat = now.turn
        if now.pending == "cube":
            body = {"action": "cube", "hex": hex_json(rng.choice(hexes_of(now.cube_choices(seat))))}
        elif now.pending == "disc":  # the searched hex held the searcher's disc already (an earlier answer)
            body = {"action": "disc", "hex": hex_json(hexes_of(now.disc_choices(seat))[0])}
        elif not searched:  # a search the next seat's clue rules out: it stops it with a cube
            stopper = seat % 4 + 1
            hex = hexes_of(game.allowed(seat) & ~game.allowed(stopper) & ~now.all_cubes)[0]
            body, searched = {"action": "search", "hex": hex_json(hex)}, True
        elif now.version > 24:
            body = {"action": "search", "hex": hex_json(game.habitat)}
        else:
            move = rng.choice([m for m in turn_moves(now) if m.action == "ask"]).to_json()
            body = {"action": "ask", "hex": {"row": move["row"], "col": move["col"]}, "seat": move["target"]}
        assert page.request.post(apis[seat - 1], data=body).ok
    table["stopper"] = stopper
    return table


def shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def fits_the_width(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_the_review_on_a_phone_opens_per_player_and_the_replay_shows_the_solver(browser, live_server, live_app):
    context = browser.new_context(**PHONE)
    phone = context.new_page()
    table = finished_game(phone, live_server, live_app)
    languages = [("en", "stopped the search with a cube", "Solver", "Replay the game move by move"),
                 ("fa", "جست‌وجو را با یک مکعب متوقف کرد", "حل‌گر", "بازپخش بازی حرکت به حرکت")]
    for language, stopped, solver, replay in languages:
        context.add_cookies([{"name": "lang", "value": language, "url": live_server}])
        seat = table["stopper"]  # a phone whose own review does not name the failed search
        phone.goto(table["seats"][seat - 1]["url"])
        reviews = phone.locator("#play details.review")
        reviews.first.wait_for()
        assert reviews.count() == 4
        # Short on a phone: the player's own review open, the others' collapsed until tapped.
        assert phone.locator("#play details.review[open]").count() == 1
        assert phone.locator(f"#play .ranks > li.p{seat} > details.review[open]").count() == 1
        assert fits_the_width(phone)
        closed_height = phone.evaluate("document.documentElement.scrollHeight")
        shot(phone, f"review-phone-{language}-as-opened")
        shown = phone.locator("#play .results").inner_text()
        assert stopped not in shown  # in the searcher's closed section
        assert language != "en" or "Stopped the search of " in shown  # in the phone's own, open one
        for index in range(4):
            if reviews.nth(index).get_attribute("open") is None:
                reviews.nth(index).locator("summary").click()
        assert phone.locator("#play details.review[open]").count() == 4
        text = phone.locator("#play .results").inner_text()
        assert stopped in text and " bits" not in text
        if language == "fa":  # Persian digits, hex names (F6) apart
            assert "۱" in text and not re.search(r"[0-9]", re.sub(r"[A-L][0-9]+", "", text))
        assert fits_the_width(phone)
        assert phone.evaluate("document.documentElement.scrollHeight") > closed_height
        shot(phone, f"review-phone-{language}-all-open")
        assert axe_problems(phone, f"{language} review open") == []
        phone.locator("a.button", has_text=replay).click()
        phone.locator(".replay-nav").wait_for()
        for _ in range(6):  # Forward, as a person steps through the game
            with phone.expect_navigation():
                phone.locator(".replay-nav a.primary").click()
        section = phone.locator("#play section.replay-solver")
        assert section.locator("h2").inner_text() == solver
        assert section.locator("li").count() == 4  # three other players, then the hexes
        assert fits_the_width(phone)
        shot(phone, f"replay-solver-phone-{language}")
        assert axe_problems(phone, f"{language} replay solver") == []
    context.close()

    host = browser.new_page(viewport={"width": 1280, "height": 900})
    host.goto(table["host_url"])
    host.locator("#play details.review").first.wait_for()
    host.locator("#play details.review summary").first.click()
    assert host.locator("#play section.replay-solver").count() == 0
    shot(host, "review-host-1280-en")
    host.close()
