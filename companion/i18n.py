"""Languages: every phone picks its own (cookie), the first visit follows the browser's Accept-Language.

Gettext catalogs live in companion/translations/<lang>/LC_MESSAGES/messages.po (and the compiled .mo).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, Flask, g, redirect, request, url_for
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header
from flask_babel import Babel, get_locale, get_translations

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
COOKIE = "lang"
COOKIE_MAX_AGE = 365 * 24 * 3600
# Real browsers send a few dozen characters; parsing a huge header costs seconds of CPU, so read a prefix only.
ACCEPT_LANGUAGE_PREFIX = 256
MAX_NEXT_LENGTH = 512

babel = Babel()
bp = Blueprint("language", __name__)


def select_locale() -> str:
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    header = request.headers.get("Accept-Language", "")[:ACCEPT_LANGUAGE_PREFIX]
    return parse_accept_header(header, LanguageAccept).best_match(list(LANGUAGES)) or "en"


def current_language() -> str:
    return str(get_locale() or "en")


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
        "current_path": request.full_path.rstrip("?") if request else "/",
    }


def _request_translations():
    """This request's catalog, looked up once: templates ask for it a few hundred times per page."""
    translations = g.get("translations")
    if translations is None:
        translations = g.translations = get_translations()
    return translations


def init_app(app: Flask) -> None:
    babel.init_app(app, locale_selector=select_locale)
    # Flask-Babel's own template callables find the catalog anew for every text; these reuse the request's.
    app.jinja_env.install_gettext_callables(
        lambda text: _request_translations().ugettext(text),
        lambda singular, plural, n: _request_translations().ungettext(singular, plural, n),
        newstyle=True,  # Jinja fills the placeholders (and escapes them) itself
    )
    app.context_processor(_template_context)
    app.register_blueprint(bp)

