"""Every language complete, placeholders intact, catalogs compiled; every page follows its phone's language."""

from __future__ import annotations

import gettext as stdlib_gettext
import io
import re
import unicodedata

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from companion.cryptid import CLUES, load_game
from companion.cryptid.text import CLUE_TEXTS, TERRAIN_LETTERS, TERRAIN_NAMES
from companion.web.core.i18n import LANGUAGES, RIGHT_TO_LEFT
from tests.helpers import GOLDEN, REPO
from tests.web.cryptid.test_pages import seats_of

TRANSLATIONS = REPO / "companion" / "translations"
TEMPLATE = read_po(open(TRANSLATIONS / "messages.pot", "rb"))
TRANSLATED = [language for language in LANGUAGES if language != "en"]
PLACEHOLDER = re.compile(r"%\(\w+\)s|\{\w+\}")


def catalog(language: str):
    with open(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po", "rb") as handle:
        return read_po(handle, locale=language)


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def test_the_template_is_current():
    """messages.pot holds exactly the texts the code marks (re-extract with the README's pybabel command)."""
    from babel.messages.extract import extract_from_dir

    method_map = [("companion/**.py", "python"), ("templates/**.html", "jinja2")]
    keywords = {"N_": None, "_l": None, "_": None, "gettext": None, "ngettext": (1, 2), "lazy_gettext": None}
    root = TRANSLATIONS.parents[1]
    found = set()
    for _, _, message, _, _ in extract_from_dir(root, method_map, keywords=keywords):
        if message and not (isinstance(message, str) and not message.strip()):
            found.add(message if isinstance(message, str) else tuple(message))
    template = {m.id for m in TEMPLATE if m.id}
    assert found - template == set(), "texts missing from messages.pot"
    assert template - found == set(), "stale texts in messages.pot"


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_text_is_translated_without_fuzzy_entries_or_broken_placeholders(language):
    translations = catalog(language)
    problems = []
    for message in TEMPLATE:
        if not message.id:
            continue
        entry = translations.get(message.id)
        if entry is None:
            problems.append(f"missing: {message.id!r}")
            continue
        if entry.fuzzy:
            problems.append(f"fuzzy: {message.id!r}")
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        if not all(s.strip() for s in strings):
            problems.append(f"untranslated: {message.id!r}")
            continue
        expected = placeholders(ids[-1])
        for s in strings:
            # A plural form may spell out its number instead of using it (e.g. "one player").
            found = placeholders(s)
            if found != expected and not (len(ids) > 1 and found == expected - {"%(num)s"}):
                problems.append(f"placeholders {sorted(found)} != {sorted(expected)} in {s!r}")
    assert problems == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_compiled_catalogs_match_their_sources(language):
    translations = catalog(language)
    compiled = io.BytesIO()
    write_mo(compiled, translations)
    compiled.seek(0)
    fresh = stdlib_gettext.GNUTranslations(compiled)
    with open(TRANSLATIONS / language / "LC_MESSAGES" / "messages.mo", "rb") as handle:
        shipped = stdlib_gettext.GNUTranslations(handle)
    assert fresh._catalog == shipped._catalog, "run: pybabel compile -d companion/translations"


def test_every_language_has_a_catalog_and_only_those():
    shipped = {p.name for p in TRANSLATIONS.iterdir() if p.is_dir()}
    assert shipped == set(TRANSLATED)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_each_seat_page_speaks_its_phones_language(client, language):
    code = GOLDEN[-2]["code"]  # advanced, 5 players
    game = load_game(code)
    links = seats_of(client, code)
    client.set_cookie("lang", language)
    translations = catalog(language) if language != "en" else None
    for seat in (1, 3):
        page = client.get(links[seat - 1]).get_data(as_text=True)
        assert f'<html lang="{language}" dir="{"rtl" if language in RIGHT_TO_LEFT else "ltr"}">' in page
        for clue in game.seat_clues(seat):
            english = CLUE_TEXTS[clue.id]
            expected = translations.get(english).string if translations else english
            assert expected in page
        assert 'dir="ltr" translate="no">' + code in page  # codes stay in Latin letters


def test_first_visit_follows_accept_language_and_the_choice_is_remembered(client):
    page = client.get("/", headers={"Accept-Language": "el-GR,el;q=0.9,en;q=0.5"}).get_data(as_text=True)
    assert '<html lang="el" dir="ltr">' in page
    response = client.get("/language", query_string={"lang": "fa", "next": "/help/play"})
    assert response.status_code == 303 and response.headers["Location"] == "/help/play"
    page = client.get("/help/play", headers={"Accept-Language": "el"}).get_data(as_text=True)
    assert '<html lang="fa" dir="rtl">' in page


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)", ""])
def test_the_switcher_never_redirects_off_site(client, target):
    response = client.get("/language", query_string={"lang": "de", "next": target})
    assert response.headers["Location"] == "/"


