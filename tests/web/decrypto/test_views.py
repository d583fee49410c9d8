"""Decrypto through HTTP, as phones and the host screen use it: whole games on SQLite (and PostgreSQL when
TEST_DATABASE_URL names one), what each phone receives, refusals, bad tokens and the next game."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from companion.decrypto import TEAMS, load_words
from companion.web.core.db import MoveRecord, db
from companion.web.core.store import purge_idle
from companion.web.decrypto.models import DecryptoTableRecord

# A Decrypto phone's page with its assets, before compression: 30 KB, and 0.5 KB more since a live update waits
# for a finger's release (app.js), shared by every page.
PHONE_BUDGET = 30_500
KEYWORD = re.compile(r'class="keyword">([^<]+)<')
MY_CODE = re.compile(r'class="my-code"[^>]*>([^<]+)<')
LINK = re.compile(r'class="phone-link" rel="noreferrer" dir="ltr">([^<]+)<')


@pytest.fixture
def app(fresh_database_app):
    """The site on a fresh database (SQLite, and PostgreSQL with TEST_DATABASE_URL), forms posted as by scripts."""
    fresh_database_app.config.update(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=False)
    return fresh_database_app


class Phone:
    """One player's phone: its page path, and every body it received."""

    def __init__(self, client, url: str) -> None:
        self.client = client
        self.path = urlsplit(url).path
        self.received: list[str] = []
        self.asked_for_code: int | None = None  # index in `received` of the answer to its first show_code

    def get(self, query: str = "") -> str:
        response = self.client.get(self.path + query)
        assert response.status_code == 200
        self.received.append(response.get_data(as_text=True))
        return self.received[-1]

    def act(self, status: int = 200, **form) -> str:
        response = self.client.post(self.path + "/play", data=form, headers={"X-Requested-With": "fetch"})
        self.received.append(response.get_data(as_text=True))
        if form.get("action") == "show_code" and self.asked_for_code is None:
            self.asked_for_code = len(self.received) - 1
        assert response.status_code == status, self.received[-1][-600:]
        return self.received[-1]

    def keywords(self) -> list[str]:
        return list(dict.fromkeys(KEYWORD.findall(self.get())))

    def code(self) -> str:
        (code,) = MY_CODE.findall(self.get())
        return code


def open_table(client, **form) -> tuple[str, str]:
    """(host page path, host page) of a new table."""
    data = {"white": "2", "black": "2", "keywords": "site", "language": "en"} | form
    response = client.post("/decrypto/new", data=data)
    assert response.status_code == 303
    host = urlsplit(response.location).path
    page = client.get(host)
    assert page.status_code == 200
    return host, page.get_data(as_text=True)


def seated_table(client, **form) -> tuple[str, dict[str, list[Phone]]]:
    host, page = open_table(client, **form)
    links = LINK.findall(page)
    # A printed link's token starts with the table id (10 characters) and the seat ("w1", "b2").
    phones = {team: [Phone(client, url) for url in links if urlsplit(url).path[22] == team[0]] for team in TEAMS}
    for team in TEAMS:
        for number, phone in enumerate(phones[team], start=1):
            phone.act(action="join", name=f"{team} {number}")
    return host, phones


def wrong(code: str) -> str:
    """A valid code other than `code`."""
    return "1-2-3" if code != "1-2-3" else "3-2-1"


def play_round(phones, round_number: int, black_guesses_wrong: bool) -> None:
    encryptor = (round_number - 1) % 2
    codes = {}
    for team in TEAMS:
        phone = phones[team][encryptor]
        assert "show my code" in phone.get()
        assert "Show my code" in phone.get("?do=show")
        phone.act(action="show_code")
        codes[team] = phone.code()
        phone.act(action="give_clues", typed="yes", clue1=f"{team} r{round_number} a", clue2=f"{team} r{round_number} b",
                  clue3=f"{team} r{round_number} c")
    guesser = {team: phones[team][1 - encryptor] for team in TEAMS}
    for target in TEAMS:
        own = wrong(codes[target]) if target == "black" and black_guesses_wrong else codes[target]
        guesser[target].act(action="guess", target=target, code=own, confirm="yes")
        if round_number > 1:
            rival = "white" if target == "black" else "black"
            guesser[rival].act(action="guess", target=target, code=wrong(codes[target]), confirm="yes")
    ready_for_next_round(phones)


def ready_for_next_round(phones) -> None:
    """After a round's reveal, one phone of each team presses Next round (unless the round ended the game)."""
    for team in TEAMS:
        if 'value="next_round"' in phones[team][0].get():
            phones[team][0].act(action="next_round")


