"""Refereed play on the web (docs/cryptid-play.md): the seat's phone, the host's shared screen and the public view of a game
the server referees, their live fragments, and the forms that make moves. The rules live in cryptid.play, what
a viewer may see in cryptid.view, the storage in refereed; this module parses, calls them and renders.

Every page of a refereed game shows the same live fragment, drawn from view(state, viewer): a seat sees its own
clue's shading and choices, the host and the public see none. The fragment long-polls (live.wait_for_change) and is swapped in place.
"""

from __future__ import annotations

from flask import Blueprint, abort, make_response, redirect, render_template, request, url_for

from companion.cryptid import ADVANCED, Game
from companion.cryptid.hexgrid import ALL_HEXES, HEX_COUNT
from companion.cryptid.hexgrid import hex_name as board_name
from companion.cryptid.notebook import Notebook
from companion.cryptid.play import (
    OVER,
    PENDING_DISC,
    PLAYER_COUNTS,
    Ask,
    Cube,
    Disc,
    HostGone,
    IllegalMove,
    Leave,
    Move,
    Name,
    Search,
    Start,
    State,
    VoteGone,
    WithdrawGone,
    clean_name,
    hex_from_row_col,
    log_turns,
    since_last_turn,
)
from companion.cryptid.text import (
    TERRAIN_NAMES,
    clue_text,
    illegal_move_text,
    log_entry_text,
    mirror_text,
    pending_reason,
    pending_text,
)
from companion.cryptid.view import View, view
from companion.web.core import claims
from companion.web.core.errors import error_response
from companion.web.core.i18n import gettext, language_digits, lazy_gettext
from companion.web.core.live import long_poll_response
from companion.web.core.moves import act, form_version
from companion.web.core.network import listens_on_loopback, phone_base
from companion.web.core.qr import qr_svg
from companion.web.core.ratelimit import acts
from companion.web.core.security import mark_private
from companion.web.core.store import Conflict
from companion.web.cryptid.head import TableHead, read_head
from companion.web.cryptid.tokens import seat_token

from .agreement import unlocked_hint
from .common import (
    game_or_404,
    hex_labels,
    host_game,
    kept_args,
    map_letters,
    replay_step,
    replay_steps,
    seat_game,
    seat_url,
    view_args,
)
from .computers import (
    LEVEL_NAMES,
    MALFORMED_MOVE,
    computer_seats,
    computers_json,
    computers_mark,
    gone_candidates,
    hand_over_response,
    labelled_names,
)
from .diagram import board_svg, hex_center, odds_marks, own_marks_svg, piece_marks
from .models import CLASSIC
from .notebook import (
    hex_odds_text,
    notebook_context,
    notebook_json,
    odds_band,
    seat_notebook,
)
from .notes import Notes, apply_notes, books_context, load_notes, parse_notes_form
from .panel import host_panel, seat_panel
from .refereed import (
    draw_first,
    has_solver,
    load_moves,
    load_play,
    next_refereed_code,
    refereed_as,
    submit_once,
)
from .review import game_review, replay_solver, review_json, review_rows
from .tables import BadJson, VariantWeb, register

bp = Blueprint("play", __name__)

LIVE_TEMPLATE = "cryptid/play/_live.html"


def selected_hex() -> int | None:
    """The hex a seat tapped (?hex=N); junk is ignored."""
    value = request.args.get("hex", "")
    if not (value.isascii() and value.isdigit() and len(value) <= 3) or int(value) >= HEX_COUNT:
        return None
    return int(value)


