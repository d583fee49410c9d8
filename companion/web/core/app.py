"""The Flask application factory (flaskr style): configuration, extensions, the games' blueprints, headers, errors.

The core knows no game: every package beside core/ in companion.web is a game's web part with an
`init_app(app)` that registers its blueprints, and the factory finds them.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from types import ModuleType

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from . import (
    assets,
    claims,
    compression,
    computers,
    db,
    errors,
    fairshare,
    i18n,
    live,
    ratelimit,
    security,
    store,
)
from .config import (
    MAX_REQUEST_BODY,
    environment_settings,
    instance_folder,
    secret_key,
    site_folder,
)
from .forms import csrf


def create_app(test_config: dict | None = None) -> Flask:
    """Build the site. Settings come from defaults, then COMPANION_* environment variables, then test_config.

    The instance folder (secret key, SQLite database) is instance_folder(). DATABASE_URL (or the DATABASE_URL
    setting) selects PostgreSQL instead of SQLite. Under `serve`, every worker process calls this after it
    starts, so whatever the site starts (threads, pools, connections) belongs to that process.
    """
    app = Flask(
        __name__,
        instance_path=str(instance_folder()),
        instance_relative_config=True,
        template_folder=str(site_folder("templates")),
        static_folder=None,  # served by core/assets.py, minified
    )
    # Jinja's default template cache is an LRU under one lock, taken for every template a page renders or
    # imports; under load hundreds of threads queued on it. The site has a few dozen templates: a plain dict.
    app.json = BoundedJSONProvider(app)
    # A block tag's own line and indentation are not part of the page: phones are sent markup, not blank lines.
    app.jinja_options = {**app.jinja_options, "cache_size": -1, "trim_blocks": True, "lstrip_blocks": True}
    app.config.from_mapping(
        PUBLIC_URL=None,  # e.g. https://cryptid.example.org when phones reach the site through a proxy
        WTF_CSRF_TIME_LIMIT=None,  # a game night can run for hours; the session cookie still binds the token
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        SEND_FILE_MAX_AGE_DEFAULT=3600,
        MAX_CONTENT_LENGTH=MAX_REQUEST_BODY,
        PURGE_AFTER_DAYS=30,  # a game's votes and unlocks go after this many idle days
        TRUST_PROXY=0,  # how many reverse proxies in front may set X-Forwarded-* headers
    )
    app.config.update(environment_settings())
    if test_config:
        app.config.update(test_config)
    os.makedirs(app.instance_path, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = secret_key(app.instance_path)

    compression.init_app(app)  # first, so that it sees every response last
    fairshare.init_app(app)  # wraps the site before security's proxy fix wraps it, so it counts phones' addresses
    csrf.init_app(app)
    games = game_packages()  # imported before the database starts, so that their tables are created with it

    assets.init_app(app, site_folder("static"))
    i18n.init_app(app)
    db.init_app(app)
    store.init_app(app)
    live.init_app(app)
    security.init_app(app)
    claims.init_app(app)
    ratelimit.init_app(app)
    errors.init_app(app)
    for game in games:
        game.init_app(app)
    computers.init_app(app)  # after the games registered their computer players
    ratelimit.check_every_route_spends_a_budget(app)  # after every route is there
    return app


class BoundedJSONProvider(DefaultJSONProvider):
    """Flask's JSON, where a body nested too deep to parse (a few kilobytes of brackets) is invalid JSON like any
    other (ValueError: get_json answers 400 or None) rather than a RecursionError."""

    def loads(self, s: str | bytes, **kwargs):
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise ValueError("JSON nested too deep") from None


def import_site() -> None:
    """Import every module the site is built from, and build nothing: no thread, file or connection. A server
    that forks its workers does it once before, and each worker starts with the modules loaded."""
    game_packages()


def game_packages() -> list[ModuleType]:
    """Each game's web part: every package beside core/ in companion.web, in name order. They are found, not
    named, so that a new game plugs in by adding its folder, and this core imports none of them."""
    web = importlib.import_module(__package__.rpartition(".")[0])
    names = sorted(info.name for info in pkgutil.iter_modules(web.__path__) if info.ispkg and info.name != "core")
    return [importlib.import_module(f"{web.__name__}.{name}") for name in names]
