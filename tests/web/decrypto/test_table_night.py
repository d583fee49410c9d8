"""Decrypto at a real table, through HTTP (issue 21): the guess step, the host playing seats without a phone, the
keyword tiebreak with its "count it", secrets on the shared screen, the sand timer and the next game."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from companion.decrypto import TEAMS, GuessKeywords, NextRound
from companion.web.decrypto.store import load_table, play
from companion.web.decrypto.tokens import read_decrypto_host_token

from .test_views import KEYWORD, LINK, MY_CODE, Phone, open_table, seated_table, wrong

FETCH = {"X-Requested-With": "fetch"}
SAND = re.compile(r'class="sand-timer" data-seconds="(\d+)"')


@pytest.fixture
def app(fresh_database_app):
    fresh_database_app.config.update(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=False)
    return fresh_database_app


def host_post(client, host: str, status: int = 200, **form) -> str:
    response = client.post(host + "/play", data=form, headers=FETCH)
    body = response.get_data(as_text=True)
    assert response.status_code == status, body[-600:]
    return body


def picks(code: str) -> dict:
    return {f"pick{index}": digit for index, digit in enumerate(code.split("-"), start=1)}


def stored(client, host: str):
    """The table behind a host link, as the store reads it."""
    with client.application.app_context():
        return load_table(read_decrypto_host_token(host.rsplit("/", 1)[1]))


def encrypt(phone: Phone, clues=("xyzzy", "plugh", "frotz")) -> str:
    phone.act(action="show_code")
    code = phone.code()
    phone.act(action="give_clues", typed="yes", clue1=clues[0], clue2=clues[1], clue3=clues[2])
    return code


def test_the_guess_step_shows_clues_pickers_what_was_sent_and_whom_the_table_waits_for(app):
    client = app.test_client()
    host, phones = seated_table(client)
    (white1, white2), (black1, _) = phones["white"], phones["black"]
    assert "Your turn: you encrypt for your team this round." in black1.get()
    assert "White&#39;s encryptor is looking" not in black1.received[-1]  # Black's encryptor is told its own turn
    hosted = client.get(host).get_data(as_text=True)
    assert hosted.count('class="waiting-for"') == 2 and "White&#39;s encryptor" in hosted
    code = encrypt(white1)
    body = white2.get()
    # The three clues, large, each beside the four keyword numbers; no code typed as text.
    assert re.findall(r'class="pick-clue"[^>]*>([^<]+)<', body) == ["xyzzy", "plugh", "frotz"]
    assert body.count('name="pick1" value=') == 4 and 'name="code"' not in body
    hosted = client.get(host).get_data(as_text=True)
    assert re.findall(r'<ol class="big-clues"><li>xyzzy</li><li>plugh</li><li>frotz</li></ol>', hosted)
    assert "White&#39;s guess" in hosted and "Black&#39;s encryptor" in hosted
    white2.act(action="guess", target="white", confirm="yes", **picks(code))
    # Round 1: nobody intercepts, so the code is revealed at once with the guess beside it in the history.
    history = client.get(host).get_data(as_text=True).split('id="history-heading"')[1]
    assert history.count(f'<span class="code" dir="ltr">{code}</span>') == 2
    assert white1.act(status=409, action="guess", target="white", confirm="yes", pick1="1", pick2="1", pick3="2")


def test_teammates_see_the_sealed_guess_their_team_sent_and_the_other_team_does_not(app):
    client = app.test_client()
    host, phones = seated_table(client)
    (white1, white2), (black1, black2) = phones["white"], phones["black"]
    for round_number in (1, 2):
        clues = tuple(f"r{round_number} {clue}" for clue in ("xyzzy", "plugh", "frotz"))
        codes = {team: encrypt(phones[team][round_number - 1], clues) for team in TEAMS}
        if round_number == 1:
            white2.act(action="guess", target="white", confirm="yes", **picks(codes["white"]))
            black2.act(action="guess", target="black", confirm="yes", **picks(codes["black"]))
            host_post(client, host, action="next_round")
    # Round 2: White's seat 1 guesses White's code; Black's seat 1 has not intercepted yet, so it stays sealed.
    guess = wrong(codes["white"])
    white1.act(action="guess", target="white", confirm="yes", **picks(guess))
    sent = f'<strong dir="ltr">{guess}</strong>'
    assert "Your team sent" in white2.get() and sent in white2.received[-1]
    for phone in (black1, black2):
        assert sent not in phone.get() and "Your team sent" not in phone.received[-1]
    assert sent not in client.get(host).get_data(as_text=True)
    assert "Black&#39;s interception" in client.get(host).get_data(as_text=True)


def test_the_encryptors_code_is_held_to_peek_once_the_clues_are_sent(app):
    client = app.test_client()
    host, phones = seated_table(client)
    encryptor = phones["white"][0]
    encryptor.act(action="show_code")
    assert '<p class="my-code-box">' in encryptor.get()
    encryptor.act(action="give_clues")
    body = encryptor.get()
    assert '<details class="peek my-code-box"><summary>Tap and hold to peek at your code</summary>' in body
    assert MY_CODE.search(body)  # still there for the encryptor, behind the hold


def test_a_seat_without_a_phone_is_played_from_the_host_screen(app):
    client = app.test_client()
    host, page = open_table(client)
    links = LINK.findall(page)
    white = [Phone(client, url) for url in links[:2]]
    for number, phone in enumerate(white, start=1):
        phone.act(action="join", name=f"W{number}")
    # Black has no phone at all: the host screen offers its seats, the encryptor's first.
    hosted = client.get(host).get_data(as_text=True)
    assert hosted.count("No phone: play this seat on this screen") == 2
    assert 'class="button primary" href="' + host + '/seat/black-1"' in hosted
    seat = Phone(client, host + "/seat/black-1")
    body = seat.get()
    assert "You play for Black, seat 1." in body and "Back to the table screen" in body
    seat.get("?do=show")
    response = client.post(host + "/play", data={"action": "show_code", "as": "black-1"}, headers=FETCH)
    assert response.status_code == 200 and MY_CODE.search(response.get_data(as_text=True))
    black_code = seat.code()
    host_post(client, host, action="give_clues", typed="yes", clue1="a", clue2="b", clue3="c", **{"as": "black-1"})
    white_code = encrypt(white[0])
    white[1].act(action="guess", target="white", confirm="yes", **picks(white_code))
    # Black's guess of its own code, from the shared screen playing seat 2.
    host_post(client, host, action="guess", target="black", confirm="yes", **{"as": "black-2"}, **picks(black_code))
    # The round's reveal: the seat played here says Black is ready, White's phone says White is.
    body = host_post(client, host, action="next_round", **{"as": "black-2"})
    assert "Your team is ready already" in body and "Waiting for:" in body
    white[0].act(action="next_round")
    assert "round 2 of 8" in client.get(host).get_data(as_text=True)
    # A seat a phone holds is played on that phone, not here.
    assert client.get(host + "/seat/white-1").status_code == 409
    assert "A phone plays this seat now" in host_post(client, host, 409, action="show_code", **{"as": "white-2"})
    assert client.get(host + "/seat/green-1").status_code == 404
    # A phone joining a seat the shared screen plays takes its secrets off the shared screen at the next update.
    Phone(client, LINK.findall(page)[3]).act(action="join", name="B2")
    hosted = client.get(host + "/seat/black-2/live").get_data(as_text=True)
    assert "You play for Black" not in hosted and 'class="keyword"' not in hosted
    # A phone that is gone: the host lets its seat go and the table plays it. The form names the version the host
    # screen showed; pressed after the table moved on (here the seat's phone acted meanwhile), it is refused and
    # the phone keeps its seat.
    shown = stored(client, host).version
    white[1].act(action="show_code")  # White encrypts round 2 on its second phone
    assert "Another move came first" in host_post(client, host, 409, action="free_seat", seat="white-2",
                                                   version=str(shown))
    assert client.get(host + "/seat/white-2").status_code == 409
    host_post(client, host, action="free_seat", seat="white-2", version=str(stored(client, host).version))
    assert client.get(host + "/seat/white-2").status_code == 200


def test_seat_codes_leave_the_host_screen_once_their_phone_joined(app):
    client = app.test_client()
    host, page = open_table(client)
    links = LINK.findall(page)
    assert len(links) == 4
    Phone(client, links[0]).act(action="join", name="Ana")
    page = client.get(host).get_data(as_text=True)
    assert links[0] not in page and len(LINK.findall(page)) == 3 and "code is hidden" in page
    assert links[0] in client.get(host + "?codes=all").get_data(as_text=True)


def test_split_mode_joins_by_the_buttons_team_switches_in_the_lobby_and_nobody_joins_mid_game(app):
    client = app.test_client()
    host, page = open_table(client, split="y")
    (join_url,) = LINK.findall(page)
    phones = []
    for index in range(4):
        phones.append(Phone(client, client.get(urlsplit(join_url).path).location))
        body = phones[-1].get()
        assert 'name="team" value="white"' in body and 'name="team" value="black"' in body
        phones[-1].act(action="join", team="white", name=f"P{index}")
    assert "Switch to Black" in phones[3].get()
    phones[3].act(action="join", team="black", name="P3")
    phones[2].act(action="join", team="black", name="P2")
    assert "You play for Black, seat 1." in phones[2].get() or "You play for Black, seat 2." in phones[2].get()
    host_post(client, host, action="start")
    assert "Switch to" not in phones[3].get()
    late = Phone(client, client.get(urlsplit(join_url).path).location)
    assert "Nobody can join now" in late.get()
    assert "no free seat" in late.act(status=409, action="join", team="black", name="Spy")
    # The next game keeps the teams and names: the lobby is already full, and the host starts at once.
    table = stored(client, host)
    assert [m.name for m in table.state.roster("black")] == ["P3", "P2"]


def test_the_sand_timer_runs_for_the_slower_team_and_resets_each_round(app):
    client = app.test_client()
    host, phones = seated_table(client)
    assert not SAND.search(client.get(host).get_data(as_text=True))
    white_code = encrypt(phones["white"][0])
    (left,) = SAND.findall(client.get(host).get_data(as_text=True))
    assert 0 < int(left) <= 30
    assert SAND.search(phones["black"][1].get()) and SAND.search(phones["black"][0].get())
    assert not SAND.search(phones["white"][1].get())  # the faster team is not hurried
    black_code = encrypt(phones["black"][0])
    assert not SAND.search(client.get(host).get_data(as_text=True))  # both in: the timer is done with
    phones["white"][1].act(action="guess", target="white", confirm="yes", **picks(white_code))
    phones["black"][1].act(action="guess", target="black", confirm="yes", **picks(black_code))
    assert "Round 1: the codes revealed" in client.get(host).get_data(as_text=True)
    host_post(client, host, action="next_round")
    hosted = client.get(host).get_data(as_text=True)
    assert "round 2 of 8" in hosted and not SAND.search(hosted) and "Time is up" not in hosted


def test_a_clue_that_is_a_keyword_is_warned_about_and_control_characters_are_refused(app):
    client = app.test_client()
    host, phones = seated_table(client)
    encryptor = phones["white"][0]
    keyword = encryptor.keywords()[1]
    encryptor.act(action="show_code")
    body = encryptor.act(action="give_clues", typed="yes", clue1="sea", clue2=keyword.upper(), clue3="ship")
    assert "is one of your own keywords" in body and 'name="anyway"' in body
    body = encryptor.act(status=409, action="give_clues", typed="yes", clue1="sea\u202e", clue2="x", clue3="y")
    assert "invisible or control characters" in body
    host2, page = open_table(client, split="y")
    (join_url,) = LINK.findall(page)
    phone = Phone(client, client.get(urlsplit(join_url).path).location)
    assert "invisible or control characters" in phone.act(status=409, action="join", team="white", name="A\u200bB")
    assert "invisible or control characters" in phone.act(status=409, action="join", team="white", name="bell\x07")


def test_the_rulebook_ending_is_the_default_and_the_short_reading_a_choice(app):
    client = app.test_client()
    for form, ending in (({}, "rulebook"), ({"ending": "short"}, "short")):
        host, _ = open_table(client, **form)
        assert stored(client, host).state.setup.ending == ending
    assert client.post("/decrypto/new", data={"white": "2", "black": "2", "keywords": "site", "language": "en",
                                              "ending": "longest"}).status_code == 400
    page = client.get("/decrypto/new").get_data(as_text=True)
    assert "The rulebook: the team with more points wins" in page
    help_page = client.get("/help/decrypto").get_data(as_text=True)
    assert "points are its interception tokens minus its miscommunication tokens" in help_page and "short reading" in help_page


def test_the_keyword_guesses_are_shown_beside_the_keywords_and_the_host_can_count_one(app):
    client = app.test_client()
    host, phones = seated_table(client)
    with app.app_context():
        table = load_table(read_decrypto_host_token(host.rsplit("/", 1)[1]))
        # Eight quiet rounds, played straight on the store: equal points, so the keywords decide.
        from tests.helpers.decrypto import play_round as engine_round

        state = table.state
        for _ in range(8):
            state = engine_round(state)
            state = state.apply(NextRound()) if state.phase == "reveal" else state
        for move in moves_between(table.state, state):
            table = play(table, move)
        white_words, black_words = table.state.setup.keywords
        table = play(table, GuessKeywords("white", (black_words[0] + "s", "near miss", "", "")))
        table = play(table, GuessKeywords("black", (white_words[0], white_words[1], "", "")))
    hosted = client.get(host).get_data(as_text=True)
    assert "Black wins the keyword tiebreak: 2 to 1." in hosted
    assert "<td>near miss</td>" in hosted and hosted.count(">Count it<") == 1
    assert "Count it" not in phones["white"][0].get()
    assert "<td>near miss</td>" in phones["white"][0].received[-1]
    assert "White wins" not in host_post(client, host, action="accept_keyword", team="white", number="2")
    hosted = client.get(host).get_data(as_text=True)
    assert "Draw: the keyword tiebreak ends 2 to 2." in hosted and "yes, counted by the table" in hosted
    assert "Count it" not in hosted
    host_post(client, host, 409, action="accept_keyword", team="white", number="2")
    host_post(client, host, 400, action="accept_keyword", team="white", number="9")


def moves_between(before, after):
    """The moves that led from `before` to `after` (the helper plays them on a state, the test on the store)."""
    from companion.decrypto import GiveClues, Guess, ShowCode

    moves = []
    for r in after.rounds:
        if r.number > 1 and after.setup.reveal_pause:
            moves.append(NextRound())  # the shared screen ends each reveal
        for t in r.transmissions:
            seat = t.encryptor if after.roster(t.team)[t.encryptor - 1].player else None
            moves += [ShowCode(t.team, seat), GiveClues(t.team, t.clues, seat)]
        for t in r.transmissions:
            rival = "black" if t.team == "white" else "white"
            if t.interception_guess is not None:
                moves.append(Guess(rival, t.team, t.interception_guess))
            moves.append(Guess(t.team, t.team, t.own_guess))
    return moves


def test_every_response_a_phone_gets_keeps_the_other_teams_secrets(app):
    """The scan of test_views, over a round that reaches the guess step, a sealed guess and the peek: no phone
    receives the other team's keywords anywhere in a page, nor a code before its reveal."""
    client = app.test_client()
    host, phones = seated_table(client)
    keywords = {team: phones[team][0].keywords() for team in TEAMS}
    codes = {team: encrypt(phones[team][0]) for team in TEAMS}
    for phone in (*phones["white"], *phones["black"]):
        phone.get()
    before_reveal = {id(phone): len(phone.received) for phone in phones["black"]}
    phones["white"][1].act(action="guess", target="white", confirm="yes", **picks(codes["white"]))
    for phone in (*phones["white"], *phones["black"]):
        phone.get()
    for team in TEAMS:
        rival = "black" if team == "white" else "white"
        for phone in phones[team]:
            for body in phone.received:
                leaked = [word for word in keywords[rival] if f">{word}<" in body]
                assert not leaked, f"a rival keyword reached a phone: {leaked}"
    shown = re.compile(r'dir="ltr">(\d-\d-\d)<')
    if codes["black"] == codes["white"]:
        return  # one in 24 games: each encryptor's own code would look like the other team's
    # Black's code is never revealed in this test; White's is, by White's guess.
    assert not any(codes["black"] in shown.findall(body) for phone in phones["white"] for body in phone.received)
    for phone in phones["black"]:
        assert not any(codes["white"] in shown.findall(body) for body in phone.received[: before_reveal[id(phone)]])


