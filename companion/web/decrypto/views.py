"""Decrypto on the web (issue 13): a new table, the host's shared screen, the join page and each player's phone.

The rules live in companion.decrypto and the storage in store.py; this module parses forms, calls them and
renders. Tokens, live updates, rate limits, privacy headers and errors are the site's own, as for refereed
Cryptid: each page holds a live fragment (#play) that long-polls its own URL and is swapped in place by the same
script, and its forms post by fetch. Every fragment is drawn from view(state, viewer) for its viewer, so a phone
only ever receives what the engine lets that seat see (docs/decrypto-rules.md section 11).
"""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_babel import lazy_gettext as _l
from wtforms import BooleanField, RadioField, SelectField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired

from companion.decrypto import (
    BLACK,
    TABLE,
    TEAMS,
    WHITE,
    CountKeywords,
    GiveClues,
    Guess,
    GuessKeywords,
    IllegalMove,
    Join,
    ShowCode,
    Start,
    View,
    available_languages,
    parse_code,
    view,
)
from companion.decrypto.rules import CLUE_LIMIT, MAX_TEAM, MIN_TEAM, NAME_LIMIT
from companion.decrypto.text import illegal_move_text
from companion.web.core.errors import error_response
from companion.web.core.forms import Form
from companion.web.core.i18n import LANGUAGES, current_language, gettext
from companion.web.core.live import long_poll_response
from companion.web.core.moves import act, wants_fragment
from companion.web.core.network import phone_base
from companion.web.core.qr import qr_svg
from companion.web.core.ratelimit import actions_limit, limiter, new_games_limit
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

from .store import NEXT_GAME, DecryptoTable, create_table, load_table, next_game, play

bp = Blueprint("decrypto", __name__)

SITE, BOX = "site", "box"
SPLIT = "split"
TEAM_SIZE_CHOICES = [SelectChoice(str(size), str(size)) for size in range(MIN_TEAM, MAX_TEAM + 1)]
MALFORMED = _l("That form did not make sense. Reload the page and try again.")


class GameNotOver(Exception):
    """The host asked for the next game while this one is still being played."""


REFUSALS = (IllegalMove, GameNotOver)



class NewTableForm(Form):
    """How a table plays: team sizes (or split on the phones), where the keywords come from, their language."""

    white = RadioField(_l("Players in White"), choices=TEAM_SIZE_CHOICES, default="2", validators=[InputRequired()])
    black = RadioField(_l("Players in Black"), choices=TEAM_SIZE_CHOICES, default="2", validators=[InputRequired()])
    split = BooleanField(_l("We split into teams at the table: each phone picks its team"))
    keywords = RadioField(
        _l("Keywords"),
        choices=[SelectChoice(SITE, _l("The site deals the keywords")), SelectChoice(BOX, _l("We use the keyword cards from the box"))],
        default=SITE,
        validators=[InputRequired()],
    )
    language = SelectField(_l("Language of the keywords"))

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.language.choices = [SelectChoice(code, LANGUAGES.get(code, code)) for code in available_languages()]
        if not self.language.data:
            self.language.data = current_language()


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


def printed_seat(player: str) -> tuple[str, int] | None:
    """The team and seat a per-player QR code was printed for ("w2" is White's seat 2); None for a split table."""
    if player[0] == "p":
        return None
    return (WHITE if player[0] == "w" else BLACK), int(player[1])


# What the live fragment shows ----------------------------------------------------------------------------------

def sheets(seen: View) -> list[dict]:
    """Each team's clue sheet: under keyword numbers 1-4, every revealed clue with its round."""
    return [{"team": team, **seen.teams[team]} for team in TEAMS]


def live_context(table: DecryptoTable, viewer, live_url: str, act_url: str, **extra) -> dict:
    seen = view(table.state, viewer, gettext)
    return {
        "table": table,
        "view": seen,
        "teams": sheets(seen),
        "live_url": live_url,
        "act_url": act_url,
        "etag": live_etag(table, viewer),
        "clue_limit": CLUE_LIMIT,
        "intent": request.args.get("do", "")[:16],
        **extra,
    }


