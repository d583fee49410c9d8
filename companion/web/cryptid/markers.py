"""Markers tables on the web (docs/cryptid-markers.md): a seat's phone, the host's screen and the public page of a
refereed game of the Markers variant, their live fragments, the forms that make claims, and the seat JSON. The
rules live in cryptid.markers, what a viewer may see in its view(); this module parses, calls them and renders.

The routes of a classic refereed table (play.py) hand a Markers table here: the same move log, long polls, device
claims and seat tokens, with this variant's moves and pages."""

from __future__ import annotations

import random
from dataclasses import replace

from flask import Blueprint, render_template, request, url_for
from babel.lists import format_list
from flask_babel import get_locale
from sqlalchemy import select

from companion.cryptid import Game, markers
from companion.cryptid.markers import bots as markers_bots
from companion.cryptid.hexgrid import ALL_HEXES, HEX_COUNT, hex_name
from companion.cryptid.markers import (
    ITS_HERE,
    NOT_HERE,
    OVER,
    End,
    HostGone,
    ItsHere,
    Leave,
    Name,
    NotHere,
    Start,
    VoteGone,
    WithdrawGone,
)
from companion.cryptid.text import clue_text
from companion.web.core import claims
from companion.web.core import computers as worker
from companion.web.core.errors import error_response
from companion.web.core.i18n import gettext, language_digits, lazy_gettext, local_digits, ngettext
from companion.web.core.live import long_poll_response
from companion.web.core.moves import act, form_version
from companion.web.core.network import phone_base
from companion.web.core.ratelimit import acts
from companion.web.core.security import mark_private
from companion.web.core.store import Conflict, reading

from . import common, computers
from .common import game_or_404, hex_labels, host_game, map_letters, seat_game
from .computers import computer_seats, labelled_names
from .dealing import dealer
from .diagram import board_svg, hex_center, piece_marks
from .head import TableHead
from .models import MARKERS, ComputerSeat, RefereedTable
from .play import COMPUTER_SEAT, MARKED_GONE, acting_seat, hex_and_terrain, seat_cards, terrain_name
from .refereed import draw_first, load_moves, load_play, next_refereed_code, refereed_as, submit, submit_once
from .tables import BadJson, VariantWeb, register
from .tokens import seat_token

bp = Blueprint("markers", __name__)

LIVE_TEMPLATE = "cryptid/markers/_live.html"

# What each line of the log says; %(name)s is the seat, %(other)s the seat paid, %(place)s the hex.
_LOG_TEXTS = {
    NOT_HERE: lazy_gettext("%(name)s claims the creature is not on %(place)s."),
    markers.SEAL: lazy_gettext("%(name)s seals an “it’s here” claim: it is shown at the end of the round."),
    ITS_HERE: lazy_gettext("%(name)s claims the creature is on %(place)s."),
    markers.OBJECT: lazy_gettext("%(name)s objects: their clue allows %(place)s."),
    markers.SILENT: lazy_gettext("%(name)s stays silent: their clue rules %(place)s out."),
    markers.ALLOWS: lazy_gettext("%(name)s’s clue allows %(place)s."),
    markers.RULES_OUT: lazy_gettext("%(name)s’s clue rules %(place)s out."),
    markers.PAY: lazy_gettext("%(name)s hands a marker to %(other)s."),
    markers.REFUND: lazy_gettext("Nobody objected: %(name)s takes a marker back from the supply."),
    markers.BORROW: lazy_gettext("%(name)s borrows a marker from %(other)s."),
    markers.OUT: lazy_gettext("%(name)s has no markers left and is out."),
    markers.WIN: lazy_gettext("%(name)s wins!"),
    markers.LEAVE: lazy_gettext("%(name)s left the game."),
}
_OUTCOME_TEXTS = {
    markers.FOUND: lazy_gettext("The creature is found: the game is over."),
    markers.LAST_STANDING: lazy_gettext("Only one player is left who can claim: the game is over."),
    markers.EXHAUSTED: lazy_gettext("No marker is left in any hand: nobody wins."),
    markers.ENDED: lazy_gettext("The game was ended: nobody wins."),
    markers.ABANDONED: lazy_gettext("Everyone left: nobody wins."),
}
# The log actions that begin a move's entries (the rest follow them): the log's items and the announcement of the
# latest move.
_MOVE_STARTS = {NOT_HERE, markers.SEAL, markers.LEAVE}


