"""The public view of a game, reachable with its code alone: the board, the steps, the print page, the
table's tallies and, once the table agreed, the reveal. Nothing here shows a clue or acts for anyone."""

from __future__ import annotations

from flask import Blueprint, Flask, redirect, render_template, url_for

from companion.cryptid import NoHabitatLeft
from companion.cryptid.agreement import REVEAL
from companion.cryptid.text import no_habitat_left_text
from companion.web.core.errors import error_response
from companion.web.core.i18n import gettext
from companion.web.cryptid.agreement import load_agreement
from companion.web.cryptid.head import read_head

from .common import (
    GameNotFound,
    board_context,
    game_or_404,
    next_game_for,
    render_game_not_found,
    reveal_context,
)
from .panel import latest_unlocked, panel_response, render_panel
from .tables import web_of

bp = Blueprint("games", __name__, url_prefix="/games")


def init_app(app: Flask) -> None:
    app.register_error_handler(GameNotFound, render_game_not_found)


def public_panel(game, state=None) -> str:
    return render_panel(game, state or load_agreement(game), seat=None, poll_url=url_for("games.table", code=game.code))


@bp.get("/<code>")
def setup(code: str):
    game = game_or_404(code)
    if code != game.code:
        return redirect(url_for("games.setup", code=game.code), 301)
    head = read_head(game.code)
    state = load_agreement(game, head)
    if head.refereed:
        return web_of(head).public_page(game, head, lambda: public_panel(game, state))
    return render_template(
        "cryptid/game/setup.html", game=game, host=None, **board_context(game), panel=public_panel(game, state),
        news=latest_unlocked(game, state),
    )


@bp.get("/<code>/print")
def print_view(code: str):
    game = game_or_404(code)
    return render_template("cryptid/game/print.html", game=game, back_url=url_for("games.setup", code=game.code), **board_context(game))


@bp.get("/<code>/table")
def table(code: str):
    """The table panel alone, for the page's script to long-poll (panel_response)."""
    game = game_or_404(code)
    return panel_response(game, lambda state: public_panel(game, state), None)


@bp.get("/<code>/reveal")
def reveal(code: str):
    game = game_or_404(code)
    if REVEAL not in load_agreement(game).unlocked:
        return error_response(403, gettext("The table has not agreed to reveal the habitat yet. Agree on the game's page first."))
    return render_template("cryptid/game/reveal.html", **reveal_context(game), next_url=url_for("games.next_one", code=game.code))


@bp.get("/<code>/next")
def next_one(code: str):
    """The public view of the next game on the same map, for a second screen following the table."""
    game = game_or_404(code)
    try:
        following = next_game_for(game)
    except NoHabitatLeft as exc:
        return error_response(409, no_habitat_left_text(exc.used, gettext))
    return redirect(url_for("games.setup", code=following.code), 303)