def live_etag(table: DecryptoTable, viewer) -> str:
    seat = viewer if viewer is None or viewer == TABLE else f"{viewer.team}{viewer.number}"
    return f"decrypto-{table.version}-{seat}"


def host_context(token: str, table: DecryptoTable) -> dict:
    return live_context(table, TABLE, url_for("decrypto.host_live", token=token),
                        url_for("decrypto.host_act", token=token), host=True)


def player_context(token: str, table: DecryptoTable, player: str, **extra) -> dict:
    seat = table.state.seat_of(player)
    printed = printed_seat(player)
    # The live URL keeps the step the phone is on (?do=show), so a change elsewhere does not close it.
    intent = {"do": request.args["do"][:16]} if "do" in request.args else {}
    context = live_context(table, seat, url_for("decrypto.player_live", token=token, **intent),
                           url_for("decrypto.player_act", token=token), host=False, **extra)
    seen = context["view"]
    acting = [offer for offer in seen.can if offer["action"] != "join"]
    joinable = [offer["team"] for offer in seen.can if offer["action"] == "join"]
    if printed is not None:
        joinable = [team for team in joinable if team == printed[0]] if seat is None else []
    context.update(
        seat=seat,
        printed=printed,
        joinable=joinable,
        my_team=None if seat is None else seen.teams[seat.team],
        can={offer["action"] + "-" + offer.get("target", ""): offer for offer in acting},
        your_turn=bool(acting),
    )
    return context


def render_live(context: dict) -> str:
    return render_template("decrypto/_live.html", **context)


# Pages ---------------------------------------------------------------------------------------------------------

@bp.get("/help/decrypto")
def help():
    return render_template("decrypto/help.html")


@bp.get("/decrypto/new")
def new():
    return render_template("decrypto/new.html", form=NewTableForm())


@bp.post("/decrypto/new")
@limiter.limit(new_games_limit)
def create():
    form = NewTableForm()
    if not form.validate_on_submit():
        return render_template("decrypto/new.html", form=form), 400
    sizes = None if form.split.data else (int(form.white.data), int(form.black.data))
    code = create_table(sizes, form.language.data if form.keywords.data == SITE else None)
    return redirect(url_for("decrypto.host", token=decrypto_host_token(code)), 303)


@bp.get("/decrypto/h/<token>")
def host(token: str):
    table = host_table(token)
    mark_private()
    base, reachable = phone_base()
    state = table.state
    if state.setup.team_sizes is None:
        join_url = base + url_for("decrypto.join", token=decrypto_join_token(table.code))
        phones = [{"team": None, "name": gettext("Every player"), "url": join_url, "qr": qr_svg(join_url)}]
    else:
        phones = []
        for team, size in zip(TEAMS, state.setup.team_sizes):
            for number in range(1, size + 1):
                url = base + url_for("decrypto.player", token=decrypto_player_token(table.code, f"{team[0]}{number}"))
                phones.append({"team": team, "number": number, "url": url, "qr": qr_svg(url),
                               "name": gettext("White, player %(number)s", number=number) if team == WHITE
                               else gettext("Black, player %(number)s", number=number)})
    return render_template("decrypto/host.html", **host_context(token, table), phones=phones, phone_base=base,
                           phones_can_reach=reachable, token=token)


@bp.get("/decrypto/j/<token>")
def join(token: str):
    """The generic join page of a table that splits at the table: a fresh player id, then that player's page."""
    table = _table_or_404(read_decrypto_join_token(token))
    mark_private()
    player = "p" + new_id(8)
    return redirect(url_for("decrypto.player", token=decrypto_player_token(table.code, player)), 303)


@bp.get("/decrypto/p/<token>")
def player(token: str):
    table, player_id = player_table(token)
    mark_private()
    return render_template("decrypto/player.html", **player_context(token, table, player_id))


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
    return long_poll_response(
        table.code, lambda: load_table(table.code), lambda t: live_etag(t, t.state.seat_of(player_id)),
        lambda t: render_live(player_context(token, t, player_id)),
    )


