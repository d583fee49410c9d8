"""Decrypto in real browsers: four phones (390x844) and the host screen play whole games by the buttons a person
presses, every move reaching the other screens without a reload. Screenshots land in $DECRYPTO_SHOTS when it
names a folder (in English, Persian, Greek and Japanese)."""

from __future__ import annotations

import os
import re
import time
from urllib.parse import urlsplit


from .conftest import PHONE

SHOTS = os.environ.get("DECRYPTO_SHOTS")
WAIT = 10_000
CODES = [f"{a}-{b}-{c}" for a in range(1, 5) for b in range(1, 5) for c in range(1, 5) if len({a, b, c}) == 3]


def shot(page, name: str, languages=("en",)) -> None:
    """Screenshots of a page as it is now, in each language (the page is reloaded in the others, then back)."""
    if not SHOTS:
        return
    for language in languages:
        if language != "en":
            page.context.add_cookies([{"name": "lang", "value": language, "url": page.url}])
            page.reload()
        page.screenshot(path=os.path.join(SHOTS, f"{name}-{language}.png"), full_page=True)
    if languages != ("en",):
        page.context.add_cookies([{"name": "lang", "value": "en", "url": page.url}])
        page.reload()


def other_than(code: str) -> str:
    return next(c for c in CODES if c != code)