@pytest.mark.postgresql
def test_a_whole_game_to_a_win_and_no_phone_sees_what_it_should_not(app):
    client = app.test_client()
    host, phones = seated_table(client)
    keywords = {team: phones[team][0].keywords() for team in TEAMS}
    assert all(len(words) == 4 for words in keywords.values()) and not set(keywords["white"]) & set(keywords["black"])
    assert set(keywords["white"]) | set(keywords["black"]) <= set(load_words("en"))
    play_round(phones, 1, black_guesses_wrong=True)
    # Before the round's codes are shown, no phone has a code.
    for team in TEAMS:
        assert not MY_CODE.search(phones[team][0].get()) and not MY_CODE.search(phones[team][1].get())
    play_round(phones, 2, black_guesses_wrong=True)
    end = client.get(host).get_data(as_text=True)
    assert "Black loses: two miscommunications. White wins." in end
    assert "Next game" in end and "white r2 b" in end
    # Every response each phone got: never the other team's keywords (until the end shows all), never a code
    # but its encryptor's own between showing and revealing it.
    for team in TEAMS:
        rival = "black" if team == "white" else "white"
        for number, phone in enumerate(phones[team], start=1):
            for body in phone.received:
                if "two miscommunications" not in body:
                    assert not set(KEYWORD.findall(body)) & set(keywords[rival])
            seen = [index for index, body in enumerate(phone.received) if MY_CODE.search(body)]
            assert seen and min(seen) >= phone.asked_for_code  # each seat encrypted once, and asked first
            assert max(len(body.encode()) for body in phone.received) < PHONE_BUDGET


def test_only_the_encryptor_gets_the_code_and_only_after_asking(app):
    client = app.test_client()
    host, phones = seated_table(client)
    encryptor, teammate = phones["white"]
    assert not MY_CODE.search(encryptor.get())
    encryptor.act(action="show_code")
    code = encryptor.code()
    for phone in (teammate, *phones["black"]):
        assert not MY_CODE.search(phone.get()) and code not in phone.received[-1].split("Rounds")[0]
    assert code not in client.get(host).get_data(as_text=True).split("Rounds")[0]


@pytest.mark.parametrize(
    "form, status, sentence",
    [
        ({"action": "show_code"}, 409, "Only this round&#39;s encryptor can do this."),  # seat 2 is not encrypting
        ({"action": "guess", "target": "white", "code": "1-2-3", "confirm": "yes"}, 409, "has not given the clues"),
        ({"action": "guess", "target": "white", "code": "1-1-9", "confirm": "yes"}, 409, "three different digits"),
        ({"action": "guess", "target": "white", "code": "1-2-3"}, 400, "did not make sense"),
        ({"action": "guess", "target": "green", "code": "1-2-3", "confirm": "yes"}, 400, "did not make sense"),
        ({"action": "fly"}, 400, "did not make sense"),
        ({"action": "count_keywords", "right": "x"}, 400, "did not make sense"),
        ({"action": "give_clues", "clue1": "a"}, 409, "Only this round&#39;s encryptor can do this."),
    ],
)
def test_refusals_say_why(app, form, status, sentence):
    client = app.test_client()
    host, phones = seated_table(client)
    body = phones["white"][1].act(status=status, **form)
    assert sentence in body


def test_typed_clues_that_repeat_are_warned_about_then_accepted(app):
    client = app.test_client()
    host, phones = seated_table(client)
    encryptor = phones["white"][0]
    encryptor.act(action="show_code")
    body = encryptor.act(action="give_clues", typed="yes", clue1="sea", clue2="Sea", clue3="ship")
    assert "Clue 2, “Sea”, repeats clue 1 of this round." in body and 'name="anyway"' in body
    body = encryptor.act(action="give_clues", typed="yes", clue1="sea", clue2="Sea", clue3="ship", anyway="yes")
    sheet = client.get(host).get_data(as_text=True)
    assert re.findall(r'<span class="given-clue">([^<]+)</span>', sheet)[:3] == ["sea", "Sea", "ship"]


def test_bad_tokens_are_404(app):
    client = app.test_client()
    host, phones = seated_table(client)
    token = host.rsplit("/", 1)[1]
    player = phones["white"][0].path.rsplit("/", 1)[1]
    for path in (f"/decrypto/p/{token}", f"/decrypto/h/{player}", f"/decrypto/j/{token}", f"/decrypto/h/{token}x",
                 f"/decrypto/p/{player[:-2]}", "/decrypto/h/" + "A" * 80, f"/decrypto/h/{token}/live"[:-5] + "Z/live"):
        assert client.get(path).status_code == 404, path
    assert client.post(f"/decrypto/p/{token}/play", data={"action": "show_code"}).status_code == 404


