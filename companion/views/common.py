"""Pieces the blueprints share: loading a game from a URL, phone URLs, diagrams."""

from __future__ import annotations

from flask import current_app, render_template, request, url_for
from flask_babel import gettext

from ..diagram import board_svg
from ..game import Game, GameCodeError, load_game
from ..game.hexgrid import hex_row_col
from ..game.text import code_error_text, hex_label, terrain_letter
from ..network import lan_address, phone_base_url
from ..tokens import seat_token


class GameNotFound(Exception):
    """A code in a URL that names no game; rendered as a 404 page with the engine's message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def game_or_404(code: str) -> Game:
    try:
        return load_game(code)
    except GameCodeError as exc:
        raise GameNotFound(code, code_error_text(exc.reason, exc.params, gettext)) from None


def render_game_not_found(error: GameNotFound):
    from ..errors import wants_json
    from ..forms import LoadCodeForm

    if wants_json():
        from flask import jsonify

        return jsonify(error=error.message, status=400), 400
    form = LoadCodeForm(data={"code": error.code})
    return render_template("error.html", status=404, message=error.message, load_form=form), 404


def phone_base() -> tuple[str, bool]:
    """(base URL for QR codes, whether phones can probably reach it)."""
    configured = current_app.config.get("PUBLIC_URL")
    lan = None if configured else lan_address()
    base = phone_base_url(request.host_url, configured, lan)
    reachable = bool(configured) or "localhost" not in base and "127.0.0.1" not in base and "[::1]" not in base
    return base, reachable


def seat_url(base: str, code: str, seat: int) -> str:
    return base + url_for("seats.seat", token=seat_token(code, seat))


def hex_name(game: Game, index: int) -> str:
    row, col = hex_row_col(index)
    return hex_label(row, col, game.board.cell(index)[0], gettext)


def setup_diagram(game: Game, **options) -> str:
    return board_svg(
        game.board,
        title=gettext("Setup diagram for game %(code)s", code=game.code),
        description=gettext("Six tiles in three rows of two. The numbered steps list every tile and structure in words."),
        letters=map_letters(),
        **options,
    )


def map_letters() -> dict[str, str]:
    """The terrain letters of the reader's language."""
    return {terrain: terrain_letter(terrain, gettext) for terrain in ("forest", "desert", "swamp", "mountain", "water")}
