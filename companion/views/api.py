"""JSON API: the public part of a game, and a seat's own clues. Errors are JSON too."""

from __future__ import annotations

from flask import Blueprint, jsonify
from flask_babel import gettext

from ..cryptid.text import clue_text
from ..security import mark_private
from .common import game_or_404
from .seats import seat_game

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/games/<code>")
def game(code: str):
    """Map code, tiles and structures; never the clues, the habitat or the hint."""
    return jsonify(game_or_404(code).to_json(reveal=False))


@bp.get("/seats/<token>")
def seat(token: str):
    found_game, seat_number = seat_game(token)
    mark_private()
    clues = [clue.to_json() | {"text": clue_text(clue, gettext)} for clue in found_game.seat_clues(seat_number)]
    return jsonify(code=found_game.code, seat=seat_number, clues=clues)
