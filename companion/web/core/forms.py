"""Forms for every game: CSRF protection (Flask-WTF) and the base class whose built-in messages come in the
reader's language."""

from __future__ import annotations

from functools import lru_cache

from babel import support
from flask_babel import get_locale
from flask_wtf import FlaskForm
from flask_wtf.csrf import CSRFProtect
from wtforms.i18n import messages_path

csrf = CSRFProtect()


@lru_cache(maxsize=None)
def _wtforms_catalog(locale: str) -> support.Translations:
    return support.Translations.load(messages_path(), [locale], domain="wtforms")


class Form(FlaskForm):
    """Our forms' base. WTForms' own messages ("Not a valid integer value") come in the reader's language from a
    catalog read once per process and language; Flask-WTF would read the file again for every request."""

    class Meta:
        def get_translations(self, form):
            return _wtforms_catalog(str(get_locale()))