class Table:
    """A host screen and four phones at one Decrypto table, playing by the buttons."""

    def __init__(self, browser, live_server, *, split=True, javascript=True, app=None):
        self.javascript = javascript
        self.app = app  # the live server's app, for rounds played by the rules (see quiet_rounds)
        self.host = browser.new_page(viewport={"width": 1280, "height": 900}, java_script_enabled=javascript)
        self.host.goto(live_server + "/decrypto/new")
        if split:
            self.host.get_by_label("We split into teams at the table: each phone picks its team").check()
        self.host.get_by_role("button", name="Open the table").click()
        self.host.wait_for_url(re.compile(r"/decrypto/h/[^/]+$"))
        self.links = [a.get_attribute("href") for a in self.host.locator("a.phone-link").all()]
        self.contexts = [browser.new_context(**PHONE, java_script_enabled=javascript) for _ in range(4)]
        self.phones = [context.new_page() for context in self.contexts]
        self.white, self.black = self.phones[:2], self.phones[2:]

    def join_split(self, names=("Ana", "Ben", "Chloé", "Dev")) -> None:
        """Each phone opens the one join link, types its name and presses Join White or Join Black."""
        (link,) = self.links
        for index, (phone, name) in enumerate(zip(self.phones, names)):
            phone.goto(link)
            phone.get_by_label("Your name at the table").fill(name)
            phone.get_by_role("button", name="Join White" if index < 2 else "Join Black").click()
            team = "White" if index < 2 else "Black"
            phone.get_by_role("heading", name=re.compile(f"You play for {team}, seat {index % 2 + 1}")).wait_for(
                timeout=WAIT)
        if not self.javascript:
            self.host.reload()  # without a script the page shows what was true when it loaded
        self.host.locator("#play .sheet").get_by_text(names[-1]).wait_for(timeout=WAIT)

    def start(self) -> None:
        self.host.get_by_role("button", name="Start the game").click()
        for phone in self.phones:
            phone.locator("#play .keywords li").nth(3).wait_for(timeout=WAIT)

    def keywords(self, team: str) -> list[str]:
        phone = self.white[0] if team == "white" else self.black[0]
        return phone.locator("#play .keywords .keyword").all_inner_texts()

    def encrypt(self, phone, clues) -> str:
        phone.get_by_role("link", name="It is my turn to encrypt: show my code").click(timeout=WAIT)
        phone.get_by_role("button", name="Show my code").click(timeout=WAIT)
        code = phone.locator("#play .my-code").inner_text()
        for index, clue in enumerate(clues, start=1):
            phone.locator(f"#clue{index}").fill(clue)
        phone.get_by_role("button", name="Give these clues").click()
        phone.locator("#play details.peek").wait_for(timeout=WAIT)
        return code

    def guess(self, phone, target: str, code: str, shot_name: str | None = None) -> None:
        """Pick the keyword number beside each clue, tick the team's agreement and send."""
        form = phone.locator(f"#play form.guess-form:has(input[name=target][value={target}])")
        form.wait_for(timeout=WAIT)
        for index, digit in enumerate(code.split("-"), start=1):
            form.get_by_role("radio", name=f"Clue {index}: keyword {digit}").check()
        form.get_by_role("checkbox", name="My team agrees: one phone sends the team's guess.").check()
        if shot_name:
            shot(phone, shot_name, ("en", "fa", "el", "ja"))
            form = phone.locator(f"#play form.guess-form:has(input[name=target][value={target}])")
            for index, digit in enumerate(code.split("-"), start=1):
                form.get_by_role("radio", name=f"Clue {index}: keyword {digit}").check()
            form.get_by_role("checkbox", name="My team agrees: one phone sends the team's guess.").check()
        form.get_by_role("button", name="Send the guess").click()
        form.wait_for(state="detached", timeout=WAIT)

    def round(self, number: int, game: int, intercept: dict | None = None, shots: bool = False,
              ready: bool = True) -> None:
        """A round: both encryptors give clues, each team guesses its own code right and (from round 2) the
        other team's wrong unless `intercept` says that team intercepts it; then, unless the round ended the game
        (round 8 here) or `ready` is False, the reveal's Next round is pressed (see next_round)."""
        encryptor = (number - 1) % 2
        self.host.get_by_text(f"Game {game} · round {number} of 8").wait_for(timeout=WAIT)
        codes = {}
        for team, members in (("white", self.white), ("black", self.black)):
            codes[team] = self.encrypt(members[encryptor], [f"g{game}r{number} {team} {c}" for c in "abc"])
            if team == "white" and number == 2 and shots:
                # The slower team sees the sand timer count down.
                timer = self.black[encryptor].locator("#play .sand-timer output")
                first = timer.inner_text()
                self.black[encryptor].wait_for_function(
                    "first => document.querySelector('#play .sand-timer output').textContent !== first", arg=first,
                    timeout=WAIT)
        guessers = {"white": self.white[1 - encryptor], "black": self.black[1 - encryptor]}
        for target in ("white", "black"):
            rival = "black" if target == "white" else "white"
            shot_name = "phone-guess" if shots and target == "black" else None
            if shots and target == "white":
                self.host.get_by_text(f"g{game}r{number} white a").first.wait_for(timeout=WAIT)
                shot(self.host, "host-guess", ("en", "fa", "el", "ja"))
            self.guess(guessers[target], target, codes[target], shot_name)
            if number > 1:
                interception = codes[target] if (intercept or {}).get(rival) == number else other_than(codes[target])
                self.guess(guessers[rival], target, interception)
        self.codes = codes
        if ready and number < 8:
            self.next_round(number, game)

    def quiet_rounds(self, numbers: range, game: int) -> None:
        """Rounds played on the server by the rules, as round() plays them by the buttons (both teams decode their
        own code, nobody intercepts, the table presses Next round), one after another as a table in a hurry would:
        the phones and the host follow live and show the round after the last. The buttons of every step are
        pressed in round(); these rounds only bring the game to its end."""
        for number in numbers:
            self.quiet_round(number, game)
        if numbers[-1] < 8:
            for page in (self.host, *self.phones):
                page.get_by_text(f"Game {game} · round {numbers[-1] + 1} of 8").wait_for(timeout=WAIT)

    def quiet_round(self, number: int, game: int, ready: bool = True) -> None:
        """One round of quiet_rounds, on the server; the table presses Next round unless `ready` is False or the
        round ended the game."""
        from companion.decrypto.moves import NextRound
        from companion.web.decrypto.store import load_table, play
        from companion.web.decrypto.tokens import read_decrypto_host_token
        from tests.helpers.decrypto import decode_moves, give_moves

        with self.app.app_context():
            table = load_table(read_decrypto_host_token(urlsplit(self.host.url).path.rsplit("/", 1)[1]))
            for team in ("white", "black"):
                for move in give_moves(table.state, team, tuple(f"g{game}r{number} {team} {c}" for c in "abc")):
                    table = play(table, move)
            for team in ("white", "black"):
                for move in decode_moves(table.state, team):
                    table = play(table, move)
            if ready and number < 8:
                table = play(table, NextRound())

    def next_round(self, number: int, game: int) -> None:
        """The reveal's Next round: in odd rounds one phone of each team presses it (White first, and its
        teammates see the team is ready); in even rounds the host screen starts the next round for both."""
        self.host.get_by_role("heading", name=f"Round {number}: the codes revealed").wait_for(timeout=WAIT)
        if number % 2:
            self.white[1].get_by_role("button", name="Next round").click()
            self.white[0].get_by_text("Your team is ready already").wait_for(timeout=WAIT)
            self.black[0].get_by_text("Waiting for: Black to press Next round").wait_for(timeout=WAIT)
            self.black[0].get_by_role("button", name="Next round").click()
        else:
            self.host.get_by_role("button", name="Next round").click()
        for page in (self.host, *self.phones):
            page.get_by_text(f"Game {game} · round {number + 1} of 8").wait_for(timeout=WAIT)

    def close(self) -> None:
        for context in self.contexts:
            context.close()
        self.host.close()


