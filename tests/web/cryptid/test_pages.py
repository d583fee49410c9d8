"""Every route and every error, through Flask's test client."""

import html as html_text
import re
import threading
import time
from urllib.parse import urlsplit

import pytest
from markupsafe import escape

from companion.cryptid import NoHabitatLeft, load_game, new_game, next_game
from companion.cryptid.hexgrid import hex_name
from companion.cryptid.rng import Stream
from companion.cryptid.text import clue_text, hint_text
from companion.web.core import live
from companion.web.core.i18n import LANGUAGES
from companion.web.cryptid.dealing import dealer
from companion.web.cryptid.tokens import host_token, read_host_token
from tests.helpers import GOLDEN, REPO

CODE = GOLDEN[2]["code"]  # normal, 4 players
TWO_PLAYER = GOLDEN[0]["code"]


def seat_links(html: str) -> list[str]:
    return re.findall(r'<a href="[^"]*(/s/[^"]+)" class="seat-link"', html)


def host(client, code: str) -> str:
    """The host screen's path for a game, as the server signs it."""
    with client.application.test_request_context():
        return "/h/" + host_token(code)


def seats_of(client, code: str) -> list[str]:
    return seat_links(client.get(host(client, code)).get_data(as_text=True))


def test_home_offers_both_forms(client):
    page = client.get("/").get_data(as_text=True)
    assert re.search(r'<input checked[^>]*name="players"[^>]*value="4"', page)
    assert 'name="advanced"' in page and 'action="/load"' in page


@pytest.mark.parametrize("players, advanced", [(2, False), (3, True), (5, False)])
def test_new_game_redirects_to_its_setup_page(client, players, advanced):
    data = {"players": str(players)} | ({"advanced": "y"} if advanced else {})
    response = client.post("/", data=data)
    assert response.status_code == 303 and response.headers["Location"].startswith("/h/")
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    code = re.search(r'<span class="big-code"><span class="code"[^>]*>([^<]+)</span>', page).group(1)
    game = client.application.extensions["dealer"].load(code)
    assert game.players == players and game.mode == ("advanced" if advanced else "normal")
    assert f"{players} players" in page and len(seat_links(page)) == players


def test_new_game_rejects_a_bad_player_count(client):
    response = client.post("/", data={"players": "7"})
    assert response.status_code == 400
    assert "Not a valid choice" in response.get_data(as_text=True)


def test_forms_need_a_csrf_token(tmp_path):
    from companion.web.core.app import create_app

    app = create_app({"TESTING": True, "SECRET_KEY": "x"})
    response = app.test_client().post("/", data={"players": "4"})
    assert response.status_code == 400
    assert "form had expired" in response.get_data(as_text=True)


def test_load_a_code_typed_loosely(client):
    response = client.get("/load", query_string={"code": CODE.lower().replace("-", " ")})
    assert response.status_code == 303
    assert response.headers["Location"] == f"/games/{CODE}"


@pytest.mark.parametrize(
    "typed, words",
    [("", "Type a game code"), ("ABC", "has only 3"), ("R342R-4E920", "cannot appear"), (CODE[:-1] + ("Z" if CODE[-1] != "Z" else "Y"), "typo")],
)
def test_a_bad_code_is_explained_beside_the_field(client, typed, words):
    response = client.get("/load", query_string={"code": typed})
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert words in page
    assert 'aria-invalid="true"' in page and 'id="code-error"' in page


def test_host_screen_shows_board_steps_and_a_qr_code_per_seat(client):
    response = client.get(host(client, CODE))
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    game = load_game(CODE)
    assert page.count('class="board"') == 1 and page.count('<use href="#b') == 108
    for step in game.tile_steps() + game.structure_steps():
        assert step in page
    assert page.count('class="qr"') == game.players
    assert page.count('class="qr host-qr"') == 1  # "continue on another device"
    assert len(seat_links(page)) == game.players
    assert response.headers["Cache-Control"] == "no-store" and response.headers["Referrer-Policy"] == "no-referrer"
    for clue in game.clues:
        assert clue_text(clue) not in page
    assert hint_text(game.hint) not in page


