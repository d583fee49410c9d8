"""Refereed play on the web (docs/cryptid-play.md): the seat's phone, the host's shared screen and the public view of a game
the server referees, their live fragments, and the forms that make moves. The rules live in cryptid.play, what
a viewer may see in cryptid.view, the storage in refereed; this module parses, calls them and renders.

Every page of a refereed game shows the same live fragment, drawn from view(state, viewer): a seat sees its own
clue's shading and choices, the host and the public see none. The fragment long-polls (live.wait_for_change) and is swapped in place.
"""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request, url_for
from flask_babel import lazy_gettext

from companion.cryptid import Game
from companion.cryptid.hexgrid import ALL_HEXES, HEX_COUNT
from companion.cryptid.play import (
    OVER,
    PLAYER_COUNTS,
    Ask,
    Cube,
    HostGone,
    IllegalMove,
    Leave,
    Name,
    Search,
    State,
    VoteGone,
    clean_name,
)
from companion.cryptid.text import (
    clue_text,
    illegal_move_text,
    log_entry_text,
    mirror_text,
    pending_text,
)
from companion.cryptid.view import View, view
from companion.web.core.errors import error_response
from companion.web.core.i18n import gettext, language_digits, local_digits
from companion.web.core.live import long_poll_response
from companion.web.core.moves import act
from companion.web.core.network import phone_base
from companion.web.core.qr import qr_svg
from companion.web.core.ratelimit import actions_limit, limiter
from companion.web.core.security import mark_private
from companion.web.core.store import Conflict
from companion.web.cryptid.head import TableHead
from companion.web.cryptid.tokens import seat_token

from .common import (
    game_or_404,
    hex_labels,
    hex_name,
    host_game,
    map_letters,
    seat_game,
    seat_url,
)
from .diagram import board_svg, piece_marks
from .refereed import draw_first, load_moves, load_play, next_refereed_code, submit

bp = Blueprint("play", __name__)

LIVE_TEMPLATE = "cryptid/play/_live.html"
MALFORMED_MOVE = lazy_gettext("That move did not make sense. Tap a hex on the board, then choose what to do.")


def selected_hex() -> int | None:
    """The hex a seat tapped (?hex=N); junk is ignored."""
    value = request.args.get("hex", "")
    if not (value.isascii() and value.isdigit() and len(value) <= 3) or int(value) >= HEX_COUNT:
        return None
    return int(value)


def view_args() -> dict:
    """The query arguments a live fragment keeps (selected hex, intended move, replay step), nothing else."""
    return {key: request.args[key][:8] for key in ("hex", "do", "replay") if key in request.args}


def seat_choices(game: Game, seen: View, hex: int | None) -> list[dict]:
    """The moves the viewing seat may make on the selected hex, each with the sentence its confirm step shows."""
    if hex is None or not seen.to_act:
        return []
    place = hex_name(game, hex)
    choices = []
    if seen.cube_choices >> hex & 1:
        choices.append({"action": "cube", "label": gettext("Place my cube here"),
                        "confirm": gettext("Place your cube on %(place)s?", place=place)})
    for target in seen.ask_targets(hex):
        name = seen.names[target]
        choices.append({"action": "ask", "target": target, "label": gettext("Ask %(name)s", name=name),
                        "confirm": gettext("Ask %(name)s about %(place)s? Their clue answers at once.", name=name, place=place)})
    if seen.search_choices >> hex & 1:
        choices.append({"action": "search", "label": gettext("Search here"),
                        "confirm": gettext("Search %(place)s? Every other player answers in turn; the first cube stops the search.", place=place)})
    return choices


def live_context(game: Game, state: State, *, seat: int | None, live_url: str, act_url: str | None,
                 link: callable, replay: int | None = None) -> dict:
    """What the live fragment shows: status, the board with every piece, the seat's choices, the log, the end.
    Whatever depends on who is looking comes from view(state, seat) alone."""
    seen = view(state, seat, gettext)
    shown = seen  # the position on the board: the game now, or a step of its replay once it is over
    if replay is not None and seen.phase == OVER and replay < seen.version:
        shown = view(State.replay(game, state_moves(state)[:replay]), seat, gettext)
    selected = selected_hex() if seat is not None and replay is None else None
    names = {number: local_digits(name) for number, name in seen.names.items()}  # "Player ۳" in Persian
    return {
        "game": game,
        "state": state,
        "view": seen,
        "replay": replay,
        "seat": seat,
        "names": names,
        # Sentences with numbers in the reader's digits (Persian digits in Persian).
        "status": local_digits(pending_text(state, names, gettext)),
        "your_turn": seen.to_act,
        "selected": selected,
        "selected_name": hex_name(game, selected) if selected is not None else None,
        "choices": seat_choices(game, seen, selected),
        "intent": request.args.get("do") if seat is not None else None,
        "board": _board(game, seen, shown, selected, link, replay),
        "log": [{"n": e.n, "seat": e.seat, "text": local_digits(log_entry_text(e, names, gettext)),
                 "mirror": local_digits(mirror_text(e, game.board, names, gettext) or "") or None} for e in shown.log],
        "results": _results(game, seen) if seen.reveal else None,
        "live_url": live_url,
        "act_url": act_url,
        "link": link,
        "gone_candidates": _gone_candidates(state, seat),
        "etag": live_etag(state, seat),
    }


