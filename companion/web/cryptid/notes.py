"""The notebook that keeps the books on a seat's phone (docs/cryptid-play.md section 9.3): each opponent's pieces
with the facts of their hexes, the mode's clue list the player crosses off, the player's marks on hexes, and
"check my notes". What the player wrote is stored per seat (models.SeatNotes) and read only for that seat's own
pages; the books themselves come from the seat's view (cryptid.books).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from babel.lists import format_list
from flask import request
from flask_babel import get_locale
from sqlalchemy import bindparam, select

from companion.cryptid import Game
from companion.cryptid.books import (
    MARKS,
    MAYBE,
    NO,
    HexFacts,
    books,
    clue_list,
    crossed_but_possible,
    possible_clues,
    valid_clue,
)
from companion.cryptid.clues import CLUES
from companion.cryptid.hexgrid import HEX_COUNT, hex_name
from companion.cryptid.notebook import GROUPS, clue_group
from companion.cryptid.text import STRUCTURE_NAMES, TERRAIN_NAMES, clue_text
from companion.cryptid.view import View
from companion.web.core.db import db, writing
from companion.web.core.i18n import gettext, left_to_right, ngettext
from companion.web.core.store import read_once_per_request, reading, touch

from .agreement import unlocked_hint
from .models import SeatNotes
from .notebook import GROUP_TITLES, _Remembered

_POSSIBLE = _Remembered(256)
CHECK_WHETHER, CHECK_WHICH = "1", "2"


@dataclass(frozen=True)
class Notes:
    """What one seat wrote: per opponent the clue indices it crossed off, per hex its mark; `revision` counts changes."""

    crossed: dict[int, frozenset[int]] = field(default_factory=dict)
    marks: dict[int, str] = field(default_factory=dict)
    revision: int = 0


_NOTES = select(SeatNotes.crossed, SeatNotes.marks, SeatNotes.revision).where(
    SeatNotes.code == bindparam("code"), SeatNotes.seat == bindparam("seat"))


def load_notes(code: str, seat: int) -> Notes:
    """The seat's notes (empty before it wrote any), read once per request (every change touches the table)."""
    return read_once_per_request(f"notes {seat}", code, lambda: _read_notes(code, seat))


def _read_notes(code: str, seat: int) -> Notes:
    with reading() as connection:
        row = connection.execute(_NOTES, {"code": code, "seat": seat}).first()
    if row is None:
        return Notes()
    crossed = {int(s): frozenset(indices) for s, indices in json.loads(row[0] or "{}").items()}
    marks = {int(h): mark for h, mark in json.loads(row[1] or "{}").items()}
    return Notes(crossed, marks, row[2] or 0)


def _write(code: str, seat: int, change) -> None:
    """Apply `change(record)` to the seat's row in one transaction that touches the table, so the seat's other
    open pages follow (their ETag holds the revision; the other seats' do not change)."""
    with writing():
        touch(code)
        record = db.session.get(SeatNotes, (code, seat))
        if record is None:
            record = SeatNotes(code=code, seat=seat, crossed="{}", marks="{}", revision=0)
            db.session.add(record)
        change(record)
        record.revision = (record.revision or 0) + 1


def save_crossed(code: str, seat: int, opponent: int, indices: frozenset[int]) -> None:
    """The clues the seat crossed off for one opponent, all of them (the form sends the whole list)."""
    def change(record: SeatNotes) -> None:
        crossed = json.loads(record.crossed or "{}")
        crossed[str(opponent)] = sorted(indices)
        record.crossed = json.dumps(crossed)
    _write(code, seat, change)


def save_mark(code: str, seat: int, hex: int, mark: str | None) -> None:
    """The seat's mark on one hex; None takes it off."""
    def change(record: SeatNotes) -> None:
        marks = json.loads(record.marks or "{}")
        if mark is None:
            marks.pop(str(hex), None)
        else:
            marks[str(hex)] = mark
        record.marks = json.dumps(marks)
    _write(code, seat, change)


def parse_notes_form(game: Game, seat: int, form) -> tuple | None:
    """What a notes form asks: ("cross", opponent, indices) or ("mark", hex, mark or None); None if malformed."""
    action = form.get("action")
    if action == "cross":
        opponent = _small_int(form.get("opponent"))
        indices = [_small_int(value) for value in form.getlist("off")]
        allowed = set(clue_list(game.mode))
        if (opponent is None or not 1 <= opponent <= game.players or opponent == seat
                or any(i is None or not valid_clue(i) or i not in allowed for i in indices)):
            return None
        return ("cross", opponent, frozenset(indices))
    if action == "mark":
        hex, mark = _small_int(form.get("hex")), form.get("mark", "")
        if hex is None or hex >= HEX_COUNT or mark not in (*MARKS, "none"):
            return None
        return ("mark", hex, None if mark == "none" else mark)
    return None


def apply_notes(code: str, seat: int, change: tuple) -> None:
    if change[0] == "cross":
        save_crossed(code, seat, change[1], change[2])
    else:
        save_mark(code, seat, change[1], change[2])


def _small_int(value) -> int | None:
    text = str(value or "")
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 3 else None


