"""The notebook that keeps the books in real browsers: a player crosses clues off and marks hexes with JavaScript
(saved at once) and without (plain forms), reloads, takes the seat on another phone and finds everything; "check
my notes" answers on request; the page passes axe. Screenshots land in $NOTEBOOK_SHOTS when it is set."""

from __future__ import annotations

import os
import random

from companion.cryptid.play import State
from companion.web.cryptid.refereed import load_play
from tests.cryptid.test_play import turn_moves
from tests.web.cryptid.test_play import Phone, hex_json, play_a_move

from .conftest import PHONE
from .test_accessibility import axe_problems

SHOTS = os.environ.get("NOTEBOOK_SHOTS")


def table_mid_game(page, live_server: str, live_app, moves: int, **options) -> tuple[str, list[str]]:
    """A refereed 4-player table, played `moves` random moves on (through the API), and its seats' links."""
    data = page.request.post(live_server + "/api/tables", data={"players": 4} | options).json()
    game = live_app.extensions["dealer"].load(data["code"])
    rng = random.Random(data["code"])
    phones = [Phone(live_app.test_client(), seat["url"]) for seat in data["seats"]]
    for _ in range(moves):  # questions and cubes only: a search might end the game
        with live_app.app_context():
            state: State = load_play(game)
        phone = phones[state.turn - 1]
        if state.pending == "cube":
            play_a_move(phone, state, state.turn, rng, hunt=False)
        else:
            ask = rng.choice([m for m in turn_moves(state) if m.action == "ask"])
            phone.post({"action": "ask", "seat": ask.target, "hex": hex_json(ask.hex)})
    return data["code"], [seat["url"] for seat in data["seats"]]


def shoot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)
        for part in ("board", "notebook"):  # the board with the marks, then the top of the notebook
            page.evaluate(f"document.getElementById('{part}').scrollIntoView()")
            page.screenshot(path=os.path.join(SHOTS, f"{name}-{part}.png"))


def crossed(page) -> list[str]:
    return sorted(page.locator("#notebook form.cross input:checked").evaluate_all("boxes => boxes.map(b => b.value)"))


def marks(page) -> list[str]:
    return sorted(page.locator("#play svg .own-mark").evaluate_all(
        "marks => marks.map(m => m.getAttribute('class').split(' ')[1].slice(2) + '@' + m.dataset.hex)"))