@pytest.mark.postgresql
def test_a_seat_link_open_on_another_phone_asks_before_taking_over_and_the_first_phone_is_told(app):
    client = app.test_client()
    host, phones = seated_table(client)
    first = phones["white"][0]
    keyword = first.keywords()[0]
    second = Phone(app.test_client(), first.path)  # another browser: its own cookies, so another device
    body = second.get()
    # Keywords are read where the page shows them: a short one ("ice") also hides in "device-width".
    assert "This seat is open on another phone" in body and keyword not in KEYWORD.findall(body) and "my-code" not in body
    assert "open on another phone" in second.act(status=409, action="show_code")
    assert keyword in KEYWORD.findall(first.get())  # the first phone keeps its seat until the other takes it over
    live = first.client.get(first.path + "/live", headers={"If-None-Match": '"stale"'})
    etag = live.headers["ETag"]
    response = second.client.post(second.path + "/take-over")
    assert response.status_code == 303
    assert keyword in KEYWORD.findall(second.get())
    # The first phone's live update now says the seat moved, and shows none of it.
    moved = first.client.get(first.path + "/live", headers={"If-None-Match": etag}).get_data(as_text=True)
    assert "This seat is open on another phone" in moved and keyword not in KEYWORD.findall(moved)
    assert keyword not in KEYWORD.findall(first.get()) and "Take this seat over on this phone" in first.received[-1]


