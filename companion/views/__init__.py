"""Blueprints, one per feature: home (new game, load a code), games (a game's public view), host (the host's
screen), seats (a player's phone), play (refereed play's live parts and moves), decrypto (Decrypto tables),
help, and the JSON api."""

from __future__ import annotations

from flask import Flask

from ..app import csrf


def init_app(app: Flask) -> None:
    from . import api, decrypto, games, help, home, host, play, seats

    for module in (home, games, host, seats, play, decrypto, help, api):
        app.register_blueprint(module.bp)
    games.init_app(app)
    # JSON clients send no CSRF token: the API acts only through unguessable seat links, and a browser cannot
    # post JSON to another site without a CORS preflight this site never grants.
    csrf.exempt(api.bp)
