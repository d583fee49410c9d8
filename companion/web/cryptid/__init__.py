"""Cryptid on the web: the front page (deal a game, load a code), a game's public pages, the host's screen, the
seats' phones, refereed play, help pages and the JSON api, each a blueprint, with the table's hint votes and
refereed games stored beside the shared tables."""

from __future__ import annotations

from flask import Flask

from companion.web.core.forms import csrf

from . import models  # noqa: F401 (the tables, created with the others)


def init_app(app: Flask) -> None:
    from . import api, computers, dealing, games, help, home, host, markers, play, seats

    dealing.init_app(app)
    for module in (home, games, host, seats, play, markers, help, api):
        app.register_blueprint(module.bp)
    games.init_app(app)
    computers.init_app()  # the core's worker takes their turns
    markers.init_computers()
    # JSON clients send no CSRF token: the API acts only through unguessable seat links, and a browser cannot
    # post JSON to another site without a CORS preflight this site never grants.
    csrf.exempt(api.bp)
