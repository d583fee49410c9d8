"""Decrypto on the web (issue 13): a new table, the host's shared screen, the join page and each player's phone.

The rules live in companion.decrypto and the storage in store.py; this module parses forms, calls them and
renders. Tokens, live updates, rate limits, privacy headers and errors are the site's own, as for refereed
Cryptid: each page holds a live fragment (#play) that long-polls its own URL and is swapped in place by the same
script, and its forms post by fetch. Every fragment is drawn from view(state, viewer) for its viewer, so a phone
only ever receives what the engine lets that seat see (docs/decrypto-rules.md section 11).
"""

from __future__ import annotations

from datetime import datetime, timezone

from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_babel import LazyString
from flask_babel import lazy_gettext as _l
from wtforms import BooleanField, RadioField, SelectField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired

from companion.decrypto import (
    BLACK,
    TABLE,
    TEAMS,
    WHITE,
    AcceptKeyword,
    CountKeywords,
    GiveClues,
    Guess,
    GuessKeywords,
    IllegalMove,
    Join,
    Leave,
    NextRound,
    Seat,
    ShowCode,
    Start,
    View,
    available_languages,
    parse_code,
    view,
)
from companion.decrypto.rules import (
    CLUE_LIMIT,
    MAX_TEAM,
    MIN_TEAM,
    NAME_LIMIT,
    RULEBOOK,
    SHORT,
    check_code,
)
from companion.decrypto.text import illegal_move_text
from companion.web.core import claims
from companion.web.core.errors import error_response
from companion.web.core.forms import Form
from companion.web.core.i18n import LANGUAGES, current_language, gettext, local_digits
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

from .store import NEXT_GAME, DecryptoTable, create_table, load_table, next_game, play

bp = Blueprint("decrypto", __name__)

SITE, BOX = "site", "box"
SPLIT = "split"
# Labels in the reader's digits, written when the form is drawn (the reader is known only then).
TEAM_SIZE_CHOICES = [SelectChoice(str(size), LazyString(local_digits, size)) for size in range(MIN_TEAM, MAX_TEAM + 1)]
MALFORMED = _l("That form did not make sense. Reload the page and try again.")


class GameNotOver(Exception):
    """The host asked for the next game while this one is still being played."""


class SeatHasPhone(Exception):
    """The host asked to play a seat on the shared screen, but a phone holds that seat."""


REFUSALS = (IllegalMove, GameNotOver, SeatHasPhone)
# The box's sand timer, in seconds: it runs once the first team's clues are in.
SAND_TIMER = 30



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
    ending = RadioField(
        _l("After round 8"),
        choices=[
            SelectChoice(RULEBOOK, _l("The rulebook: the team with more points wins; equal points go to the keywords")),
            SelectChoice(SHORT, _l("The short reading: straight to guessing the keywords")),
        ],
        default=RULEBOOK,  # a form from before the choice existed gets the rulebook's
    )

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


def seat_from_text(text: str) -> Seat | None:
    """The seat a host URL or form names ("white-3"); None for anything else."""
    team, _, number = text.partition("-")
    if team not in TEAMS or not (number.isascii() and number.isdigit() and len(number) == 1):
        return None
    return Seat(team, int(number))


def phoneless_seat(table: DecryptoTable, text: str) -> Seat:
    """A seat the host may play on the shared screen: it exists and no phone holds it; 404 or SeatHasPhone."""
    seat = seat_from_text(text)
    if seat is None or not 1 <= seat.number <= len(table.state.roster(seat.team)):
        abort(404)
    if table.state.roster(seat.team)[seat.number - 1].player is not None:
        raise SeatHasPhone()
    return seat


def printed_seat(player: str) -> tuple[str, int] | None:
    """The team and seat a per-player QR code was printed for ("w2" is White's seat 2); None for a split table."""
    if player[0] == "p":
        return None
    return (WHITE if player[0] == "w" else BLACK), int(player[1])


# What the live fragment shows ----------------------------------------------------------------------------------

def sheets(seen: View) -> list[dict]:
    """Each team's clue sheet: under keyword numbers 1-4, every revealed clue with its round."""
    return [{"team": team, **seen.teams[team]} for team in TEAMS]


def sand_timer(table: DecryptoTable) -> dict | None:
    """The sand timer while one team's clues are in and the other's are not: seconds left, and who is slower."""
    if table.clues_in_at is None:
        return None
    elapsed = (datetime.now(timezone.utc) - table.clues_in_at).total_seconds()
    slower = next(t.team for t in table.state.current.transmissions if not t.given)
    return {"left": max(0, round(SAND_TIMER - elapsed)), "team": slower}


def live_context(table: DecryptoTable, viewer, live_url: str, act_url: str, **extra) -> dict:
    seen = view(table.state, viewer, gettext)
    return {
        "timer": sand_timer(table),
        "table": table,
        "view": seen,
        "teams": sheets(seen),
        "live_url": live_url,
        "act_url": act_url,
        "etag": live_etag(table, viewer),
        "clue_limit": CLUE_LIMIT,
        "intent": request.args.get("do", "")[:16],
        "accepts": (),
        "seats_for_host": [],
        **extra,
    }


def live_etag(table: DecryptoTable, viewer) -> str:
    seat = viewer if viewer is None or viewer == TABLE else f"{viewer.team}{viewer.number}"
    return f"decrypto-{table.version}-{seat}"


def host_context(token: str, table: DecryptoTable) -> dict:
    context = live_context(table, TABLE, url_for("decrypto.host_live", token=token),
                           url_for("decrypto.host_act", token=token), host=True)
    seen = context["view"]
    context["accepts"] = {f"{o['team']}-{o['number']}" for o in seen.can if o["action"] == "accept_keyword"}
    context["seats_for_host"] = host_seats(token, table)
    return context


