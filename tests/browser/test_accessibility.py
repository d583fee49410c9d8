"""Keyboards, screen readers, small screens, paper and every language, in a real browser."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe

from companion.cryptid import load_game
from companion.web.core.i18n import LANGUAGES
from companion.web.cryptid.diagram import WIDTH
from companion.web.cryptid.refereed import settle_reveal
from tests.helpers import GOLDEN

from .conftest import PHONE
from .test_journeys import new_game_from_home

SMALL_PHONE = PHONE | {"viewport": {"width": 375, "height": 667}}
LAPTOP = {"viewport": {"width": 1280, "height": 900}}


def seat_urls(page, host_url: str) -> list[str]:
    """The seats' links, as the host's screen shows them."""
    page.goto(host_url)
    return [a.get_attribute("href") for a in page.locator("a.seat-link").all()]


def unlock(host, step: str) -> None:
    """The host screen's "the table agrees" for one step, as a host would do it."""
    host.locator(f"#agree-{step} input[type=checkbox]").check()
    host.locator(f"#agree-{step} button").click()
    host.locator(f"#step-{step}.unlocked").wait_for()


def inside_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    view = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= view["height"] and box["x"] >= 0


@pytest.fixture(scope="module")
def revealed(browser, live_server) -> str:
    """A fresh 2-player game whose table unlocked the hint, the stronger hint and the reveal."""
    host = browser.new_page()
    code = new_game_from_home(host, live_server, 2)
    for step in ("hint", "tile", "reveal"):
        unlock(host, step)
    host.close()
    return code


# Every page axe-core checks, in English, Persian (right to left), Greek and Japanese; `{...}` are filled in by
# the `places` fixture. Each page is a test of its own, all on one test worker (AXE_PLACES), which builds `places`
# once: built on every worker, its tables cost more than the visits a second worker would take over.
AXE_PLACES = pytest.mark.xdist_group("axe-places")
AXE_VISITS = [
    ("en", "/"), ("en", "/load?code=ABC"), ("en", "{host}"), ("en", "/games/{fresh}"),
    ("en", "/games/{fresh}/print"), ("en", "{revealed_host}"), ("en", "/games/{revealed}"),
    ("en", "/games/{revealed}/reveal"), ("en", "{revealed_host}/reveal"), ("en", "/help/setup"),
    ("en", "/help/play?back={seat_path}"),
    ("en", "/nowhere"), ("en", "/games/ZZZZZ-ZZZZZ"), ("en", "{seat}"), ("en", "{seat}?hex=40"), ("en", "{revealed_seat}"),
    ("fa", "{host}"), ("fa", "{seat}"), ("fa", "/games/{revealed}/reveal"), ("el", "{seat}"), ("ja", "{host}"),
    # Refereed play: a seat as it opens and with its action sheet open, the host screen, the help for refereed play.
    ("en", "{refereed_seat}"), ("en", "{refereed_seat}?hex=40"), ("fa", "{refereed_seat}?hex=40"),
    ("en", "{refereed_host}"), ("ja", "{refereed_host}"), ("el", "/help/refereed?back={refereed_seat_path}"),
    # A solver table's seat with its notebook (with a sheet open too; test_books.py checks it mid-game in Greek and
    # Japanese too), and a refereed game's end with every review.
    ("en", "{notebook_seat}"), ("fa", "{notebook_seat}?hex=40"),
    ("en", "{ended_seat}"), ("fa", "{ended_host}"),
    # A Markers table: a seat (with its sheet open), the host screen and a seat at the end.
    ("en", "{markers_seat}"), ("fa", "{markers_seat}?hex=40"), ("ja", "{markers_host}"), ("el", "{markers_seat}"),
    ("en", "{markers_ended_seat}"), ("fa", "{markers_ended_seat}"),
    # A finished Markers game's replay, on a seat and on the host screen.
    ("en", "{markers_ended_seat}?replay=1"), ("fa", "{markers_ended_host}?replay=0"),
]