def seat_choices(seen: View, hex: int | None, names: dict[int, str]) -> list[dict]:
    """The moves the viewing seat may make on the selected hex (the view decides which), each with the key its
    form sends (`do`) and the sentence that says what confirming does."""
    if hex is None or not seen.to_act:
        return []
    place = board_name(hex)
    choices = []
    if seen.cube_choices >> hex & 1:
        choices.append({"key": "cube", "label": gettext("Place my cube here"),
                        "confirm": gettext("Place your cube on %(place)s?", place=place)})
    for target in seen.ask_targets(hex):
        name = names[target]
        choices.append({"key": f"ask-{target}", "label": gettext("Ask %(name)s", name=name),
                        "confirm": gettext("Ask %(name)s about %(place)s? Their clue answers at once.", name=name, place=place)})
    if seen.disc_choices >> hex & 1:
        searched = board_name(seen.search_hex)
        choices.append({"key": "disc", "label": gettext("Put my extra disc here"),
                        "confirm": gettext("Put your extra disc on %(place)s? Then the others answer your search of %(searched)s.",
                                           place=place, searched=searched)})
    if seen.search_choices >> hex & 1:
        choices.append({"key": "search", "label": gettext("Search here"),
                        "confirm": gettext("Search %(place)s? Every other player answers in turn; the first cube stops the search.", place=place)})
    return choices


def latest_move_entries(log: tuple) -> tuple:
    """The log entries of the latest move (an ask, a search with its answers, a cube, a leave), which every screen
    announces."""
    turns = log_turns(log)
    return turns[-1] if turns else ()


def live_context(game: Game, state: State, *, seat: int | None, live_url: str, act_url: str | None,
                 link: callable, replay: int | None = None, solver: bool = False, notes: Notes | None = None) -> dict:
    """What the live fragment shows: status, the latest move, the board with every piece, the seat's sheet of
    choices, the log, the end; with `solver` (a table that chose it), the solver's figures for a seat and a note
    that the table uses it on every screen; with `notes`, the seat's own marks on the board and in the sheet.
    Whatever depends on who is looking comes from view(state, seat) alone."""
    seen = view(state, seat, gettext)
    computers = computer_seats(game.code)
    shown = seen  # the position on the board: the game now, or a step of its replay once it is over
    steps = replay_versions(state) if replay is not None else []
    if replay is not None and replay < len(steps):
        shown = view(State.replay(game, state_moves(state)[:steps[replay]]), seat, gettext)
    selected = selected_hex() if seat is not None and replay is None and seen.phase != OVER else None
    # "Player ۳" in Persian; computer players marked with their level wherever a seat is named.
    names = labelled_names(seen.names, computers, gettext)
    playing = seen.phase not in ("lobby", OVER) and replay is None
    solved = seat_notebook(game, seen) if solver and seat is not None and playing else None
    own_marks = notes.marks if notes is not None and playing else None
    return {
        "game": game,
        "state": state,
        "view": seen,
        "replay": replay,
        "replay_total": len(steps) - 1,
        "seat": seat,
        "names": names,
        "computers": computers,
        # Sentences with numbers in the reader's digits (Persian digits in Persian).
        "status": pending_text(state, names, gettext),
        "your_turn": seen.to_act,
        "selected": selected,
        "sheet": _sheet(game, seen, selected, names, solved, own_marks),
        "board": _board(game, seen, shown, selected, link, replay, solved, own_marks),
        "solver": notebook_context(solved, names) if solved else None,
        "solver_table": solver and seen.phase != OVER,
        "reason": pending_reason(state, names, seat, gettext) if replay is None else None,
        # A finished game's replay on a phone: the Solver's view of that step, from the seat.
        "replay_solver": replay_solver(game, shown, replay, names) if replay is not None and seat else None,
        "log": _log_moves(shown.log, names, game, seat if playing else None),
        "announce": " ".join(log_entry_text(e, names, gettext) for e in latest_move_entries(shown.log)),
        "results": _results(game, state, seen, names) if seen.reveal else None,
        "live_url": live_url,
        "act_url": act_url,
        "link": link,
        "gone_candidates": [] if state.phase == OVER else gone_candidates(
            state.active_seats, state.gone_votes, seat, names, computers),
        "gone_needed": len(state.active_seats) - 1,
        "levels": [(level, str(name)) for level, name in LEVEL_NAMES.items()],
        "votes_against": len(state.gone_votes[seat - 1]) if seat is not None and seat not in state.left else 0,
    }


