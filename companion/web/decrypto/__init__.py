"""Decrypto on the web: a new table, the host's shared screen, the join page, each player's phone and the help
page, with each table's setup stored beside the shared tables and its moves in the shared move log."""

from __future__ import annotations

from flask import Flask

from . import models  # noqa: F401 (the table, created with the others)


def init_app(app: Flask) -> None:
    from . import views

    app.register_blueprint(views.bp)
