"""A whole 3-player game of Markers in real browsers: the host deals it from the home page's form and starts it,
three 390 x 844 phones claim "not here" and "it's here" from the action sheet, every claim is announced on every
other screen, no phone shows another's clue before the end, and the end shows every clue on every screen."""

from __future__ import annotations

import re

from companion.cryptid import markers
from companion.cryptid.hexgrid import hexes_of
from companion.cryptid.text import clue_text
from companion.web.cryptid.refereed import load_play

from .conftest import PHONE
from .test_play import choose, seat_link


def deal_markers(browser, live_server, live_app, players: int):
    """The host deals a Markers game from the home page's form, as a person would: the host page, the game and a
    function that reads the table's state."""
    host = browser.new_page(viewport={"width": 1280, "height": 900})
    host.goto(live_server + "/")
    host.locator(".segmented label", has_text=str(players)).click()
    # Markers first: with 2 players the form offers the app as referee only for Markers.
    host.get_by_label(re.compile("^Markers")).check()
    host.get_by_label("The app referees: play on phones").check()
    host.get_by_role("button", name="Deal a new game").click()
    host.wait_for_url(re.compile(r"/h/[^/]+$"))
    game = live_app.extensions["dealer"].load(host.locator(".big-code").inner_text().strip())

    def state() -> markers.State:
        with live_app.app_context():
            return load_play(game)

    return host, game, state


def test_a_whole_markers_game_on_three_phones(browser, live_server, live_app):
    host, game, state = deal_markers(browser, live_server, live_app, 3)

    links = [seat_link(host, seat) for seat in (1, 2, 3)]
    contexts = [browser.new_context(**PHONE) for _ in links]
    phones = [context.new_page() for context in contexts]
    for phone, link in zip(phones, links):
        phone.goto(link)
        phone.locator("#play .name-form").wait_for()
    host.get_by_role("button", name="Start the game").click()
    for phone in phones:
        phone.locator("#play[data-phase='turns']").wait_for()

    claims = 0
    while state().phase != markers.OVER:
        current = state()
        seat = current.turn
        phone = phones[seat - 1]
        phone.locator("#play .turn-banner").wait_for()
        for other in current.seats:  # nobody's page shows another's clue
            page = phones[other - 1].content()
            assert not any(clue_text(c) in page for s in current.seats if s != other for c in game.seat_clues(s))
        if claims < 2 and current.not_here_choices(seat):
            choose(phone, hexes_of(current.not_here_choices(seat))[0], markers.NOT_HERE)
        else:
            choose(phone, game.habitat, markers.ITS_HERE)
        claims += 1
        after = state()
        assert after.version == current.version + 1  # the double tap made one claim
        announced = phone.locator("#announce").inner_text()
        for other in [p for p in phones if p is not phone] + [host]:
            other.locator("#announce", has_text=announced).wait_for()

    final = state()
    assert final.outcome == markers.FOUND and final.winners
    for page in phones + [host]:  # the end reaches every screen: every clue, the winners, no Leave button
        page.locator("#play .results").wait_for()
        assert page.locator("#play details.leave").count() == 0
        results = page.locator("#play .results").inner_text()
        assert "Winner" in results
        assert all(clue_text(clue) in results for clue in game.clues)
    for context in contexts:
        context.close()
    host.close()
