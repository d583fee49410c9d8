"""Refereed play in real browsers: three phones and the host screen play the opening and several turns; every
move appears on the other screens without a reload."""

from __future__ import annotations

import re
import time

from companion.cryptid.hexgrid import hexes_of
from companion.web.cryptid.refereed import load_play

from .conftest import PHONE


def test_three_phones_and_the_host_play_live(browser, live_server, live_app):
    host = browser.new_page(viewport={"width": 1280, "height": 900})
    host.goto(live_server + "/")
    host.locator(".segmented label", has_text="3").click()
    host.get_by_label("The app referees: play on phones").check()
    host.get_by_role("button", name="Deal a new game").click()
    host.wait_for_url(re.compile(r"/h/[^/]+$"))
    code = host.locator(".big-code").inner_text().strip()
    links = [a.get_attribute("href") for a in host.locator("a.seat-link").all()]
    assert len(links) == 3
    contexts = [browser.new_context(**PHONE) for _ in links]
    phones = [context.new_page() for context in contexts]
    for number, (phone, link) in enumerate(zip(phones, links), 1):
        phone.goto(link)
        phone.get_by_label("Your name at the table").fill(["Ana", "Ben", "Chloé"][number - 1])
        phone.get_by_role("button", name="Save my name").click()
    host.reload()
    host.get_by_role("button", name="Start the game").click()
    game = live_app.extensions["dealer"].load(code)

    def state():
        with live_app.app_context():
            return load_play(game)

    for phone in phones:  # the start reaches the phones by itself
        phone.locator("#play .status, #play .turn-banner").filter(has_text=re.compile("place a cube")).wait_for(timeout=5000)
    moves = 0
    while moves < 10:
        current = state()
        seat = current.turn
        phone = phones[seat - 1]
        phone.locator("#play .turn-banner").wait_for(timeout=5000)
        if current.pending == "cube":
            target = hexes_of(current.cube_choices(seat))[0]
            phone.locator(f"#play a[href$='hex={target}']").click()
            phone.get_by_role("link", name="Place my cube here").click()
        else:
            target = hexes_of(current.ask_hexes(seat, seat % 3 + 1))[moves % 7]
            phone.locator(f"#play a[href$='hex={target}']").click()
            phone.locator("#act a.button").first.click()
        phone.get_by_role("button", name="Confirm").click()
        moves += 1
        phone.locator("#play .log-list li").first.wait_for(timeout=3000)  # the mover's own screen has it
        for _ in range(100):
            if state().version > current.version:
                break
            time.sleep(0.05)
        last = state().log[-1]
        # Every other screen shows the new log line within a second or two, without reloading.
        for other in [p for p in phones if p is not phone] + [host]:
            other.locator("#play .log-list li").first.filter(has_text=f"row {last.row + 1}, column {last.col + 1}").wait_for(timeout=3000)
    assert state().phase == "turns"
    assert state().version >= 10
    for context in contexts:
        context.close()
    host.close()
