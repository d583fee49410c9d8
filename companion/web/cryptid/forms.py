"""Cryptid's forms; validators ask the engine, so a bad code is reported in the engine's own words."""

from __future__ import annotations

from flask_babel import LazyString
from wtforms import (
    BooleanField,
    HiddenField,
    IntegerField,
    RadioField,
    SelectField,
    StringField,
    SubmitField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, InputRequired, NumberRange, ValidationError

from companion.cryptid import GameCodeError, NoHabitatLeft, markers
from companion.cryptid.text import code_error_text, no_habitat_left_text
from companion.web.core.forms import Form
from companion.web.core.i18n import gettext, local_digits
from companion.web.core.i18n import lazy_gettext as _l

from .computers import DEFAULT_LEVEL, LEVEL_NAMES
from .dealing import dealer
from .models import CLASSIC, MARKERS

# Labels in the reader's digits, written when the form is drawn (the reader is known only then).
PLAYER_CHOICES = [SelectChoice(2, _l("2 (variant: two clues each)")),
                  *(SelectChoice(n, LazyString(local_digits, n)) for n in (3, 4, 5))]


BOX, REFEREED = "box", "referee"
PERSON = "person"
SEATS = range(1, 6)


def computer_choices() -> list[SelectChoice]:
    """Who plays a seat: a person, or a computer player of a level."""
    return [SelectChoice(PERSON, _l("A person"))] + [
        SelectChoice(level, _l("Computer, %(level)s", level=name)) for level, name in LEVEL_NAMES.items()]


def seat_field() -> SelectField:
    return SelectField(choices=computer_choices(), default=PERSON, validate_choice=False)


class NewGameForm(Form):
    players = RadioField(_l("Players"), choices=PLAYER_CHOICES, coerce=int, default=4, validators=[InputRequired()])
    advanced = BooleanField(_l("Advanced mode"))
    how = RadioField(
        _l("How you play"),
        choices=[SelectChoice(BOX, _l("Play with the box: players answer each other")), SelectChoice(REFEREED, _l("The app referees: play on phones"))],
        default=BOX,
        validate_choice=False,  # a form without the field (older pages, scripts) plays with the box
    )
    solver = BooleanField(_l("Solver: shows every possibility and each hex's chance"))
    variant = RadioField(
        _l("Game"),
        choices=[SelectChoice(CLASSIC, _l("Cryptid: ask, search and place cubes")),
                 SelectChoice(MARKERS, _l("Markers (2 to 4 players): claim “not here” and “it’s here” with markers"))],
        default=CLASSIC,
        validate_choice=False,  # a form without the field plays classic Cryptid
    )
    # Who plays each seat (the template names them by seat_name); only a refereed game may have computers.
    seat1, seat2, seat3, seat4, seat5 = (seat_field() for _ in SEATS)
    submit = SubmitField(_l("Deal a new game"))

    @property
    def seats(self) -> list:
        return [self[f"seat{seat}"] for seat in SEATS]

    def computer_levels(self) -> dict[int, str]:
        """The seats dealt to computer players, with their levels (seats beyond the player count ignored)."""
        return {seat: field.data for seat, field in zip(SEATS, self.seats)
                if seat <= (self.players.data or 0) and field.data in LEVEL_NAMES}

    @property
    def markers(self) -> bool:
        return self.variant.data == MARKERS

    def _validate_markers(self, how: str) -> None:
        if how != REFEREED:
            raise ValidationError(_l("Markers needs the app as referee."))
        if self.players.data not in markers.PLAYER_COUNTS:
            raise ValidationError(_l("Markers is for 2 to 4 players."))

    def validate_how(self, field) -> None:
        if field.data not in (BOX, REFEREED, None, ""):
            raise ValidationError(_l("Not a valid choice."))
        if self.variant.data not in (CLASSIC, MARKERS, None, ""):
            raise ValidationError(_l("Not a valid choice."))
        if self.variant.data == MARKERS:
            self._validate_markers(field.data)
        elif field.data == REFEREED and self.players.data == 2:
            raise ValidationError(_l("With 2 players the app referees only the Markers variant: classic Cryptid's "
                                     "questions need at least two other players."))
        if any(f.data not in (PERSON, None, "", *LEVEL_NAMES) for f in self.seats):
            raise ValidationError(_l("Not a valid choice."))
        computers = self.computer_levels()
        if computers and field.data != REFEREED:
            raise ValidationError(_l("Computer players need the app as referee."))
        if self.players.data and len(computers) >= self.players.data:
            raise ValidationError(_l("At least one seat must be a person."))


def valid_game_code(form, field) -> None:
    """Accept a code only when it names a game; keep the parsed game for the view."""
    try:
        field.game = dealer().load(field.data or "")
    except GameCodeError as exc:
        raise ValidationError(code_error_text(exc.reason, exc.params, gettext)) from None
    except NoHabitatLeft as exc:
        raise ValidationError(no_habitat_left_text(exc.used, gettext)) from None


class LoadCodeForm(Form):
    """A GET form: loading a code changes nothing, so it carries no CSRF token and can be bookmarked."""

    class Meta:
        csrf = False

    code = StringField(_l("Game code"), validators=[valid_game_code])


class AgreeForm(Form):
    """A confirmation that the whole table (or all but one) agrees: for the hint and the reveal."""

    agree = BooleanField(_l("The table agrees"), validators=[DataRequired(_l("Tick the box once the table agrees."))])


class NextGameForm(Form):
    players = SelectField(_l("Players next game"), choices=PLAYER_CHOICES, coerce=int)


class ShowClueForm(Form):
    """The shared-device flow: pick a seat, then confirm that only that player is looking."""

    seat = IntegerField(validators=[InputRequired(), NumberRange(1, 5)])
    confirmed = HiddenField(default="")



class SoloForm(Form):
    """"Play against the computer": one person against 2-4 computer players, started at once."""

    opponents = RadioField(_l("Computer players"), choices=[SelectChoice(n, str(n)) for n in (2, 3, 4)], coerce=int,
                           default=3, validators=[InputRequired()])
    level = SelectField(_l("Their level"), choices=[SelectChoice(level, name) for level, name in LEVEL_NAMES.items()],
                        default=DEFAULT_LEVEL)
    advanced = BooleanField(_l("Advanced mode"))
    solver = BooleanField(_l("Solver: shows every possibility and each hex's chance"))
    submit = SubmitField(_l("Play against the computer"))
