"""Forms for every game: CSRF protection (Flask-WTF) and the base class whose built-in messages come in the
reader's language."""

from __future__ import annotations

from functools import lru_cache

from babel import support
from flask_babel import get_locale
from flask import request
from flask_wtf import FlaskForm
from flask_wtf.form import _Auto
from flask_wtf.csrf import CSRFProtect
from werkzeug.datastructures import ImmutableMultiDict
from wtforms.i18n import messages_path

csrf = CSRFProtect()
SUBMIT_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})  # Flask-WTF's own list of methods that submit


@lru_cache(maxsize=None)
def _wtforms_catalog(locale: str) -> support.Translations:
    return support.Translations.load(messages_path(), [locale], domain="wtforms")


class Form(FlaskForm):
    """Our forms' base. WTForms' own messages ("Not a valid integer value") come in the reader's language from a
    catalog read once per process and language; Flask-WTF would read the file again for every request.

    A form reads form fields only: the pages post forms, and JSON is the API's. Flask-WTF would read a JSON body
    as the form's fields, and a JSON body that is no object (`1`, `[[1]]`) would then raise (a 500): such a
    body is read as a form with no fields, and the form answers what is missing."""

    class Meta:
        def get_translations(self, form):
            return _wtforms_catalog(str(get_locale()))

        def wrap_formdata(self, form, formdata):
            if (formdata is _Auto and request.method in SUBMIT_METHODS and request.is_json and not request.files
                    and not request.form):
                return ImmutableMultiDict()
            return FlaskForm.Meta.wrap_formdata(self, form, formdata)
