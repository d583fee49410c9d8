"""Refereed play in real browsers: three 390 x 844 phones and the 1280 x 900 host screen play a whole game from
the action sheet; every move is announced on every other screen, a closed phone rejoins from the host's seat
link, a second phone asks before taking a seat over, and the end and the next game reach every phone by
themselves. A phone without JavaScript refreshes itself while it waits."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from companion.cryptid.hexgrid import hex_name, hexes_of
from companion.cryptid.play import Cube
from companion.web.cryptid.refereed import load_play, submit

from .conftest import PHONE
from .test_accessibility import inside_viewport

NAMES = ["Ana", "Ben", "Chloé"]


def deal_refereed(host, live_server: str, players: int = 3) -> str:
    host.goto(live_server + "/")
    host.locator(".segmented label", has_text=str(players)).click()
    host.get_by_label("The app referees: play on phones").check()
    host.get_by_role("button", name="Deal a new game").click()
    host.wait_for_url(re.compile(r"/h/[^/]+$"))
    return host.locator(".big-code").inner_text().strip()


def seat_link(host, seat: int) -> str:
    return host.locator(f"a.seat-link[data-seat='{seat}']").get_attribute("href")


def choose(phone, hex_index: int, choice: str) -> None:
    """Tap a hex, pick a choice on the sheet (which must be on screen without scrolling) and confirm twice
    (a double tap: the move is made once, and no error shows)."""
    phone.locator(f"#play svg a[href*='hex={hex_index}#']").click()
    sheet = phone.locator("#sheet")
    sheet.wait_for()
    option = sheet.locator(f"input[value='{choice}']")
    confirm = sheet.get_by_role("button", name="Confirm")
    assert inside_viewport(phone, sheet) and inside_viewport(phone, confirm)
    option.check()
    confirm.dblclick()
    sheet.wait_for(state="detached")
    assert phone.locator("#play .error").count() == 0


def test_a_whole_game_on_three_phones_from_the_sheet(browser, live_server, live_app):
    host = browser.new_page(viewport={"width": 1280, "height": 900})
    code = deal_refereed(host, live_server)
    game = live_app.extensions["dealer"].load(code)

    def state():
        with live_app.app_context():
            return load_play(game)

    links = [seat_link(host, seat) for seat in (1, 2, 3)]
    contexts = [browser.new_context(**PHONE) for _ in links]
    phones = [context.new_page() for context in contexts]
    for phone, link, name in zip(phones, links, NAMES):
        phone.goto(link)
        phone.get_by_label("Your name at the table").fill(name)
        phone.get_by_role("button", name="Save my name").click()
        # The host's card for that seat shows the name and a tick by itself.
        host.locator(".qr-card", has_text=name).locator(".tick").wait_for()

    # The same link opened on a second phone asks first; taking over tells the first phone, which takes it back.
    stranger = browser.new_context(**PHONE).new_page()
    stranger.goto(links[0])
    stranger.get_by_role("button", name="Play Ana on this phone").click()
    stranger.locator("#play .name-form").wait_for()
    phones[0].locator("#play .elsewhere").wait_for()
    phones[0].get_by_role("button", name="Play Ana on this phone").click()
    phones[0].locator("#play .name-form").wait_for()
    stranger.locator("#play .elsewhere").wait_for()
    stranger.context.close()

    host.get_by_role("button", name="Start the game").click()
    for phone in phones:  # the start reaches the phones by itself; the lobby's name form goes
        phone.locator("#play .status, #play .turn-banner").filter(has_text="place a cube").wait_for()
        assert phone.locator(".name-form").count() == 0
    host.locator("details.rejoin").wait_for()  # the seat codes stay on the host screen, folded

    # Ben's phone is closed after the start; it comes back from the host's seat link, on a new phone.
    contexts[1].close()
    contexts[1] = browser.new_context(**PHONE)
    phones[1] = contexts[1].new_page()
    host.locator("details.rejoin > summary").click()
    phones[1].goto(seat_link(host, 2))
    phones[1].get_by_role("button", name="Play Ben on this phone").click()
    phones[1].locator("#play").wait_for()

    asks = 0
    while state().phase != "over":
        current = state()
        seat = current.turn
        phone = phones[seat - 1]
        phone.locator("#play .turn-banner").wait_for()
        if current.pending == "cube":
            choose(phone, hexes_of(current.cube_choices(seat))[0], "cube")
        elif current.pending == "disc":  # the searcher had a disc on the habitat already (an earlier answer)
            choose(phone, hexes_of(current.disc_choices(seat))[0], "disc")
        elif asks < 3:
            target = seat % 3 + 1
            choose(phone, hexes_of(current.ask_hexes(seat, target))[asks], f"ask-{target}")
            asks += 1
        else:
            choose(phone, game.habitat, "search")
        after = state()
        assert after.version == current.version + 1  # the double tap made one move
        announced = phone.locator("#announce").inner_text()
        assert announced.startswith(NAMES[seat - 1])
        for other in [p for p in phones if p is not phone] + [host]:
            other.locator("#announce", has_text=announced).wait_for()

    assert state().winner is not None
    for page in phones + [host]:  # the end reaches every screen: results, and no hint, reveal or Leave buttons
        page.locator("#play .results").wait_for()
        assert page.locator("#play details.leave, #play .during").count() == 0
        assert "Rank 1" in page.locator(".ranks").inner_text()
    host.get_by_role("button", name="Deal the next game").click()
    host.wait_for_url(re.compile(r"/h/[^/]+$"))
    assert host.locator(".big-code").inner_text().strip() != code
    for phone in phones:  # the next game is offered on every phone, without a reload
        phone.get_by_role("link", name="The host dealt the next game: join it").wait_for()
    phones[2].get_by_role("link", name="The host dealt the next game: join it").click()
    phones[2].get_by_label("Your name at the table").wait_for()
    for context in contexts:
        context.close()
    host.close()


def test_a_phone_without_javascript_refreshes_itself_while_it_waits(browser, live_server, live_app, monkeypatch):
    monkeypatch.setitem(live_app.config, "NO_SCRIPT_REFRESH_SECONDS", 2)  # 10 s on a real table
    host = browser.new_page()
    code = deal_refereed(host, live_server)
    waiting = browser.new_context(java_script_enabled=False, **PHONE).new_page()
    waiting.goto(seat_link(host, 2))
    assert waiting.locator("meta[http-equiv=refresh]").get_attribute("content") == "2"
    host.get_by_role("button", name="Start the game").click()
    # Without a script the start is seen at the next refresh: a status saying who places a cube.
    waiting.locator("#play .status, #play .turn-banner").filter(has_text="place a cube").wait_for(timeout=30_000)
    game = live_app.extensions["dealer"].load(code)
    with live_app.app_context():
        first = load_play(game).turn
    assert (waiting.locator("#play .turn-banner").count() == 1) == (first == 2)
    waiting.context.close()
    host.close()


def test_tapping_a_log_line_rings_its_hex(browser, live_server, live_app):
    host = browser.new_page(viewport={"width": 1280, "height": 900})
    code = deal_refereed(host, live_server)
    host.get_by_role("button", name="Start the game").click()
    host.locator("#play[data-phase='opening']").wait_for()  # the start is stored and shown
    game = live_app.extensions["dealer"].load(code)
    with live_app.app_context():
        current = load_play(game)
        seat = current.turn
    phone = browser.new_context(**PHONE).new_page()
    phone.goto(seat_link(host, seat))
    choose(phone, hexes_of(current.cube_choices(seat))[0], "cube")
    host.locator("#play .log-list li").first.wait_for()
    host.locator("#play .log-list li").first.click()
    spot = host.locator("#spot.on")
    spot.wait_for()
    ring = host.locator("#play .last-move")
    for attribute in ("cx", "cy"):
        assert abs(float(spot.get_attribute(attribute)) - float(ring.get_attribute(attribute))) < 0.2
    phone.context.close()
    host.close()


def test_a_move_that_arrives_flashes_its_banner_unless_the_phone_asks_for_less_motion(browser, live_server, live_app):
    """The banner of a move that arrives live flashes: a layer beneath its words fades out (drawn by the browser's
    compositor, not by laying the page out again each frame). A phone asking for reduced motion gets no flash,
    and the layer, unanimated, stays invisible rather than yellow."""
    api = browser.new_context()
    table = api.request.post(live_server + "/api/tables", data={"players": 3, "advanced": False}).json()
    game = live_app.extensions["dealer"].load(table["code"])
    phones = {}
    for seat, motion in ((2, "no-preference"), (3, "reduce")):
        phones[motion] = browser.new_context(**PHONE, reduced_motion=motion).new_page()
        phones[motion].goto(table["seats"][seat - 1]["url"])
    with live_app.app_context():
        current = load_play(game)
        submit(game, Cube(current.turn, hexes_of(current.cube_choices(current.turn))[0]), current.version)
    flash = "(banner => { const layer = getComputedStyle(banner, '::before'); return [layer.animationName, layer.opacity]; })"
    for motion, page in phones.items():
        banner = page.locator("#announce.fresh")
        banner.wait_for()
        name, opacity = banner.evaluate(flash)
        if motion == "reduce":
            assert (name, opacity) == ("none", "0")
        else:
            assert name == "flash"
        assert banner.evaluate("banner => getComputedStyle(banner).animationName") == "none"  # nothing re-lays it out
        page.context.close()
    api.close()


def test_a_search_on_ones_own_disc_places_the_extra_disc_from_the_sheet(browser, live_server, live_app):
    """The rulebook's search step on a phone: searching a hex that holds the player's own disc, the banner says why
    the game waits, a hex without room says so, and the extra disc goes where the player taps; then the others
    answer, one log item for the whole search."""
    api = browser.new_context()
    table = api.request.post(live_server + "/api/tables", data={"players": 3, "advanced": False}).json()
    game = live_app.extensions["dealer"].load(table["code"])
    tokens = [urlsplit(seat["url"]).path.rsplit("/", 1)[1] for seat in table["seats"]]

    def state():
        with live_app.app_context():
            return load_play(game)

    def post(seat: int, body: dict) -> dict:
        answer = api.request.post(f"{live_server}/api/seats/{tokens[seat - 1]}/play", data=body)
        assert answer.status == 200, answer.text()
        return answer.json()

    # The opening and one question by the JSON API: only the setting for the step this test is about.
    while state().phase == "opening":
        now = state()
        post(now.turn, {"action": "cube", "hex": row_col(hexes_of(now.cube_choices(now.turn))[0])})
    now = state()
    asker, searcher = now.turn, now.turn % 3 + 1
    target = next(h for h in hexes_of(game.allowed(searcher) & ~now.all_cubes) if h != game.habitat)
    post(asker, {"action": "ask", "seat": searcher, "hex": row_col(target)})

    phone = browser.new_context(**PHONE).new_page()
    phone.goto(live_server + f"/s/{tokens[searcher - 1]}")
    choose(phone, target, "search")
    why = phone.locator("#play #why")
    why.filter(has_text=f"You already have a disc on {hex_name(target)}").wait_for()
    assert inside_viewport(phone, phone.locator("#play .turn-banner"))
    # Tapping the searched hex again offers nothing, and says where the disc may go.
    phone.locator(f"#play svg a[href*='hex={target}#']").click()
    phone.locator("#sheet .note", has_text="your extra disc goes on a highlighted hex").wait_for()
    phone.locator("#sheet").get_by_role("link", name="Cancel").click()
    phone.locator("#sheet").wait_for(state="detached")
    extra = hexes_of(state().disc_choices(searcher))[0]
    choose(phone, extra, "disc")
    after = state()
    assert after.discs_of(searcher) >> extra & 1 and after.pending == "cube" or after.phase == "over"
    item = phone.locator("#play .log-list li").last
    item.filter(has_text=f"placed an extra disc on {hex_name(extra)}").wait_for()
    assert f"searched {hex_name(target)}" in item.inner_text() and "answered" in item.inner_text()
    api.close()
    phone.context.close()


def row_col(index: int) -> dict:
    return {"row": index // 12, "col": index % 12}


def test_of_two_quick_taps_the_later_one_wins_whatever_answer_comes_first(browser, live_server):
    """A tap's answer that comes back after a later tap's is dropped: the sheet the player opened last stays (an
    earlier tap's late answer once closed it, and a browser test waited in vain for its buttons)."""
    table = browser.new_context().request.post(live_server + "/api/tables", data={"players": 3}).json()
    context = browser.new_context(**PHONE)
    phone = context.new_page()
    phone.goto(live_server + urlsplit(table["seats"][0]["url"]).path)
    # The page's own requests for hex 40's sheet take a second and a half longer than any other.
    phone.evaluate("""() => {
        const send = window.fetch;
        window.fetch = (url, options) => String(url).includes("hex=40")
            ? new Promise((done) => setTimeout(done, 1500)).then(() => send(url, options)) : send(url, options);
    }""")
    with phone.expect_response(lambda response: "hex=40" in response.url):
        phone.locator("#play svg a[href*='hex=40#']").click()
        phone.locator("#play svg a[href*='hex=52#']").click()
        named = phone.locator("#sheet-heading .hex-name")
        named.filter(has_text=hex_name(52)).wait_for()
    phone.wait_for_timeout(500)  # hex 40's late answer has been read: it must not have replaced the sheet
    assert named.all_inner_texts() == [hex_name(52)] and "hex=52" in phone.url
    context.close()


def test_a_tap_answered_before_a_live_update_still_opens_its_sheet(browser, live_server, live_app):
    """A tap's answer drawn before another player's move, arriving after the live update that shows that move, is
    older than the page: the page asks for the tapped sheet again instead of losing the tap (a Decrypto test once
    waited in vain for the step its tap opened)."""
    table = browser.new_context().request.post(live_server + "/api/tables", data={"players": 3}).json()
    game = live_app.extensions["dealer"].load(table["code"])
    context = browser.new_context(**PHONE)
    phone = context.new_page()
    phone.goto(live_server + urlsplit(table["seats"][0]["url"]).path)
    # The page's first request for hex 40's sheet is answered by the server, then held until the test lets it go.
    phone.evaluate("""() => {
        const send = window.fetch;
        window.fetch = (url, options) => {
            const answer = send(url, options);
            if (!String(url).includes("hex=40") || window.held) return answer;
            window.held = true;
            return answer.then((response) => new Promise((done) => { window.release = () => done(response); }));
        };
    }""")
    phone.locator("#play svg a[href*='hex=40#']").click()
    phone.wait_for_function("() => window.release")
    with live_app.app_context():  # another player moves: the phone's live update shows it
        state = load_play(game)
        submit(game, Cube(state.turn, hexes_of(state.cube_choices(state.turn))[0]), state.version)
    phone.wait_for_function("v => document.getElementById('play').dataset.version === String(v)", arg=state.version + 1)
    phone.evaluate("() => window.release()")
    phone.locator("#sheet-heading .hex-name").filter(has_text=hex_name(40)).wait_for()
    assert "hex=40" in phone.url
    context.close()


def test_an_update_between_press_and_release_waits_so_the_tap_lands(browser, live_server):
    """A live update swapped in while a finger is down replaces the button under it, and the browser makes no
    click: the host's "Start the game" as a player saves their name was lost that way. The update waits for the
    release."""
    host = browser.new_page(viewport={"width": 1280, "height": 900})
    deal_refereed(host, live_server)
    phone = browser.new_context(**PHONE).new_page()
    phone.goto(seat_link(host, 1))
    host.locator(".qr-card.joined[data-seat='1']").wait_for()  # the visit's own update is in
    live = urlsplit(host.locator("#play").get_attribute("data-live")).path
    button = host.get_by_role("button", name="Start the game")
    button.scroll_into_view_if_needed()
    start = button.bounding_box()
    host.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    host.mouse.down()
    with host.expect_response(lambda response: urlsplit(response.url).path == live and response.status == 200):
        phone.get_by_label("Your name at the table").fill("Ana")
        phone.get_by_role("button", name="Save my name").click()
    host.wait_for_timeout(300)  # time for the update to be read and, without the wait for the release, swapped in
    host.mouse.up()
    host.locator("#play[data-phase='opening']").wait_for()
    host.locator("details.rejoin .qr-card[data-seat='1']", has_text="Ana").wait_for(state="attached")
    phone.context.close()