REVEAL_CODE = re.compile(r'<h3>(White|Black)\'s code <strong class="code" dir="ltr">([^<]+)</strong></h3>')
VERSION = re.compile(r'id="play"[^>]* data-version="(\d+)"')


def test_a_round_ends_on_its_reveal_on_every_screen_until_both_teams_are_ready(app):
    from tests.web.cryptid.test_pages import page_weight

    from .test_views import PHONE_BUDGET

    client = app.test_client()
    host, phones = seated_table(client, white="4", black="4")
    codes = {team: encrypt(phones[team][0]) for team in TEAMS}
    phones["white"][1].act(action="guess", target="white", confirm="yes", **picks(codes["white"]))
    # Black's code is not decoded yet: nobody sees it, nor a reveal.
    for body in [client.get(host).get_data(as_text=True)] + [phone.get() for team in TEAMS for phone in phones[team]]:
        assert "the codes revealed" not in body and 'value="next_round"' not in body
    phones["black"][1].act(action="guess", target="black", confirm="yes", **picks(wrong(codes["black"])))
    # Every phone and the host show both codes, each guess against them and the token it cost.
    screens = [client.get(host).get_data(as_text=True)] + [phone.get() for team in TEAMS for phone in phones[team]]
    for body in screens:
        assert "Round 1: the codes revealed" in body
        assert dict(REVEAL_CODE.findall(body)) == {"White": codes["white"], "Black": codes["black"]}
        assert f'<td class="code" dir="ltr">{wrong(codes["black"])}</td>' in body
        assert "Black missed its own code and takes a miscommunication token." in body
        assert "Waiting for: <span class=\"waiting-for\">White to press Next round</span>" in body
    assert screens[0].count('value="next_round"') == 1 and all('value="next_round"' in body for body in screens[1:])
    client.set_cookie("lang", "fa")
    assert page_weight(client, phones["white"][0].path) <= PHONE_BUDGET
    client.set_cookie("lang", "en")
    # One phone of White speaks for its team; its teammates see it is ready, and the round waits for Black.
    body = phones["white"][2].act(action="next_round")
    assert "Your team is ready already" in body and "Your team is ready already" in phones["white"][0].get()
    assert 'value="next_round"' in phones["black"][3].get()
    assert "White to press Next round" not in client.get(host).get_data(as_text=True)
    phones["white"][0].act(status=409, action="next_round")
    phones["black"][3].act(action="next_round")
    hosted = client.get(host).get_data(as_text=True)
    assert "round 2 of 8" in hosted and "the codes revealed" not in hosted