def test_setup_page_redirects_to_the_canonical_code(client):
    response = client.get(f"/games/{CODE.lower().replace('-', '')}")
    assert response.status_code == 301
    assert response.headers["Location"] == f"/games/{CODE}"


def test_a_bad_code_in_the_address_is_a_404_with_the_reason(client):
    response = client.get("/games/ZZZZZ-ZZZZZ")
    assert response.status_code == 404
    page = response.get_data(as_text=True)
    assert "typo" in page and 'value="ZZZZZ-ZZZZZ"' in page


def test_print_view(client):
    page = client.get(f"/games/{CODE}/print").get_data(as_text=True)
    assert "data-print" in page and load_game(CODE).board.to_map_code() in page
    assert 'class="qr"' not in page


def test_the_host_unlocks_the_hint_when_the_table_agrees(client):
    game = load_game(CODE)
    refused = client.post(host(client, CODE) + "/unlock/hint", data={})
    assert refused.status_code == 400
    assert "Tick the box once the table agrees" in refused.get_data(as_text=True)
    assert hint_text(game.hint) not in client.get(f"/games/{CODE}").get_data(as_text=True)
    shown = client.post(host(client, CODE) + "/unlock/hint", data={"hint-agree": "y"})
    assert shown.status_code == 303 and shown.headers["Location"] == host(client, CODE) + "#table"
    page = client.get(f"/games/{CODE}").get_data(as_text=True)
    assert hint_text(game.hint) in page and "Stronger hint" in page


def test_the_reveal_page_needs_the_tables_agreement(client):
    game = load_game(CODE)
    assert client.get(f"/games/{CODE}/reveal").status_code == 403
    assert client.post(host(client, CODE) + "/unlock/reveal", data={}).status_code == 400
    unlocked = client.post(host(client, CODE) + "/unlock/reveal", data={"reveal-agree": "y"})
    assert unlocked.status_code == 303 and unlocked.headers["Location"] == host(client, CODE) + "/reveal"
    response = client.get(host(client, CODE) + "/reveal")
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    for clue in game.clues:
        assert clue_text(clue) in page
    assert hint_text(game.hint) in page
    assert 'class="habitat"' in page


@pytest.mark.parametrize("step, status, words", [("everything", 400, "There is no step"), ("tile", 409, "first hint")])
def test_unlocking_a_step_that_does_not_exist_or_is_not_open(client, step, status, words):
    response = client.post(host(client, CODE) + f"/unlock/{step}", data={f"{step}-agree": "y"})
    assert response.status_code == status and words in response.get_data(as_text=True)


def test_next_game_keeps_the_board(client):
    response = client.post(host(client, CODE) + "/next", data={"players": "3"})
    assert response.status_code == 303
    following = load_game(next_game(load_game(CODE), 3).code)
    assert response.headers["Location"] == host(client, following.code)
    first = load_game(CODE)
    assert following.board == first.board and following.players == 3 and following.habitat != first.habitat


def test_next_game_when_the_map_is_used_up_says_so(client):
    from companion.web.cryptid.dealing import clue_key

    key = clue_key(client.application.config["SECRET_KEY"])
    game = new_game(3, "normal", key=key, entropy=Stream("used-up"))
    while True:
        try:
            game = next_game(game, key=key)
        except NoHabitatLeft:
            break
    response = client.post(host(client, game.code) + "/next", data={"players": "3"})
    assert response.status_code == 409
    assert "Start a new map" in response.get_data(as_text=True)


def test_shared_device_asks_who_is_looking_first(client):
    game = load_game(CODE)
    ask = client.post(host(client, CODE) + "/clue", data={"seat": "2"})
    assert ask.status_code == 200
    page = ask.get_data(as_text=True)
    assert "Hand the screen to Player 2" in page
    assert all(clue_text(c) not in page for c in game.clues)
    shown = client.post(host(client, CODE) + "/clue", data={"seat": "2", "confirmed": "yes"})
    assert clue_text(game.seat_clues(2)[0]) in shown.get_data(as_text=True)
    assert shown.headers["Cache-Control"] == "no-store"
    assert client.post(host(client, CODE) + "/clue", data={"seat": "9"}).status_code == 303