def _log_moves(log: tuple, names: dict[int, str]) -> list[dict]:
    """The log as people tell it, as the classic table's: one item per move in the order they happened, its
    answers, payments and what the end of its round showed as lines of that item."""
    moves: list[dict] = []
    for entry in log:
        if entry.action in _MOVE_STARTS or not moves:
            moves.append({"seat": entry.seat, "lines": []})
        moves[-1]["lines"].append(log_text(entry, names))
    return moves


def log_text(entry: markers.LogEntry, names: dict[int, str]) -> str:
    place = hex_name(entry.hex) if entry.hex is not None else ""
    other = names.get(entry.other, "") if entry.other is not None else ""
    return str(_LOG_TEXTS[entry.action]) % {"name": names[entry.seat], "other": other, "place": place}


def status_text(seen: markers.View, names: dict[int, str]) -> str:
    if seen.phase == markers.LOBBY:
        return gettext("The host starts the game when everyone has joined.")
    if seen.phase == OVER:
        return outcome_text(seen, names)
    return gettext("%(name)s’s turn.", name=names[seen.turn])


def outcome_text(seen: markers.View, names: dict[int, str]) -> str:
    """How the game ended, and for a found creature who was right, who held the most markers and why that wins."""
    if seen.outcome == markers.LAST_STANDING and seen.winners:
        return gettext("%(name)s is the last player who can claim, and wins.", name=names[seen.winners[0]])
    if seen.outcome != markers.FOUND or not seen.right or seen.reveal is None:
        return str(_OUTCOME_TEXTS[seen.outcome])
    place = hex_name(seen.reveal.habitat)
    if len(seen.right) == 1:
        return gettext("%(name)s was right: the creature is on %(place)s. %(name)s wins.",
                       name=names[seen.right[0]], place=place)
    right = format_list([names[s] for s in seen.right], locale=get_locale())
    most = seen.hands[seen.winners[0] - 1]
    if len(seen.winners) > 1:
        return ngettext(
            "%(right)s were all right about %(place)s in the same round, and %(winners)s hold as many markers "
            "(%(num)s each): they share the win.",
            "%(right)s were all right about %(place)s in the same round, and %(winners)s hold as many markers "
            "(%(num)s each): they share the win.",
            most, right=right, place=place, winners=format_list([names[s] for s in seen.winners], locale=get_locale()))
    return ngettext(
        "%(right)s were all right about %(place)s in the same round. When several claims are right, the claimant "
        "with the most markers in hand wins: %(name)s, with %(num)s marker.",
        "%(right)s were all right about %(place)s in the same round. When several claims are right, the claimant "
        "with the most markers in hand wins: %(name)s, with %(num)s markers.",
        most, right=right, place=place, name=names[seen.winners[0]])


def selected_hex(seen: markers.View) -> int | None:
    """The hex a seat tapped (?hex=N) while the game runs; junk is ignored."""
    value = request.args.get("hex", "")
    if seen.seat is None or seen.phase == OVER or not (value.isascii() and value.isdigit() and len(value) <= 3):
        return None
    return int(value) if int(value) < HEX_COUNT else None


