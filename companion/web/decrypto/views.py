"""Decrypto on the web (issue 13): a new table, the host's shared screen, the join page and each player's phone.

The rules live in companion.decrypto and the storage in store.py; these routes read a page's form (forms.py),
play its move through the store and draw the screen (screens.py). Tokens, live updates, rate limits, privacy
headers and errors are the site's own, as for refereed Cryptid: each page holds a live fragment (#play) that
long-polls its own URL and is swapped in place by the same script, and its forms post by fetch. Every fragment is
drawn from view(state, viewer) for its viewer, so a phone only ever receives what the engine lets that seat see
(docs/decrypto-rules.md section 11).
"""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, request, url_for

from companion.decrypto import TABLE, TEAMS, WHITE, GiveClues
from companion.decrypto.text import illegal_move_text
from companion.web.core import claims
from companion.web.core.errors import error_response
from companion.web.core.i18n import gettext
from companion.web.core.live import long_poll_response
from companion.web.core.moves import act, form_version, wants_fragment
from companion.web.core.network import phone_base
from companion.web.core.qr import qr_svg
from companion.web.core.ratelimit import acts, deals
from companion.web.core.security import mark_private
from companion.web.core.store import Conflict
from companion.web.core.tokens import new_id
from companion.web.decrypto.tokens import (
    decrypto_host_token,
    decrypto_join_token,
    decrypto_player_token,
    read_decrypto_host_token,
    read_decrypto_join_token,
    read_decrypto_player_token,
)

from .forms import (
    MALFORMED,
    REFUSALS,
    SITE,
    GameNotOver,
    NewTableForm,
    SeatHasPhone,
    host_move,
    phoneless_seat,
    player_move,
    seat_from_text,
)
from .screens import host_context, host_seat_context, live_etag, player_context, render_live
from .store import NEXT_GAME, DecryptoTable, create_table, load_table, next_game, play

bp = Blueprint("decrypto", __name__)


# Loading a table from a URL ------------------------------------------------------------------------------------

def _table_or_404(code: str | None) -> DecryptoTable:
    table = load_table(code) if code else None
    if table is None:
        abort(404)
    return table


def host_table(token: str) -> DecryptoTable:
    return _table_or_404(read_decrypto_host_token(token))


def player_table(token: str) -> tuple[DecryptoTable, str]:
    found = read_decrypto_player_token(token)
    if found is None:
        abort(404)
    return _table_or_404(found[0]), found[1]


# Pages ---------------------------------------------------------------------------------------------------------

@bp.get("/help/decrypto")
def help():
    return render_template("decrypto/help.html")


@bp.get("/decrypto/new")
def new():
    return render_template("decrypto/new.html", form=NewTableForm())


@bp.post("/decrypto/new")
@deals
def create():
    form = NewTableForm()
    if not form.validate_on_submit():
        return render_template("decrypto/new.html", form=form), 400
    sizes = None if form.split.data else (int(form.white.data), int(form.black.data))
    code = create_table(sizes, form.language.data if form.keywords.data == SITE else None, form.ending.data)
    return redirect(url_for("decrypto.host", token=decrypto_host_token(code)), 303)


@bp.get("/decrypto/h/<token>")
def host(token: str):
    table = host_table(token)
    mark_private()
    base, reachable = phone_base()
    state = table.state
    # A seat's code leaves the shared screen once its phone has joined, unless the host asks for it again (to move
    # a player to a new phone); the one join code of a table that splits at the table stays while it is useful.
    show_all = request.args.get("codes") == "all"
    hidden = 0
    if state.setup.team_sizes is None:
        join_url = base + url_for("decrypto.join", token=decrypto_join_token(table.code))
        phones = [{"team": None, "name": gettext("Every player"), "url": join_url, "qr": qr_svg(join_url)}]
    else:
        phones = []
        for team, size in zip(TEAMS, state.setup.team_sizes):
            for number in range(1, size + 1):
                if state.roster(team)[number - 1].player is not None and not show_all:
                    hidden += 1
                    continue
                url = base + url_for("decrypto.player", token=decrypto_player_token(table.code, f"{team[0]}{number}"))
                phones.append({"team": team, "number": number, "url": url, "qr": qr_svg(url),
                               "name": gettext("White, player %(number)s", number=number) if team == WHITE
                               else gettext("Black, player %(number)s", number=number)})
    return render_template("decrypto/host.html", **host_context(token, table), phones=phones, phone_base=base,
                           phones_can_reach=reachable, token=token, hidden_codes=hidden, show_all=show_all)


@bp.get("/decrypto/h/<token>/seat/<seat>")
def host_seat(token: str, seat: str):
    """The shared screen playing a seat that has no phone (its player passes the screen round, or looks alone)."""
    table = host_table(token)
    mark_private()
    try:
        playing = phoneless_seat(table, seat)
    except SeatHasPhone as error:
        return refused(error)
    return render_template("decrypto/player.html", **host_seat_context(token, table, playing))


@bp.get("/decrypto/h/<token>/seat/<seat>/live")
def host_seat_live(token: str, seat: str):
    table = host_table(token)
    mark_private()
    playing = seat_from_text(seat)
    if playing is None or not 1 <= playing.number <= len(table.state.roster(playing.team)):
        abort(404)

    def render(t):
        # A phone took the seat meanwhile: the shared screen goes back to the table's view, with no secret of it.
        if t.state.roster(playing.team)[playing.number - 1].player is not None:
            return render_live(host_context(token, t))
        return render_live(host_seat_context(token, t, playing))

    return long_poll_response(table.code, lambda: load_table(table.code), lambda t: live_etag(t, playing), render)