def test_a_refereed_games_host_link_shows_no_seats_clue(app, client):
    """In refereed play each clue is on its own player's phone only: the host link has no shared-device page."""
    host_url = client.post("/", data={"players": "4", "how": "referee"}).headers["Location"]
    with app.app_context():
        game = dealer().load(read_host_token(host_url.rsplit("/", 1)[-1]))
    for confirmed in ("", "yes"):
        response = client.post(host_url + "/clue", data={"seat": "2", "confirmed": confirmed})
        page = response.get_data(as_text=True)
        assert response.status_code == 404
        assert "Hand the screen" not in page and all(clue_text(clue) not in page for clue in game.clues)
    for path in ("", "/live", "/print", "/table"):  # nor does any other page of the host link
        page = client.get(host_url + path).get_data(as_text=True)
        assert all(clue_text(clue) not in page for clue in game.clues), path


def test_seat_page_hides_the_clue_until_tapped_and_is_private(client):
    game = load_game(CODE)
    links = seats_of(client, CODE)
    for seat, link in enumerate(links, 1):
        response = client.get(link)
        page = response.get_data(as_text=True)
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == "no-store"
        assert response.headers["Referrer-Policy"] == "no-referrer"
        assert re.search(r'<details class="clue-box" id="clue">', page)  # closed until the player taps
        own = clue_text(game.seat_clues(seat)[0])
        assert own in page
        assert all(clue_text(c) not in page for c in game.clues if c not in game.seat_clues(seat))
        assert hint_text(game.hint) not in page


def test_two_player_seats_hold_two_clues(client):
    game = load_game(TWO_PLAYER)
    link = seats_of(client, TWO_PLAYER)[1]
    page = client.get(link).get_data(as_text=True)
    assert all(clue_text(c) in page for c in game.seat_clues(2))