def _log_moves(log: tuple, names: dict[int, str], game: Game, seat: int | None) -> list[dict]:
    """The log as people tell it: one item per move in the order they happened, each with its lines (the move, its
    answers, its extra disc, the cube owed), and `recent` on the moves made since the viewer's own latest move
    (for the host and the public, the latest move); `since` on those of a seat still playing, which the page
    labels "Since your last turn"."""
    turns = log_turns(log)
    recent = since_last_turn(turns, seat)
    return [{"number": number, "seat": turn[0].seat, "recent": number > recent,
             "since": seat is not None and number > recent,
             "lines": [_log_row(entry, names, game) for entry in turn]}
            for number, turn in enumerate(turns, 1)]


def _log_row(entry, names: dict[int, str], game: Game) -> dict:
    """A log line, with where its hex is drawn so that tapping the line can ring the hex."""
    # Sentences with numbers in the reader's digits (Persian digits in Persian).
    row = {"n": entry.n, "seat": entry.seat, "text": log_entry_text(entry, names, gettext),
           "mirror": mirror_text(entry, game.board, names, gettext)}
    if entry.hex is not None:
        row["x"], row["y"] = (f"{value:.1f}" for value in hex_center(entry.hex))
        row["hex"] = board_name(entry.hex)
    return row


def recent_hexes(log: tuple, seat: int | None) -> tuple[int | None, int]:
    """(the hex of the latest move, a mask of the hexes of every move since the viewer's own latest one): the
    board rings them so that a player back at the table sees everything that happened meanwhile."""
    turns = log_turns(log)
    mask = 0
    for turn in turns[since_last_turn(turns, seat):]:
        for entry in turn:
            if entry.hex is not None:
                mask |= 1 << entry.hex
    latest = next((e.hex for e in reversed(turns[-1]) if e.hex is not None), None) if turns else None
    return latest, mask


def _sheet(game: Game, seen: View, selected: int | None, names: dict[int, str],
           solved: Notebook | None = None, own_marks: dict[int, str] | None = None) -> dict | None:
    """The sheet a tapped hex opens: its name and terrain, what the seat's clue says of it (the view's), how
    likely the solver finds it to be the habitat (a table that chose it), the seat's own mark on it, and the
    seat's choices there, or why it has none."""
    if selected is None:
        return None
    choices = seat_choices(seen, selected, names)
    note = None
    if seen.seat in seen.left:
        note = illegal_move_text("you_left", {}, gettext)
    elif seen.phase == "lobby":
        note = gettext("The host starts the game when everyone has joined.")
    elif not seen.to_act:
        note = gettext("It is not your turn.")
    elif seen.pending == PENDING_DISC and not choices:
        note = gettext("You already have a disc on %(searched)s: your extra disc goes on a highlighted hex, one your "
                       "clue allows that holds no cube and none of your discs.", searched=board_name(seen.search_hex))
    elif not choices:
        note = gettext("Nothing you can do on this hex now. Choose a highlighted hex.")
    return {"hex": selected, "name": board_name(selected), "terrain": terrain_name(game, selected),
            "version": seen.version, "disc": bool(seen.allowed >> selected & 1), "choices": choices, "note": note,
            "odds": hex_odds_text(solved, selected) if solved else None,
            "mark": own_marks.get(selected, "none") if own_marks is not None else None}


def _with_query(url: str, query: str) -> str:
    return url + ("&" if "?" in url else "?") + query


def terrain_name(game: Game, hex: int) -> str:
    return gettext(TERRAIN_NAMES[game.board.cell(hex)[0]])


def hex_and_terrain(game: Game, hex: int) -> str:
    """"E5, forest": the separator is the language's own (Persian writes its comma, ،)."""
    return gettext("%(place)s, %(terrain)s", place=board_name(hex), terrain=terrain_name(game, hex))