def _board(game: Game, seen: View, shown: View, selected: int | None, link: callable, replay: int | None) -> str:
    """The board with the pieces of `shown`; for a seat, its clue's shading, its choices and hex links."""
    last = next((e.hex for e in reversed(shown.log) if e.hex is not None), None)
    digits = language_digits()
    return board_svg(
        game.board,
        title=gettext("The board with every player's pieces"),
        letters=map_letters(),
        habitat=seen.reveal.habitat if seen.reveal and replay is None else None,
        selected=selected,
        hex_href=link() + "?hex={}" if seen.seat is not None and shown.phase != OVER else None,
        marked=seen.choices,
        css_class="play-map",
        overlay=piece_marks(shown.discs, shown.cubes, highlight=last, digits=digits),
        shaded=ALL_HEXES & ~seen.allowed if seen.seat is not None else 0,
        coordinates=True,
        digits=digits,
    )


def _results(game: Game, seen: View) -> dict:
    """The end of the game: ranks with every seat's clue, the habitat, the number of moves."""
    ranks = seen.ranks or {}
    rows = [{"seat": s, "name": seen.names[s], "rank": ranks.get(s),
             "clue": " ".join(clue_text(c, gettext) for c in seen.reveal.seat_clues(s))} for s in seen.seats]
    return {"ranks": sorted(rows, key=lambda r: (r["rank"] or 9, r["seat"])),
            "habitat": hex_name(game, seen.reveal.habitat), "moves": seen.version}


def _gone_candidates(state: State, seat: int | None) -> list[dict]:
    """Seats the viewer may mark as gone (every other active seat; the host may mark any)."""
    if state.phase == OVER or (seat is not None and seat in state.left):
        return []
    names = state.display_names(gettext)
    out = []
    for other in state.active_seats:
        if other == seat:
            continue
        voted = seat is not None and seat in state.gone_votes[other - 1]
        out.append({"seat": other, "name": names[other], "voted": voted, "votes": len(state.gone_votes[other - 1])})
    return out


def state_moves(state: State) -> list:
    return load_moves(state.game)


def live_etag(state: State, seat: int | None) -> str:
    return f"play-{state.version}-{seat or 0}"


def render_live(context: dict) -> str:
    return render_template(LIVE_TEMPLATE, **context)


def live_response(game: Game, make_context, seat: int | None):
    """The live fragment, long-polled: waits while the phone's version (If-None-Match) is still current. A game
    the site could never referee (2 players) has none: 404."""
    if game.players not in PLAYER_COUNTS:
        abort(404)
    return long_poll_response(game.code, lambda: load_play(game), lambda state: live_etag(state, seat),
                              lambda state: render_live(make_context(state)))


def play_error(error: IllegalMove | Conflict):
    """409 with the reason in the phone's language."""
    if isinstance(error, Conflict):
        message = illegal_move_text("stale_version", {}, gettext)
    else:
        message = illegal_move_text(error.reason, error.params, gettext)
    return error_response(409, message)


def form_move(seat: int, form) -> object:
    """The move a seat's form names; None for a malformed form (400)."""
    action = form.get("action", "")
    try:
        if action == "name":
            return Name(seat, clean_name(form.get("name", "")[:200]))
        if action == "leave":
            return Leave(seat)
        if action == "vote_gone":
            return VoteGone(seat, _int(form.get("target")))
        hex_index = _int(form.get("hex"))
        if not 0 <= hex_index < HEX_COUNT:
            return None
        if action == "cube":
            return Cube(seat, hex_index)
        if action == "search":
            return Search(seat, hex_index)
        if action == "ask":
            return Ask(seat, _int(form.get("target")), hex_index)
    except ValueError:
        return None
    return None


def _int(value) -> int:
    text = str(value or "")
    if not (text.isascii() and text.isdigit() and len(text) <= 3):
        raise ValueError(text)
    return int(text)


# Pages ---------------------------------------------------------------------------------------------------------

