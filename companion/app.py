"""The Flask application factory (flaskr style): configuration, extensions, blueprints, headers, errors."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask
from flask_wtf.csrf import CSRFProtect

ROOT = Path(__file__).resolve().parent.parent
csrf = CSRFProtect()


def create_app(test_config: dict | None = None) -> Flask:
    """Build the site. Settings come from defaults, then COMPANION_* environment variables, then test_config.

    The instance folder (secret key, SQLite database) is ./instance, or COMPANION_INSTANCE_PATH.
    DATABASE_URL (or the DATABASE_URL setting) selects PostgreSQL instead of SQLite.
    """
    app = Flask(
        __name__,
        instance_path=os.environ.get("COMPANION_INSTANCE_PATH") or None,
        instance_relative_config=True,
        template_folder=str(ROOT / "templates"),
        static_folder=None,  # served by companion.assets, minified
    )
    app.config.from_mapping(
        PUBLIC_URL=None,  # e.g. https://cryptid.example.org when phones reach the site through a proxy
        WTF_CSRF_TIME_LIMIT=None,  # a game night can run for hours; the session cookie still binds the token
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        SEND_FILE_MAX_AGE_DEFAULT=3600,
        PURGE_AFTER_DAYS=30,  # a game's votes and unlocks go after this many idle days
        TRUST_PROXY=0,  # how many reverse proxies in front may set X-Forwarded-* headers
    )
    app.config.from_prefixed_env("COMPANION")
    if test_config:
        app.config.update(test_config)
    os.makedirs(app.instance_path, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _instance_secret(Path(app.instance_path) / "secret_key")

    csrf.init_app(app)
    from . import assets, db, dealing, errors, i18n, limits, live, security, table_state, views

    assets.init_app(app, ROOT / "static")
    i18n.init_app(app)
    db.init_app(app)
    dealing.init_app(app)
    table_state.init_app(app)
    live.init_app(app)
    security.init_app(app)
    limits.init_app(app)
    errors.init_app(app)
    views.init_app(app)
    return app


def _instance_secret(path: Path) -> str:
    """The key kept in the instance folder, made once, so printed QR codes survive a restart."""
    if path.exists():
        return path.read_text().strip()
    key = secrets.token_hex(32)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        descriptor = os.open(path, flags, 0o600)
    except FileExistsError:  # another process won the race: use its key
        return path.read_text().strip()
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key)
    return key