def test_cross_off_mark_reload_and_find_it_all_on_the_next_phone(browser, live_server, live_app):
    first = browser.new_context(**PHONE).new_page()
    code, seats = table_mid_game(first, live_server, live_app, 14)
    first.goto(seats[0])
    first.locator("#notebook .book-tabs a", has_text="Player 3").click()
    first.locator("#notebook .book-tabs a[aria-current='page']", has_text="Player 3").wait_for()
    assert "?nb=3" in first.url
    # Crossing a clue off saves it at once (no button to press with JavaScript on); two quick ticks both count.
    boxes = first.locator("#notebook form.cross input[type=checkbox]")
    boxes.nth(0).check()
    boxes.nth(3).check()
    first.locator("#notebook p.note", has_text="You crossed off 2 of these 23 clues.").wait_for()
    # A hex's sheet marks it; the board shows the mark.
    first.locator("#play svg a[href*='hex=40#']").click()
    first.locator("#sheet").get_by_role("button", name="Maybe").click()
    first.locator("#sheet button[aria-pressed='true']", has_text="Maybe").wait_for()
    first.locator("#play svg .own-mark.m-maybe[data-hex='40']").wait_for()
    first.locator("#sheet").get_by_role("link", name="Cancel").click()
    first.locator("#play svg a[href*='hex=52#']").click()
    first.locator("#sheet").get_by_role("button", name="No").click()
    first.locator("#play svg .own-mark.m-no[data-hex='52']").wait_for()
    first.locator("#sheet").get_by_role("link", name="Cancel").click()
    first.locator("#sheet").wait_for(state="detached")
    expected_crossed, expected_marks = crossed(first), ["maybe@40", "no@52"]
    assert expected_crossed == [] and marks(first) == expected_marks  # the sheet closed on the first page
    first.goto(seats[0] + "?nb=3")
    expected_crossed = crossed(first)
    assert len(expected_crossed) == 2
    assert axe_problems(first, "notebook with marks") == []
    first.reload()
    assert marks(first) == expected_marks and "Maybe: " in first.locator("#notebook").inner_text()
    first.goto(seats[0] + "?nb=3")
    assert crossed(first) == expected_crossed
    # "Check my notes" answers on request, and only about what was crossed off.
    first.get_by_role("link", name="Check my notes").click()
    first.locator("#notebook .check-result").wait_for()
    assert "%" not in first.locator("#notebook").inner_text()

    # The next phone takes the seat and finds everything written.
    second = browser.new_context(**PHONE).new_page()
    second.goto(seats[0] + "?nb=3")
    second.get_by_role("button", name="Play Player 1 on this phone").click()
    second.locator("#notebook").wait_for()
    second.goto(seats[0] + "?nb=3")
    assert crossed(second) == expected_crossed and marks(second) == expected_marks

    # Without JavaScript: the same forms post and come back to the page, which shows what was saved.
    plain = browser.new_context(java_script_enabled=False, **PHONE).new_page()
    plain.goto(seats[0] + "?nb=3")
    plain.get_by_role("button", name="Play Player 1 on this phone").click()
    plain.goto(seats[0] + "?nb=3")
    plain.locator("#notebook form.cross input[type=checkbox]").nth(5).check()
    plain.get_by_role("button", name="Save what I crossed off").click()
    # A click waits only for the next page to start loading: wait for what it shows before reading it.
    plain.locator("#notebook p.note", has_text="You crossed off 3 of these 23 clues.").wait_for()
    assert len(crossed(plain)) == 3 and "nb=3" in plain.url
    plain.goto(seats[0] + "?hex=61")
    plain.locator("#sheet").get_by_role("button", name="No").click()
    plain.locator("#play svg .own-mark.m-no[data-hex='61']").wait_for()
    assert "hex=61" in plain.url and marks(plain) == sorted(expected_marks + ["no@61"])
    for page in (first, second, plain):
        page.context.close()


def test_screenshots_of_the_books_and_the_solver(browser, live_server, live_app):
    """The notebook mid-game with the player's own marks, in English and Persian, and a solver table's phone."""
    for solver in (False, True):
        page = browser.new_context(**PHONE).new_page()
        code, seats = table_mid_game(page, live_server, live_app, 16, solver=solver)
        page.goto(seats[1])
        page.locator("#play svg .pieces").wait_for()
        if not solver:
            page.locator("#notebook form.cross input[type=checkbox]").nth(1).check()
            page.locator("#notebook form.cross input[type=checkbox]").nth(4).check()
            page.locator("#notebook p.note", has_text="You crossed off 2").wait_for()
            for hex, mark in ((30, "Maybe"), (43, "No"), (57, "Maybe")):
                page.locator(f"#play svg a[href*='hex={hex}#']").click()
                page.locator("#sheet").get_by_role("button", name=mark).click()
                page.locator(f"#play svg .own-mark[data-hex='{hex}']").wait_for()
                page.locator("#sheet").get_by_role("link", name="Cancel").click()
                page.locator("#sheet").wait_for(state="detached")
            page.goto(seats[1] + "?check=1")
        text = page.locator("#notebook").inner_text()
        assert "%" not in text and "chance" not in text
        assert (page.locator("#solver").count() == 1) == solver
        for language in ("en", "fa", "el", "ja"):
            page.context.add_cookies([{"name": "lang", "value": language, "url": live_server}])
            page.reload()
            page.locator("#notebook").wait_for()
            assert axe_problems(page, f"{language} books solver={solver}") == []
            shoot(page, f"{'solver' if solver else 'books'}-{language}-390")
        if SHOTS:  # the same phone's page on a wide screen, in English and Persian
            wide = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            wide.goto(seats[1])
            wide.get_by_role("button", name="Play Player 2 on this phone").click()
            for language in ("en", "fa"):
                wide.context.add_cookies([{"name": "lang", "value": language, "url": live_server}])
                wide.goto(seats[1] + "?check=1")
                shoot(wide, f"{'solver' if solver else 'books'}-{language}-1280")
            wide.context.close()
        page.context.close()
