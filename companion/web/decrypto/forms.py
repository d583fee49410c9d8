"""Decrypto's forms: the new table's form, and the move each page's form names (a phone's, the shared screen's
for the table, or the shared screen playing a seat with no phone); a malformed form is a ValueError (400)."""

from __future__ import annotations

from flask import abort
from flask_babel import LazyString
from wtforms import BooleanField, RadioField, SelectField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired

from companion.decrypto import (
    BLACK,
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
    available_languages,
    parse_code,
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
from companion.web.core.forms import Form
from companion.web.core.i18n import LANGUAGES, current_language, local_digits
from companion.web.core.i18n import lazy_gettext as _l

from .store import NEXT_GAME, DecryptoTable


SITE, BOX = "site", "box"
# Labels in the reader's digits, written when the form is drawn (the reader is known only then).
TEAM_SIZE_CHOICES = [SelectChoice(str(size), LazyString(local_digits, size)) for size in range(MIN_TEAM, MAX_TEAM + 1)]
MALFORMED = _l("That form did not make sense. Reload the page and try again.")


class GameNotOver(Exception):
    """The host asked for the next game while this one is still being played."""


class SeatHasPhone(Exception):
    """The host asked to play a seat on the shared screen, but a phone holds that seat."""


REFUSALS = (IllegalMove, GameNotOver, SeatHasPhone)


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