def _sheet(game: Game, seen: markers.View, selected: int | None) -> dict | None:
    """The sheet a tapped hex opens: its name and terrain, what the seat's clues say of it, and its claims there
    (the view's choices)."""
    if selected is None:
        return None
    place = hex_name(selected)
    choices = []
    if seen.not_here_choices >> selected & 1:
        choices.append({"key": NOT_HERE, "label": gettext("Not here"), "confirm": gettext(
            "Claim the creature is not on %(place)s? Each other player whose clue allows it objects and hands you a marker.",
            place=place)})
    if seen.its_here_choices >> selected & 1:
        choices.append({"key": ITS_HERE, "label": gettext("It’s here"), "confirm": gettext(
            "Claim the creature is on %(place)s? The claim stays sealed until the end of the round; if it is wrong, "
            "you hand a marker to each player whose clue rules it out.", place=place)})
    note = None
    if seen.seat in seen.out:
        note = gettext("You are out of the turns: your clue still answers the others.")
    elif not seen.to_act:
        note = gettext("It is not your turn.")
    elif not choices:
        note = gettext("Nothing you can do on this hex now. Choose a highlighted hex.")
    allowed = bool(seen.allowed >> selected & 1)
    # Markers has no discs or cubes: the sentence says only what the seat's clues (one, or two each with 2
    # players) say of the hex.
    if len(seen.clues) > 1:
        says = gettext("both your clues allow this hex.") if allowed else gettext(
            "at least one of your clues rules this hex out.")
    else:
        says = gettext("your clue allows this hex.") if allowed else gettext("your clue rules this hex out.")
    return {"hex": selected, "name": place, "terrain": terrain_name(game, selected), "allowed": allowed,
            "says": says, "choices": choices, "note": note, "version": seen.version}


def _board(game: Game, seen: markers.View, shown: markers.View, selected: int | None, link) -> str:
    """The board with every marker of `shown` (the game now, or a replay's step): "it's here" as a disc, "not
    here" as a square, in its seat's colour; for a seat, its clues' shading, its choices and hex links."""
    its_here, not_here = [0] * seen.players, [0] * seen.players
    for hex, seat, kind in shown.markers:
        (its_here if kind == ITS_HERE else not_here)[seat - 1] |= 1 << hex
    last = shown.markers[-1][0] if shown.markers else None
    overlay = piece_marks(tuple(its_here), tuple(not_here), highlight=last, digits=language_digits())
    for _, hex in shown.sealed_claims:  # a replay's step: the sealed claims waiting then, dashed
        overlay += '<circle class="sealed-claim" cx="{:.1f}" cy="{:.1f}" r="7.2"/>'.format(*hex_center(hex))
    if selected is not None:
        overlay += '<circle id="here" class="here" cx="{:.1f}" cy="{:.1f}" r="9.4"/>'.format(*hex_center(selected))
    overlay += '<circle id="spot" class="spot" r="9.4"/>'
    playing = seen.seat is not None and seen.phase != OVER
    return board_svg(
        game.board, title=gettext("The board with every player's markers"), letters=map_letters(),
        habitat=seen.reveal.habitat if seen.reveal else None, selected=selected,
        hex_href=link() + "?hex={}#here" if playing else None,
        marked=seen.not_here_choices | seen.its_here_choices, css_class="play-map", overlay=overlay,
        shaded=ALL_HEXES & ~seen.allowed if seen.seat is not None else 0, coordinates=True, digits=language_digits(),
    )


def _results(game: Game, seen: markers.View, names: dict[int, str]) -> dict:
    """The end: the habitat, and per seat whether it won, its clues and its "it's here" claims (sealed ones too)."""
    claims_of = {seat: [hex_name(hex) for hex, owner, kind in seen.markers if owner == seat and kind == ITS_HERE]
                 for seat in seen.seats}
    rows = [{"seat": s, "name": names[s], "won": s in seen.winners, "right": s in seen.right,
             "markers": seen.hands[s - 1],
             "clues": [clue_text(clue, gettext) for owner, clue in seen.reveal.clues if owner == s],
             "claims": format_list(claims_of[s], locale=get_locale()) if claims_of[s] else ""} for s in seen.seats]
    return {"habitat": hex_and_terrain(game, seen.reveal.habitat), "rows": rows}


def _replayed(game: Game, state: markers.State, seat: int | None, replay: int | None
              ) -> tuple[markers.View | None, int]:
    """A finished game's position at replay step `replay` as `seat` sees it (every sealed claim shown), and the
    number of the last step; (None, 0) outside a replay."""
    if replay is None or state.phase != OVER:
        return None, 0
    moves = load_moves(game)
    steps = common.replay_steps(markers.State.initial(game, state.rules), moves)
    step = steps[min(replay, len(steps) - 1)]
    return markers.replay_view(state, moves, step, seat, gettext), len(steps) - 1


