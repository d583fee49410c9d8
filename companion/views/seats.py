"""A player's phone: their clue (hidden until tapped), their area, checking a hex, asking for a hint."""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request

from ..diagram import board_svg
from ..forms import AgreeForm
from ..game import Game
from ..game.hexgrid import HEX_COUNT
from ..game.table import agreement_needed
from ..game.text import clue_text, hint_text, seat_name
from ..security import mark_private
from ..tokens import read_seat_token
from .common import game_or_404, hex_name

bp = Blueprint("seats", __name__, url_prefix="/s")


def seat_game(token: str) -> tuple[Game, int]:
    """The game and seat a token names; 404 for anything not signed by this server."""
    found = read_seat_token(token)
    if found is None:
        abort(404)
    code, seat = found
    return game_or_404(code), seat


def _checked_hex() -> int | None:
    value = request.args.get("check", "")
    return int(value) if value.isdigit() and int(value) < HEX_COUNT else None


def _seat_page(token: str, game: Game, seat: int, *, hint_form=None, show_hint=False, status=200):
    mark_private()
    allowed = game.allowed(seat)
    checked = _checked_hex()
    check = None
    if checked is not None:
        check = {"name": hex_name(game, checked), "disc": bool(allowed >> checked & 1)}
    area_map = board_svg(
        game.board,
        title="Your map: tap a hex to check it against your clue",
        marked=allowed,
        selected=checked,
        hex_href=lambda index: f"?check={index}#check",
        hex_label=lambda index: hex_name(game, index),
        css_class="seat-map",
    )
    return render_template(
        "seat.html",
        game=game,
        token=token,
        seat=seat,
        name=seat_name(seat),
        clues=[clue_text(c) for c in game.seat_clues(seat)],
        area_map=area_map,
        check=check,
        needed=agreement_needed(game.players),
        hint_form=hint_form or AgreeForm(prefix="hint"),
        hint=hint_text(game.hint) if show_hint else None,
    ), status


@bp.get("/<token>")
def seat(token: str):
    game, seat_number = seat_game(token)
    return _seat_page(token, game, seat_number)


@bp.post("/<token>/hint")
def hint(token: str):
    game, seat_number = seat_game(token)
    form = AgreeForm(prefix="hint")
    if not form.validate_on_submit():
        return _seat_page(token, game, seat_number, hint_form=form, status=400)
    return _seat_page(token, game, seat_number, show_hint=True)
