"""JSON API: the public part of a game, and a seat's own clues. Errors are JSON too."""

from __future__ import annotations

from flask import Blueprint, abort, jsonify, request, url_for

from companion.cryptid import ADVANCED, NORMAL
from companion.cryptid.play import IllegalMove
from companion.cryptid.text import clue_text
from companion.web.core.i18n import gettext
from companion.web.core.live import wait_for_change
from companion.web.core.network import phone_base
from companion.web.core.ratelimit import acts, deals
from companion.web.core.security import mark_private
from companion.web.core.store import Conflict
from companion.web.cryptid.tokens import host_token

from .common import game_or_404, seat_game, seat_url
from .computers import LEVEL_NAMES, computer_seats
from .dealing import dealer
from .head import TableHead, read_head
from .models import CLASSIC
from .play import COMPUTER_SEAT
from .refereed import create_refereed, load_play, submit
from .tables import BadJson, web_of
from .variants import VARIANTS

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


@bp.errorhandler(BadJson)
def _bad_json(error: BadJson):
    return jsonify(error=str(error)), 400


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
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise BadJson(gettext('"variant" must be "classic" or "markers".'))
    if (type(players) is not int or players not in VARIANTS[variant].player_counts or not isinstance(advanced, bool)
            or set(data) - {"players", "advanced", "solver", "notebook", "computers", "variant"}):
        raise BadJson(str(VARIANTS[variant].json_table_shape))
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


def _refereed_or_404(game) -> TableHead:
    """The head of a refereed table (read with the game's canonical code); 404 for a game the site does not
    referee."""
    head = read_head(game.code)
    if not head.refereed:
        abort(404)
    return head


def _wait_param() -> int | None:
    value = request.args.get("wait", "")
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 6 else None


def _view_after_wait(game, head: TableHead, seat: int | None) -> dict:
    """The viewer's JSON, long-polled with ?wait=V: answers once the version is no longer V (or after ~25 s)."""
    known = _wait_param()
    if known is not None:
        wait_for_change(game.code, str(known), lambda: str(load_play(game).version))
        head = read_head(game.code)
    return web_of(head).view_json(game, load_play(game, head), seat)


@bp.get("/tables/<code>/play")
def table_play(code: str):
    game = game_or_404(code)
    return jsonify(_view_after_wait(game, _refereed_or_404(game), None))


@bp.get("/seats/<token>/play")
def seat_play(token: str):
    game, seat = seat_game(token)
    head = _refereed_or_404(game)
    mark_private()
    return jsonify(_view_after_wait(game, head, seat))


@bp.post("/seats/<token>/play")
@acts
def seat_move(token: str):
    """A seat's move from JSON, for either variant: its view, 400 for a malformed body, 409 for an illegal or stale
    move or a seat a computer plays."""
    game, seat = seat_game(token)
    variant = web_of(_refereed_or_404(game))
    mark_private()
    data = _json_body()
    version = data.pop("version", None)
    if version is not None and type(version) is not int:
        raise BadJson(gettext('"version" must be a whole number.'))
    move = variant.move_from_json(seat, data)
    if seat in computer_seats(game.code):
        return jsonify(error=str(COMPUTER_SEAT)), 409
    try:
        state = submit(game, move, version)
    except IllegalMove as exc:  # either variant's: Markers' refusals are a kind of the classic game's
        return jsonify(error=variant.illegal_text(exc.reason, exc.params, gettext)), 409
    except Conflict as exc:
        return jsonify(error=variant.illegal_text("stale_version", {}, gettext),
                       state=variant.view_json(game, exc.state, seat)), 409
    return jsonify(variant.view_json(game, state, seat))