@pytest.mark.parametrize("tamper", [lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"), lambda t: t.replace("1.", "2.", 1), lambda t: "nonsense"])
def test_altered_seat_tokens_are_404(client, tamper):
    link = seats_of(client, CODE)[0]
    token = link.rsplit("/", 1)[1]
    assert client.get("/s/" + tamper(token)).status_code == 404
    assert client.get("/api/seats/" + tamper(token)).status_code == 404


def test_check_a_hex_answers_by_the_seats_clue(client):
    game = load_game(CODE)
    link = seats_of(client, CODE)[0]
    allowed = game.allowed(1)
    for hex_index in (0, game.habitat, 57, 107):
        page = client.get(link, query_string={"hex": hex_index}).get_data(as_text=True)
        expected = "Place a disc" if allowed >> hex_index & 1 else "Place a cube"
        answer = re.search(r'<div class="answer[^"]*" id="check".*?</div>', page, re.S).group(0)
        assert expected in answer
    assert "No hex chosen yet" in client.get(link, query_string={"hex": "500"}).get_data(as_text=True)


def test_the_seat_map_marks_exactly_the_allowed_hexes(client):
    game = load_game(CODE)
    link = seats_of(client, CODE)[2]
    page = client.get(link).get_data(as_text=True)
    marked = {int(h) for h in re.findall(r'href="\?hex=(\d+)"[^>]*><use href="#s', page)}
    assert marked == {h for h in range(108) if game.allowed(3) >> h & 1}


def test_seats_vote_and_the_hint_unlocks_for_everyone(client):
    game = load_game(CODE)  # 4 players: 3 must agree
    links = seats_of(client, CODE)
    assert client.post(links[0] + "/votes/hint").status_code == 303
    assert client.post(links[0] + "/votes/hint").status_code == 303  # twice counts once
    page = client.get(links[3]).get_data(as_text=True)
    assert "1 of 3 wants it" in page and "Asking: Player 1<" in page
    client.post(links[0] + "/votes/hint/withdraw")
    assert "0 of 3 want it" in client.get(f"/games/{CODE}").get_data(as_text=True)
    for link in links[:3]:
        client.post(link + "/votes/hint")
    for page in [client.get(link).get_data(as_text=True) for link in links] + [client.get(f"/games/{CODE}").get_data(as_text=True)]:
        assert hint_text(game.hint) in page
    for link in links[:3]:
        client.post(link + "/votes/tile")
    tile, slot = game.habitat_tile()
    assert f"The habitat is on tile {tile}" in client.get(links[3]).get_data(as_text=True)


def test_a_reveal_vote_opens_the_reveal_on_every_phone(client):
    game = load_game(GOLDEN[1]["code"])  # 3 players
    links = seats_of(client, game.code)
    for link in links:
        client.post(link + "/votes/reveal")
    page = client.get(links[0]).get_data(as_text=True)
    assert f'href="/games/{game.code}/reveal"' in page  # every phone gets the way to the map and every clue
    reveal = client.get(f"/games/{game.code}/reveal").get_data(as_text=True)
    assert all(clue_text(c) in reveal for c in game.clues)


def test_votes_from_the_script_get_the_panel_back(client):
    link = seats_of(client, CODE)[0]
    response = client.post(link + "/votes/hint", headers={"X-Requested-With": "fetch"})
    assert response.status_code == 200
    fragment = response.get_data(as_text=True)
    assert fragment.lstrip().startswith('<div class="table-panel" id="table"') and "Take back my request" in fragment


@pytest.mark.parametrize("step, status", [("everything", 400), ("tile", 409)])
def test_bad_votes_say_why(client, step, status):
    link = seats_of(client, CODE)[0]
    assert client.post(link + f"/votes/{step}").status_code == status
    assert client.post("/s/forged.token/votes/hint").status_code == 404


def test_the_panel_answers_304_while_nothing_changes(client):
    links = seats_of(client, CODE)
    for url in (f"/games/{CODE}/table", links[0] + "/table"):
        first = client.get(url)
        etag = first.headers["ETag"]
        assert first.status_code == 200 and 'id="table"' in first.get_data(as_text=True)
        assert client.get(url, headers={"If-None-Match": etag}).status_code == 304
    client.post(links[1] + "/votes/hint")
    assert client.get(f"/games/{CODE}/table", headers={"If-None-Match": etag}).status_code == 200


def test_a_panel_long_poll_is_answered_when_another_phone_votes(app, client, monkeypatch):
    """With ?wait, a seat's, the host's and the public panel wait while the table is unchanged; another phone's
    vote wakes all three with the new tally. The watcher's tick is set to an hour here: the vote's commit woke
    them."""
    monkeypatch.setattr(live, "TICK_SECONDS", 3600.0)
    links = seats_of(client, CODE)
    urls = [links[0] + "/table", host(client, CODE) + "/table", f"/games/{CODE}/table"]
    shown = {url: client.get(url).headers["ETag"] for url in urls}
    answers = {}

    def long_poll(url: str) -> None:
        answers[url] = app.test_client().get(url + "?wait=1", headers={"If-None-Match": shown[url]})

    threads = [threading.Thread(target=long_poll, args=(url,)) for url in urls]
    for thread in threads:
        thread.start()
    waiting = app.extensions["live_watcher"].waiting
    hang = time.monotonic() + 60  # bounds a hang only
    while waiting.get(load_game(CODE).code, 0) < len(urls):
        assert time.monotonic() < hang and all(thread.is_alive() for thread in threads)
        time.sleep(0.01)
    assert client.post(links[1] + "/votes/hint").status_code == 303
    for thread in threads:
        thread.join()
    for url in urls:
        assert answers[url].status_code == 200 and answers[url].headers["ETag"] != shown[url]
        assert "1 of 3 wants it" in answers[url].get_data(as_text=True)


def test_votes_need_the_csrf_token(tmp_path):
    from companion.web.core.app import create_app

    app = create_app({"TESTING": True, "SECRET_KEY": "test-secret"})
    client = app.test_client()
    link = seats_of(client, CODE)[0]
    assert client.post(link + "/votes/hint", headers={"X-Requested-With": "fetch"}).status_code == 400
    page = client.get(link).get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    assert client.post(link + "/votes/hint", data={"csrf_token": token}).status_code == 303


def test_api_game_is_public_only(client):
    response = client.get(f"/api/games/{CODE}")
    data = response.get_json()
    assert response.status_code == 200
    assert data == load_game(CODE).to_json(reveal=False)
    assert not {"clues", "habitat", "hint"} & set(data)


def test_api_seat_gives_only_that_seats_clues(client):
    game = load_game(TWO_PLAYER)
    link = seats_of(client, TWO_PLAYER)[0]
    response = client.get("/api" + link.replace("/s/", "/seats/"))
    assert response.headers["Cache-Control"] == "no-store"
    data = response.get_json()
    assert data["code"] == TWO_PLAYER and data["seat"] == 1
    assert [c["text"] for c in data["clues"]] == [clue_text(c) for c in game.seat_clues(1)]
    assert all({"kind", "negated", "text"} <= set(c) for c in data["clues"])


@pytest.mark.parametrize("path, status", [("/api/games/nonsense", 400), ("/api/seats/nonsense", 404), ("/api/nothing", 404)])
def test_api_errors_are_json(client, path, status):
    response = client.get(path)
    assert response.status_code == status
    assert response.is_json and response.get_json()["error"]


def test_unknown_pages_and_methods(client):
    assert client.get("/nowhere").status_code == 404
    assert "There is nothing at this address" in client.get("/nowhere").get_data(as_text=True)
    assert client.put("/").status_code == 405


@pytest.mark.parametrize("path", ["/", "/help/setup", "/help/play", f"/games/{CODE}", f"/games/{CODE}/print", "/nowhere"])
def test_pages_are_strict_and_self_contained(client, path):
    response = client.get(path)
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    page = response.get_data(as_text=True)
    assert not re.search(r"<script(?![^>]*\bsrc=)", page), "inline script"
    assert " style=" not in page, "inline style"
    assert not re.search(r'(src="|<link[^>]*href=")(https?:)?//', page), "third-party request"


def page_weight(client, path: str) -> int:
    page = client.get(path).get_data()
    assets = re.findall(rb'(?:src|href)="(/static/[^"]+)"', page)
    return len(page) + sum(len(client.get(a.decode()).get_data()) for a in set(assets))


# A box game's seat page, assets included: 30 KB until the panel's long poll (one held request instead of a poll
# every 3 s, with a back-off after refusals) added about 1 KB of script, and about 1.7 KB more went to live
# updates that keep a ticked box and the focus across the panel's redraws and wait for a finger's release
# (before compression; Persian and Greek are the heaviest).
SEAT_PAGE_BUDGET = 32_500


def test_page_weight_budgets(client):
    code = GOLDEN[-2]["code"]  # advanced, 5 players: the largest pages
    page = client.get(host(client, code)).get_data(as_text=True)
    for language in LANGUAGES:  # Greek, Persian and Japanese take 2-3 bytes a letter
        client.set_cookie("lang", language)
        assert page_weight(client, host(client, code)) <= 80_000, language
        assert page_weight(client, seat_links(page)[0]) <= SEAT_PAGE_BUDGET, language
    client.set_cookie("lang", "en")
    client.post(host(client, code) + "/unlock/hint", data={"hint-agree": "y"})
    client.post(host(client, code) + "/unlock/tile", data={"tile-agree": "y"})
    client.post(host(client, code) + "/unlock/reveal", data={"reveal-agree": "y"})  # every clue now on every phone
    for language in LANGUAGES:  # Greek, Persian and Japanese take 2-3 bytes a letter
        client.set_cookie("lang", language)
        assert page_weight(client, host(client, code)) <= 80_000, language
        assert page_weight(client, seat_links(page)[0]) <= SEAT_PAGE_BUDGET, language


def test_help_pages(client):
    assert "How to set up" in client.get("/help/setup").get_data(as_text=True)
    assert "On your turn" in client.get("/help/play").get_data(as_text=True)


def test_structure_steps_and_the_diagram_share_their_numbers(client):
    game = load_game(CODE)
    page = client.get(f"/games/{CODE}").get_data(as_text=True)
    steps = re.search(r'<ol class="structure-steps">(.*?)</ol>', page, re.S).group(1)
    assert re.findall(r"<li>(.*?)</li>", steps) == [str(escape(step)) for step in game.structure_steps()]
    written = re.findall(r'<text class="sn[^"]*" x="[^"]+" y="[^"]+">(\d+)</text>', page)
    assert written == [str(n) for n in range(1, len(game.board.structures) + 1)]
    assert "Each number is written on its structure in the diagram." in page


def test_an_unlock_is_announced_at_the_top_of_the_host_screen_and_every_phone(client):
    game = load_game(CODE)
    links = seats_of(client, CODE)
    pages = [host(client, CODE), f"/games/{CODE}", links[0], links[3]]
    banner = r'<main id="main">\s*<div id="news" role="status"><a class="news" data-step="{step}" href="{href}"><strong>{news}</strong> <span>{text}</span></a></div>'
    for page in pages:
        assert re.search(r'<main id="main">\s*<div id="news" role="status"></div>', client.get(page).get_data(as_text=True))
    tile, slot = game.habitat_tile()
    for step, news, text, href in [
        ("hint", "The table unlocked the hint.", hint_text(game.hint), "#step-hint"),
        ("tile", "The table unlocked the stronger hint.", f"The habitat is on tile {tile}", "#step-tile"),
        ("reveal", "The table revealed the habitat.", hex_name(game.habitat) + ": ", "/reveal"),
    ]:
        client.post(host(client, CODE) + f"/unlock/{step}", data={f"{step}-agree": "y"})
        expected = banner.format(step=step, href="[^\"]*" + re.escape(href), news=re.escape(news), text=re.escape(text) + "[^<]*")
        for page in pages:
            assert re.search(expected, client.get(page).get_data(as_text=True)), (step, page)
        # The polled panel carries the same banner for the page's script to show without a reload.
        fragment = client.get(links[1] + "/table").get_data(as_text=True)
        assert re.search(r'<template id="news-next"><a class="news" data-step="' + step, fragment)


def test_two_clues_are_numbered_apart_and_called_your_clues(client):
    game = load_game(TWO_PLAYER)
    link = seats_of(client, TWO_PLAYER)[1]
    page = client.get(link).get_data(as_text=True)
    assert "Player 2, your clues" in page
    clues = re.search(r'<ol class="own-clues">(.*?)</ol>', page).group(1)
    assert re.findall(r'<li class="clue-text">(.*?)</li>', clues) == [clue_text(c) for c in game.seat_clues(2)]
    shown = client.post(host(client, TWO_PLAYER) + "/clue", data={"seat": "2", "confirmed": "yes"}).get_data(as_text=True)
    assert re.search(r'<ol class="own-clues"><li class="clue-text">[^<]+</li><li class="clue-text">', shown)
    one = client.get(seats_of(client, CODE)[0]).get_data(as_text=True)
    assert "own-clues" not in one and "your clues" not in one


@pytest.mark.parametrize("help_page", ["/help/play", "/help/setup"])
def test_help_opened_from_a_seat_leads_back_to_it_and_stays_private(client, help_page):
    link = seats_of(client, CODE)[0]
    assert f'href="/help/play?back={link}"' in client.get(link).get_data(as_text=True)
    response = client.get(help_page, query_string={"back": link})
    page = response.get_data(as_text=True)
    assert f'<a class="button primary" href="{link}">Back to your clue</a>' in page
    assert re.search(r'href="/help/(play|setup)\?back=' + re.escape(link) + '"', page)  # the other help page too
    assert response.headers["Referrer-Policy"] == "no-referrer" and response.headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize(
    "back", ["https://evil.example/s/x", "//evil.example/s/x", "/s/forged.token", f"/games/{CODE}", "javascript:alert(1)", "/s/a/b"]
)
def test_help_links_back_only_to_a_genuine_seat_page(client, back):
    response = client.get("/help/play", query_string={"back": back})
    page = response.get_data(as_text=True)
    assert "Back to your clue" not in page and not re.search(r'<a [^>]*href="[^"]*evil', page)
    assert response.headers["Referrer-Policy"] == "same-origin"


def test_a_mistyped_code_takes_the_focus_to_its_explanation(client):
    page = client.get("/load", query_string={"code": "ABC"}).get_data(as_text=True)
    error = re.search(r'<p class="error" id="code-error" role="alert" tabindex="-1" autofocus>[^<]*has only 3[^<]*</p>', page)
    field = re.search(r'<input[^>]*id="code"', page)
    assert error and field and error.end() < field.start()  # read before the field, on screen with it
    assert page.count("autofocus") == 1


def test_agree_forms_leave_the_unticked_box_to_the_server_in_the_pages_language(client):
    page = client.get(host(client, CODE)).get_data(as_text=True)
    forms = re.findall(r'<form [^>]*class="agree"[^>]*>', page)
    assert forms and all("novalidate" in form for form in forms)
    client.set_cookie("lang", "el")
    refused = client.post(host(client, CODE) + "/unlock/hint", data={}).get_data(as_text=True)
    assert re.search(r'<p class="error" id="hint-agree-error" role="alert" tabindex="-1" autofocus>Τσεκάρετε', refused)


def test_the_reveal_marks_the_habitat_and_shows_both_hints(client):
    game = load_game(CODE)
    for step in ("hint", "tile", "reveal"):
        client.post(host(client, CODE) + f"/unlock/{step}", data={f"{step}-agree": "y"})
    page = client.get(f"/games/{CODE}/reveal").get_data(as_text=True)
    # Named as the board's edges name it (the setup diagram prints the letters and numbers on its edges).
    assert f'the creature lives on <strong dir="ltr">{hex_name(game.habitat)}</strong> (' in page
    assert '<g class="edge">' in page
    tile, _ = game.habitat_tile()
    assert "<h2>Stronger hint</h2>" in page and f"The habitat is on tile {tile}" in page
    assert 'class="dim"' in page and 'class="habitat"' in page
    seat_page = client.get(seats_of(client, CODE)[0]).get_data(as_text=True)
    assert re.search(r'<section class="step unlocked" id="step-reveal">\s*<h3>The habitat</h3>', seat_page)


def test_templates_glue_no_punctuation_to_translated_text():
    """Full stops, colons and list commas belong to each language's own sentences, never to a template."""

    for template in (REPO / "templates").rglob("*.html"):
        text = template.read_text(encoding="utf-8")
        assert not re.search(r"\}\}(</\w+>)?[.:;,]", text), template.name
        assert not re.search(r"join\(\s*[\"'][^\"']*[.:;,·]", text), template.name


def test_a_server_listening_on_loopback_tells_the_host_what_lets_phones_in(client, monkeypatch):
    """`serve --host 127.0.0.1`: a LAN address in the QR codes would refuse every phone, so the host screen says
    how to start the server instead of telling phones to open it."""
    host_url = client.post("/", data={"players": "3", "how": "referee"}).headers["Location"]
    assert "Phones will open" in client.get(host_url).get_data(as_text=True)
    monkeypatch.setenv("COMPANION_LISTEN_HOST", "127.0.0.1")
    page = client.get(host_url).get_data(as_text=True)
    assert "Phones will open" not in page and "serve --host 0.0.0.0" in page


def test_a_refereed_phone_gets_help_for_refereed_play_with_its_way_back(client):
    host_url = client.post("/", data={"players": "3", "how": "referee"}).headers["Location"]
    seat = urlsplit(seat_links(client.get(host_url).get_data(as_text=True))[0]).path
    page = client.get(seat).get_data(as_text=True)
    help_link = re.search(r'href="(/help/refereed\?back=[^"]+)"', page).group(1)
    help_page = client.get(html_text.unescape(help_link)).get_data(as_text=True)
    assert f'href="{seat}"' in help_page and "Back to your seat" in help_page
    assert "Here the app referees" in help_page
    assert "Check a hex" not in help_page  # the box game's advice does not apply
