"""Numbers the pages' scripts write follow the page's language too: Persian digits on a Persian page."""

from __future__ import annotations

from urllib.parse import urlsplit

from tests.helpers import GOLDEN
from tests.web.decrypto.test_views import LINK, Phone, open_table
from tests.web.test_reader_digits import CLUES, NAMES

from .test_accessibility import seat_urls

PERSIAN_DIGITS = "۰۱۲۳۴۵۶۷۸۹"


def test_the_sand_timer_counts_in_persian_digits_on_a_persian_page(browser, live_server, live_app):
    """White's clues are in, Black's not: the host screen's sand timer runs, counted down by its script."""
    live_app.config.update(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=False)
    client = live_app.test_client()
    host, page = open_table(client)
    phones = [Phone(client, urlsplit(url).path) for url in LINK.findall(page)]
    for phone, name in zip(phones, (*NAMES["white"], *NAMES["black"])):
        phone.act(action="join", name=name)
    encryptor = next(phone for phone in phones if phone.path[22] == "w")  # White's first seat encrypts in round 1
    encryptor.act(action="show_code")
    encryptor.act(action="give_clues", typed="yes", **CLUES[1])
    screen = browser.new_page()
    screen.context.add_cookies([{"name": "lang", "value": "fa", "url": live_server}])
    screen.goto(live_server + host)
    countdown = screen.locator(".sand-timer output")
    first = countdown.inner_text()
    screen.wait_for_function("first => document.querySelector('.sand-timer output').textContent !== first", arg=first)
    shown = countdown.inner_text()
    assert shown and set(shown) <= set(PERSIAN_DIGITS), shown
    screen.close()


def test_a_tapped_hex_is_named_as_the_boards_edges_name_it(browser, live_server, host_of):
    """The box seat's script names the tapped hex from the page's own labels: "A2" (Latin in every language, as
    the board's edges and refereed games name it), then the terrain in the page's language."""
    page = browser.new_page()
    seat = seat_urls(page, host_of(GOLDEN[2]["code"]))[0]
    for language, expected in (("fa", "A2: "), ("en", "A2: ")):
        page.context.add_cookies([{"name": "lang", "value": language, "url": live_server}])
        page.goto(seat)
        page.locator("a[href='?hex=12']").click()
        assert page.locator("#check strong").inner_text().startswith(expected)
    page.close()