def test_splitting_at_the_table_with_the_box_cards(app):
    client = app.test_client()
    host, page = open_table(client, split="y", keywords="box")
    (join_url,) = LINK.findall(page)
    phones = []
    for index in range(4):
        response = client.get(urlsplit(join_url).path)
        assert response.status_code == 303
        phones.append(Phone(client, response.location))
        phones[-1].act(action="join", team=TEAMS[index % 2], name=f"P{index}")
    assert client.post(host + "/play", data={"action": "next_game"}).status_code == 409
    assert client.post(host + "/play", data={"action": "start"}).status_code == 303
    body = phones[0].get()
    assert "numbered 1 to 4 from the left" in body and not KEYWORD.search(body)
    assert "show my code" in body
    assert phones[1].act(status=409, action="join", team="white").count("nobody changes teams")


@pytest.mark.postgresql
def test_the_next_game_deals_unseen_keywords_and_purges_go_with_the_table(app):
    client = app.test_client()
    host, phones = seated_table(client)
    first = set(phones["white"][0].keywords()) | set(phones["black"][0].keywords())
    play_round(phones, 1, black_guesses_wrong=True)
    play_round(phones, 2, black_guesses_wrong=True)
    response = client.post(host + "/play", data={"action": "next_game"}, headers={"X-Requested-With": "fetch"})
    assert response.status_code == 200 and "Game 2 · round 1 of 8" in response.get_data(as_text=True)
    # Everyone keeps their seat and name; the encryptor order goes on (seat 2 encrypted last, so seat 1 now).
    assert "You play for Black, seat 2." in phones["black"][1].get() and "black 2" in client.get(host).get_data(as_text=True)
    assert "show my code" in phones["white"][0].get() and "show my code" not in phones["white"][1].get()
    second = set(phones["white"][0].keywords()) | set(phones["black"][0].keywords())
    assert len(second) == 8 and not first & second
    with app.app_context():
        assert purge_idle(-1) == 1
        assert not db.session.query(DecryptoTableRecord).count() and not db.session.query(MoveRecord).count()
    assert client.get(host).status_code == 404


def test_a_phone_page_with_its_assets_keeps_to_the_budget(app):
    from tests.web.cryptid.test_pages import page_weight

    client = app.test_client()
    host, phones = seated_table(client, white="4", black="4")
    phones["white"][0].act(action="show_code")
    assert page_weight(client, phones["white"][0].path) <= PHONE_BUDGET


BRAND = re.compile(r'<a class="brand"[^>]*>.*?>\s*([^<]+?)\s*</a>', re.S)


def test_decrypto_pages_carry_their_own_name_in_the_header(app):
    """A Decrypto table's screens, phones and help say "Decrypto companion" at the top, in the phone's language;
    Cryptid's pages keep theirs."""
    client = app.test_client()
    host, page = open_table(client)
    phone = LINK.findall(page)[0]
    for path in (host, urlsplit(phone).path, "/decrypto/new", "/help/decrypto"):
        assert BRAND.findall(client.get(path).get_data(as_text=True)) == ["Decrypto companion"], path
        greek = client.get(path, headers={"Accept-Language": "el"}).get_data(as_text=True)
        assert BRAND.findall(greek) == ["Βοηθός Decrypto"], path
    for path in ("/", "/help/play", "/help/setup"):
        assert BRAND.findall(client.get(path).get_data(as_text=True)) == ["Cryptid companion"], path


@pytest.mark.postgresql
def test_logs_stored_with_the_old_type_key_still_read_and_new_rows_say_action(app):
    """Rows written before moves were keyed by "action" (docs/decrypto-rules.md section 13) name it "type",
    next_game markers too: a table stored that way still loads, and what it stores from now on says "action"."""
    from companion.decrypto import Join, Seat
    from companion.web.core.store import append_move, load_log
    from companion.web.decrypto.store import create_table, load_table, play

    with app.app_context():
        code = create_table((2, 2), "en", "rulebook")
        old_rows = [
            {"type": "join", "player": "w1", "team": "white", "name": "Ann", "seat": 1},
            {"type": "show_code", "team": "white", "seat": 1},
            {"type": "next_game", "game": 2},
            {"type": "join", "player": "w2", "team": "white", "name": "Ben", "seat": 2},
        ]
        for seq, data in enumerate(old_rows, start=1):
            assert append_move(code, seq, data)
        table = load_table(code)
        assert table.version == 4 and table.state.version == 1  # the moves after the last next_game marker
        assert (table.state.seat_of("w2"), table.state.seat_of("w1")) == (Seat("white", 2), None)
        play(table, Join("w1", "white", "Ann", 1))
        assert load_log(code)[-1] == {"action": "join", "player": "w1", "team": "white", "name": "Ann", "seat": 1}
        assert load_table(code).state.seat_of("w1") == Seat("white", 1)
