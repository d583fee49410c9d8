"""The deduction notebook on a seat's phone (docs/cryptid-play.md section 9): what the engine's notebook.py
says, as sentences in the reader's language (the after-game review is review.py's).

The notebook is drawn from the seat's view alone (cryptid.notebook). It is remembered per game position, since
every phone of a table and every poll after a move asks for the same figures.
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock

from babel.lists import format_list
from flask_babel import format_percent, get_locale

from companion.cryptid import Game
from companion.cryptid.clues import CLUES
from companion.cryptid.hexgrid import hex_name
from companion.cryptid.notebook import (
    NEGATED,
    TERRAINS_GROUP,
    WITHIN_1,
    WITHIN_2,
    WITHIN_3,
    Notebook,
    notebook,
)
from companion.cryptid.text import clue_text
from companion.cryptid.view import View
from companion.web.core.i18n import gettext, left_to_right, local_digits
from companion.web.core.i18n import lazy_gettext as _l

from .agreement import unlocked_hint

GROUP_TITLES = {
    TERRAINS_GROUP: _l("On one of two terrains"),
    WITHIN_1: _l("Within one space"),
    WITHIN_2: _l("Within two spaces"),
    WITHIN_3: _l("Within three spaces"),
    NEGATED: _l("Clues that say “not”"),
}
# The board's shading: a hex's habitat probability falls in one of these bands (upper bounds), drawn darker
# and thicker from the first to the last, so the order reads without colour.
ODDS_BANDS = (0.05, 0.15, 0.4)
LIKELIEST_SHOWN = 5


class _Remembered:
    """A small least-recently-used memory shared by the requests of one process. Requests that ask for the same
    missing key together wait for the first one's answer rather than each computing it (every phone of a table
    asks at once after a move, or at the end of the game)."""

    def __init__(self, size: int) -> None:
        self.size, self.items, self.lock = size, OrderedDict(), Lock()
        self.computing: dict = {}

    def get(self, key, compute):
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
            turn = self.computing.setdefault(key, Lock())
        with turn:
            with self.lock:
                if key in self.items:
                    return self.items[key]
            value = compute()
            with self.lock:
                self.items[key] = value
                self.computing.pop(key, None)
                while len(self.items) > self.size:
                    self.items.popitem(last=False)
        return value


_NOTEBOOKS = _Remembered(256)


def seat_notebook(game: Game, seen: View) -> Notebook:
    """The seat's notebook, with the table's hint once unlocked (no clue then mentions its category): the pieces
    change only with the log, so (game, log length, seat, hint) names it."""
    hint = unlocked_hint(game)
    return _NOTEBOOKS.get((game.code, len(seen.log), seen.seat, hint), lambda: notebook(seen, hint))


def odds_band(probability: float) -> int:
    """1-4: the band of ODDS_BANDS a habitat probability falls in (0 for a hex that cannot be the habitat)."""
    if not probability:
        return 0
    return 1 + sum(probability >= bound for bound in ODDS_BANDS)


def percent(probability: float) -> str:
    """A probability as the reader writes a percentage, whole; under 1 % is "< 1 %" rather than 0."""
    if 0 < probability < 0.005:
        return "< " + local_digits(format_percent(0.01))
    return local_digits(format_percent(probability))


def odds_legend() -> list[dict]:
    """The shading's bands, lightest first, each with its range in words."""
    low, middle, high = (percent(bound) for bound in ODDS_BANDS)
    return [
        {"band": 1, "text": gettext("under %(p)s", p=low)},
        {"band": 2, "text": gettext("%(low)s to %(high)s", low=low, high=middle)},
        {"band": 3, "text": gettext("%(low)s to %(high)s", low=middle, high=high)},
        {"band": 4, "text": gettext("%(p)s or more", p=high)},
    ]


def notebook_context(notes: Notebook, names: dict[int, str]) -> dict:
    """What the phone's notebook section shows: per opponent the possible clues as sentences, grouped and
    counted; the number of hexes left and the likeliest of them."""
    opponents = [
        {"seat": o.seat, "name": names[o.seat], "count": o.count,
         "groups": [{"title": str(GROUP_TITLES[group]), "clues": [clue_text(CLUES[i], gettext) for i in indices]}
                    for group, indices in o.groups]}
        for o in notes.opponents
    ]
    habitats = sorted(notes.habitats, key=lambda hex: (-notes.weights[hex], hex))
    likeliest = [f"{left_to_right(hex_name(hex))} {percent(notes.probability(hex))}" for hex in habitats[:LIKELIEST_SHOWN]]
    return {"opponents": opponents, "hexes": len(habitats),
            "likeliest": format_list(likeliest, locale=get_locale()) if likeliest else "",
            "legend": odds_legend()}


def hex_odds_text(notes: Notebook, hex: int) -> str:
    """What the sheet of a tapped hex says of it: how likely it is to be the habitat, from the seat's knowledge."""
    probability = notes.probability(hex)
    if not probability:
        return gettext("From what you know, the habitat cannot be here.")
    return gettext("From what you know, the habitat is here with a chance of %(p)s.", p=percent(probability))


def notebook_json(notes: Notebook | None) -> dict | None:
    return None if notes is None else notes.to_json()