@bp.get("/decrypto/j/<token>")
def join(token: str):
    """The generic join page of a table that splits at the table: a fresh player id, then that player's page."""
    table = _table_or_404(read_decrypto_join_token(token))
    mark_private()
    player = "p" + new_id(8)
    return redirect(url_for("decrypto.player", token=decrypto_player_token(table.code, player)), 303)


# A player's link is one seat: the first browser that opens it holds it (core/claims.py); another browser sees no
# secret of it, and is asked before it takes the seat over, which the first phone's live update then shows.

def moved_context(token: str, table: DecryptoTable) -> dict:
    """What a browser that does not hold the seat sees: the question, or the news that the seat moved away."""
    return {"table": table, "token": token, "etag": f"decrypto-claim-{table.code}",
            "live_url": url_for("decrypto.player_live", token=token)}


@bp.get("/decrypto/p/<token>")
def player(token: str):
    table, player_id = player_table(token)
    mark_private()
    if claims.claim(table.code, player_id) == claims.ELSEWHERE:
        return render_template("decrypto/claim.html", **moved_context(token, table))
    return render_template("decrypto/player.html", **player_context(token, table, player_id))


@bp.post("/decrypto/p/<token>/take-over")
@acts
def take_over(token: str):
    """This browser takes the seat over from the one that held it (its player confirmed)."""
    table, player_id = player_table(token)
    mark_private()
    claims.take_over(table.code, player_id)
    return redirect(url_for("decrypto.player", token=token), 303)


@bp.get("/decrypto/h/<token>/live")
def host_live(token: str):
    table = host_table(token)
    mark_private()
    return long_poll_response(table.code, lambda: load_table(table.code), lambda t: live_etag(t, TABLE),
                              lambda t: render_live(host_context(token, t)))


@bp.get("/decrypto/p/<token>/live")
def player_live(token: str):
    table, player_id = player_table(token)
    mark_private()

    def held() -> bool:
        return claims.status(table.code, player_id) != claims.ELSEWHERE

    def render(t):
        if not held():
            return render_template("decrypto/_moved.html", **moved_context(token, t))
        return render_live(player_context(token, t, player_id))

    return long_poll_response(
        table.code, lambda: load_table(table.code),
        lambda t: live_etag(t, t.state.seat_of(player_id)) if held() else f"decrypto-claim-{t.code}", render,
    )


# Moves ---------------------------------------------------------------------------------------------------------

def refused(error: Exception):
    """409 with the reason as a whole sentence in the phone's language."""
    if isinstance(error, Conflict):
        return error_response(409, gettext("Another move came first: look at the screen again, then retry."))
    if isinstance(error, GameNotOver):
        return error_response(409, gettext("This game is still being played: finish it before the next one."))
    if isinstance(error, SeatHasPhone):
        return error_response(409, gettext("A phone plays this seat now: it acts on that phone."))
    return error_response(409, illegal_move_text(error.reason, error.params, gettext))


def clue_warnings(table: DecryptoTable, move) -> list[str]:
    """Warnings a typed clue deserves before it is sent: repeated, or one of the team's own keywords."""
    if not isinstance(move, GiveClues) or not move.clues or request.form.get("anyway") == "yes":
        return []
    state = table.state
    found = [*state.repeated_clues(move.team, move.clues), *state.keyword_clues(move.team, move.clues)]
    return [warning.text(gettext) for warning in found]


def warned_clues(table: DecryptoTable, move, seat_context):
    """The seat's page again with its warnings, or None when the clues deserve none. Warned clues are not refused:
    the encryptor sees the warning and sends them again, or changes them. `seat_context(**extra)` draws the page of
    the seat that typed them (a phone's, or the host screen playing a seat with no phone)."""
    warnings = clue_warnings(table, move)
    if not warnings:
        return None
    context = seat_context(warnings=warnings, typed=move.clues)
    return render_live(context) if wants_fragment() else render_template("decrypto/player.html", **context)


@bp.post("/decrypto/p/<token>/play")
@acts
def player_act(token: str):
    table, player_id = player_table(token)
    mark_private()
    if claims.status(table.code, player_id) == claims.ELSEWHERE:
        return error_response(409, gettext("This seat is open on another phone now: take it over there, or here."))

    def confirm(move):
        return warned_clues(table, move, lambda **extra: player_context(token, table, player_id, **extra))

    return act(lambda: player_move(table, player_id, request.form), lambda move: play(table, move),
               lambda following: render_live(player_context(token, following, player_id)),
               url_for("decrypto.player", token=token), refusals=REFUSALS, refused=refused, malformed=MALFORMED,
               confirm=confirm)


@bp.post("/decrypto/h/<token>/play")
@acts
def host_act(token: str):
    """The host screen: starts a split table, plays seats with no phone, lets a lost phone's seat go, counts a
    keyword guess, and deals the next game once one is over."""
    table = host_table(token)
    mark_private()
    playing = seat_from_text(request.form.get("as", ""))

    def apply(move):
        if move != NEXT_GAME:
            return play(table, move, form_version(request.form))
        if not table.state.is_game_over():
            raise GameNotOver()
        return next_game(table)

    def confirm(move):
        return warned_clues(table, move, lambda **extra: host_seat_context(token, table, playing, **extra))

    def fragment(following):
        if playing is not None and following.state.roster(playing.team)[playing.number - 1].player is None:
            return render_live(host_seat_context(token, following, playing))
        return render_live(host_context(token, following))

    page = url_for("decrypto.host", token=token)
    if playing is not None:
        page = url_for("decrypto.host_seat", token=token, seat=f"{playing.team}-{playing.number}")
    return act(lambda: host_move(table, request.form), apply, fragment, page, refusals=REFUSALS, refused=refused,
               malformed=MALFORMED, confirm=confirm)
