"""Languages: every phone picks its own (cookie), the first visit follows the browser's Accept-Language.

Gettext catalogs live in companion/translations/<lang>/LC_MESSAGES/messages.po (and the compiled .mo).
"""

from __future__ import annotations

import re
from string import Formatter
from urllib.parse import urlsplit

from flask import Blueprint, Flask, g, has_app_context, redirect, request, url_for
from flask_babel import Babel, LazyString, get_locale, get_translations
from flask_babel import gettext as babel_gettext
from jinja2 import pass_context
from markupsafe import Markup, escape
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from .config import PACKAGE

LANGUAGES = {
    "en": "English",
    "es": "Español",
    "pt": "Português",
    "fa": "فارسی",
    "el": "Ελληνικά",
    "fr": "Français",
    "it": "Italiano",
    "ja": "日本語",
    "pl": "Polski",
    "hu": "Magyar",
    "de": "Deutsch",
}
RIGHT_TO_LEFT = {"fa"}
# Languages that write numbers with digits of their own (Persian: U+06F0-U+06F9); the others use 0-9.
NATIVE_DIGITS = {"fa": "۰۱۲۳۴۵۶۷۸۹"}
# Persian also writes its own percent sign and decimal separator (Babel's Persian numbers keep the Latin ones).
_NATIVE_SIGNS = {"fa": {"%": "٪", ".": "٫"}}
_DIGIT_TABLES = {language: str.maketrans("0123456789", digits) | str.maketrans(_NATIVE_SIGNS.get(language, {}))
                 for language, digits in NATIVE_DIGITS.items()}
# A number as a sentence writes it: digits, maybe a decimal part and a percent sign. Digits touching a Latin letter
# are part of a name instead (a hex such as D7, a game code, a name someone typed) and keep their Latin form.
_NUMBER = re.compile(r"(?<![A-Za-z0-9.])[0-9]+(?:\.[0-9]+)?(?![A-Za-z0-9])(?:[ \u00a0\u202f]?%)?")
COOKIE = "lang"
COOKIE_MAX_AGE = 365 * 24 * 3600
# Real browsers send a few dozen characters; parsing a huge header costs seconds of CPU, so read a prefix only.
ACCEPT_LANGUAGE_PREFIX = 256
MAX_NEXT_LENGTH = 512

babel = Babel()
bp = Blueprint("language", __name__)


def select_locale() -> str:
    return language_of(request)


def language_of(asking) -> str:
    """The language for a request (Flask's or a bare werkzeug one): the phone's choice, else its browser's."""
    chosen = asking.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    header = asking.headers.get("Accept-Language", "")[:ACCEPT_LANGUAGE_PREFIX]
    return parse_accept_header(header, LanguageAccept).best_match(list(LANGUAGES)) or "en"


def current_language() -> str:
    return str(get_locale() or "en")


def language_digits() -> str:
    """The ten digits the reader's language writes numbers with."""
    return NATIVE_DIGITS.get(current_language(), "0123456789")


def local_digits(value: object) -> str:
    """`value` as text with the reader's digits (Persian digits, percent sign and decimal separator in Persian,
    unchanged elsewhere): for numbers and sentences with numbers a page shows, never for game codes, addresses or
    form values. Hex names (D7) inside a sentence keep their Latin digit. Also the `digits` filter."""
    text = str(value)
    table = _DIGIT_TABLES.get(current_language())
    return _NUMBER.sub(lambda number: number.group().translate(table), text) if table else text


def left_to_right(text: str) -> str:
    """Latin text (a hex name) isolated inside the reader's sentence when the reader writes right to left, as
    dir="ltr" does in a page: "D7 ۵۰٪" then keeps its order, rather than a number after it joining its run."""
    return f"\u2066{text}\u2069" if current_language() in RIGHT_TO_LEFT else text


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_WRITTEN_NUMBER = re.compile(r"[\d.,٫٬٪%\s]*")


def _isolated(text):
    """A name, a hex or any other text filled into a right-to-left reader's sentence, isolated (U+2068 first
    strong isolate ... U+2069) so that its direction is its own: without it a Latin name and the hex after it
    ("Ana" and "E2") run together into one left-to-right stretch and read in the wrong order."""
    if current_language() not in RIGHT_TO_LEFT or _WRITTEN_NUMBER.fullmatch(str(text)):
        return text  # a number, in any digits, has a place of its own in the reader's sentence
    return f"\u2068{text}\u2069"


class _ReaderFormatter(Formatter):
    """str.format, with the numbers it fills in written in the reader's digits and the rest isolated."""

    def format_field(self, value, format_spec):
        text = format(value, format_spec)
        return local_digits(text) if _is_number(value) else _isolated(text)


_READER_FORMATTER = _ReaderFormatter()


# A placeholder that formats a number (%(n)d, %(share).1f): written out before `%` fills the rest, since the
# reader's digits are no longer a number `%` could format.
_NUMBER_PLACEHOLDER = re.compile(r"(?<!%)%\((\w+)\)([-#0 +]*[0-9]*(?:\.[0-9]+)?[diouxXeEfFgG])")


def _reader_fill(text: str, values):
    """`text % values`, the numbers among the values in the reader's digits, names, codes and hexes isolated."""
    if isinstance(values, dict):
        def written(placeholder: re.Match) -> str:
            value = values.get(placeholder.group(1))
            return local_digits(f"%{placeholder.group(2)}" % value).replace("%", "%%") if _is_number(value) else placeholder.group()

        text = _NUMBER_PLACEHOLDER.sub(written, text)
        values = {key: local_digits(value) if _is_number(value) else _isolated(value) for key, value in values.items()}
    elif isinstance(values, tuple):
        values = tuple(local_digits(value) if _is_number(value) else _isolated(value) for value in values)
    else:
        values = local_digits(values) if _is_number(values) else _isolated(values)
    return str.__mod__(text, values)