def test_every_fragment_names_the_tables_version_for_the_page_script(app):
    """play.js never swaps a live answer in over a newer fragment: each fragment says which version it shows."""
    client = app.test_client()
    host, phones = seated_table(client)
    first = int(VERSION.search(client.get(host + "/live").get_data(as_text=True)).group(1))
    assert first == 4  # four joins
    body = phones["white"][0].act(action="show_code")
    assert int(VERSION.search(body).group(1)) == first + 1
    live = client.get(phones["white"][1].path + "/live").get_data(as_text=True)
    assert int(VERSION.search(live).group(1)) == first + 1


def test_phones_are_told_who_starts_the_game_and_whose_address_is_private(app):
    client = app.test_client()
    host, page = open_table(client, split="y")
    (join_url,) = LINK.findall(page)
    phone = Phone(client, client.get(urlsplit(join_url).path).location)
    phone.act(action="join", team="white", name="Ann")
    body = phone.get()
    assert "Your turn" not in body and "data-your-turn" not in body
    assert "The host starts the game once each team has two to four players." in body
    assert "Other players join by the code on the shared screen." in body
    assert "Start the game once each team" in client.get(host).get_data(as_text=True)
    host, phones = seated_table(client)
    assert "This page is yours alone: do not share its address." in phones["white"][0].get()
    assert "Both encryptors are looking at their codes" in phones["white"][1].get()
    seat_page = client.get(host + "/seat/black-1")
    assert seat_page.status_code == 409  # a phone holds it; a seat with no phone has no privacy note:
    host, page = open_table(client)
    shared = client.get(host + "/seat/black-1").get_data(as_text=True)
    assert "yours alone" not in shared and "Back to the table screen" in shared


@pytest.mark.postgresql
def test_a_table_is_folded_once_per_change_and_remembered_between(app):
    """The store folds a table's log once per change of the table (the core's stamped cache), as Cryptid's."""
    client = app.test_client()
    host, phones = seated_table(client)
    first = stored(client, host)
    assert stored(client, host) is first  # nothing changed: the same folded table
    phones["white"][0].act(action="show_code")
    following = stored(client, host)
    assert following is not first and following.version == first.version + 1