def _replay_step(state: State) -> int | None:
    value = request.args.get("replay", "")
    if state.phase != OVER or not (value.isascii() and value.isdigit() and len(value) <= 4):
        return None
    return min(int(value), state.version)


def seat_context(token: str, game: Game, seat: int, state: State) -> dict:
    def link(**values):
        return url_for("seats.seat", token=token, **values)

    context = live_context(game, state, seat=seat, live_url=url_for("play.seat_live", token=token, **view_args()),
                           act_url=url_for("play.seat_act", token=token), link=link, replay=_replay_step(state))
    following = next_refereed_code(game) if state.phase == OVER else None
    if following:
        context["next_seat_url"] = url_for("seats.seat", token=seat_token(following, seat)) if seat <= game.players else None
    return context


def seat_page(token: str, game: Game, seat: int, panel: str, head: TableHead | None = None):
    context = seat_context(token, game, seat, load_play(game, head))
    seen, selected = context["view"], context["selected"]
    return render_template(
        "cryptid/play/seat.html",
        **context,
        clue=clue_text(seen.clue, gettext),
        check=None if selected is None else {"name": context["selected_name"], "disc": bool(seen.allowed >> selected & 1)},
        token=token,
        panel=panel,
        hex_labels=hex_labels(),
    )


def host_context(token: str, game: Game, state: State) -> dict:
    def link(**values):
        return url_for("host.screen", token=token, **values)

    return live_context(game, state, seat=None, live_url=url_for("play.host_live", token=token, **view_args()),
                        act_url=url_for("play.host_act", token=token), link=link, replay=_replay_step(state))


def host_page(token: str, game: Game, panel: str, head: TableHead | None = None):
    state = load_play(game, head)
    base, reachable = phone_base()
    seats = []
    names = state.display_names(gettext)
    for seat in range(1, game.players + 1):
        url = seat_url(base, game.code, seat)
        seats.append({"number": seat, "name": names[seat], "joined": state.names[seat - 1] is not None,
                      "url": url, "qr": qr_svg(url)})
    own_url = base + url_for("host.screen", token=token)
    return render_template(
        "cryptid/play/host.html",
        **host_context(token, game, state),
        seats=seats,
        phone_base=base,
        phones_can_reach=reachable,
        host={"token": token, "url": own_url, "qr": qr_svg(own_url)},
        panel=panel,
    )


def public_context(game: Game, state: State) -> dict:
    def link(**values):
        return url_for("games.setup", code=game.code, **values)

    return live_context(game, state, seat=None, live_url=url_for("play.public_live", code=game.code, **view_args()),
                        act_url=None, link=link, replay=_replay_step(state))


def public_page(game: Game, panel: str, head: TableHead | None = None):
    return render_template("cryptid/play/public.html", **public_context(game, load_play(game, head)), panel=panel)


# Live fragments and moves --------------------------------------------------------------------------------------

@bp.get("/s/<token>/live")
def seat_live(token: str):
    game, seat = seat_game(token)
    mark_private()
    return live_response(game, lambda state: seat_context(token, game, seat, state), seat)


@bp.get("/h/<token>/live")
def host_live(token: str):
    game = host_game(token)
    mark_private()
    return live_response(game, lambda state: host_context(token, game, state), None)


@bp.get("/games/<code>/live")
def public_live(code: str):
    game = game_or_404(code)
    return live_response(game, lambda state: public_context(game, state), None)


@bp.post("/s/<token>/play")
@limiter.limit(actions_limit)
def seat_act(token: str):
    game, seat = seat_game(token)
    mark_private()
    return act(lambda: form_move(seat, request.form), lambda move: submit(game, move, _version(request.form)),
               lambda state: render_live(seat_context(token, game, seat, state)), url_for("seats.seat", token=token),
               refusals=(IllegalMove,), refused=play_error, malformed=MALFORMED_MOVE)


def host_move(game: Game, form) -> object:
    """The move the host screen's form names: start the game (drawing the first player) or mark a player gone."""
    action = form.get("action")
    if action == "start":
        return draw_first(game)
    if action == "host_gone":
        return HostGone(_int(form.get("target")))
    return None


@bp.post("/h/<token>/play")
@limiter.limit(actions_limit)
def host_act(token: str):
    """The host starts the game (drawing the first player) or marks a vanished player as gone."""
    game = host_game(token)
    mark_private()
    return act(lambda: host_move(game, request.form), lambda move: submit(game, move, _version(request.form)),
               lambda state: render_live(host_context(token, game, state)), url_for("host.screen", token=token),
               refusals=(IllegalMove,), refused=play_error, malformed=MALFORMED_MOVE)


def _version(form) -> int | None:
    value = form.get("version", "")
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 6 else None