@pytest.fixture(scope="module")
def places(browser, live_server, host_of, revealed, live_app) -> dict[str, str]:
    """What AXE_VISITS' paths name: a fresh game's and the revealed game's codes, host screens and seats, a
    refereed game's host screen and seat, a notebook table's seat and a refereed game that ended."""
    page = browser.new_page()
    fresh = GOLDEN[3]["code"]
    seat = seat_urls(page, host_of(fresh))[0]
    found = {"fresh": fresh, "host": host_of(fresh), "seat": seat, "seat_path": urlsplit(seat).path,
             "revealed": revealed, "revealed_host": host_of(revealed),
             "revealed_seat": seat_urls(page, host_of(revealed))[1]}
    dealt = page.request.post(host_of(fresh).split("/h/")[0] + "/api/tables", data={"players": 3}).json()
    found.update(refereed_host=dealt["host_url"], refereed_seat=dealt["seats"][0]["url"],
                 refereed_seat_path=urlsplit(dealt["seats"][0]["url"]).path)
    api = host_of(fresh).split("/h/")[0] + "/api/tables"
    found["notebook_seat"] = page.request.post(api, data={"players": 4, "advanced": True, "solver": True}).json()["seats"][1]["url"]
    ended = page.request.post(api, data={"players": 3}).json()
    with live_app.app_context():  # the table agrees to the reveal: the game ends, its review on every screen
        settle_reveal(live_app.extensions["dealer"].load(ended["code"]))
    found.update(ended_seat=ended["seats"][0]["url"], ended_host=ended["host_url"])
    table = page.request.post(api, data={"players": 3, "variant": "markers"}).json()
    found.update(markers_seat=table["seats"][0]["url"], markers_host=table["host_url"])
    ended = page.request.post(api, data={"players": 3, "variant": "markers"}).json()
    with live_app.app_context():  # the table agrees to the reveal: the game ends with every clue shown
        settle_reveal(live_app.extensions["dealer"].load(ended["code"]))
    found.update(markers_ended_seat=ended["seats"][1]["url"], markers_ended_host=ended["host_url"])
    page.close()
    return found


@pytest.fixture(scope="module")
def axe_page(browser):
    """One page for every axe test of a worker, as a person browsing: opening a page per test costs more."""
    page = browser.new_page()
    yield page
    page.close()


def axe_problems(page, label: str) -> list[str]:
    results = Axe().run(page)
    return [f"{label}: {v['id']} {[n['target'] for n in v['nodes']][:3]}" for v in results.response["violations"]]


@AXE_PLACES
@pytest.mark.parametrize("language, path", AXE_VISITS, ids=[f"{language} {path}" for language, path in AXE_VISITS])
def test_every_page_passes_axe(axe_page, live_server, places, language, path):
    """axe-core finds nothing on the page, with its clue open or not."""
    page = axe_page
    path = path.format(**places)
    page.context.add_cookies([{"name": "lang", "value": language, "url": live_server}])
    page.goto(path if path.startswith("http") else live_server + path)
    problems = axe_problems(page, f"{language} {path}")
    if urlsplit(path).path.startswith("/s/"):
        page.locator(".clue-box summary").click()
        problems += axe_problems(page, f"{language} {path} (clue open)")
    assert problems == []


@AXE_PLACES
def test_the_shared_clue_passes_axe(axe_page, live_server, places):
    """axe-core finds nothing on the host screen asking who is looking, nor with that player's clue shown."""
    page = axe_page
    page.context.add_cookies([{"name": "lang", "value": "en", "url": live_server}])
    page.goto(places["host"])
    # Each button loads a page: axe waits for it, or it may start on a document that is being replaced.
    page.get_by_role("button", name="Show clue for Player 2").click()
    page.get_by_role("heading", name="Hand the screen to Player 2").wait_for()
    problems = axe_problems(page, "shared clue: who is looking")
    page.get_by_role("button", name="I am Player 2: show my clue").click()
    page.get_by_role("heading", name="Player 2, your clue").wait_for()
    problems += axe_problems(page, "shared clue: shown")
    assert problems == []


