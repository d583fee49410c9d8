"""A solo game in a real browser: "Play against the computer" on the home page, then every turn of the person
played through the board, the action sheet and Confirm, the computers' moves announced, until the end screen,
and "Play again" there: a new map with the same settings."""

from __future__ import annotations

import re

from companion.cryptid.hexgrid import hexes_of
from companion.web.cryptid.refereed import load_play

from .test_play import choose

# Whether the page's live fragment shows the game at `version` or later (its ETag starts "play-<version>-").
SHOWS_AT_LEAST = "v => Number(document.querySelector('#play').dataset.etag.split('-')[1]) >= v"


def test_a_solo_game_against_the_computer_to_the_end(phone, live_server, live_app, computer_worker):
    phone.goto(live_server + "/")
    solo = phone.locator(".solo-card")
    solo.locator(".opponents label", has_text="4").click()
    solo.get_by_label("Their level").select_option("beginner")
    solo.get_by_role("button", name="Play against the computer").click()
    phone.wait_for_url(re.compile(r"/s/[^/]+$"))
    code = phone.locator("#play").get_attribute("data-live").split("/")[2].split(".")[0][:-1]
    game = live_app.extensions["dealer"].load(code)

    def state():
        with live_app.app_context():
            return load_play(game)

    def page_reaches(version: int) -> None:
        phone.wait_for_function(SHOWS_AT_LEAST, arg=version)

    asks, heard_a_computer = 0, False
    while True:
        current = state()
        page_reaches(current.version)
        if current.phase == "over":
            break
        if current.turn != 1:  # a computer's turn: its move reaches the page by itself
            page_reaches(current.version + 1)
            continue
        phone.locator("#play .turn-banner").wait_for()
        announced = phone.locator("#announce")
        if announced.count() and "(computer, beginner)" in announced.inner_text():
            heard_a_computer = True
        if current.pending == "cube":
            choose(phone, hexes_of(current.cube_choices(1))[0], "cube")
        elif current.pending == "disc":  # the habitat held this seat's disc already (an earlier answer)
            choose(phone, hexes_of(current.disc_choices(1))[0], "disc")
        elif asks < 4:
            target = 2 + asks % 4
            choose(phone, hexes_of(current.ask_hexes(1, target))[asks], f"ask-{target}")
            asks += 1
        else:
            choose(phone, game.habitat, "search")
        assert state().version > current.version
    assert heard_a_computer
    results = phone.locator("#play .results")
    results.wait_for()
    assert "Rank 1" in results.inner_text() and "(computer, beginner)" in results.inner_text()
    # "Play again": a new game on a new map, the same four beginners; its seat page links home, and the end's
    # other button leads to the home page's solo form.
    assert results.get_by_role("link", name="Next game: other settings").get_attribute("href") == "/#solo-heading"
    first_seat = phone.url
    results.get_by_role("button", name="Play again").click()
    phone.wait_for_url(lambda url: url != first_seat and re.search(r"/s/[^/]+$", url))
    following = phone.locator("#play").get_attribute("data-live").split("/")[2].split(".")[0][:-1]
    assert following != code, (following, phone.url)
    again = live_app.extensions["dealer"].load(following)
    assert again.players == 5 and (again.board, again.habitat) != (game.board, game.habitat)
    phone.locator("#play").wait_for()
    for seat in (2, 3, 4, 5):
        assert f"Player {seat} (computer, beginner)" in phone.locator("#play").inner_text()
    phone.get_by_role("navigation", name="Site").get_by_role("link", name="Home").click()
    phone.wait_for_url(live_server + "/")
    assert phone.locator(".solo-card").is_visible()