def test_engine_messages_are_translated(client):
    client.set_cookie("lang", "de")
    page = client.get("/load", query_string={"code": "ABC"}).get_data(as_text=True)
    assert "dieser hat nur 3" in page


def test_the_diagram_uses_the_languages_terrain_letters(client):
    client.set_cookie("lang", "de")
    page = client.get(f"/games/{GOLDEN[1]['code']}").get_data(as_text=True)
    assert ">Wa</text>" in page and ">Wü</text>" in page


def test_all_clue_texts_are_marked_for_translation():
    assert set(CLUE_TEXTS) == {clue.id for clue in CLUES}


def folded(text: str) -> str:
    """Lower case without accents: έρημος and Ε, Wüste and Wü compare as they read."""
    return "".join(c for c in unicodedata.normalize("NFD", text.casefold()) if not unicodedata.combining(c))


def is_abbreviation(letters: str, word: str) -> bool:
    """"Βο" for βουνό, "Ws" for Wasser: the word's first letter, then letters in the word's order."""
    rest = iter(word[1:])
    return letters[:1] == word[:1] and all(letter in rest for letter in letters[1:])


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_map_letter_begins_the_word_the_language_uses_for_its_terrain(language):
    translations = catalog(language)
    letters = {}
    for terrain in TERRAIN_NAMES:
        word = translations.get(TERRAIN_NAMES[terrain]).string
        letters[terrain] = translations.get(TERRAIN_LETTERS[terrain]).string
        assert is_abbreviation(folded(letters[terrain]), folded(word)), (terrain, letters[terrain], word)
    assert len(set(letters.values())) == len(letters)


def test_a_checked_hex_gets_no_punctuation_from_another_language(client):
    code = GOLDEN[2]["code"]
    link = seats_of(client, code)[0]
    client.set_cookie("lang", "ja")
    page = client.get(link, query_string={"hex": 5}).get_data(as_text=True)
    answer = re.search(r'<div class="answer[^"]*" id="check"[^>]*>(.*?)</div>', page, re.S).group(1)
    assert re.fullmatch(r"<strong>F1：[^<.]+</strong> <span>[^<.]+。</span>", answer)  # "F1" as on the board's edges


def test_names_are_listed_the_way_each_language_lists_them(client):
    code = GOLDEN[2]["code"]
    links = seats_of(client, code)
    for link in links[:2]:
        client.post(link + "/votes/hint")
    client.set_cookie("lang", "ja")
    assert "希望者：Player 1、Player 2" in client.get(links[3]).get_data(as_text=True).replace("プレイヤー", "Player ")



@pytest.mark.parametrize(
    "source",
    [
        '{{ _("Asking: %(names)s", names="<b>Ann & Bo</b>") }}',  # placeholders escaped, the translation trusted
        '{{ _("Row %(n)s", n=3) }}',
        '{{ _("100%% sure, %(n)d times", n=7) }}',  # a percent sign, and a number format
        '{{ _("Tap to hide") }}',
        '{{ ngettext("%(num)s player", "%(num)s players", 1) }} {{ ngettext("%(num)s player", "%(num)s players", 3) }}',
        '{{ gettext("Skip to content") ~ "<" }}',
    ],
)
def test_templates_translate_and_escape_exactly_like_jinjas_newstyle_gettext(app, source):
    """The templates' own faster gettext keeps Jinja's contract: the output of Jinja's newstyle gettext."""
    from flask_babel import get_translations
    from jinja2 import Environment

    with app.test_request_context("/", headers={"Cookie": "lang=el"}):
        app.preprocess_request()
        jinja = Environment(extensions=["jinja2.ext.i18n"], autoescape=True)
        jinja.install_gettext_translations(get_translations(), newstyle=True)
        expected = jinja.from_string(source).render()
        assert app.jinja_env.from_string(source).render() == expected
        assert "&lt;" in expected or "Ann" not in source


