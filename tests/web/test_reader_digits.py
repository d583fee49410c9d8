"""Every page of both games, in Persian, at the moments a game night sees them: no number reaches the reader in
Latin digits. Game codes, hex names (D7) and addresses stay Latin, as on the box and as people type them."""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

from companion.decrypto import TEAMS
from companion.web.cryptid.refereed import settle_reveal
from companion.web.cryptid.tokens import host_token
from tests.helpers import GOLDEN
from tests.web.cryptid.test_play import Phone as ApiPhone
from tests.web.cryptid.test_play import play_a_move, referee_state
from tests.web.decrypto.test_views import LINK, Phone, open_table, wrong

LATIN_DIGIT = re.compile(r"[0-9]")
# What stays Latin inside a sentence or a page's title: hex names as the board's edges print them (column letter,
# row digit), and game codes (two groups of five letters and digits), as on the box and as people type them.
AS_WRITTEN = re.compile(r"(?<![A-Za-z0-9])(?:[A-L][1-9]|[0-9A-Z]{5}-[0-9A-Z]{5})(?![A-Za-z0-9])")
# Text a screen reader or a tooltip gives the reader, besides the page's text.
READ_ATTRIBUTES = {"aria-label", "title", "alt", "placeholder", "aria-valuetext"}
UNSEEN = {"script", "style"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class ReaderText(HTMLParser):
    """The text a reader meets on a page (its text and read attributes), without scripts, styles, and what is
    marked to stay as written (translate="no": game codes, hex names) or is an address (a link showing its URL)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.open: list[bool] = []  # per open element: is its text skipped?

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        skipped = (tag in UNSEEN or attributes.get("translate") == "no" or "url" in (attributes.get("class") or "").split()
                   or (tag == "a" and (attributes.get("href") or "").startswith("http")))
        if not skipped and not (self.open and self.open[-1]):
            self.parts += [value for name, value in attrs if name in READ_ATTRIBUTES and value]
        if tag not in VOID:
            self.open.append(skipped or bool(self.open and self.open[-1]))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag not in VOID and self.open:
            self.open.pop()

    def handle_data(self, data):
        if not (self.open and self.open[-1]):
            self.parts.append(data)


def latin_numbers(page: str) -> list[str]:
    """Each bit of the page's reader text that still has a Latin digit, with a little context."""
    reader = ReaderText()
    reader.feed(page)
    found = []
    for part in reader.parts:
        text = AS_WRITTEN.sub("", part)
        for match in LATIN_DIGIT.finditer(text):
            found.append(text[max(0, match.start() - 30):match.end() + 30].strip())
    return found


@pytest.fixture
def app(app):
    app.config.update(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=False)
    return app


def path_of(url: str) -> str:
    return urlsplit(url).path


def signed_host(app, code: str) -> str:
    with app.test_request_context():
        return "/h/" + host_token(code)


def cryptid_pages(app, client) -> list[str]:
    """A box game's pages and a refereed night's: lobby-less tables as the API deals them, mid-game with a sheet
    open, a notebook seat, a game played to its ranks, Markers at play and at the end, the help, errors."""
    fresh = GOLDEN[2]["code"]
    pages = ["/", "/load?code=ABC", "/help/setup", "/help/play", "/help/refereed", "/help/markers", "/nowhere",
             "/games/ZZZZZ-ZZZZZ", f"/games/{fresh}", f"/games/{fresh}/print", f"/games/{fresh}/table",
             signed_host(app, fresh), signed_host(app, fresh) + "/print"]
    box_seat = re.search(r'href="[^"]*(/s/[^"]+)" class="seat-link"', client.get(signed_host(app, fresh)).get_data(as_text=True))
    pages += [box_seat.group(1), box_seat.group(1) + "?hex=40", box_seat.group(1) + "/table"]
    client.post(signed_host(app, fresh) + "/unlock/reveal", data={"reveal-agree": "y"})
    pages += [f"/games/{fresh}/reveal", signed_host(app, fresh) + "/reveal"]
    # A refereed table mid-game, with a sheet open, and a notebook table.
    dealt = client.post("/api/tables", json={"players": 4, "advanced": True}).get_json()
    pages += [path_of(dealt["host_url"]), path_of(dealt["seats"][0]["url"]), path_of(dealt["seats"][0]["url"]) + "?hex=40",
              path_of(dealt["host_url"]) + "/live", f"/games/{dealt['code']}"]
    notebook = client.post("/api/tables", json={"players": 3, "solver": True}).get_json()
    pages += [path_of(notebook["seats"][1]["url"]), path_of(notebook["seats"][1]["url"]) + "?hex=40"]
    # A refereed game played to its end: ranks, reviews, the next game's form.
    played = client.post("/api/tables", json={"players": 3}).get_json()
    phones = [ApiPhone(client, seat["url"]) for seat in played["seats"]]
    rng = random.Random(3)
    for turn in range(400):
        state = referee_state(app, played["code"])
        if state.phase == "over":
            break
        play_a_move(phones[state.turn - 1], state, state.turn, rng, hunt=turn > 18)
    pages += [path_of(played["host_url"]), path_of(played["seats"][0]["url"]), path_of(played["seats"][1]["url"]),
              f"/games/{played['code']}"]
    # Markers: at play with a sheet open, and at the end.
    markers = client.post("/api/tables", json={"players": 3, "variant": "markers"}).get_json()
    pages += [path_of(markers["host_url"]), path_of(markers["seats"][0]["url"]),
              path_of(markers["seats"][0]["url"]) + "?hex=40"]
    ended = client.post("/api/tables", json={"players": 3, "variant": "markers"}).get_json()
    with app.app_context():
        settle_reveal(app.extensions["dealer"].load(ended["code"]))
    pages += [path_of(ended["host_url"]), path_of(ended["seats"][1]["url"])]
    return pages


def decrypto_pages(client) -> tuple[list[str], list[str]]:
    """A Decrypto night: the new-table page, the host screen and a phone in the lobby, in round 1 (the code shown,
    the clues given), in round 2 with tokens on the table, and at the end; the join page of a split table."""
    pages = ["/help/decrypto", "/decrypto/new", "/decrypto/p/junk"]
    split, _ = open_table(client, split="y")
    pages.append(split)
    host, page = open_table(client)
    links = [path_of(url) for url in LINK.findall(page)]
    pages += [host, links[0]]
    phones = {team: [Phone(client, url) for url in links if path_of(url)[22] == team[0]] for team in TEAMS}
    for team in TEAMS:
        for number, phone in enumerate(phones[team], start=1):
            phone.act(action="join", name=NAMES[team][number - 1])  # names and clues without digits of their own
    encryptor = phones["white"][0]
    pages += [host, encryptor.path, encryptor.path + "?do=show"]
    encryptor.act(action="show_code")
    pages += [encryptor.path, host]
    encryptor.act(action="give_clues", typed="yes", **CLUES[1])
    pages += [phones["white"][1].path, host]
    rest, answers = game_pages(client, host, phones)
    return [*pages, *rest], answers


NAMES = {"white": ("Sara", "Omid"), "black": ("Lena", "Ali")}
# Made-up words, so that no clue is ever one of the team's dealt keywords (a warned clue is not sent): "moon",
# "lake", "star" and "sun" are all in the English list, and a deal holding one failed this test now and then.
CLUES = {1: {"clue1": "zorbel", "clue2": "quimple", "clue3": "vextra"},
         2: {"clue1": "drosklin", "clue2": "blintor", "clue3": "frumwick"}}


def decrypto_round(phones, round_number: int, done: tuple[str, ...] = ()) -> None:
    """A round in which every team misreads its own code and intercepts the other's (two rounds end the game);
    `done` are the white encryptor's steps already taken."""
    encryptor = (round_number - 1) % 2
    codes = {}
    for team in TEAMS:
        phone = phones[team][encryptor]
        if team == "black" or "show_code" not in done:
            phone.act(action="show_code")
        if team == "black" or "give_clues" not in done:
            phone.act(action="give_clues", typed="yes", **CLUES[round_number])
        codes[team] = phone.code()
    for target in TEAMS:
        phones[target][1 - encryptor].act(action="guess", target=target, code=wrong(codes[target]), confirm="yes")
        if round_number > 1:
            rival = "white" if target == "black" else "black"
            phones[rival][1 - encryptor].act(action="guess", target=target, code=codes[target], confirm="yes")


def game_pages(client, host: str, phones) -> tuple[list[str], list[str]]:
    """The rest of the Decrypto game: round 2 under way with tokens won, then the end; and the warning a Persian
    encryptor gets for a clue the team gave in round 1."""
    decrypto_round(phones, 1, done=("show_code", "give_clues"))
    client.set_cookie("lang", "fa")
    revealed = phones["black"][1].get()  # round 1's reveal: codes, guesses and tokens
    assert 'class="reveal"' in revealed
    client.set_cookie("lang", "en")
    assert "the codes revealed" in phones["white"][0].act(action="next_round")
    phones["black"][0].act(action="next_round")
    pages = [host, phones["white"][1].path, phones["black"][0].path]
    phones["white"][1].act(action="show_code")
    client.set_cookie("lang", "fa")
    warned = phones["white"][1].act(action="give_clues", typed="yes", **CLUES[1])
    client.set_cookie("lang", "en")
    pages += [host, phones["white"][1].path, phones["white"][1].path + "?do=show", phones["black"][0].path]
    decrypto_round(phones, 2, done=("show_code",))
    return [*pages, host, phones["white"][0].path, phones["black"][1].path], [warned, revealed]


def test_persian_pages_write_every_number_in_persian_digits(app):
    """Every page, in Persian: only codes, hex names and addresses keep Latin digits."""
    client = app.test_client()  # the phone that played every seat sees each seat's own page, secrets and all
    decrypto, answers = decrypto_pages(client)
    pages = cryptid_pages(app, client) + decrypto
    client.set_cookie("lang", "fa")
    found = {f"answer {n}": latin for n, answer in enumerate(answers) if (latin := latin_numbers(answer))}
    seen = []
    for path in pages:
        answer = client.get(path)
        assert answer.status_code in (200, 400, 404), (path, answer.status_code)
        seen.append(answer.get_data(as_text=True))
        if latin := latin_numbers(seen[-1]):
            found[path] = latin
    everything = "".join(seen)
    # The moments the pages were meant to show, with their numbers: ranks at a refereed game's end, default names,
    # Decrypto's rounds, tokens and codes, the player counts to choose from.
    for shown in ("رتبهٔ ۱", "بازیکن ۲", "دور ۲ از ۸", "سوءتفاهم‌ها: ۲", 'class="code" dir="ltr">۱-', "<span>۵</span>",
                  "کلبهٔ"):
        assert shown in everything, shown
    assert re.search(r"[\u0600-\u06ff][^<]{0,60}(?<![A-Za-z])[A-L][1-9]\b", everything)  # a log names a hex: D7
    another = app.test_client()  # a second phone opening a held Decrypto seat is asked before it takes it over
    another.set_cookie("lang", "fa")
    held = next(path for path in pages if path.startswith("/decrypto/p/") and len(path) > 20)
    if latin := latin_numbers(another.get(held).get_data(as_text=True)):
        found["another phone: " + held] = latin
    assert found == {}