def _board(game: Game, seen: View, shown: View, selected: int | None, link: callable, replay: int | None,
           solved: Notebook | None = None, own_marks: dict[int, str] | None = None) -> str:
    """The board with the pieces of `shown`; for a seat, its clue's shading, its choices and hex links (keeping the
    notebook's open page), its own marks, and with the solver the hexes that may be the habitat, by probability.
    The latest move is ringed, and on a seat's phone more lightly every other move since its own latest. Two
    rings of this page's own ride on top: one on the selected hex (pages without JavaScript scroll to it, #here)
    and one the script moves to the hex of a tapped log line."""
    last, recent = recent_hexes(shown.log, seen.seat if replay is None and seen.phase != OVER else None)
    digits = language_digits()
    marks = odds_marks({hex: odds_band(solved.probability(hex)) for hex in solved.habitats}) if solved else ""
    marks += piece_marks(shown.discs, shown.cubes, highlight=last, earlier=recent, digits=digits)
    marks += own_marks_svg(own_marks or {})
    if selected is not None:
        marks += '<circle id="here" class="here" cx="{:.1f}" cy="{:.1f}" r="9.4"/>'.format(*hex_center(selected))
    marks += '<circle id="spot" class="spot" r="9.4"/>'
    return board_svg(
        game.board,
        title=gettext("The board with every player's pieces"),
        letters=map_letters(),
        habitat=seen.reveal.habitat if seen.reveal and replay is None else None,
        selected=selected,
        hex_href=(_with_query(link(**kept_args()), "hex={}") + "#here"
                  if seen.seat is not None and shown.phase != OVER else None),
        marked=seen.choices,
        css_class="play-map",
        overlay=marks,
        shaded=ALL_HEXES & ~seen.allowed if seen.seat is not None else 0,
        coordinates=True,
        digits=digits,
    )


def _results(game: Game, state: State, seen: View, names: dict[int, str]) -> dict:
    """The end of the game: ranks with every seat's clue, the habitat, the number of moves, and per seat what its
    play showed (the review; every clue is known now)."""
    ranks = seen.ranks or {}
    review = review_rows(game, state, names)
    rows = [{"seat": s, "name": names[s], "rank": ranks.get(s),
             "clue": " ".join(clue_text(c, gettext) for c in seen.reveal.seat_clues(s)),
             "review": review.get(s)} for s in seen.seats]
    return {"ranks": sorted(rows, key=lambda r: (r["rank"] or 9, r["seat"])),
            "habitat": hex_and_terrain(game, seen.reveal.habitat),
            "moves": seen.version}


def state_moves(state: State) -> list:
    return load_moves(state.game)


def replay_versions(state: State) -> list[int]:
    """The versions a replay steps through: the start, then after each move that wrote in the log (names and
    votes write nothing, so the replay does not count them)."""
    return replay_steps(State.initial(state.game), state_moves(state))


def render_live(context: dict) -> str:
    return render_template(LIVE_TEMPLATE, **context)


def live_response(game: Game, make_context, etag_of):
    """The live fragment, long-polled: waits while the phone's version (If-None-Match) is still current. A game
    the site could never referee (2 players) has none: 404."""
    if game.players not in PLAYER_COUNTS or read_head(game.code).variant != CLASSIC:  # another variant's own routes
        abort(404)
    return long_poll_response(game.code, lambda: load_play(game), etag_of,
                              lambda state: render_live({**make_context(state), "etag": etag_of(state)}))


def play_error(error: IllegalMove | Conflict):
    """409 with the reason in the phone's language."""
    if isinstance(error, Conflict):
        message = illegal_move_text("stale_version", {}, gettext)
    else:
        message = illegal_move_text(error.reason, error.params, gettext)
    return error_response(409, message)


def form_move(seat: int, form) -> object:
    """The move a seat's form names; None for a malformed form (400). The sheet sends its choice as `do`
    ("cube", "disc", "search" or "ask-<seat>"), other forms name an `action`."""
    action, target = form.get("action", ""), form.get("target")
    if "do" in form:
        action, _, target = form["do"].partition("-")
    try:
        if action == "name":
            return Name(seat, clean_name(form.get("name", "")[:200]))
        if action == "leave":
            return Leave(seat)
        if action == "vote_gone":
            return VoteGone(seat, _int(target))
        if action == "withdraw_gone":
            return WithdrawGone(seat, _int(target))
        hex_index = _int(form.get("hex"))
        if not 0 <= hex_index < HEX_COUNT:
            return None
        if action == "cube":
            return Cube(seat, hex_index)
        if action == "search":
            return Search(seat, hex_index)
        if action == "disc":
            return Disc(seat, hex_index)
        if action == "ask":
            return Ask(seat, _int(target), hex_index)
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
    return replay_step(state.phase == OVER)


def claim_key(seat: int) -> str:
    return str(seat)