def test_a_split_table_plays_two_whole_games_by_the_buttons(browser, live_server, live_app):
    """Game 1 to the end of round 8, won on points; game 2, with the same seats, to the keyword tiebreak with a
    lenient match and the host's "count it". Rounds 1, 2 and 8 of game 1 and game 2's tiebreak go by the buttons
    (an odd round whose phones press Next round, an even one with an interception whose host screen does, the last
    round and its ending); the rounds between are played on the server while the screens follow live."""
    table = Table(browser, live_server, app=live_app)
    table.join_split()
    # A joined phone can switch teams in the lobby, and back.
    table.black[1].get_by_role("button", name="Switch to White").click()
    table.black[1].get_by_role("heading", name="You play for White, seat 3.").wait_for(timeout=WAIT)
    table.black[1].get_by_role("button", name="Switch to Black").click()
    table.black[1].get_by_role("heading", name="You play for Black, seat 2.").wait_for(timeout=WAIT)
    table.start()
    # Black's encryptor is told of its own turn, not White's.
    assert "White's encryptor is looking" not in table.black[0].locator(".turn-banner").inner_text()
    # A second browser cannot join a team once the game has started.
    spy = browser.new_context(**PHONE).new_page()
    spy.goto(table.links[0])
    spy.get_by_text("Nobody can join now. Ask the host for a link.").wait_for(timeout=WAIT)
    spy.context.close()

    table.round(1, 1)
    # Round 1's reveal on the host: the code and White's guess of it in the history.
    history = table.host.locator("#play .history")
    history.get_by_text(table.codes["white"]).first.wait_for(timeout=WAIT)
    table.round(2, 1, intercept={"white": 2}, shots=True, ready=False)
    # Round 2's reveal on every screen: both codes, the interception guess that matched, the token it won.
    for page in [table.host, *table.phones]:
        reveal = page.locator("#play section.reveal")
        reveal.get_by_text("White intercepted Black's code.").wait_for(timeout=WAIT)
        for code in table.codes.values():
            reveal.locator("h3 .code", has_text=code).first.wait_for(timeout=WAIT)
    shot(table.host, "host-reveal", ("en", "fa", "ja"))
    shot(table.black[0], "phone-reveal", ("en", "fa", "el"))
    table.next_round(2, 1)
    table.quiet_rounds(range(3, 8), 1)
    table.round(8, 1)
    ending = "White wins on points (interceptions minus miscommunications): 1 to 0."
    for page in [table.host, *table.phones]:
        page.get_by_text(ending).wait_for(timeout=WAIT)
    shot(table.host, "host-end-points", ("en", "fa", "el", "ja"))
    shot(table.black[0], "phone-end-points", ("en", "fa"))

    # "Next game" keeps everyone's seat and name; the host starts it.
    table.host.get_by_role("button", name="Next game").click()
    table.host.get_by_text("Game 2").first.wait_for(timeout=WAIT)
    table.black[1].get_by_role("heading", name="You play for Black, seat 2.").wait_for(timeout=WAIT)
    table.start()
    table.quiet_rounds(range(1, 9), 2)
    table.host.get_by_text("Eight rounds are over with equal points").wait_for(timeout=WAIT)
    white_words, black_words = table.keywords("white"), table.keywords("black")
    # White: keyword 1 as a plural in capitals (matched), keyword 2 near enough for the table to count it.
    guesses = {"white": [black_words[0].upper() + "S", "near miss", "", ""],
               "black": [white_words[0], "", "", ""]}
    for team, phone in (("white", table.white[0]), ("black", table.black[1])):
        for index, word in enumerate(guesses[team], start=1):
            phone.get_by_label(f"Keyword {index}").fill(word)
        phone.get_by_role("button", name="Send our keyword guesses").click()
    table.host.get_by_text("Draw: the keyword tiebreak ends 1 to 1.").wait_for(timeout=WAIT)
    answers = table.host.locator("#play .keyword-answers")
    answers.get_by_text(black_words[0].upper() + "S").wait_for()
    table.host.get_by_role("button", name="Count it").click()
    for page in [table.host, *table.phones]:
        page.get_by_text("White wins the keyword tiebreak: 2 to 1.").wait_for(timeout=WAIT)
    table.white[1].get_by_text("yes, counted by the table").wait_for(timeout=WAIT)
    shot(table.host, "host-end-keywords", ("en", "fa"))
    shot(table.white[1], "phone-end-keywords", ("en", "fa"))
    table.close()