class ReaderText(str):
    """A translated text that writes the numbers it is filled with in the reader's digits, and isolates the other
    values in a right-to-left reader's sentence, by `%` or by `format`: the engines fill their sentences
    themselves ("Player {seat}"), so what they put in reaches a Persian reader right with no engine knowing
    about digits or directions."""

    __slots__ = ()

    def format(self, *args, **kwargs) -> str:
        return _READER_FORMATTER.vformat(self, args, kwargs)

    def __mod__(self, values) -> str:
        return _reader_fill(self, values)


@pass_context
def _digits_filter(context, value: object) -> str:
    """The `digits` filter: local_digits, marked as depending on the request so that Jinja never computes it once,
    for every reader, when the template is compiled (`{{ 7|digits }}`)."""
    return local_digits(value)


def _safe_next(target: str | None) -> str:
    """Only paths on this site: never an open redirect, never a header broken by control characters."""
    if not target or len(target) > MAX_NEXT_LENGTH or not target.isprintable() or "\\" in target:
        return url_for("home.index")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return url_for("home.index")
    return target


@bp.get("/language")
def choose():
    """Remember this phone's language and go back to the page it came from."""
    language = request.args.get("lang", "")
    response = redirect(_safe_next(request.args.get("next")), 303)
    if language in LANGUAGES:
        response.set_cookie(COOKIE, language, max_age=COOKIE_MAX_AGE, samesite="Lax", httponly=True, secure=request.is_secure)
    return response


def _template_context() -> dict:
    language = current_language()
    return {
        "languages": LANGUAGES,
        "lang": language,
        "direction": "rtl" if language in RIGHT_TO_LEFT else "ltr",
        "native_digits": language in NATIVE_DIGITS,  # numbers in digits of its own: Latin codes deserve a word
        # Between the items of a line. Persian takes its comma: a middle dot beside a digit reads as a zero (۰).
        "separator": gettext(" · "),
        "current_path": request.full_path.rstrip("?") if request else "/",
    }


def _request_translations():
    """This request's catalog, looked up once: a page asks for it a few hundred times."""
    translations = g.get("translations")
    if translations is None:
        translations = g.translations = get_translations()
    return translations


def _reader_text(text: str) -> str:
    """The text as is where the reader writes 0-9; else a ReaderText, whose placeholders take the reader's digits."""
    return ReaderText(text) if current_language() in NATIVE_DIGITS else text


def gettext(string: str, **variables) -> str:
    """Flask-Babel's gettext, but with the request's catalog looked up once, as the templates do. Numbers among
    the variables, or filled in later with `format` or `%` (as the engines do), come in the reader's digits."""
    text = _reader_text(_request_translations().ugettext(string))
    return text % variables if variables else text


def ngettext(singular: str, plural: str, num: int, **variables) -> str:
    """Flask-Babel's ngettext (the count is also `num` in the text), with the request's catalog; numbers in the
    reader's digits, as gettext."""
    variables.setdefault("num", num)
    return _reader_text(_request_translations().ungettext(singular, plural, num)) % variables


def _catalog_gettext(string: str, **variables) -> str:
    """Flask-Babel's gettext, exactly, but through the request's catalog looked up once (outside an app context,
    Flask-Babel's own): a form's labels and choices are read a hundred times a page."""
    if not has_app_context():
        return babel_gettext(string, **variables)
    text = _request_translations().ugettext(string)
    return text % variables if variables else text


def lazy_gettext(string: str, **variables) -> LazyString:
    """Flask-Babel's lazy_gettext (a text translated each time it is used), at the cost of a dictionary lookup."""
    return LazyString(_catalog_gettext, string, **variables)


def _html_fill(text: str, variables: dict) -> Markup:
    """A translated text (trusted) with its placeholders filled by escaped values, as Jinja's newstyle gettext
    does; numbers in the reader's digits. Text without placeholders skips the formatting altogether."""
    if not variables and "%" not in text:
        return Markup(text)
    values = {k: v if _is_number(v) else escape(v) for k, v in variables.items()}
    return Markup(_reader_fill(text, values) if current_language() in NATIVE_DIGITS else text % values)


def template_gettext(string: str, **variables) -> Markup:
    """Templates' _() and gettext(): the contract of Jinja's newstyle gettext (placeholders escaped, %% for a
    percent sign) at a fraction of its cost, which a page pays some sixty times."""
    return _html_fill(_request_translations().ugettext(string), variables)


def template_ngettext(singular: str, plural: str, num: int, **variables) -> Markup:
    variables.setdefault("num", num)
    return _html_fill(_request_translations().ungettext(singular, plural, num), variables)


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(PACKAGE / "translations"))
    babel.init_app(app, locale_selector=select_locale)
    # Flask-Babel's template callables find the catalog anew for every text and go through Jinja's wrappers;
    # these reuse the request's catalog and fill placeholders themselves. Every template is HTML (autoescaped),
    # which the Markup they return assumes.
    app.jinja_env.newstyle_gettext = True
    app.jinja_env.globals.update(_=template_gettext, gettext=template_gettext, ngettext=template_ngettext)
    app.jinja_env.filters["digits"] = _digits_filter
    app.context_processor(_template_context)
    app.register_blueprint(bp)

