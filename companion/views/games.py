"""The host's screens: setup diagram and steps, QR codes, shared-device clues, hint, next game, reveal."""

from __future__ import annotations

from flask import Blueprint, Flask, redirect, render_template, url_for
from flask_babel import gettext

from ..errors import error_response
from ..forms import AgreeForm, NextGameForm, ShowClueForm
from ..cryptid import Game, NoHabitatLeft, next_game
from ..cryptid.hexgrid import hex_row_col
from ..cryptid.table import REVEAL, TILE_HINT, UnknownStep, check_step
from ..cryptid.text import TERRAIN_NAMES, clue_text, hint_text, no_habitat_left_text, seat_name
from ..qr import qr_svg
from ..security import mark_private
from ..table_state import StepNotOpen, TableState, load_state, unlock
from .common import (
    GameNotFound,
    board_context,
    game_or_404,
    phone_base,
    render_game_not_found,
    seat_url,
    setup_diagram,
)
from .table import after_action, latest_unlocked, panel_response, render_panel, step_error, unlocked_content, wants_fragment

bp = Blueprint("games", __name__, url_prefix="/games")


def init_app(app: Flask) -> None:
    app.register_error_handler(GameNotFound, render_game_not_found)


def _setup_page(game: Game, status: int = 200, **forms):
    base, reachable = phone_base()
    state = load_state(game)
    seats = []
    for seat in range(1, game.players + 1):
        url = seat_url(base, game.code, seat)
        seats.append({"number": seat, "name": seat_name(seat, gettext), "url": url, "qr": qr_svg(url)})
    context = {
        "game": game,
        **board_context(game),
        "seats": seats,
        "phone_base": base,
        "phones_can_reach": reachable,
        "panel": host_panel(game, state, agree_forms=forms.get("agree_forms")),
        "news": latest_unlocked(game, state),
        "next_form": forms.get("next_form") or NextGameForm(players=game.players),
        "clue_form": ShowClueForm(),
        "next_error": forms.get("next_error"),
    }
    return render_template("game/setup.html", **context), status


@bp.get("/<code>")
def setup(code: str):
    game = game_or_404(code)
    if code != game.code:
        return redirect(url_for("games.setup", code=game.code), 301)
    return _setup_page(game)


@bp.get("/<code>/print")
def print_view(code: str):
    game = game_or_404(code)
    return render_template("game/print.html", game=game, **board_context(game))


def host_panel(game: Game, state: TableState | None = None, agree_forms: dict | None = None) -> str:
    return render_panel(
        game,
        state or load_state(game),
        seat=None,
        poll_url=url_for("games.table", code=game.code),
        action=lambda step, withdraw=False: url_for("games.unlock_step", code=game.code, step=step),
        host_form=lambda step: (agree_forms or {}).get(step) or AgreeForm(prefix=step),
    )


@bp.get("/<code>/table")
def table(code: str):
    """The table panel alone, for the page's script to poll (304 while nothing changed)."""
    game = game_or_404(code)
    state = load_state(game)
    return panel_response(lambda: host_panel(game, state), state, None)


@bp.post("/<code>/unlock/<step>")
def unlock_step(code: str, step: str):
    """The host screen's "the table agrees": unlock a step without phones voting."""
    game = game_or_404(code)
    form = AgreeForm(prefix=step)
    try:
        check_step(step)
        if not form.validate_on_submit():
            return _setup_page(game, 400, agree_forms={step: form})
        state = unlock(game, step)
    except (UnknownStep, StepNotOpen) as exc:
        return step_error(exc)
    if step == REVEAL and not wants_fragment():
        return redirect(url_for("games.reveal", code=game.code), 303)
    return after_action(lambda: host_panel(game, state), url_for("games.setup", code=game.code))


@bp.get("/<code>/reveal")
def reveal(code: str):
    game = game_or_404(code)
    if REVEAL not in load_state(game).unlocked:
        return error_response(403, gettext("The table has not agreed to reveal the habitat yet. Agree on the game's page first."))
    mark_private()
    clues = [
        {"name": seat_name(s, gettext), "texts": [clue_text(c, gettext) for c in game.seat_clues(s)]}
        for s in range(1, game.players + 1)
    ]
    row, col = hex_row_col(game.habitat)
    terrain = gettext(TERRAIN_NAMES[game.board.cell(game.habitat)[0]])
    return render_template(
        "game/reveal.html",
        game=game,
        clues=clues,
        hint=hint_text(game.hint, gettext),
        tile_hint=unlocked_content(game, TILE_HINT)["text"],
        habitat={"row": row + 1, "col": col + 1, "terrain": terrain},
        diagram=setup_diagram(game, habitat=game.habitat),
        next_form=NextGameForm(players=game.players),
    )


@bp.post("/<code>/next")
def next_one(code: str):
    game = game_or_404(code)
    form = NextGameForm()
    if not form.validate_on_submit():
        return _setup_page(game, 400, next_form=form)
    try:
        following = next_game(game, form.players.data)
    except NoHabitatLeft as exc:
        return _setup_page(game, 409, next_form=form, next_error=no_habitat_left_text(exc.used, gettext))
    return redirect(url_for("games.setup", code=following.code), 303)


@bp.post("/<code>/clue")
def shared_clue(code: str):
    """One shared device: first ask who is looking, then show that seat's clue, then hide it again."""
    game = game_or_404(code)
    form = ShowClueForm()
    if not form.validate_on_submit() or form.seat.data > game.players:
        return redirect(url_for("games.setup", code=game.code, _anchor="shared"), 303)
    seat = form.seat.data
    confirmed = form.confirmed.data == "yes"
    if confirmed:
        mark_private()
    return render_template(
        "game/shared_clue.html",
        game=game,
        seat=seat,
        name=seat_name(seat, gettext),
        form=ShowClueForm(seat=seat, confirmed="yes"),
        texts=[clue_text(c, gettext) for c in game.seat_clues(seat)] if confirmed else None,
    )
