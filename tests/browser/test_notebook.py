"""A solver game in real browsers: the host deals it with the option ticked on the form, four phones play from
the action sheet, another phone's solver counts change by themselves after each move, every screen says the table
uses the solver, and the end screen shows every player's review on the phones and the host screen."""

from __future__ import annotations

import re

from companion.cryptid.hexgrid import hexes_of
from companion.cryptid.notebook import notebook
from companion.cryptid.play import Cube
from companion.cryptid.view import view
from companion.web.cryptid.refereed import load_play

from .conftest import PHONE
from .test_accessibility import axe_problems
from .test_play import choose, seat_link


def counts(phone) -> list[str]:
    """The summaries of a phone's solver, one per opponent ("Ana: 12 clues possible")."""
    return [text.strip() for text in phone.locator("#solver details.notes > summary").all_inner_texts()]


def telling_cube(state, seat: int) -> int:
    """A hex where the seat may put its cube and which changes what seat 2's notebook says of it (if any)."""
    choices = hexes_of(state.cube_choices(seat))
    if seat == 2:
        return choices[0]
    before = {o.seat: o.count for o in notebook(view(state, 2)).opponents}[seat]
    for hex in choices:
        after = {o.seat: o.count for o in notebook(view(state.apply(Cube(seat, hex)), 2)).opponents}[seat]
        if after != before:
            return hex
    return choices[0]


def test_a_solver_game_from_the_deal_form_to_the_review(browser, live_server, live_app):
    host = browser.new_page(viewport={"width": 1280, "height": 900})
    host.goto(live_server + "/")
    host.locator(".segmented label", has_text="4").click()
    host.get_by_label("The app referees: play on phones").check()
    # More clues to tell apart: the counts fall move by move. (The solo form below has "Advanced mode" and the
    # solver too.)
    deal_form = host.locator("form", has=host.get_by_role("button", name="Deal a new game"))
    deal_form.get_by_label("Solver: shows every possibility and each hex's chance").check()
    deal_form.get_by_label("Advanced mode").check()
    host.get_by_role("button", name="Deal a new game").click()
    host.wait_for_url(re.compile(r"/h/[^/]+$"))
    code = host.locator(".big-code").inner_text().strip()
    game = live_app.extensions["dealer"].load(code)

    def state():
        with live_app.app_context():
            return load_play(game)

    contexts = [browser.new_context(**PHONE) for _ in range(4)]
    phones = [context.new_page() for context in contexts]
    for seat, phone in enumerate(phones[:3], 1):
        phone.goto(seat_link(host, seat))
    host.get_by_role("button", name="Start the game").click()
    host.locator("#play[data-phase='opening']").wait_for()
    # Without JavaScript the solver is there too, and a tap opens an opponent's list.
    plain = browser.new_context(java_script_enabled=False, **PHONE).new_page()
    plain.goto(seat_link(host, 4))
    plain.locator("#solver details.nb1 > summary").click()
    assert plain.locator("#solver details.nb1[open] li").count() > 0
    plain.context.close()
    phones[3].goto(seat_link(host, 4))
    for phone in phones:
        phone.locator("#solver").wait_for()
        assert len(counts(phone)) == 3 and phone.locator("#solver details.notes[open]").count() == 0
        assert phone.locator("#play svg .odds-marks use").count() > 0
    assert host.locator("#solver, .odds-marks").count() == 0  # the host screen shows no solver figures
    assert "This table uses the solver" in host.locator("#play .solver-note").inner_text()  # but says it is used
    assert all("This table uses the solver" in phone.locator("#play .solver-note").inner_text() for phone in phones)

    # A phone opens an opponent's list with the keyboard; it stays open while the game moves on.
    watcher = phones[1]
    watcher.locator("#solver details.nb1 > summary").focus()
    watcher.keyboard.press("Enter")
    assert watcher.locator("#solver details.nb1[open] li").count() > 0
    assert axe_problems(watcher, "notebook open") == []

    seen_counts = {tuple(o.count for o in notebook(view(state(), 2)).opponents)}
    moves = 0
    while (current := state()).phase != "over":
        seat = current.turn
        phone = phones[seat - 1]
        phone.locator("#play .turn-banner").wait_for()  # the phone whose turn it is knows it
        if current.pending == "cube":
            choose(phone, telling_cube(current, seat), "cube")
        elif current.pending == "disc":  # the habitat held the searcher's disc already (an earlier answer)
            choose(phone, hexes_of(current.disc_choices(seat))[0], "disc")
        elif moves < 6:
            target = seat % 4 + 1
            ask = hexes_of(current.ask_hexes(seat, target))[moves]
            phone.locator(f"#play svg a[href*='hex={ask}#']").click()
            assert "From what you know" in phone.locator("#sheet .odds-note").inner_text()  # the hex's chance
            phone.get_by_role("link", name="Cancel").click()
            phone.locator("#sheet").wait_for(state="detached")
            choose(phone, ask, f"ask-{target}")
        else:
            choose(phone, game.habitat, "search")
        moves += 1
        if state().phase == "over":
            break
        # The watcher's solver follows by itself: each opponent's count is the one its own view gives.
        expected = notebook(view(state(), 2))
        for opponent in expected.opponents:
            summary = watcher.locator(f"#solver details.nb{opponent.seat} > summary")
            summary.filter(has_text=f": {opponent.count} clue").wait_for()
        seen_counts.add(tuple(o.count for o in expected.opponents))
        assert watcher.locator("#solver details.nb1[open]").count() == 1
    assert len(seen_counts) > 1  # the counts changed live, without a reload

    for page in phones + [host]:  # the end: every player's review, no solver any more
        page.locator("#play .results").wait_for()
        page.locator("#play .review").first.wait_for()
        assert page.locator("#play .ranks > li").count() == 4
        assert page.locator("#play .review").count() == 4
        text = page.locator("#play .results").inner_text()
        assert re.search(r"Could have known|Won with a search|The pieces never left them one hex", text)
        assert page.locator("#solver").count() == 0
    for context in contexts:
        context.close()
    host.close()