def seat_etag(game: Game, seat: int, state: State) -> str:
    """What a seat's fragment depends on besides its view: whether another phone holds the seat, the next game,
    the computer seats, the revision of the seat's own notes, and for the solver the table's hint once unlocked."""
    head = read_head(game.code)  # one read for the next game, the solver and the hint: every wake-up asks
    following = next_refereed_code(game, head) if state.phase == OVER else None
    hinted = "h" if solver_shown(game, state, head) and unlocked_hint(game, head) else ""
    return (f"play-{state.version}-{seat}-{claims.page_status(game.code, claim_key(seat))}-{following or ''}"
            f"-{computers_mark(game.code)}{hinted}-n{load_notes(game.code, seat).revision}")


def solver_shown(game: Game, state: State, head: TableHead | None = None) -> bool:
    """Whether a page shows the solver (or says the table uses it): a table that chose it, until the game is
    over; `head` if the caller just read it."""
    return state.phase != OVER and has_solver(game, head)


def seat_context(token: str, game: Game, seat: int, state: State) -> dict:
    def link(**values):
        return url_for("seats.seat", token=token, **values)

    if claims.status(game.code, claim_key(seat)) == claims.ELSEWHERE:
        return {"elsewhere": True, "seat": seat, "state": state, "names": state.display_names(gettext),
                "take_over_url": url_for("play.take_over", token=token),
                "live_url": url_for("play.seat_live", token=token)}
    notes = load_notes(game.code, seat)
    context = live_context(game, state, seat=seat, live_url=url_for("play.seat_live", token=token, **view_args()),
                           act_url=url_for("play.seat_act", token=token), link=link, replay=_replay_step(state),
                           solver=solver_shown(game, state), notes=notes)
    if context["replay"] is None and state.phase not in ("lobby", OVER) and seat not in context["computers"]:
        context["books"] = books_context(game, context["view"], notes, context["names"], link)
        context["notes_url"] = url_for("play.seat_notes", token=token, **view_args())
    following = next_refereed_code(game) if state.phase == OVER else None
    if following:
        context["next_seat_url"] = url_for("seats.seat", token=seat_token(following, seat))
    if state.phase == OVER:
        context["play_again"] = solo_settings(game, seat, context["computers"])
    context["panel"] = seat_panel(token, game, seat) if state.phase != OVER else None
    if seat in context["computers"]:
        context.update(left_notice=str(COMPUTER_SEAT), act_url=None, sheet=None, your_turn=False)
    elif seat in state.left:  # a notice: the player left, or the table marked them gone
        left_by_choice = any(isinstance(move, Leave) and move.seat == seat for move in state_moves(state))
        context["left_notice"] = illegal_move_text("you_left", {}, gettext) if left_by_choice else str(MARKED_GONE)
    return context


def solo_settings(game: Game, seat: int, computers: dict[int, str]) -> dict | None:
    """A game against the computer (the home page's solo form: this seat a person, every other seat a computer
    of one level): its settings, for "Play again" on a new map; None at any other table."""
    others = [computers.get(other) for other in range(1, game.players + 1) if other != seat]
    if seat in computers or None in others or len(set(others)) != 1 or seat != 1:
        return None
    return {"opponents": game.players - 1, "level": others[0], "advanced": game.mode == ADVANCED,
            "solver": has_solver(game)}


def seat_page(token: str, game: Game, seat: int, head: TableHead | None = None):
    state = load_play(game, head)
    # Opening the page only looks: the seat is claimed by the page's first live update or move, so that a link
    # preview (a chat app fetching the link to show it) never takes a seat from the player it was sent to.
    if claims.status(game.code, claim_key(seat)) == claims.ELSEWHERE:
        names = state.display_names(gettext)
        return render_template("cryptid/play/take_over.html", game=game, seat=seat, names=names,
                               take_over_url=url_for("play.take_over", token=token)), 409
    context = seat_context(token, game, seat, state)
    return render_template(
        "cryptid/play/seat.html",
        **context,
        etag=seat_etag(game, seat, state),
        clue=clue_text(context["view"].clue, gettext),
        token=token,
        hex_labels=hex_labels(),
    )


