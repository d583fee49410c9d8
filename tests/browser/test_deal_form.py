"""The home page's deal form in a real browser: with 2 players "The app referees" is offered only for Markers,
the reason stands beside the choice, and the computer-seat picker lists only the table's seats; without
JavaScript the server's refusal says the same."""

from __future__ import annotations

import re

from .conftest import PHONE


def deal_form(page):
    return page.locator("#deal-form")


def test_two_players_cannot_pick_a_classic_refereed_game_and_see_why(phone, live_server):
    phone.goto(live_server + "/")
    form = deal_form(phone)
    referee = form.get_by_label("The app referees: play on phones")
    note = form.locator("#two-players-note")
    assert note.is_visible() and "only the Markers variant" in note.inner_text()
    form.locator(".computer-seats summary").click()
    seats = form.locator(".seat-choice")
    assert [seats.nth(i).is_visible() for i in range(5)] == [True] * 4 + [False]  # 4 players by default
    referee.check()
    form.locator(".segmented label", has_text="2").click()
    # Two players and classic Cryptid: the choice is off (the box is chosen instead) and the note stands out.
    assert referee.is_disabled() and not referee.is_checked()
    assert form.get_by_label("Play with the box: players answer each other").is_checked()
    assert "warning" in note.get_attribute("class")
    assert [seats.nth(i).is_visible() for i in range(5)] == [True, True, False, False, False]
    # Markers plays with 2: the choice comes back.
    form.get_by_label(re.compile(r"^Markers \(2 to 4")).check()
    assert referee.is_enabled() and "warning" not in note.get_attribute("class")
    referee.check()
    five = form.locator("input[name='players'][value='5']")
    assert five.is_disabled()  # Markers is for 2 to 4 players
    form.locator(".segmented label", has_text="3").click()
    assert [seats.nth(i).is_visible() for i in range(5)] == [True, True, True, False, False]
    form.get_by_role("button", name="Deal a new game").click()
    phone.wait_for_url(re.compile(r"/h/"))
    assert "Markers" in phone.content()


def test_without_javascript_the_server_says_why(browser, live_server):
    context = browser.new_context(**PHONE, java_script_enabled=False)
    page = context.new_page()
    page.goto(live_server + "/")
    form = deal_form(page)
    form.locator(".segmented label", has_text="2").click()
    form.get_by_label("The app referees: play on phones").check()
    form.get_by_role("button", name="Deal a new game").click()
    error = page.locator("#deal-form .error, #deal-form [role=alert]").first
    assert "With 2 players the app referees only the Markers variant" in error.inner_text()
    context.close()
