"""What a table does on game night, in a real browser at phone size."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
import zxingcpp
from PIL import Image
from playwright.sync_api import expect

from companion.cryptid import load_game
from companion.cryptid.text import clue_text, hint_text
from tests.helpers import GOLDEN


def decode_screenshot(path) -> str:
    results = zxingcpp.read_barcodes(Image.open(path))
    assert len(results) == 1
    return results[0].text


def new_game_from_home(page, live_server, players: int) -> str:
    page.goto(live_server + "/")
    page.locator(".segmented label", has_text=str(players)).click()
    page.get_by_role("button", name="Deal a new game").click()
    page.wait_for_url(re.compile(r"/h/[^/]+$"))
    return page.locator(".big-code").inner_text().strip()


def test_a_table_plays_a_game_on_its_phones(phone, second_phone, live_server, served_game, tmp_path):
    code = new_game_from_home(phone, live_server, 3)
    game = served_game(code)
    assert phone.locator("h1").count() == 1

    # The second phone scans player 2's QR code from the host's screen.
    shot = tmp_path / "qr.png"
    phone.locator(".qr-card").nth(1).locator(".qr svg").screenshot(path=str(shot))
    url = decode_screenshot(shot)
    assert urlsplit(url).netloc == urlsplit(live_server).netloc
    seat = second_phone
    seat.goto(url)
    assert seat.locator("h1").inner_text() == "Player 2"

    # The clue stays hidden until tapped, and hides again.
    clue = seat.locator(".clue-box .clue-text").first
    assert not clue.is_visible()
    seat.locator(".clue-box summary").tap()
    assert clue.is_visible() and clue.inner_text() == clue_text(game.seat_clues(2)[0])
    seat.locator(".clue-box summary").tap()
    assert not clue.is_visible()

    # Check a hex without reloading: the habitat always gets a disc.
    seat.evaluate("window.stillHere = true")
    seat.locator(f"a[href='?hex={game.habitat}']").tap()
    assert "Place a disc" in seat.locator("#check").inner_text()
    excluded, untouched = [h for h in range(108) if not game.allowed(2) >> h & 1][:2]
    seat.locator(f"a[href='?hex={excluded}']").tap()
    assert "Place a cube" in seat.locator("#check").inner_text()
    assert seat.evaluate("window.stillHere") is True

    # "My area" shades what the clue rules out, only when asked.
    dimmed = seat.locator(f"a[href='?hex={untouched}'] use")
    assert dimmed.evaluate("e => getComputedStyle(e).opacity") == "1"
    seat.get_by_label("Shade the hexes my clue rules out").check()
    assert float(dimmed.evaluate("e => getComputedStyle(e).opacity")) < 0.5

    # The host reveals the habitat at the end.
    phone.locator("#agree-reveal").get_by_label("All 3 players agree").check()
    phone.locator("#agree-reveal").get_by_role("button", name="Reveal the habitat").click()
    phone.get_by_role("link", name="See it on the map, with every clue").click()
    assert phone.locator("h1").inner_text() == "The habitat"
    assert phone.locator("svg.board use.habitat").count() == 1 and phone.locator("svg.board .dim").count() == 1
    for c in game.clues:
        assert clue_text(c) in phone.locator(".clue-list").inner_text()


def test_phones_vote_and_the_hint_appears_everywhere_by_itself(browser, live_server, served_game):
    from .conftest import PHONE

    host = browser.new_page()
    code = new_game_from_home(host, live_server, 4)  # 3 must agree; a table of its own, as the votes change it
    game = served_game(code)
    links = [a.get_attribute("href") for a in host.locator("a.seat-link").all()]
    contexts = [browser.new_context(**PHONE) for _ in links]
    phones = [context.new_page() for context in contexts]
    panel_asks = {page: [] for page in (phones[3], host)}
    for page, asks in panel_asks.items():
        page.on("request", lambda request, asks=asks: urlsplit(request.url).path.endswith("/table")
                and asks.append(request.url))
    for page, link in zip(phones, links):
        page.goto(link)
    for page in panel_asks:
        page.evaluate("window.stillHere = true")
    hint = hint_text(game.hint)
    ask = "I'd like a hint"
    phones[0].get_by_role("button", name=ask).click()
    phones[0].get_by_role("button", name="Take back my request").click()  # changed their mind
    phones[0].get_by_role("button", name=ask).click()
    phones[1].get_by_role("button", name=ask).click()
    # Without any reload, the other phones and the host screen catch up: their panels' long polls (?wait=1, one
    # waiting at a time) are answered by the votes.
    for page in (phones[3], host):
        page.locator("#step-hint .tally", has_text="2 of 3").wait_for(timeout=10_000)
        assert page.evaluate("window.stillHere") is True
    for asks in panel_asks.values():
        assert asks and all(url.endswith("/table?wait=1") for url in asks)
    phones[2].get_by_role("button", name=ask).click()
    for page in phones + [host]:
        page.locator("#step-hint .hint-text", has_text=hint).wait_for(timeout=10_000)
        assert page.locator("#step-tile").count() == 1  # the stronger hint is now on offer
    for context in contexts:
        context.close()
    host.close()


def test_what_the_host_was_doing_survives_the_panel_drawn_again(browser, live_server):
    """The panel is drawn again at every vote; a box the host has ticked stays ticked, the focus stays on it."""
    host = browser.new_page()
    code = new_game_from_home(host, live_server, 3)
    seat = browser.new_page()
    seat.goto(host.locator("a.seat-link").first.get_attribute("href"))

    # The host's own unlock is answered late: the long poll brings the unlocked hint first, the host ticks the next
    # box, and then the answer, the same version of the panel, arrives. It must not untick the box.
    def late(route):
        answer = route.fetch()
        host.wait_for_timeout(800)
        route.fulfill(response=answer)

    host.route("**/unlock/hint", late)
    with host.expect_response("**/unlock/hint"):
        host.locator("#agree-hint").get_by_label("All 3 players agree").check()
        host.locator("#agree-hint").get_by_role("button", name="Show the hint").click()
        host.locator("#step-hint.unlocked").wait_for()
        tile_box = host.locator("#agree-tile").get_by_label("All 3 players agree")
        tile_box.check()
    assert tile_box.is_checked()

    # Another phone's vote draws the panel again, with its new tally: the box stays ticked and focused.
    tile_box.focus()
    seat.get_by_role("button", name="I'd like the stronger hint").click()
    host.locator("#step-tile .tally", has_text="1 of 3").wait_for()
    assert tile_box.is_checked() and host.evaluate("document.activeElement.id") == "tile-agree"
    host.locator("#agree-tile").get_by_role("button", name="Show the stronger hint").click()
    host.locator("#step-tile.unlocked").wait_for()
    seat.close()
    host.close()


def test_next_game_keeps_the_board(phone, live_server):
    code = new_game_from_home(phone, live_server, 4)
    phone.select_option("#next-players", "5")
    phone.get_by_role("button", name="Deal the next game").click()
    # Wait in the page: a wait_for_url predicate that reads the page deadlocks the sync API.
    expect(phone.locator(".big-code")).not_to_have_text(code)
    following = phone.locator(".big-code").inner_text().strip()
    assert following != code
    assert load_game(following).board == load_game(code).board
    assert "5 players" in phone.locator(".meta").first.inner_text()


def test_one_shared_screen_asks_before_showing_a_clue(phone, host_of):
    code = GOLDEN[2]["code"]
    game = load_game(code)
    phone.goto(host_of(code))
    phone.get_by_role("button", name="Show clue for Player 3").click()
    assert "Hand the screen to Player 3" in phone.locator("h1").inner_text()
    assert clue_text(game.seat_clues(3)[0]) not in phone.content()
    phone.get_by_role("button", name="I am Player 3: show my clue").click()
    assert phone.locator(".clue-text").inner_text() == clue_text(game.seat_clues(3)[0])
    phone.get_by_role("link", name="Hide and pass the screen on").click()
    phone.wait_for_load_state()  # the click waits only for the next page to start loading
    assert clue_text(game.seat_clues(3)[0]) not in phone.content()


def test_checking_a_hex_works_without_javascript(browser, host_of):
    from .conftest import PHONE

    context = browser.new_context(java_script_enabled=False, **PHONE)
    page = context.new_page()
    code = GOLDEN[4]["code"]
    game = load_game(code)
    page.goto(host_of(code))
    page.goto(page.locator("a.seat-link").first.get_attribute("href"))
    page.locator(f"a[href='?hex={game.habitat}']").click()
    assert f"hex={game.habitat}" in page.url
    assert "Place a disc" in page.locator("#check").inner_text()
    page.locator(".clue-box summary").click()
    assert page.locator(".clue-text").first.is_visible()
    context.close()


def test_the_keyboard_reaches_the_clue(phone, host_of):
    code = GOLDEN[2]["code"]
    phone.goto(host_of(code))
    phone.goto(phone.locator("a.seat-link").first.get_attribute("href"))
    phone.locator(".clue-box summary").focus()
    phone.keyboard.press("Enter")
    assert phone.locator(".clue-text").first.is_visible()


def pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


@pytest.mark.parametrize("path", ["/games/{code}/print", "/games/{code}"])
@pytest.mark.parametrize("paper", ["A4", "Letter"])
@pytest.mark.parametrize("golden", [1, -1])  # normal with 6 structures, advanced with 8
def test_the_printed_setup_fits_one_sheet(browser, live_server, path, paper, golden):
    page = browser.new_page()
    page.goto(live_server + path.format(code=GOLDEN[golden]["code"]))
    pdf = page.pdf(format=paper, print_background=True)
    page.close()
    assert pdf_pages(pdf) == 1
