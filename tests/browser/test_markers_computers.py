"""A Markers table in real browsers when a player walks away: the host opens "A player has vanished?" on the host
screen and hands the silent seat to a computer player, which then plays its turns while the person on the other
phone plays theirs, every screen naming the seat "(computer, expert)"."""

from __future__ import annotations

import re

from companion.cryptid import markers
from companion.cryptid.hexgrid import hexes_of

from .conftest import PHONE
from .test_markers import deal_markers
from .test_play import choose, seat_link


def test_the_host_hands_a_walked_away_seat_to_a_computer(browser, live_server, live_app, computer_worker):
    host, game, state = deal_markers(browser, live_server, live_app, 2)
    context = browser.new_context(**PHONE)
    phones = [context.new_page(), browser.new_context(**PHONE).new_page()]
    for seat, phone in enumerate(phones, 1):
        phone.goto(seat_link(host, seat))
        phone.locator("#play .name-form").wait_for()
    host.get_by_role("button", name="Start the game").click()
    host.locator("#play[data-phase='turns']").wait_for()
    phones[1].close()  # seat 2's player walks away: the phone is gone

    # The host hands the silent seat to a computer, as a host would: open, choose the level, confirm.
    host.get_by_text("A player has vanished?").click()
    host.get_by_text("Player 2 is gone", exact=True).click()
    opened = host.locator("details.gone-one[open]")
    opened.get_by_label("Computer player's level").select_option("expert")
    opened.get_by_role("button", name="Yes, hand Player 2's seat to a computer").click()
    host.locator("#play", has_text="Player 2 (computer, expert)").first.wait_for()

    person = phones[0]
    person.locator("#play", has_text="Player 2 (computer, expert)").first.wait_for()
    for _ in range(20):
        current = state()
        if current.phase == markers.OVER:
            break
        if current.turn != 1:  # the computer's turn: it claims by itself, and the claim reaches the phone
            person.wait_for_function(
                "v => Number(document.querySelector('#play').dataset.etag.split('-')[1]) > v", arg=current.version)
            continue
        person.locator("#play .turn-banner").wait_for()
        choices = current.not_here_choices(1)
        if choices and current.hands[0] > 1:
            choose(person, hexes_of(choices)[0], markers.NOT_HERE)
        else:
            choose(person, hexes_of(current.its_here_choices(1))[0], markers.ITS_HERE)
        assert state().version > current.version
    log = host.locator("#play .log-list")
    log.filter(has_text=re.compile(r"Player 2 \(computer, expert\) (claims|seals)")).wait_for()
    assert any(entry.seat == 2 and entry.action in (markers.NOT_HERE, markers.SEAL) for entry in state().log)
    context.close()
    host.close()