def live_context(game: Game, state: markers.State, *, seat: int | None, live_url: str, act_url: str | None,
                 link, replay: int | None = None) -> dict:
    """What the live fragment shows; whatever depends on who is looking comes from markers.view(state, seat), and
    in the replay of a finished game from markers.replay_view."""
    seen = markers.view(state, seat, gettext)
    robots = computer_seats(game.code)
    if seat in robots:  # the seat's phone only watches: a computer plays it
        seen = replace(seen, not_here_choices=0, its_here_choices=0)
    names = labelled_names(seen.names, robots, gettext)
    shown, replay_total = _replayed(game, state, seat, replay)
    replay = None if shown is None else min(replay, replay_total)
    shown = shown or seen  # the position on the board: the game now, or a step of its replay once it is over
    selected = selected_hex(seen) if replay is None else None
    start = max((i for i, e in enumerate(shown.log) if e.action in _MOVE_STARTS), default=len(shown.log))
    in_game = [] if seen.phase == OVER else [s for s in seen.seats if s not in seen.out]
    sealed_at = dict(shown.sealed_claims)
    return {
        "game": game, "view": seen, "seat": seat, "names": names,
        "replay": replay, "replay_total": local_digits(str(replay_total)), "replay_last": replay_total,
        "status": status_text(seen, names),
        "your_turn": seen.to_act and seat not in robots,
        "left_notice": _left_notice(state, seat, robots),
        "hands": [{"seat": s, "name": names[s], "markers": local_digits(str(shown.hands[s - 1])),
                   "out": s in shown.out, "left": s in shown.left, "sealed": s in shown.sealed_by,
                   "sealed_at": hex_name(sealed_at[s]) if s in sealed_at else None} for s in shown.seats],
        "supply": local_digits(str(shown.supply)),
        "sealed": hex_name(seen.sealed_hex) if seen.sealed_hex is not None and replay is None else None,
        "clues": [clue_text(clue, gettext) for clue in seen.clues],
        "sheet": _sheet(game, seen, selected) if seat not in robots else None,
        "board": _board(game, seen, shown, selected, link),
        "log": _log_moves(shown.log, names),
        "announce": " ".join(log_text(e, names) for e in shown.log[start:]),
        "results": _results(game, seen, names) if seen.reveal else None,
        "live_url": live_url, "act_url": None if seat in robots else act_url, "link": link,
        "gone_candidates": computers.gone_candidates(in_game, seen.gone_votes, seat, names, robots),
        "gone_needed": len(in_game) - 1,
        "votes_against": len(seen.gone_votes[seat - 1]) if seat in in_game else 0,
        "levels": [(level, str(name)) for level, name in computers.LEVEL_NAMES.items()],
    }


def _left_notice(state: markers.State, seat: int | None, robots: dict[int, str]) -> str | None:
    """Why a seat's phone makes no moves: a computer plays it, or the table marked it gone."""
    if seat in robots:
        return str(COMPUTER_SEAT)
    if seat in state.left:
        left_by_choice = any(isinstance(move, Leave) and move.seat == seat for move in load_moves(state.game))
        return markers.illegal_text("you_left", {}, gettext) if left_by_choice else str(MARKED_GONE)
    return None


def render_live(context: dict) -> str:
    return render_template(LIVE_TEMPLATE, **context)


def claim_key(seat: int) -> str:
    return str(seat)


def seat_etag(game: Game, seat: int, state: markers.State) -> str:
    """What a seat's fragment depends on besides its view: whether another phone holds the seat, and the next
    game."""
    following = next_refereed_code(game) if state.phase == OVER else None
    return (f"markers-{state.version}-{seat}-{claims.page_status(game.code, claim_key(seat))}-{following or ''}"
            f"-{computers.computers_mark(game.code)}")