def test_the_encryptors_code_shows_only_while_held(browser, live_server):
    table = Table(browser, live_server, split=False)
    for phone, link, name in zip(table.phones, table.links, ["Ana", "Ben", "Chloé", "Dev"]):
        phone.goto(link)
        phone.get_by_label("Your name at the table").fill(name)
        phone.get_by_role("button", name=re.compile("Join")).click()
        phone.locator("#play .keywords li").nth(3).wait_for(timeout=WAIT)
    # Every seat's phone joined: their codes are gone from the shared screen until asked for. A phone holds its
    # seat from its page's first live update, which may come just after its keywords show: reload until then.
    hang = time.monotonic() + WAIT / 1000  # bounds a hang only
    table.host.reload()
    while table.host.locator("a.phone-link").count():
        assert time.monotonic() < hang, "the shared screen still shows seat codes of joined phones"
        table.host.wait_for_timeout(200)
        table.host.reload()
    assert table.host.locator("a.phone-link").count() == 0
    table.host.get_by_role("link", name="Show every seat's code again (to move a player to a new phone)").click()
    table.host.locator("a.phone-link").nth(3).wait_for(state="attached")  # the click waits only for the page to start loading
    assert table.host.locator("a.phone-link").count() == 4
    encryptor = table.white[0]
    table.encrypt(encryptor, ["x1", "x2", "x3"])
    code = encryptor.locator("#play .my-code")
    assert not code.is_visible()
    encryptor.locator("#play details.peek summary").hover()
    encryptor.mouse.down()
    code.wait_for(state="visible", timeout=WAIT)
    encryptor.mouse.up()
    code.wait_for(state="hidden", timeout=WAIT)
    # The seat's link on a new phone asks first; taking over moves the seat there, and the first phone is told.
    new_phone = browser.new_context(**PHONE).new_page()
    new_phone.goto(table.links[0])
    new_phone.get_by_role("heading", name="This seat is open on another phone").wait_for(timeout=WAIT)
    assert new_phone.locator(".keyword").count() == 0
    new_phone.get_by_role("button", name="Take this seat over on this phone").click()
    new_phone.locator("#play .keywords li").nth(3).wait_for(timeout=WAIT)
    encryptor.get_by_role("heading", name="This seat is open on another phone").wait_for(timeout=WAIT)
    assert encryptor.locator(".keyword").count() == 0
    new_phone.context.close()
    table.close()


def test_the_host_plays_a_seat_with_no_phone(browser, live_server):
    table = Table(browser, live_server, split=False)
    for phone, link in zip(table.white, table.links[:2]):  # Black's players have no phones
        phone.goto(link)
        phone.get_by_role("button", name=re.compile("Join")).click()
        phone.locator("#play .keywords li").nth(3).wait_for(timeout=WAIT)
    host = table.host
    white_code = table.encrypt(table.white[0], ["w1", "w2", "w3"])
    host.get_by_text("Waiting for:").wait_for(timeout=WAIT)
    # The seat the table waits for is offered first; the host plays it on this screen.
    host.locator(".host-seats li", has_text="Black: Seat 1").get_by_role("link").click()
    host.get_by_role("heading", name="You play for Black, seat 1.").wait_for(timeout=WAIT)
    black_code = table.encrypt(host, ["b1", "b2", "b3"])
    host.get_by_role("link", name="Back to the table screen").click()
    table.guess(table.white[1], "white", white_code)
    host.get_by_text("Waiting for: Black's guess").wait_for(timeout=WAIT)
    host.locator(".host-seats li", has_text="Black: Seat 2").get_by_role("link").click()
    host.get_by_role("heading", name="You play for Black, seat 2.").wait_for(timeout=WAIT)
    table.guess(host, "black", black_code)
    # The reveal: the seat played here is ready for Black; White's phone is ready for White.
    host.get_by_role("heading", name="Round 1: the codes revealed").wait_for(timeout=WAIT)
    host.get_by_role("button", name="Next round").click()
    host.get_by_text("Your team is ready already").wait_for(timeout=WAIT)
    host.get_by_role("link", name="Back to the table screen").click()
    host.get_by_text("Waiting for: White to press Next round").wait_for(timeout=WAIT)
    table.white[1].get_by_role("button", name="Next round").click()
    host.get_by_text("Game 1 · round 2 of 8").wait_for(timeout=WAIT)
    table.white[0].get_by_text("Game 1 · round 2 of 8").wait_for(timeout=WAIT)
    table.close()


