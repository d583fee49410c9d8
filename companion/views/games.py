"""The host's screens: setup diagram and steps, QR codes, shared-device clues, hint, next game, reveal."""

from __future__ import annotations

from flask import Blueprint, Flask, redirect, render_template, url_for

from ..forms import AgreeForm, NextGameForm, ShowClueForm
from ..game import Game, NoHabitatLeft, next_game
from ..game.table import agreement_needed
from ..game.text import MODE_NAMES, clue_text, hint_text, seat_name
from ..qr import qr_svg
from ..security import mark_private
from .common import GameNotFound, game_or_404, hex_name, phone_base, render_game_not_found, seat_url, setup_diagram

bp = Blueprint("games", __name__, url_prefix="/games")


def init_app(app: Flask) -> None:
    app.register_error_handler(GameNotFound, render_game_not_found)


def _setup_page(game: Game, status: int = 200, **forms):
    base, reachable = phone_base()
    seats = []
    for seat in range(1, game.players + 1):
        url = seat_url(base, game.code, seat)
        seats.append({"number": seat, "name": seat_name(seat), "url": url, "qr": qr_svg(url)})
    context = {
        "game": game,
        "mode_name": MODE_NAMES[game.mode],
        "diagram": setup_diagram(game),
        "tile_steps": game.tile_steps(),
        "structure_steps": game.structure_steps(),
        "seats": seats,
        "phone_base": base,
        "phones_can_reach": reachable,
        "needed": agreement_needed(game.players),
        "hint_form": forms.get("hint_form") or AgreeForm(prefix="hint"),
        "reveal_form": forms.get("reveal_form") or AgreeForm(prefix="reveal"),
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
    return render_template(
        "game/print.html",
        game=game,
        mode_name=MODE_NAMES[game.mode],
        diagram=setup_diagram(game),
        tile_steps=game.tile_steps(),
        structure_steps=game.structure_steps(),
    )


def _refused(game: Game, prefix: str):
    """None when the table's agreement box was ticked, else the setup page showing why not (400)."""
    form = AgreeForm(prefix=prefix)
    if form.validate_on_submit():
        return None
    return _setup_page(game, 400, **{f"{prefix}_form": form})


@bp.post("/<code>/hint")
def hint(code: str):
    game = game_or_404(code)
    if refusal := _refused(game, "hint"):
        return refusal
    mark_private()
    return render_template("game/hint.html", game=game, hint=hint_text(game.hint))


@bp.post("/<code>/reveal")
def reveal(code: str):
    game = game_or_404(code)
    if refusal := _refused(game, "reveal"):
        return refusal
    mark_private()
    clues = [
        {"seat": seat, "name": seat_name(seat), "texts": [clue_text(c) for c in game.seat_clues(seat)]}
        for seat in range(1, game.players + 1)
    ]
    return render_template(
        "game/reveal.html",
        game=game,
        clues=clues,
        hint=hint_text(game.hint),
        habitat=hex_name(game, game.habitat),
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
        return _setup_page(game, 409, next_form=form, next_error=str(exc))
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
        name=seat_name(seat),
        form=ShowClueForm(seat=seat, confirmed="yes"),
        texts=[clue_text(c) for c in game.seat_clues(seat)] if confirmed else None,
    )