def test_the_map_is_one_tab_stop_moved_by_arrow_keys(browser, host_of):
    context = browser.new_context(**LAPTOP)
    page = context.new_page()
    code = GOLDEN[2]["code"]
    game = load_game(code)
    page.goto(seat_urls(page, host_of(code))[0])
    page.locator(".toggle").focus()
    stops = []
    for _ in range(12):
        page.keyboard.press("Tab")
        stops.append(page.evaluate("document.activeElement.getAttribute('href') || document.activeElement.textContent.trim()"))
        if stops[-1] == "I'd like a hint":
            break
    assert stops[0] == "?hex=0" and stops[-1] == "I'd like a hint"
    assert sum(1 for stop in stops if stop.startswith("?hex=")) == 1  # was 108 Tab presses

    def focused() -> int:
        return int(page.evaluate("document.activeElement.getAttribute('href')").split("=")[1])

    page.keyboard.press("Shift+Tab")  # back onto the map: the same hex
    assert focused() == 0
    for key, expected in [("ArrowRight", 1), ("ArrowDown", 13), ("End", 23), ("ArrowRight", 23), ("Home", 12),
                          ("ArrowUp", 0), ("ArrowLeft", 0), ("ArrowUp", 0)]:
        page.keyboard.press(key)
        assert focused() == expected, key
    ring = page.locator(".focus-ring")
    assert ring.is_visible()
    assert ring.get_attribute("transform") == "translate(10 8.7)"
    page.keyboard.press("Enter")
    assert page.locator("#check strong").inner_text() == "A1: " + game.board.cell(0)[0]
    page.keyboard.press("ArrowDown")
    scrolled = page.evaluate("scrollY")
    page.keyboard.press(" ")
    assert page.locator("#check strong").inner_text().startswith("A2: ")
    assert page.evaluate("scrollY") == scrolled  # Space checked the hex and did not scroll the page
    # Screen readers get a group of links named by column letter, row (the hex's name, L9) and terrain.
    group = page.get_by_role("group", name="Your map: tap a hex to check it against your clue")
    assert group.get_by_role("link").count() == 108
    terrain = game.board.cell(107)[0]
    assert group.get_by_role("link", name=f"L 9 {terrain}", exact=True).count() == 1
    # A tap shows the checked hex's own ring, not the keyboard's.
    page.locator("a[href='?hex=50']").click()
    assert not ring.is_visible()
    context.close()


