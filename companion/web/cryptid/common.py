"""Pieces the blueprints share: loading a game from a URL, phone URLs, diagrams."""

from __future__ import annotations

from functools import lru_cache

from flask import abort, jsonify, render_template, request, url_for
from markupsafe import Markup

from companion.cryptid import Game, GameCodeError
from companion.cryptid.hexgrid import hex_name as board_hex_name
from companion.cryptid.hexgrid import hex_row_col
from companion.cryptid.text import (
    TERRAIN_NAMES,
    clue_text,
    code_error_text,
    hex_label,
    hint_text,
    mode_name,
    seat_name,
    terrain_letter,
    tile_hint_text,
)
from companion.cryptid.tiles import TERRAINS
from companion.web.core.errors import wants_json
from companion.web.core.i18n import (
    current_language,
    gettext,
    language_digits,
)
from companion.web.cryptid.tokens import read_host_token, read_seat_token, seat_token

from .dealing import dealer
from .diagram import board_svg
from .forms import LoadCodeForm


def replay_steps(initial, moves) -> list[int]:
    """The move counts a finished game's replay steps through, for either engine's State: the start, then after
    each move that wrote in the log (names and votes write nothing, so the replay does not stop at them)."""
    steps, position = [0], initial
    for count, move in enumerate(moves, 1):
        following = position.apply(move)
        if len(following.log) > len(position.log):
            steps.append(count)
        position = following
    return steps


def replay_step(over: bool) -> int | None:
    """The replay step a page asks for (?replay=N), once the game is over; None otherwise or for junk."""
    value = request.args.get("replay", "")
    if not over or not (value.isascii() and value.isdigit() and len(value) <= 4):
        return None
    return int(value)


def view_args() -> dict:
    """The query arguments a live fragment keeps (selected hex, replay step, the notebook's open page and its
    check), nothing else."""
    return {key: request.args[key][:8] for key in ("hex", "replay", "nb", "check") if key in request.args}


def kept_args() -> dict:
    """The query arguments a tap on a hex keeps: the notebook's open page."""
    return {key: request.args[key][:8] for key in ("nb",) if key in request.args}


class GameNotFound(Exception):
    """A code in a URL that names no game; rendered as a 404 page with the engine's message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def game_or_404(code: str) -> Game:
    try:
        return dealer().load(code)
    except GameCodeError as exc:
        raise GameNotFound(code, code_error_text(exc.reason, exc.params, gettext)) from None


def seat_game(token: str) -> tuple[Game, int]:
    """The game and seat a seat token names; 404 for anything not signed by this server."""
    found = read_seat_token(token)
    if found is None:
        abort(404)
    code, seat = found
    return game_or_404(code), seat


def host_game(token: str) -> Game:
    """The game a host token names; 404 for anything not signed by this server."""
    code = read_host_token(token)
    if code is None:
        abort(404)
    return game_or_404(code)


def next_game_for(game: Game, players: int | None = None) -> Game:
    """The next game on the same map; raises NoHabitatLeft when the map has no unused habitat."""
    return dealer().next(game, players)


def reveal_context(game: Game) -> dict:
    """Everything the reveal page shows: the habitat on the map, every clue, the hint and the tile."""
    clues = [
        {"name": seat_name(s, gettext), "texts": [clue_text(c, gettext) for c in game.seat_clues(s)]}
        for s in range(1, game.players + 1)
    ]
    return {
        "game": game,
        "clues": clues,
        "hint": hint_text(game.hint, gettext),
        "tile_hint": tile_hint_text(*game.habitat_tile(), gettext),
        # The hex's name and its terrain apart, for the reveal's own whole sentence.
        "habitat": {"name": board_hex_name(game.habitat),
                    "terrain": gettext(TERRAIN_NAMES[game.board.cell(game.habitat)[0]])},
        "diagram": setup_diagram(game, habitat=game.habitat),
        "letters": map_letters(),  # for the map's key
    }


def render_game_not_found(error: GameNotFound):
    if wants_json():
        return jsonify(error=error.message, status=400), 400
    form = LoadCodeForm(data={"code": error.code})
    return render_template("error.html", status=404, message=error.message, load_form=form), 404


def seat_url(base: str, code: str, seat: int) -> str:
    return base + url_for("seats.seat", token=seat_token(code, seat))


def hex_name(game: Game, index: int) -> str:
    """A hex as a sentence names it, in the reader's language and digits."""
    row, col = hex_row_col(index)
    return hex_label(row, col, game.board.cell(index)[0], gettext)


def board_context(game: Game) -> dict:
    """What every page that shows how to lay out the board needs: mode, diagram, key letters and steps."""
    return {
        "mode_name": mode_name(game.mode, gettext),
        "diagram": setup_diagram(game),
        "letters": map_letters(),
        "tile_steps": game.tile_steps(gettext),
        "structure_steps": game.structure_steps(gettext),
    }


def setup_diagram(game: Game, **options) -> str:
    """The board as the table lays it out: tile tabs with the turn in words, structures numbered as in the steps."""
    return board_svg(
        game.board,
        title=gettext("Setup diagram for game %(code)s", code=game.code),
        description=gettext("Six tiles in three rows of two. The numbered steps list every tile and structure in words."),
        letters=map_letters(),
        tile_words=(gettext("upright"), gettext("turned")),
        numbered=True,
        coordinates=True,  # the hex names (E5) the phones and the reveal use, on the edges as on refereed boards
        digits=language_digits(),
        **options,
    )


@lru_cache(maxsize=None)
def _hex_labels(language: str) -> Markup:
    return Markup(render_template("cryptid/game/_hex_labels.html"))


def hex_labels() -> Markup:
    """The hidden names a linked map's hexes point to, in the reader's language: drawn once per language."""
    return _hex_labels(current_language())


def map_letters() -> dict[str, str]:
    """The terrain letters of the reader's language."""
    return {terrain: terrain_letter(terrain, gettext) for terrain in TERRAINS}