def test_local_digits_writes_numbers_in_the_readers_digits(app):
    from companion.web.core.i18n import language_digits, local_digits

    for language, expected in (("fa", "ردیف ۷، ستون ۱۲"), ("en", "ردیف 7، ستون 12"), ("ja", "ردیف 7، ستون 12")):
        with app.test_request_context(headers={"Accept-Language": language}):
            assert local_digits("ردیف 7، ستون 12") == expected
            assert local_digits(1234567890) == ("۱۲۳۴۵۶۷۸۹۰" if language == "fa" else "1234567890")
            assert language_digits()[7] == ("۷" if language == "fa" else "7")


def test_persian_numbers_take_persian_signs_and_names_keep_their_latin_digits(app):
    """Persian digits (not the Arabic-Indic ٤٥٦), percent sign and decimal separator; a hex name (D7), a game code
    or a typed name with digits inside a sentence keeps its Latin digits, as on the box."""
    from companion.web.core.i18n import local_digits

    with app.test_request_context(headers={"Accept-Language": "fa"}):
        assert local_digits("4 5 6") == "۴ ۵ ۶" and not set("٠١٢٣٤٥٦٧٨٩") & set(local_digits("0123456789"))
        assert local_digits("50%, 7 %, 2.5 bits") == "۵۰٪, ۷ ٪, ۲٫۵ bits"
        assert local_digits("Ben asked D7 and L9 in game NQY6G-C47W8, move 12.") == \
            "Ben asked D7 and L9 in game NQY6G-C47W8, move ۱۲."
        assert local_digits("R2D2 4-2-1") == "R2D2 ۴-۲-۱"
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert local_digits("50%, 2.5, D7") == "50%, 2.5, D7"


@pytest.mark.parametrize("language", ["fa", "en", "ja"])
def test_translated_texts_fill_in_numbers_in_the_readers_digits(app, language):
    """gettext's numbers, the templates' and those the engines fill in themselves with format or %: Persian digits
    in Persian, 0-9 elsewhere; strings (names, hexes, codes) as they are."""
    from companion.web.core.i18n import gettext, ngettext

    def digits(text: str) -> str:
        return text.translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")) if language == "fa" else text

    def isolated(text: str) -> str:  # a right-to-left sentence isolates what it is filled with (U+2068 ... U+2069)
        return f"\u2068{text}\u2069" if language == "fa" else text

    with app.test_request_context(headers={"Accept-Language": language}):
        app.preprocess_request()
        assert gettext("%(name)s: %(n)s of %(m)d", name="D7", n=3, m=12) == isolated("D7") + digits(": 3 of 12")
        assert gettext("{seat} at {hex}").format(seat=4, hex="B2") == digits("4") + " at " + isolated("B2")
        # A Latin name and a hex side by side keep their own order in a Persian sentence ("Ana E2 را جست‌وجو کرد").
        assert gettext("{name} {hex}").format(name="Ana", hex="E2") == isolated("Ana") + " " + isolated("E2")
        assert gettext("%(share).1f %(who)s") % {"share": 2.25, "who": "A1"} == digits("2.2") .replace(".", "٫" if language == "fa" else ".") + " " + isolated("A1")
        assert gettext("%(n)s%% sure") % {"n": 40} == digits("40") + "% sure"
        assert ngettext("%(num)s player", "%(num)s players", 3) == digits("3") + " players" or language != "en"
        page = app.jinja_env.from_string('{{ _("Rank %(rank)s of %(n)d", rank=2, n=5) }} {{ 7|digits }} {{ true }}').render()
        assert page == digits("Rank 2 of 5 7") + " True"
