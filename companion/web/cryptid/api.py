"""JSON API: the public part of a game, and a seat's own clues. Errors are JSON too."""

from __future__ import annotations

from flask import Blueprint, abort, jsonify, request, url_for

from companion.cryptid import ADVANCED, NORMAL, markers
from companion.cryptid.play import (
    OVER,
    PLAYER_COUNTS,
    IllegalMove,
    Move,
    hex_from_row_col,
)
from companion.cryptid.text import clue_text, illegal_move_text
from companion.cryptid.view import view
from companion.web.core.i18n import gettext
from companion.web.core.live import wait_for_change
from companion.web.core.network import phone_base
from companion.web.core.ratelimit import acts, deals
from companion.web.core.security import mark_private
from companion.web.core.store import Conflict
from companion.web.cryptid.tokens import host_token

from . import markers as markers_web
from .common import game_or_404, seat_game, seat_url
from .computers import LEVEL_NAMES, computer_seats, computers_json
from .dealing import dealer
from .head import read_head
from .models import CLASSIC, MARKERS, VARIANTS
from .notebook import notebook_json, seat_notebook
from .play import COMPUTER_SEAT
from .refereed import create_refereed, has_solver, is_refereed, load_play, submit
from .review import game_review, review_json

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


# Refereed play (docs/cryptid-play.md section 8) -----------------------------------------------------------------------------

def _json_body() -> dict:
    """The request's JSON object; a 400 with a sentence for anything else."""
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadJson(gettext("The body must be a JSON object."))
    return data


class BadJson(Exception):
    """A request body the API cannot read: answered 400 with the message."""


@bp.errorhandler(BadJson)
def _bad_json(error: BadJson):
    return jsonify(error=str(error)), 400


def _play_view(game, state, seat=None) -> dict:
    """docs/cryptid-play.md section 8.6: the viewer's state, each seat with its computer player's level (null for a
    person), the solver's figures for the seat at a table that chose the solver (as `notebook`, its name before the
    notebook that keeps the books; null otherwise, and once the game is over), and the
    after-game review once it is over (null before)."""
    seen = view(state, seat, gettext)
    data = computers_json({"code": game.code} | seen.to_json(), computer_seats(game.code))
    if seat is not None:
        running = seen.phase not in ("lobby", OVER)
        data["notebook"] = notebook_json(seat_notebook(game, seen) if running and has_solver(game) else None)
    data["review"] = review_json(game_review(game, state))
    return data


def _computers(value, players: int) -> dict[int, str]:
    """The request's "computers": [{"seat": S, "level": L}, ...], as {seat: level}; BadJson for anything else."""
    if value is None:
        return {}
    problem = gettext('"computers" must be a list of {"seat": S, "level": L}, L one of %(levels)s, '
                      'one per computer seat, leaving at least one seat to a person.',
                      levels=", ".join(f'"{level}"' for level in LEVEL_NAMES))
    if not isinstance(value, list):
        raise BadJson(problem)
    levels = {}
    for entry in value:
        if (not isinstance(entry, dict) or set(entry) != {"seat", "level"} or type(entry["seat"]) is not int
                or not 1 <= entry["seat"] <= players or not isinstance(entry["level"], str)
                or entry["level"] not in LEVEL_NAMES or entry["seat"] in levels):
            raise BadJson(problem)
        levels[entry["seat"]] = entry["level"]
    if len(levels) >= players:
        raise BadJson(problem)
    return levels


@bp.post("/tables")
@deals
def create_table():
    """A refereed game on a new map, started at once: its code, the host's and public URLs and the seats'."""
    data = _json_body()
    players, advanced = data.get("players"), data.get("advanced", False)
    variant = data.get("variant", CLASSIC)
    if variant not in VARIANTS:
        raise BadJson(gettext('"variant" must be "classic" or "markers".'))
    counts = markers.PLAYER_COUNTS if variant == MARKERS else PLAYER_COUNTS
    if (type(players) is not int or players not in counts or not isinstance(advanced, bool)
            or set(data) - {"players", "advanced", "solver", "notebook", "computers", "variant"}):
        raise BadJson(gettext('Send {"players": 2, 3 or 4, "advanced": true or false, "variant": "markers"}.')
                      if variant == MARKERS else gettext('Send {"players": 3, 4 or 5, "advanced": true or false}.'))
    # "notebook" is the solver's name from before the notebook that keeps the books: old clients keep what they chose.
    for option in ("solver", "notebook"):
        if not isinstance(data.get(option, False), bool):
            raise BadJson(gettext('"%(option)s" must be true or false.', option=option))
    computers = _computers(data.get("computers"), players)
    game = dealer().new_game(players, ADVANCED if advanced else NORMAL)
    create_refereed(game, start=True, solver=data.get("solver", False) or data.get("notebook", False), computers=computers, variant=variant)
    base, _ = phone_base()
    body = {
        "code": game.code,
        "variant": variant,
        "host_url": base + url_for("host.screen", token=host_token(game.code)),
        "public_url": base + url_for("games.setup", code=game.code),
        # A computer seat has no link: nobody is to play it.
        "seats": [{"seat": s, "computer": computers[s]} if s in computers else
                  {"seat": s, "computer": None, "url": seat_url(base, game.code, s)} for s in range(1, players + 1)],
    }
    mark_private()
    return jsonify(body), 201


