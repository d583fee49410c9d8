"""The deduction notebook on a seat's phone and the after-game review on every screen (docs/cryptid-play.md
section 9): what the engine's notebook.py and review.py say, as sentences in the reader's language.

The notebook is drawn from the seat's view alone (cryptid.notebook), the review only once the game is over
(it reads every clue). Both are remembered per game position, since every phone of a table and every poll
after a move asks for the same figures.
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock

from babel.lists import format_list
from flask_babel import format_decimal, format_percent, get_locale
from flask_babel import lazy_gettext as _l

from companion.cryptid import Game
from companion.cryptid.clues import CLUES
from companion.cryptid.hexgrid import hex_name, hex_row_col
from companion.cryptid.notebook import (
    NEGATED,
    TERRAINS_GROUP,
    WITHIN_1,
    WITHIN_2,
    WITHIN_3,
    Notebook,
    notebook,
)
from companion.cryptid.play import OVER, State
from companion.cryptid.review import SeatReview, review
from companion.cryptid.text import clue_text
from companion.cryptid.view import View
from companion.web.core.i18n import gettext, left_to_right, local_digits, ngettext

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
_REVIEWS = _Remembered(64)


def seat_notebook(game: Game, seen: View) -> Notebook:
    """The seat's notebook, with the table's hint once unlocked (no clue then mentions its category): the pieces
    change only with the log, so (game, log length, seat, hint) names it."""
    hint = unlocked_hint(game)
    return _NOTEBOOKS.get((game.code, len(seen.log), seen.seat, hint), lambda: notebook(seen, hint))


def game_review(game: Game, state: State) -> tuple[SeatReview, ...] | None:
    """Per seat, when it could have known and what its cubes told; None until the game is over."""
    if state.phase != OVER:
        return None
    return _REVIEWS.get((game.code, state.version), lambda: review(state))


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


def bits(value: float) -> str:
    return local_digits(format_decimal(round(value, 1), format="0.0"))


def review_rows(game: Game, state: State, names: dict[int, str]) -> dict[int, list[str]]:
    """Per seat, the after-game sentences: when it could have known beside when it searched, then its cubes."""
    reviews = game_review(game, state)
    if reviews is None:
        return {}
    entries = {entry.n: entry for entry in state.log}
    rows = {}
    for seat_review in reviews:
        lines = [_known_text(seat_review, entries, names)]
        for cube in seat_review.cubes:
            lines.append(gettext(
                "Cube on %(hex)s (move %(n)s) told the table %(bits)s bits about their clue; the least revealing "
                "choice told %(least)s.", hex=hex_name(cube.hex), n=cube.entry, bits=bits(cube.revealed),
                least=bits(cube.least)))
        rows[seat_review.seat] = lines
    return rows


def _known_text(seat_review: SeatReview, entries: dict, names: dict[int, str]) -> str:
    """'Could have known after move 12 (E4, Chloé); searched at move 15.' in the reader's language."""
    if seat_review.pinned is None:
        known = gettext("Never had enough to be sure where the creature was")
    else:
        entry = entries[seat_review.pinned]
        if entry.hex is None:
            known = gettext("Could have known after move %(n)s", n=entry.n)
        else:
            known = gettext("Could have known after move %(n)s (%(hex)s, %(name)s)", n=entry.n,
                            hex=hex_name(entry.hex), name=names[entry.seat])
    if seat_review.searches:
        moves = format_list([local_digits(n) for n in seat_review.searches], locale=get_locale())
        searched = ngettext("searched at move %(moves)s", "searched at moves %(moves)s", len(seat_review.searches),
                            moves=moves)
    else:
        searched = gettext("never searched")
    return gettext("%(known)s; %(searched)s.", known=known, searched=searched)


def notebook_json(notes: Notebook | None) -> dict | None:
    return None if notes is None else notes.to_json()


def review_json(reviews: tuple[SeatReview, ...] | None) -> list[dict] | None:
    """The `review` array of docs/cryptid-play.md section 8.6: hexes as row and column, like the rest of it."""
    if reviews is None:
        return None
    out = []
    for seat_review in reviews:
        data = seat_review.to_json()
        for cube in data["cubes"]:
            row, col = hex_row_col(cube["hex"])
            cube["hex"] = {"row": row, "col": col}
        out.append(data)
    return out