def host_etag(game: Game, state: State) -> str:
    """What the host's fragment depends on besides the public view: which seats a phone holds."""
    return f"play-{state.version}-0-{len(claims.claimed_seats(game.code))}-{computers_mark(game.code)}"


def seat_cards(game: Game, state: State, base: str) -> list[dict]:
    """Every seat's link and QR code for the host, with its name, and whether a phone holds it or it left."""
    held, computers = claims.claimed_seats(game.code), computer_seats(game.code)
    names = labelled_names(state.display_names(gettext), computers, gettext)
    return [{"number": seat, "name": names[seat], "left": seat in state.left, "computer": seat in computers,
             "joined": claim_key(seat) in held or state.names[seat - 1] is not None}
            | ({} if seat in computers else {"url": seat_url(base, game.code, seat),
                                              "qr": qr_svg(seat_url(base, game.code, seat))})
            for seat in range(1, game.players + 1)]


def host_context(token: str, game: Game, state: State) -> dict:
    def link(**values):
        return url_for("host.screen", token=token, **values)

    context = live_context(game, state, seat=None, live_url=url_for("play.host_live", token=token, **view_args()),
                           act_url=url_for("play.host_act", token=token), link=link, replay=_replay_step(state),
                           solver=solver_shown(game, state))
    base, reachable = phone_base()
    seats = seat_cards(game, state, base)
    own_url = base + url_for("host.screen", token=token)
    context.update(
        seats=seats,
        phone_base=base,
        phones_can_reach=reachable,
        host={"token": token, "url": own_url, "qr": qr_svg(own_url)},
        hand_over_url=url_for("play.host_hand_over", token=token),
        panel=host_panel(game) if state.phase != OVER else None,
        host_view=True,
    )
    if listens_on_loopback():  # a LAN address would refuse the phones: say what would let them in
        context["unreachable_text"] = gettext(
            "This server listens only on this computer's own address, so phones cannot reach it. Stop it and "
            "start it again with “serve --host 0.0.0.0” (or set COMPANION_PUBLIC_URL).")
    return context


def host_page(token: str, game: Game, head: TableHead | None = None):
    state = load_play(game, head)
    return render_template("cryptid/play/host.html", **host_context(token, game, state), etag=host_etag(game, state))


def public_context(game: Game, state: State) -> dict:
    def link(**values):
        return url_for("games.setup", code=game.code, **values)

    return live_context(game, state, seat=None, live_url=url_for("play.public_live", code=game.code, **view_args()),
                        act_url=None, link=link, replay=_replay_step(state), solver=solver_shown(game, state))


def public_etag(state: State) -> str:
    return f"play-{state.version}-0-{computers_mark(state.game.code)}"


def public_page(game: Game, panel: str, head: TableHead | None = None):
    state = load_play(game, head)
    return render_template("cryptid/play/public.html", **public_context(game, state), etag=public_etag(state), panel=panel)


# Live fragments and moves --------------------------------------------------------------------------------------

@bp.get("/s/<token>/live")
def seat_live(token: str):
    game, seat = seat_game(token)
    mark_private()
    claims.claim(game.code, claim_key(seat))
    return live_response(game, lambda state: seat_context(token, game, seat, state),
                         lambda state: seat_etag(game, seat, state))


@bp.get("/h/<token>/live")
def host_live(token: str):
    game = host_game(token)
    mark_private()
    return live_response(game, lambda state: host_context(token, game, state), lambda state: host_etag(game, state))


@bp.get("/games/<code>/live")
def public_live(code: str):
    game = game_or_404(code)
    return live_response(game, lambda state: public_context(game, state), public_etag)


COMPUTER_SEAT = lazy_gettext("A computer player now plays this seat.")
MARKED_GONE = lazy_gettext("The table marked you as gone. Your clue still answers the others; you no longer take turns.")
SEAT_ELSEWHERE = lazy_gettext("This seat is now open on another phone. To play here, take it back first.")