def relative_luminance(rgb: str) -> float:
    channels = [int(part) / 255 for part in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_focus_ring_stands_out_on_every_terrain(phone, host_of):
    phone.goto(seat_urls(phone, host_of(GOLDEN[2]["code"]))[0])
    fills = phone.evaluate("[...'FDSMW'].map(t => getComputedStyle(document.querySelector(`#s${t} polygon`)).fill)")
    outer, inner = phone.evaluate(
        "['outer', 'inner'].map(c => getComputedStyle(document.querySelector(`.focus-ring .${c}`)).stroke)"
    )
    assert contrast(outer, inner) >= 7
    for fill in fills:  # one of the two rings always contrasts at least 3:1 (WCAG's non-text contrast)
        assert max(contrast(outer, fill), contrast(inner, fill)) >= 3, fill


@pytest.mark.parametrize("size, open_clue", [(SMALL_PHONE, True), (LAPTOP, False)], ids=["375x667 clue open", "1280x900"])
def test_the_answer_shows_where_the_finger_is(browser, host_of, size, open_clue):
    context = browser.new_context(**size)
    page = context.new_page()
    code = GOLDEN[2]["code"]
    page.goto(seat_urls(page, host_of(code))[0])
    if open_clue:
        page.locator(".clue-box summary").click()
    hex_link = page.locator("a[href='?hex=103']")  # bottom row
    hex_link.scroll_into_view_if_needed()
    if size is SMALL_PHONE:
        hex_link.tap()
    else:
        hex_link.click()
    answer = page.locator("#check")
    assert "H9: " in answer.inner_text()
    assert inside_viewport(page, answer) and inside_viewport(page, hex_link)
    context.close()


def test_an_unlock_shows_at_the_top_of_every_screen(browser, live_server, host_of):
    host = browser.new_page()
    code = new_game_from_home(host, live_server, 3)
    phone_context = browser.new_context(**PHONE)
    phone = phone_context.new_page()
    phone.goto(seat_urls(host, host_of(code))[1])
    public = browser.new_page()
    public.goto(f"{live_server}/games/{code}")  # a second screen following the table by its code
    phone.locator("a[href='?hex=100']").scroll_into_view_if_needed()  # busy with the map, far below the top
    assert phone.locator("#news").inner_text() == ""
    unlock(host, "hint")
    banner = phone.locator("#news.live .news")
    banner.wait_for(timeout=10_000)  # the phone's poll brings it, no reload
    assert banner.inner_text().startswith("The table unlocked the hint.")
    assert inside_viewport(phone, banner)
    assert inside_viewport(host, host.locator("#news.live .news"))  # the host's own unlock too
    public.locator("#news.live .news").wait_for(timeout=10_000)
    public.close()
    banner.click()  # taken to the hint, and the banner stops following the page
    assert phone.locator("#news.live").count() == 0 and phone.url.endswith("#step-hint")
    phone.reload()
    assert phone.locator("#news .news").inner_text().startswith("The table unlocked the hint.")
    phone_context.close()
    host.close()


def test_help_from_a_seat_page_leads_back_to_it(phone, host_of):
    seat = seat_urls(phone, host_of(GOLDEN[2]["code"]))[2]
    phone.goto(seat)
    phone.get_by_role("link", name="How to play").click()
    phone.get_by_role("link", name="Back to your clue").click()
    assert phone.url == seat


def test_a_mistyped_code_is_shown_and_focused_on_a_phone(phone, live_server):
    phone.goto(live_server + "/")
    phone.locator("#code").fill("R342R-4E92B")
    phone.get_by_role("button", name="Load game").click()
    error = phone.locator("#code-error")
    assert "typo" in error.inner_text()
    assert phone.evaluate("document.activeElement.id") == "code-error"
    assert inside_viewport(phone, error) and inside_viewport(phone, phone.locator("#code"))


def test_an_unticked_box_is_explained_in_the_pages_language(browser, live_server, host_of):
    context = browser.new_context(**LAPTOP)
    context.add_cookies([{"name": "lang", "value": "el", "url": live_server}])
    page = context.new_page()
    page.goto(host_of(GOLDEN[4]["code"]))
    assert page.locator("#agree-hint").evaluate("form => form.noValidate")
    page.locator("#agree-hint button").click()
    error = page.locator("#hint-agree-error")
    error.wait_for()
    assert error.inner_text().startswith("Τσεκάρετε") and page.evaluate("document.activeElement.id") == "hint-agree-error"
    assert inside_viewport(page, error)
    context.close()


def test_the_host_screen_fits_a_laptop_and_a_phone(browser, live_server, host_of):
    code = GOLDEN[-2]["code"]  # 5 players
    context = browser.new_context(**LAPTOP)
    page = context.new_page()
    page.goto(host_of(code))
    key = page.locator(".diagram .key").bounding_box()
    assert key["y"] + key["height"] <= 900  # the whole diagram and its key above the fold
    tops = {round(card.bounding_box()["y"]) for card in page.locator(".qr-card").all()}
    assert len(tops) == 1  # five QR codes on one row
    context.close()
    for language in ("en", "el"):
        context = browser.new_context(**PHONE)
        context.add_cookies([{"name": "lang", "value": language, "url": live_server}])
        page = context.new_page()
        page.goto(f"{live_server}/games/{code}")
        brand, nav, choice = (page.locator(f"header.site {part}").bounding_box() for part in (".brand", "nav", "select"))
        link = page.locator("header.site nav a").first.bounding_box()
        # Two rows: the name beside the language, then the links on one line.
        assert choice["y"] < brand["y"] + brand["height"] <= nav["y"] + 1, language
        assert nav["height"] < 1.5 * link["height"], language
        context.close()


@pytest.fixture(scope="module")
def last_golden_seat(browser, host_of) -> str:
    page = browser.new_page()
    seat = seat_urls(page, host_of(GOLDEN[-1]["code"]))[0]
    page.close()
    return seat


@pytest.mark.parametrize("language", LANGUAGES)  # one test each, so that the workers share them out
def test_labels_hold_their_words_in_every_language(browser, live_server, last_golden_seat, language):
    page = browser.new_page()
    code = GOLDEN[-1]["code"]
    seat = last_golden_seat
    page.context.add_cookies([{"name": "lang", "value": language, "url": live_server}])
    page.goto(f"{live_server}/games/{code}")
    overflow = page.evaluate(
        """() => [...document.querySelectorAll('svg.board .tab')].flatMap(tab => {
             const use = tab.querySelector('use');
             const rect = document.querySelector(use.getAttribute('href') + ' rect');
             const left = +use.getAttribute('x') + +rect.getAttribute('x');
             const top = +use.getAttribute('y') + +rect.getAttribute('y');
             return [...tab.querySelectorAll('text')].map(text => text.getBBox()).filter(box =>
               box.x < left || box.y < top || box.x + box.width > left + +rect.getAttribute('width') ||
               box.y + box.height > top + +rect.getAttribute('height'));
           }).length"""
    )
    assert overflow == 0, language
    page.goto(seat)
    margins = page.evaluate(
        "[...document.querySelectorAll('svg.seat-map .tab-n text')].map(t => t.getBBox()).map(b => [b.x, b.x + b.width])"
    )
    view = page.evaluate("document.querySelector('svg.seat-map').viewBox.baseVal.x")
    assert all(view <= left and (right < 0 or left > WIDTH) and right <= WIDTH - view for left, right in margins)
    page.close()


@pytest.mark.parametrize("paper, width_mm, height_mm", [("A4", 210, 297), ("Letter", 215.9, 279.4)])
def test_the_printed_diagram_fills_the_sheets_width(browser, live_server, paper, width_mm, height_mm):
    margin_mm = 9  # the stylesheet's @page margin
    px = 96 / 25.4
    page = browser.new_page(viewport={"width": round((width_mm - 2 * margin_mm) * px), "height": 800})
    page.emulate_media(media="print")
    page.goto(f"{live_server}/games/{GOLDEN[-1]['code']}/print")
    diagram = page.locator("svg.board").bounding_box()
    assert diagram["width"] >= 0.97 * page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollHeight") <= (height_mm - 2 * margin_mm) * px
    page.close()


def test_every_map_draws_tile_borders_and_structures_alike(browser, live_server):
    """A page's own map styles (the refereed board's) must not restyle the borders, structures or labels."""
    page = browser.new_page()
    page.goto(live_server + "/")
    page.get_by_label("The app referees: play on phones").check()
    page.get_by_role("button", name="Deal a new game").click()
    page.locator("svg.play-map").wait_for()
    styles = {}
    for name, selector in [("border", "use.tile-border"), ("seam", "use.tile-seam"), ("stone", "use[href='#st']")]:
        styles[name] = page.evaluate(
            "s => { const e = getComputedStyle(document.querySelector(s)); return [e.stroke, e.strokeWidth]; }", selector
        )
    assert styles["border"] == ["rgb(255, 253, 248)", "2.8px"] and styles["seam"] == ["rgb(31, 29, 26)", "0.8px"]
    assert styles["stone"][1] == "1.1px"
    page.close()


def test_decrypto_pages_pass_axe(browser, live_server, live_app):
    """axe-core finds nothing on Decrypto's pages: the new table, the join page, the host screen and a phone in
    the lobby, once the game runs and on a round's reveal, in English, and in Persian where the page differs from
    one checked in Persian before (the join page, the host's lobby, a phone's round and both screens' reveal)."""
    from .test_decrypto import Table

    table = Table(browser, live_server, app=live_app)
    problems: list[str] = []

    def check(page, label: str, languages=("en",)) -> None:
        for language in languages:  # English last: the table then plays on by its English buttons
            page.context.add_cookies([{"name": "lang", "value": language, "url": live_server}])
            page.reload()
            problems.extend(axe_problems(page, f"{language} {label}"))

    try:
        check(table.host, "decrypto host, lobby", ("fa", "en"))
        table.phones[0].goto(table.links[0])
        check(table.phones[0], "decrypto join page", ("fa", "en"))
        table.join_split()
        check(table.phones[0], "decrypto phone, lobby")
        table.start()
        check(table.host, "decrypto host, round 1")
        check(table.phones[0], "decrypto phone, round 1", ("fa", "en"))
        table.quiet_round(1, 1, ready=False)  # its buttons are pressed in test_decrypto.py
        check(table.host, "decrypto host, round 1 revealed", ("fa", "en"))
        check(table.black[1], "decrypto phone, round 1 revealed", ("fa", "en"))
        table.host.goto(live_server + "/decrypto/new")
        check(table.host, "decrypto new table")
    finally:
        table.close()
    assert problems == []