def open_opponent(seen: View) -> int:
    """The opponent whose page of the notebook is open (?nb=S): by default the next seat after the viewer."""
    value = _small_int(request.args.get("nb"))
    if value is not None and value in seen.seats and value != seen.seat:
        return value
    return seen.seat % seen.players + 1


def facts_text(facts: HexFacts) -> str:
    """The facts of a piece's hex that clues speak of, in the reader's language: animal territory on it or near it,
    the other terrains next to it, the structures within three spaces."""
    parts = []
    if facts.animal:
        parts.append(gettext("bear territory") if facts.animal == "bear" else gettext("cougar territory"))
    for animal, distance in facts.animals:
        if not distance:
            continue
        if animal == "bear":
            parts.append(ngettext("%(num)s space from bear territory", "%(num)s spaces from bear territory", distance))
        else:
            parts.append(ngettext("%(num)s space from cougar territory", "%(num)s spaces from cougar territory", distance))
    if facts.near_terrains:
        terrains = format_list([gettext(TERRAIN_NAMES[t]) for t in facts.near_terrains], locale=get_locale())
        parts.append(gettext("next to %(terrains)s", terrains=terrains))
    for kind, color, distance in facts.structures:
        structure = gettext(STRUCTURE_NAMES[(kind, color)])
        if distance:
            parts.append(ngettext("%(structure)s %(num)s space away", "%(structure)s %(num)s spaces away", distance,
                                  structure=structure))
        else:
            parts.append(gettext("%(structure)s on this hex", structure=structure))
    return gettext(" · ").join(parts)  # the reader's separator: Persian zero is a dot, so "·" would read as one


def _pieces(groups) -> list[dict]:
    return [{"terrain": gettext(TERRAIN_NAMES[terrain]),
             "pieces": [{"name": hex_name(f.hex), "facts": facts_text(f)} for f in facts]}
            for terrain, facts in groups]


def books_context(game: Game, seen: View, notes: Notes, names: dict[int, str], link) -> dict:
    """What the seat's notebook shows: a tab per opponent; the open one's discs and cubes, grouped by terrain,
    and the mode's clue list with what the player crossed off; the player's marks; the check if asked for."""
    opened = open_opponent(seen)
    shown = next(b for b in books(seen, game.board) if b.seat == opened)
    crossed = notes.crossed.get(opened, frozenset())
    listed = clue_list(game.mode)
    grouped: dict[str, list[int]] = {}
    for index in listed:
        grouped.setdefault(clue_group(index), []).append(index)
    groups = [{"title": str(GROUP_TITLES[group]),
               "clues": [{"index": i, "text": clue_text(CLUES[i], gettext), "off": i in crossed} for i in grouped[group]]}
              for group in GROUPS if group in grouped]
    marks = {mark: sorted(h for h, m in notes.marks.items() if m == mark) for mark in MARKS}
    return {
        "tabs": [{"seat": s, "name": names[s], "open": s == opened, "url": link(nb=s) + "#notebook"}
                 for s in seen.seats if s != seen.seat],
        "opened": opened,
        "name": names[opened],
        "discs": _pieces(shown.discs),
        "cubes": _pieces(shown.cubes),
        "groups": groups,
        "crossed": len(crossed & set(listed)),
        "listed": len(listed),
        "maybe": format_list([left_to_right(hex_name(h)) for h in marks[MAYBE]], locale=get_locale()) if marks[MAYBE] else "",
        "no": format_list([left_to_right(hex_name(h)) for h in marks[NO]], locale=get_locale()) if marks[NO] else "",
        "check_url": link(nb=opened, check=CHECK_WHETHER) + "#check",
        "which_url": link(nb=opened, check=CHECK_WHICH) + "#check",
        "check": check_text(game, seen, notes, names),
    }


def check_text(game: Game, seen: View, notes: Notes, names: dict[int, str]) -> dict | None:
    """"Check my notes" (?check=1): whether a clue the player crossed off could still be its opponent's, from
    what the seat knows (the deduction engine); asked again (?check=2), which one. None when not asked."""
    asked = request.args.get("check")
    if asked not in (CHECK_WHETHER, CHECK_WHICH):
        return None
    crossed = {s: indices for s, indices in notes.crossed.items() if indices}
    if not crossed:
        return {"text": gettext("You have not crossed off any clue yet."), "wrong": False}
    hint = unlocked_hint(game)
    possible = _POSSIBLE.get((game.code, len(seen.log), seen.seat, hint), lambda: possible_clues(seen, hint))
    wrong = crossed_but_possible(crossed, possible)
    if not wrong:
        return {"text": gettext("Every clue you crossed off is ruled out by what you know: the pieces on the board "
                                "and your own clue."), "wrong": False}
    if asked == CHECK_WHETHER:
        return {"text": gettext("At least one clue you crossed off could still be a player's clue."), "wrong": True,
                "ask_which": True}
    seat, index = wrong[0]
    return {"text": gettext("From what you know, %(name)s could still hold this clue you crossed off: %(clue)s",
                            name=names[seat], clue=clue_text(CLUES[index], gettext)), "wrong": True}