def host_seats(token: str, table: DecryptoTable) -> list[dict]:
    """Every seat as the host manages it: let a lost phone's seat go, or play a seat with no phone here.
    `needed` marks a seat the table waits for that no phone can play (its encryptor, or a team without phones)."""
    state = table.state
    seats = []
    for team in TEAMS:
        roster = state.roster(team)
        no_phones = all(member.player is None for member in roster)
        for number, member in enumerate(roster, start=1):
            encrypting = state.current is not None and state.encryptor(team) == number
            key = f"{team}-{number}"
            name = member.name or gettext("Seat %(number)s", number=number)
            seats.append({
                "team": team, "key": key, "phone": member.player is not None,
                "label": gettext("White: %(name)s", name=name) if team == WHITE else gettext("Black: %(name)s", name=name),
                "url": url_for("decrypto.host_seat", token=token, seat=key),
                "needed": member.player is None and (
                    (encrypting and not state.current.of(team).given) or (no_phones and not encrypting)),
            })
    return seats


def player_context(token: str, table: DecryptoTable, player: str, **extra) -> dict:
    seat = table.state.seat_of(player)
    # The live URL keeps the step the phone is on (?do=show), so a change elsewhere does not close it.
    intent = {"do": request.args["do"][:16]} if "do" in request.args else {}
    return seat_context(table, seat, printed_seat(player), url_for("decrypto.player_live", token=token, **intent),
                        url_for("decrypto.player_act", token=token), **extra)


def seat_context(table: DecryptoTable, seat: Seat | None, printed, live_url: str, act_url: str, **extra) -> dict:
    """What one seat's screen shows: a phone, or the shared screen playing a seat that has no phone."""
    context = live_context(table, seat, live_url, act_url, host=False, **extra)
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
        switch_to=[team for team in (offer["team"] for offer in seen.can if offer["action"] == "join")
                   if seat is not None and team != seat.team],
        my_name="" if seat is None else table.state.roster(seat.team)[seat.number - 1].name,
    )
    return context


def host_seat_context(token: str, table: DecryptoTable, seat: Seat, **extra) -> dict:
    """The shared screen playing a seat with no phone: that seat's own view, its moves posted by the host."""
    intent = {"do": request.args["do"][:16]} if "do" in request.args else {}
    key = f"{seat.team}-{seat.number}"
    return seat_context(table, seat, None, url_for("decrypto.host_seat_live", token=token, seat=key, **intent),
                        url_for("decrypto.host_act", token=token), acting_as=key,
                        back_url=url_for("decrypto.host", token=token), **extra)


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


def _texts(form, prefix: str, count: int) -> tuple[str, ...]:
    texts = tuple(form.get(f"{prefix}{index}", "") for index in range(1, count + 1))
    if any(len(text) > 4 * CLUE_LIMIT for text in texts):
        raise ValueError("text far too long")
    return texts


def guessed_code(form) -> tuple[int, ...]:
    """The code a guess form names: three 1-4 pickers (pick1-pick3), or the code typed as text ("4-2-1")."""
    if "code" in form:
        return parse_code(form.get("code", "")[:16])
    picks = [form.get(f"pick{index}", "") for index in range(1, 4)]
    if not all(pick in ("1", "2", "3", "4") for pick in picks):
        raise IllegalMove("malformed_code")
    return check_code(int(pick) for pick in picks)


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
    return seat_move(seat, form)


def seat_move(seat: Seat, form):
    """The move a seat's form names, from its phone or from the shared screen playing it."""
    action = form.get("action", "")
    if action == "show_code":
        return ShowCode(seat.team, seat.number)
    if action == "give_clues":
        clues = _texts(form, "clue", 3) if form.get("typed") == "yes" else None
        return GiveClues(seat.team, clues, seat.number)
    if action == "guess":
        if form.get("confirm") != "yes":
            raise ValueError("a guess needs its confirm box")
        return Guess(seat.team, form.get("target", ""), guessed_code(form), seat.number)
    if action == "next_round":
        return NextRound(seat.team, seat.number)
    if action == "guess_keywords":
        return GuessKeywords(seat.team, _texts(form, "word", 4), seat.number)
    if action == "count_keywords":
        right = form.get("right", "")
        if not (right.isascii() and right.isdigit() and len(right) == 1):
            raise ValueError("a count is one digit")
        return CountKeywords(seat.team, int(right), seat.number)
    raise ValueError(f"no action {action!r}")


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


def host_move(table: DecryptoTable, form):
    """What the host screen's form asks for: start, the next round after a reveal, the next game, a seat's phone let go, a keyword guess counted,
    or a move of a seat with no phone that the shared screen plays."""
    action = form.get("action", "")
    if action == "start":
        return Start()
    if action == "next_game":
        return NEXT_GAME
    if action == "next_round" and "as" not in form:  # for the whole table; a seat played here is ready for its team
        return NextRound()
    if action == "free_seat":
        seat = seat_from_text(form.get("seat", ""))
        if seat is None or not 1 <= seat.number <= len(table.state.roster(seat.team)):
            raise ValueError("no such seat")
        player = table.state.roster(seat.team)[seat.number - 1].player
        if player is None:
            raise ValueError("the seat has no phone")
        return Leave(player)
    if action == "accept_keyword":
        number = form.get("number", "")
        if number not in ("1", "2", "3", "4"):
            raise ValueError("a keyword number is 1-4")
        return AcceptKeyword(form.get("team", ""), int(number))
    if "as" in form:
        return seat_move(phoneless_seat(table, form["as"]), form)
    return None


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
