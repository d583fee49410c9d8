"""Blueprints, one per feature: home (new game, load a code), games (a game's public view), host (the host's screen), seats (a player's
phone), help, and the JSON api."""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    from . import api, games, help, home, host, seats

    for module in (home, games, host, seats, help, api):
        app.register_blueprint(module.bp)
    games.init_app(app)