def host_etag(game: Game, state: markers.State) -> str:
    return f"markers-{state.version}-0-{len(claims.claimed_seats(game.code))}-{computers.computers_mark(game.code)}"


def public_etag(state: markers.State) -> str:
    return f"markers-{state.version}-0-{computers.computers_mark(state.game.code)}"


def _seat_link(token: str):
    return lambda **values: url_for("seats.seat", token=token, **values)


def _replay(state: markers.State) -> int | None:
    return common.replay_step(state.phase == OVER)


def seat_context(token: str, game: Game, seat: int, state: markers.State) -> dict:
    if claims.status(game.code, claim_key(seat)) == claims.ELSEWHERE:
        return {"elsewhere": True, "seat": seat, "names": state.display_names(gettext),
                "take_over_url": url_for("play.take_over", token=token),
                "live_url": url_for("markers.seat_live", token=token)}
    context = live_context(game, state, seat=seat, live_url=url_for("markers.seat_live", token=token, **common.view_args()),
                           act_url=url_for("markers.seat_act", token=token), link=_seat_link(token),
                           replay=_replay(state))
    following = next_refereed_code(game) if state.phase == OVER else None
    if following:
        context["next_seat_url"] = url_for("seats.seat", token=seat_token(following, seat))
    return context


def host_context(token: str, game: Game, state: markers.State) -> dict:
    context = live_context(game, state, seat=None, live_url=url_for("markers.host_live", token=token, **common.view_args()),
                           act_url=url_for("markers.host_act", token=token),
                           link=lambda **values: url_for("host.screen", token=token, **values), replay=_replay(state))
    return context | {"host_view": True, "host_token": token, "seats": seat_cards(game, state, _phone_base()),
                      "hand_over_url": url_for("markers.host_hand_over", token=token)}


def _phone_base() -> str:
    return phone_base()[0]


def public_context(game: Game, state: markers.State) -> dict:
    return live_context(game, state, seat=None, live_url=url_for("markers.public_live", code=game.code, **common.view_args()),
                        act_url=None, link=lambda **values: url_for("games.setup", code=game.code, **values),
                        replay=_replay(state))


# Pages, handed over by the classic routes --------------------------------------------------------------------

def seat_page(token: str, game: Game, seat: int, head: TableHead):
    state = load_play(game, head)
    if claims.status(game.code, claim_key(seat)) == claims.ELSEWHERE:
        names = state.display_names(gettext)
        return render_template("cryptid/play/take_over.html", game=game, seat=seat, names=names,
                               take_over_url=url_for("play.take_over", token=token)), 409
    return render_template("cryptid/markers/seat.html", **seat_context(token, game, seat, state),
                           etag=seat_etag(game, seat, state), hex_labels=hex_labels())


def host_page(token: str, game: Game, head: TableHead):
    state = load_play(game, head)
    return render_template("cryptid/markers/table.html", **host_context(token, game, state),
                           etag=host_etag(game, state))


def public_page(game: Game, head: TableHead, panel=None):
    """The public page of a Markers table (the variant has no hint panel: `panel` is not drawn)."""
    state = load_play(game, head)
    return render_template("cryptid/markers/table.html", **public_context(game, state), etag=public_etag(state))


# Live fragments and moves --------------------------------------------------------------------------------------

def _live(game: Game, make_context, etag_of):
    return long_poll_response(game.code, lambda: load_play(game), etag_of,
                              lambda state: render_live({**make_context(state), "etag": etag_of(state)}))


@bp.get("/s/<token>/markers/live")
def seat_live(token: str):
    game, seat = seat_game(token)
    refereed_as(game, MARKERS)
    mark_private()
    claims.claim(game.code, claim_key(seat))
    return _live(game, lambda state: seat_context(token, game, seat, state), lambda state: seat_etag(game, seat, state))


@bp.get("/h/<token>/markers/live")
def host_live(token: str):
    game = refereed_as(host_game(token), MARKERS)
    mark_private()
    return _live(game, lambda state: host_context(token, game, state), lambda state: host_etag(game, state))


