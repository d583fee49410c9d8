"""Decrypto in real browsers: four phones and the host screen play a whole game to a win; every move reaches
the other screens without a reload. Screenshots land in $DECRYPTO_SHOTS when it names a folder."""

from __future__ import annotations

import os
import re

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import PHONE

SHOTS = os.environ.get("DECRYPTO_SHOTS")


def shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, name), full_page=True)


def test_four_phones_and_the_host_play_a_whole_game(browser, live_server):
    host = browser.new_page(viewport={"width": 1280, "height": 900})
    host.goto(live_server + "/")
    host.get_by_role("link", name="New Decrypto table").click()
    host.get_by_role("button", name="Open the table").click()
    host.wait_for_url(re.compile(r"/decrypto/h/[^/]+$"))
    links = [a.get_attribute("href") for a in host.locator("a.phone-link").all()]
    assert len(links) == 4  # White 1, White 2, Black 1, Black 2
    contexts = [browser.new_context(**PHONE) for _ in links]
    phones = [context.new_page() for context in contexts]
    for phone, link, name in zip(phones, links, ["Ana", "Ben", "Chloé", "Dev"]):
        phone.goto(link)
        phone.get_by_label("Your name at the table").fill(name)
        phone.locator("#play button[name=team]").click()
        phone.locator("#play .keywords li").nth(3).wait_for(timeout=5000)
    white, black = phones[:2], phones[2:]

    def round_(number: int) -> None:
        encryptor = (number - 1) % 2
        codes = {}
        for team, members in (("white", white), ("black", black)):
            phone = members[encryptor]
            show = phone.get_by_role("button", name="Show my code")
            for _ in range(3):  # a live update landing in the same instant can swap the link from under the tap
                phone.get_by_role("link", name="It is my turn to encrypt: show my code").click()
                try:
                    show.wait_for(timeout=5000)
                    break
                except PlaywrightTimeout:
                    continue
            show.click()
            codes[team] = phone.locator("#play .my-code").inner_text()
            for index in range(3):
                phone.locator(f"#clue{index + 1}").fill(f"{team} {number}{'abc'[index]}")
            if number == 1 and team == "white":
                shot(phone, "phone-encrypting.png")
            phone.get_by_role("button", name="Give these clues").click()
        host.get_by_text(f"black {number}c").wait_for(timeout=5000)  # the host's sheets fill themselves
        if number == 1:
            host.get_by_role("button", name="Start the 30-second timer").click()
            shot(host, "host-mid-game.png")
            host.set_viewport_size({"width": 390, "height": 844})
            shot(host, "host-mid-game-390.png")
            host.set_viewport_size({"width": 1280, "height": 900})
        for target in ("white", "black"):
            guessers = {"white": white[1 - encryptor], "black": black[1 - encryptor]}
            own = codes[target] if target == "white" else ("1-2-3" if codes[target] != "1-2-3" else "3-2-1")
            order = [(target, own)] + ([("white" if target == "black" else "black", "4-3-2" if codes[target] != "4-3-2" else "2-3-4")] if number > 1 else [])
            for team, guess in order:
                phone = guessers[team]
                form = phone.locator(f"#play form.guess-form:has(input[name=target][value={target}])")
                form.wait_for(timeout=5000)
                form.locator("input[name=code]").fill(guess)
                form.locator("input[name=confirm]").check()
                if number == 2 and target == "black" and team == "white":
                    shot(phone, "phone-intercepting.png")
                form.get_by_role("button", name="Send the guess").click()
                form.wait_for(state="detached", timeout=5000)

    round_(1)
    round_(2)
    ending = "Black loses: two miscommunications. White wins."
    for page in [host, *phones]:
        page.get_by_text(ending).wait_for(timeout=5000)
    # At the end everyone sees both teams' keywords.
    assert phones[0].locator("#play .sheet.team-black .keyword").count() == 4
    shot(host, "host-end.png")
    shot(phones[2], "phone-end.png")
    if SHOTS:
        wide = browser.new_page(viewport={"width": 1280, "height": 900})
        wide.goto(phones[0].url)
        shot(wide, "phone-end-1280.png")
        wide.close()
        host.set_viewport_size({"width": 390, "height": 844})
        shot(host, "host-end-390.png")
        host.set_viewport_size({"width": 1280, "height": 900})
    host.get_by_role("button", name="Next game").click()
    host.get_by_text("Game 2 · round 1 of 8").wait_for(timeout=5000)
    for context in contexts:
        context.close()
    host.close()