def acting_seat(token: str, variant: str) -> tuple[Game, int]:
    """The game and seat a seat's form acts for, at a table refereed as `variant` (404 otherwise), claiming the
    seat for this phone when it is free; 409 when this phone may not move it (another phone holds it, or a
    computer plays it)."""
    game, seat = seat_game(token)
    refereed_as(game, variant)
    mark_private()
    if claims.claim(game.code, claim_key(seat)) == claims.ELSEWHERE:
        abort(make_response(error_response(409, str(SEAT_ELSEWHERE))))
    if seat in computer_seats(game.code):
        abort(make_response(error_response(409, str(COMPUTER_SEAT))))
    return game, seat


@bp.post("/s/<token>/play")
@acts
def seat_act(token: str):
    game, seat = acting_seat(token, CLASSIC)

    def fragment(state):
        return render_live({**seat_context(token, game, seat, state), "etag": seat_etag(game, seat, state)})

    return act(lambda: form_move(seat, request.form), lambda move: submit_once(game, move, form_version(request.form)),
               fragment, url_for("seats.seat", token=token),
               refusals=(IllegalMove,), refused=play_error, malformed=MALFORMED_MOVE, anchor="#board")


@bp.post("/s/<token>/notes")
@acts
def seat_notes(token: str):
    """The seat writes in its notebook: the clues it crossed off for an opponent, or its mark on a hex. Only the
    phone holding the seat may; the answer is the seat's page again (its fragment, or a redirect without
    JavaScript), with the notebook page and the sheet it was on."""
    game, seat = acting_seat(token, CLASSIC)
    state = load_play(game)
    if state.phase in ("lobby", OVER):
        return error_response(409, gettext("The notebook is kept while the game runs."))

    def fragment(_):
        return render_live({**seat_context(token, game, seat, state), "etag": seat_etag(game, seat, state)})

    return act(lambda: parse_notes_form(game, seat, request.form), lambda change: apply_notes(game.code, seat, change),
               fragment, url_for("seats.seat", token=token, **view_args()),
               refusals=(), refused=play_error, malformed=MALFORMED_MOVE,
               anchor="#here" if "hex" in request.args else "#notebook")


@bp.post("/s/<token>/take-over")
@acts
def take_over(token: str):
    """This phone takes the seat (its player confirmed); the phone that held it learns it through its live update."""
    game, seat = seat_game(token)
    mark_private()
    claims.take_over(game.code, claim_key(seat))
    return redirect(url_for("seats.seat", token=token), 303)


def host_move(game: Game, form) -> object:
    """The move the host screen's form names: start the game (drawing the first player) or mark a player gone."""
    action = form.get("action")
    if action == "start":
        return Start(draw_first(game))
    if action == "host_gone":
        return HostGone(_int(form.get("target")))
    return None


@bp.post("/h/<token>/play")
@acts
def host_act(token: str):
    """The host starts the game (drawing the first player) or marks a vanished player as gone."""
    game = refereed_as(host_game(token), CLASSIC)
    mark_private()

    def fragment(state):
        return render_live({**host_context(token, game, state), "etag": host_etag(game, state)})

    return act(lambda: host_move(game, request.form), lambda move: submit_once(game, move, form_version(request.form)),
               fragment, url_for("host.screen", token=token),
               refusals=(IllegalMove,), refused=play_error, malformed=MALFORMED_MOVE, anchor="#play")


@bp.post("/h/<token>/computer")
@acts
def host_hand_over(token: str):
    """The host hands a seat whose player is gone (or not answering) to a computer player, which plays on with
    that seat's clue from the next move on (docs/cryptid-play.md section 10)."""
    game = refereed_as(host_game(token), CLASSIC)
    mark_private()
    return hand_over_response(game, load_play, lambda state: state.active_seats,
                              lambda state: render_live({**host_context(token, game, state), "etag": host_etag(game, state)}),
                              url_for("host.screen", token=token))


# JSON (docs/cryptid-play.md section 8) -------------------------------------------------------------------------

def view_json(game: Game, state: State, seat: int | None = None) -> dict:
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


def move_from_json(seat: int, data: dict) -> Move:
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


def public_table_page(game: Game, head: TableHead, panel) -> str:
    """The public page of a classic table, with the table's hint panel."""
    return public_page(game, panel(), head)


register(CLASSIC, VariantWeb(seat_page, host_page, public_table_page, view_json, move_from_json, illegal_move_text))