@bp.get("/games/<code>/markers/live")
def public_live(code: str):
    game = refereed_as(game_or_404(code), MARKERS)
    return _live(game, lambda state: public_context(game, state), public_etag)


def refusal(error: markers.IllegalMove | Conflict):
    """409 with the reason in the phone's language."""
    if isinstance(error, Conflict):
        return error_response(409, markers.illegal_text("stale_version", {}, gettext))
    return error_response(409, markers.illegal_text(error.reason, error.params, gettext))


def form_move(seat: int, form) -> markers.Move | None:
    """The move a seat's form names (the sheet sends `do` and `hex`, other forms an `action`); None if malformed."""
    action = form.get("do") or form.get("action", "")
    if action == "name":
        return Name(seat, form.get("name", "")[:200])
    if action == "leave":
        return Leave(seat)
    if action in ("vote_gone", "withdraw_gone"):
        target = _seat_number(form.get("target", ""))
        return None if target is None else (VoteGone if action == "vote_gone" else WithdrawGone)(seat, target)
    value = form.get("hex", "")
    if action not in (NOT_HERE, ITS_HERE) or not (value.isascii() and value.isdigit() and len(value) <= 3):
        return None
    hex_index = int(value)
    if hex_index >= HEX_COUNT:
        return None
    return NotHere(seat, hex_index) if action == NOT_HERE else ItsHere(seat, hex_index)


def _seat_number(value: str) -> int | None:
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 3 else None


@bp.post("/s/<token>/markers/play")
@acts
def seat_act(token: str):
    game, seat = acting_seat(token, MARKERS)

    def fragment(state):
        return render_live({**seat_context(token, game, seat, state), "etag": seat_etag(game, seat, state)})

    return act(lambda: form_move(seat, request.form),
               lambda move: submit_once(game, move, form_version(request.form)),
               fragment, url_for("seats.seat", token=token), refusals=(markers.IllegalMove,), refused=refusal,
               malformed=computers.MALFORMED_MOVE, anchor="#board")


@bp.post("/h/<token>/markers/play")
@acts
def host_act(token: str):
    """The host starts the game (drawing the first player), marks a vanished player gone, or ends the game with no
    winner."""
    game = refereed_as(host_game(token), MARKERS)
    mark_private()
    action = request.form.get("action")
    target = _seat_number(request.form.get("target", ""))
    moves = {"start": lambda: Start(draw_first(game)), "end": End,
             "host_gone": lambda: None if target is None else HostGone(target)}

    def fragment(state):
        return render_live({**host_context(token, game, state), "etag": host_etag(game, state)})

    return act(lambda: moves[action]() if action in moves else None,
               lambda move: submit_once(game, move, form_version(request.form)), fragment,
               url_for("host.screen", token=token), refusals=(markers.IllegalMove,), refused=refusal,
               malformed=computers.MALFORMED_MOVE, anchor="#play")


@bp.post("/h/<token>/markers/computer")
@acts
def host_hand_over(token: str):
    """The host hands a seat still in the game to a computer player (docs/cryptid-markers.md section 5), as at a
    classic table's /h/<token>/computer."""
    game = refereed_as(host_game(token), MARKERS)
    mark_private()
    return computers.hand_over_response(
        game, load_play, lambda state: state.in_game,
        lambda state: render_live({**host_context(token, game, state), "etag": host_etag(game, state)}),
        url_for("host.screen", token=token))


# JSON (docs/cryptid-markers.md section 5) ----------------------------------------------------------------------

def view_json(game: Game, state: markers.State, seat: int | None = None) -> dict:
    """The viewer's state, each seat with its computer player's level (null for a person)."""
    return computers.computers_json({"code": game.code} | markers.view(state, seat, gettext).to_json(),
                          computer_seats(game.code))


