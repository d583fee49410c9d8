"""A player's phone: their clue (hidden until tapped), their area, checking a hex, and the table's votes."""

from __future__ import annotations

from flask import Blueprint, render_template, request, url_for

from companion.cryptid.agreement import REVEAL, UnknownStep
from companion.cryptid.hexgrid import HEX_COUNT
from companion.cryptid.text import HEX_LABEL, clue_text, seat_name
from companion.web.core.i18n import gettext, language_digits
from companion.web.core.moves import after_action
from companion.web.core.ratelimit import acts
from companion.web.core.security import mark_private
from companion.web.cryptid.agreement import (
    StepNotOpen,
    cast_vote,
    load_agreement,
    withdraw_vote,
)
from companion.web.cryptid.head import read_head

from .common import hex_labels, hex_name, map_letters, seat_game
from .diagram import board_svg
from .panel import (
    latest_unlocked,
    panel_response,
    seat_panel,
    step_error,
)
from .refereed import settle_reveal
from .tables import web_of

bp = Blueprint("seats", __name__, url_prefix="/s")


def _checked_hex() -> int | None:
    """The hex a no-JS "check a hex" link names; anything else (junk, huge numbers) is ignored."""
    value = request.args.get("hex", "")
    if not (value.isascii() and value.isdigit() and len(value) <= 3):
        return None
    return int(value) if int(value) < HEX_COUNT else None


@bp.get("/<token>")
def seat(token: str):
    game, seat_number = seat_game(token)
    mark_private()
    head = read_head(game.code)
    state = load_agreement(game, head)
    if head.refereed:
        return web_of(head).seat_page(token, game, seat_number, head)
    allowed = game.allowed(seat_number)
    checked = _checked_hex()
    check = None
    if checked is not None:
        check = {"name": hex_name(game, checked), "disc": bool(allowed >> checked & 1)}
    area_map = board_svg(
        game.board,
        title=gettext("Your map: tap a hex to check it against your clue"),
        letters=map_letters(),
        marked=allowed,
        selected=checked,
        hex_href="?hex={}",
        css_class="seat-map",
        digits=language_digits(),
        textures=False,  # the page's 30 KB budget: the letters and colours name the terrains here
    )
    return render_template(
        "cryptid/seat.html",
        game=game,
        seat=seat_number,
        name=seat_name(seat_number, gettext),
        clues=[clue_text(c, gettext) for c in game.seat_clues(seat_number)],
        area_map=area_map,
        hex_labels=hex_labels(),
        check=check,
        hex_name_template=gettext(HEX_LABEL),
        panel=seat_panel(token, game, seat_number, state),
        news=latest_unlocked(game, state),
    )


@bp.get("/<token>/table")
def table(token: str):
    """The table panel alone, for the page's script to long-poll (panel_response)."""
    game, seat_number = seat_game(token)
    mark_private()
    return panel_response(game, lambda state: seat_panel(token, game, seat_number, state), seat_number)


@bp.post("/<token>/votes/<step>")
@acts
def vote(token: str, step: str):
    return _change_vote(token, step, cast_vote)


@bp.post("/<token>/votes/<step>/withdraw")
@acts
def withdraw(token: str, step: str):
    return _change_vote(token, step, withdraw_vote)


def _change_vote(token: str, step: str, change):
    game, seat_number = seat_game(token)
    mark_private()
    try:
        state = change(game, seat_number, step)
    except (UnknownStep, StepNotOpen) as exc:
        return step_error(exc)
    if REVEAL in state.unlocked:
        settle_reveal(game)
    return after_action(lambda: seat_panel(token, game, seat_number, state), url_for("seats.seat", token=token))