def test_joining_by_the_buttons_without_javascript(browser, live_server):
    """The same table with JavaScript off: plain form posts join, switch teams, start and guess by the pickers."""
    table = Table(browser, live_server, javascript=False)
    table.join_split()
    table.black[1].get_by_role("button", name="Switch to White").click()
    table.black[1].get_by_role("heading", name="You play for White, seat 3.").wait_for(timeout=WAIT)
    table.black[1].get_by_role("button", name="Switch to Black").click()
    table.host.reload()
    table.host.get_by_role("button", name="Start the game").click()
    for phone in table.phones:
        phone.reload()
    white_code = table.encrypt(table.white[0], ["n1", "n2", "n3"])
    table.white[1].reload()
    table.guess(table.white[1], "white", white_code)
    table.host.reload()
    table.host.locator("#play .history").get_by_text(white_code).first.wait_for(timeout=WAIT)
    table.close()


def test_a_late_live_answer_never_undoes_the_phones_own_move(browser, live_server):
    """The flake of issue 33, forced: a long poll sent before a phone's move answers after the move's own answer
    was drawn. Its fragment (the table before the move, or the same version again) must not be swapped in: the
    older one would bring back the clue form the phone just sent, and either would replace the buttons under
    the player's finger (a tap lost between press and release)."""
    table = Table(browser, live_server, split=False)
    phone = table.white[0]
    held, holding = [], [False]

    def live(route):
        if holding[0]:
            held.append(route)
        else:
            route.continue_()

    phone.route(re.compile(r"/live(\?|$)"), live)
    for teammate, link in zip(table.white, table.links[:2]):
        teammate.goto(link)
        teammate.get_by_role("button", name=re.compile("Join")).click()
        teammate.locator("#play .keywords li").nth(3).wait_for(timeout=WAIT)
    phone.get_by_role("link", name="It is my turn to encrypt: show my code").click(timeout=WAIT)
    phone.get_by_role("button", name="Show my code").click(timeout=WAIT)
    phone.locator("#clue1").wait_for(timeout=WAIT)

    def held_requests(count: int) -> None:
        hang = time.monotonic() + WAIT / 1000  # bounds a hang only
        while len(held) < count:
            assert time.monotonic() < hang, "the page sent no live request"
            phone.wait_for_timeout(50)

    # From here the phone's live requests wait in `held`. Black's encryptor (played on the shared screen) looks
    # at its code: the phone's waiting request answers that as ever, and its next one is held.
    holding[0] = True
    host = table.host
    host.locator(".host-seats li", has_text="Black: Seat 1").get_by_role("link").click()
    host.get_by_role("link", name="It is my turn to encrypt: show my code").click(timeout=WAIT)
    host.get_by_role("button", name="Show my code").click(timeout=WAIT)
    held_requests(1)
    before = phone.evaluate("document.getElementById('play').outerHTML")
    assert 'class="clues-form"' in before
    for index in range(1, 4):
        phone.locator(f"#clue{index}").fill(f"late {index}")
    phone.get_by_role("button", name="Give these clues").click()
    phone.locator("#play details.peek").wait_for(timeout=WAIT)
    phone.evaluate("document.getElementById('play').dataset.drawn = 'by the move'")
    # The held request's answer, drawn before the move, arrives now: dropped (the page asks again at once).
    held[0].fulfill(status=200, body=before, content_type="text/html", headers={"Cache-Control": "no-store"})
    held_requests(2)
    assert phone.locator("#play form.clues-form").count() == 0
    assert phone.locator("#play details.peek").count() == 1
    # The same version again, as a live answer woken by this very move: dropped too, the buttons stay put.
    now = phone.evaluate("document.getElementById('play').outerHTML")
    held[1].fulfill(status=200, body=now, content_type="text/html", headers={"Cache-Control": "no-store"})
    held_requests(3)
    assert phone.evaluate("document.getElementById('play').dataset.drawn") == "by the move"
    # A newer version is swapped in as ever: the phone moves on when Black's encryptor gives clues.
    holding[0] = False
    held[2].continue_()
    for index in range(1, 4):
        host.locator(f"#clue{index}").fill(f"b{index}")
    host.get_by_role("button", name="Give these clues").click()
    phone.get_by_text("Waiting for: White's guess").wait_for(timeout=WAIT)
    assert phone.evaluate("document.getElementById('play').dataset.drawn") is None
    table.close()