def move_from_json(seat: int, data: dict) -> markers.Move:
    """The move a JSON body names: {"action": "not_here" | "its_here", "hex": {"row": R, "col": C}},
    {"action": "leave"}, {"action": "vote_gone" | "withdraw_gone", "seat": S} or {"action": "name", "name": ...};
    BadJson (400) when malformed."""
    move = _json_move(seat, data)
    if move is None:
        raise BadJson(gettext('Send {"action": "not_here" or "its_here", "hex": {"row": R, "col": C}}, '
                              '{"action": "leave"}, {"action": "vote_gone" or "withdraw_gone", "seat": S} '
                              'or {"action": "name", "name": N}.'))
    return move


def _json_move(seat: int, data: dict) -> markers.Move | None:
    action = data.get("action")
    fields = {NOT_HERE: {"action", "hex"}, ITS_HERE: {"action", "hex"}, "leave": {"action"}, "name": {"action", "name"},
              "vote_gone": {"action", "seat"}, "withdraw_gone": {"action", "seat"}}
    if not isinstance(action, str) or action not in fields or set(data) != fields[action]:
        return None
    if action in ("vote_gone", "withdraw_gone"):
        if type(data["seat"]) is not int:
            return None
        return (VoteGone if action == "vote_gone" else WithdrawGone)(seat, data["seat"])
    body = {"action": action, "seat": seat}
    if "hex" in data:
        if not isinstance(data["hex"], dict) or set(data["hex"]) != {"row", "col"}:
            return None
        body |= data["hex"]
    if action == "name":
        body["name"] = data["name"]
    try:
        move = markers.Move.from_json(body)
    except ValueError:
        return None
    if isinstance(move, (NotHere, ItsHere)) and not (type(move.hex) is int and 0 <= move.hex < HEX_COUNT):
        return None
    return move


# Computer seats (docs/cryptid-markers.md section 5), taken by the core's single worker -------------------------

# The table's levels, as the deal form and the JSON name them, played by markers_bots' levels.
BOT_LEVELS = {"novice": "basic", "beginner": "basic", "solid": "sharp", "expert": "sharp"}

_COMPUTER_SEATS = (select(ComputerSeat.code, ComputerSeat.seat)
                   .join(RefereedTable, RefereedTable.code == ComputerSeat.code)
                   .where(RefereedTable.variant == MARKERS))


def decide(state: markers.State, seat: int, level: str) -> markers.Move:
    """The claim a computer of the table's `level` makes at `seat`, from that seat's own view only; seeded by the
    position, so that two workers taking the same turn make the same claim."""
    rng = random.Random(f"{state.game.code}/{state.version}/{seat}")
    return markers_bots.choose_claim(markers.view(state, seat), markers_bots.LEVELS[BOT_LEVELS[level]], rng)


def pending_turns() -> list[tuple]:
    """What computers owe Markers tables now: a claim ("claim", code, version, seat), or their agreement that a
    seat is gone once every other person still in the game marked it ("gone", code, version, seat, target)."""
    tables: dict[str, set[int]] = {}
    with reading() as connection:
        for code, seat in connection.execute(_COMPUTER_SEATS):
            tables.setdefault(code, set()).add(seat)
    owed = []
    for code, seats in tables.items():
        state = load_play(dealer().load(code))
        if state.phase == markers.TURNS and state.turn in seats:
            owed.append(("claim", code, state.version, state.turn))
        elif state.phase != OVER:
            owed += [("gone", code, state.version, seat, target)
                     for seat, target in computers.owed_gone_votes(state.in_game, state.gone_votes, seats)]
    return owed


def take_turn(turn: tuple) -> None:
    """Take one owed claim, if the table still waits for it; a move that came first makes it moot."""
    kind, code, version, seat, *target = turn
    game = dealer().load(code)
    level = computer_seats(code).get(seat)
    state = load_play(game)
    if level is None or state.version != version or (kind == "claim" and state.turn != seat):
        return
    try:
        submit(game, VoteGone(seat, target[0]) if kind == "gone" else decide(state, seat, level), version)
    except (Conflict, markers.IllegalMove):  # another worker took this turn first
        pass


def init_computers() -> None:
    worker.register("cryptid-markers", pending_turns, take_turn, table=lambda turn: turn[1])


register(MARKERS, VariantWeb(seat_page, host_page, public_page, view_json, move_from_json, markers.illegal_text))