def _refereed_or_404(game):
    if not is_refereed(game):
        abort(404)
    return game


def _wait_param() -> int | None:
    value = request.args.get("wait", "")
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 6 else None


def _state_after_wait(game, seat):
    """The state, long-polled with ?wait=V: answers once the version is no longer V (or after ~25 s)."""
    known = _wait_param()
    if known is not None:
        wait_for_change(game.code, str(known), lambda: str(load_play(game).version))
    return load_play(game)


@bp.get("/tables/<code>/play")
def table_play(code: str):
    game = _refereed_or_404(game_or_404(code))
    if read_head(game.code).markers:  # the canonical code: the URL's may be in lower case or lack its dash
        return jsonify(markers_web.api_state(game, None, _wait_param()))
    return jsonify(_play_view(game, _state_after_wait(game, None)))


@bp.get("/seats/<token>/play")
def seat_play(token: str):
    game, seat = seat_game(token)
    _refereed_or_404(game)
    mark_private()
    if read_head(game.code).markers:
        return jsonify(markers_web.api_state(game, seat, _wait_param()))
    return jsonify(_play_view(game, _state_after_wait(game, seat), seat))


@bp.post("/seats/<token>/play")
@acts
def seat_move(token: str):
    game, seat = seat_game(token)
    _refereed_or_404(game)
    mark_private()
    data = _json_body()
    if read_head(game.code).markers:
        return markers_web.api_submit(game, seat, data)
    version = data.get("version")
    if version is not None and type(version) is not int:
        raise BadJson(gettext('"version" must be a whole number.'))
    move = api_move(seat, {k: v for k, v in data.items() if k != "version"})
    if seat in computer_seats(game.code):
        return jsonify(error=str(COMPUTER_SEAT)), 409
    try:
        state = submit(game, move, version)
    except IllegalMove as exc:
        return jsonify(error=illegal_move_text(exc.reason, exc.params, gettext)), 409
    except Conflict as exc:
        return jsonify(error=illegal_move_text("stale_version", {}, gettext), state=_play_view(game, exc.state, seat)), 409
    return jsonify(_play_view(game, state, seat))


def api_move(seat: int, data: dict) -> Move:
    """The move a docs/cryptid-play.md request body names for this seat; BadJson (400) when the body is malformed.

    The actions and their fields are API_FIELDS'; the sentences of a 400 count rows and columns from 0, as the
    body does."""
    action = data.get("action")
    if not isinstance(action, str) or action not in API_FIELDS:  # a list or an object cannot name an action
        raise BadJson(gettext('"action" must be one of: %(actions)s.', actions=", ".join(API_FIELDS)))
    extra = set(data) - API_FIELDS[action]
    if extra:
        raise BadJson(gettext("Unknown fields: %(fields)s.", fields=", ".join(sorted(map(str, extra)))))
    body = {"action": action, "seat": seat}
    if "hex" in API_FIELDS[action]:
        hex_ = data.get("hex")
        if not isinstance(hex_, dict) or set(hex_) != {"row", "col"} or not all(type(hex_[k]) is int for k in ("row", "col")):
            raise BadJson(gettext('"hex" must be {"row": R, "col": C} with whole numbers.'))
        try:
            hex_from_row_col(hex_["row"], hex_["col"])
        except IllegalMove:
            raise BadJson(gettext('"hex" must be on the board: "row" from 0 to 8 and "col" from 0 to 11.')) from None
        body |= hex_
    if "seat" in API_FIELDS[action]:
        if type(data.get("seat")) is not int:
            raise BadJson(gettext('"seat" must be the number of the player you ask.'))
        body |= {"target": data["seat"]} if action == "ask" else {"voter": seat, "seat": data["seat"]}
    if action == "name":
        if not isinstance(data.get("name"), str):
            raise BadJson(gettext('"name" must be a text.'))
        body["name"] = data["name"]
    try:
        return Move.from_json(body)
    except ValueError:
        raise BadJson(gettext("That move did not make sense. Tap a hex on the board, then choose what to do.")) from None


# The fields each action takes in a request body (besides "version").
API_FIELDS = {
    "cube": {"action", "hex"},
    "ask": {"action", "hex", "seat"},
    "search": {"action", "hex"},
    "disc": {"action", "hex"},
    "leave": {"action"},
    "name": {"action", "name"},
    "vote_gone": {"action", "seat"},
    "withdraw_gone": {"action", "seat"},
}