# Moves ---------------------------------------------------------------------------------------------------------

def refused(error: Exception):
    """409 with the reason as a whole sentence in the phone's language."""
    if isinstance(error, Conflict):
        return error_response(409, gettext("Another move came first: look at the screen again, then retry."))
    if isinstance(error, GameNotOver):
        return error_response(409, gettext("This game is still being played: finish it before the next one."))
    return error_response(409, illegal_move_text(error.reason, error.params, gettext))


def _texts(form, prefix: str, count: int) -> tuple[str, ...]:
    texts = tuple(form.get(f"{prefix}{index}", "") for index in range(1, count + 1))
    if any(len(text) > 4 * CLUE_LIMIT for text in texts):
        raise ValueError("text far too long")
    return texts


def player_move(table: DecryptoTable, player: str, form):
    """The move a phone's form names (ValueError for a malformed form); IllegalMove for a refused code."""
    action = form.get("action", "")
    seat = table.state.seat_of(player)
    if action == "join":
        printed = printed_seat(player)
        team, number = printed if printed is not None else (form.get("team", ""), None)
        return Join(player, team, form.get("name", "")[: 4 * NAME_LIMIT], number)
    if seat is None:
        raise IllegalMove("not_joined")
    if action == "show_code":
        return ShowCode(seat.team, seat.number)
    if action == "give_clues":
        clues = _texts(form, "clue", 3) if form.get("typed") == "yes" else None
        return GiveClues(seat.team, clues, seat.number)
    if action == "guess":
        if form.get("confirm") != "yes":
            raise ValueError("a guess needs its confirm box")
        return Guess(seat.team, form.get("target", ""), parse_code(form.get("code", "")[:16]), seat.number)
    if action == "guess_keywords":
        return GuessKeywords(seat.team, _texts(form, "word", 4), seat.number)
    if action == "count_keywords":
        right = form.get("right", "")
        if not (right.isascii() and right.isdigit() and len(right) == 1):
            raise ValueError("a count is one digit")
        return CountKeywords(seat.team, int(right), seat.number)
    raise ValueError(f"no action {action!r}")


@bp.post("/decrypto/p/<token>/play")
@limiter.limit(actions_limit)
def player_act(token: str):
    table, player_id = player_table(token)
    mark_private()

    def confirm(move):
        """Repeated clues are not refused: the encryptor sees the warning and sends them again, or changes them."""
        if not isinstance(move, GiveClues) or not move.clues or request.form.get("anyway") == "yes":
            return None
        warnings = [r.text(gettext) for r in table.state.repeated_clues(move.team, move.clues)]
        if not warnings:
            return None
        context = player_context(token, table, player_id, warnings=warnings, typed=move.clues)
        return render_live(context) if wants_fragment() else render_template("decrypto/player.html", **context)

    return act(lambda: player_move(table, player_id, request.form), lambda move: play(table, move),
               lambda following: render_live(player_context(token, following, player_id)),
               url_for("decrypto.player", token=token), refusals=REFUSALS, refused=refused, malformed=MALFORMED,
               confirm=confirm)


def host_move(form):
    """What the host screen's form asks for: start a table that split on its phones, or the next game."""
    return {"start": Start(), "next_game": NEXT_GAME}.get(form.get("action"))


@bp.post("/decrypto/h/<token>/play")
@limiter.limit(actions_limit)
def host_act(token: str):
    """The host screen starts a table that split on its phones, and deals the next game once one is over."""
    table = host_table(token)
    mark_private()

    def apply(move):
        if move != NEXT_GAME:
            return play(table, move)
        if not table.state.is_game_over():
            raise GameNotOver()
        return next_game(table)

    return act(lambda: host_move(request.form), apply, lambda following: render_live(host_context(token, following)),
               url_for("decrypto.host", token=token), refusals=REFUSALS, refused=refused, malformed=MALFORMED)
