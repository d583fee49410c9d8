"""Computer players at refereed Cryptid tables (docs/cryptid-play.md section 9, docs/cryptid-bots.md): which seats
are computers, their marks wherever a seat is named, and their turns, taken by the core's worker.

A computer decides from view(state, seat), the very view its seat's phone is drawn from, with a random generator
seeded from the game's code, the length of its move log and the seat: the same position always gets the same
move, so a decision replays, and two workers taking the same turn make the same move (the move log keeps one).
"""

from __future__ import annotations

import logging
import random

from flask import current_app
from flask_babel import lazy_gettext
from sqlalchemy import bindparam, select
from sqlalchemy.exc import IntegrityError

from companion.cryptid import Game
from companion.cryptid.agreement import HINT
from companion.cryptid.bots import LEVELS, choose_move
from companion.cryptid.play import OPENING, TURNS, IllegalMove, Move, State
from companion.cryptid.view import view
from companion.web.core import computers as worker
from companion.web.core.db import TableRecord, db, writing
from companion.web.core.store import Conflict, reading, stamp_of, stamped_cache, touch

from .agreement import load_agreement
from .dealing import dealer
from .head import TableHead
from .models import ComputerSeat
from .refereed import load_play, submit

log = logging.getLogger(__name__)

# The levels a table may choose, weakest first, with their plain names (bots.LEVELS has the strategies).
LEVEL_NAMES = {"beginner": lazy_gettext("beginner"), "solid": lazy_gettext("solid"), "expert": lazy_gettext("expert")}
DEFAULT_LEVEL = "solid"
assert set(LEVEL_NAMES) == set(LEVELS)


class SeatNotFree(Exception):
    """A seat that cannot be handed to a computer: it left, it is a computer already, or the game is over."""


_SEATS = select(ComputerSeat.seat, ComputerSeat.level).where(ComputerSeat.code == bindparam("code"))


def computer_seats(code: str, stamp: str | None = None) -> dict[int, str]:
    """The table's computer seats and their levels; remembered per table stamp when the caller read one."""
    def load() -> dict[int, str]:
        with reading() as connection:
            return dict(connection.execute(_SEATS, {"code": code}).all())

    return load() if stamp is None else stamped_cache().get("computers", code, stamp, load)


def hand_over(game: Game, state: State, seat: int, level: str) -> None:
    """The host hands a seat still in the game to a computer player; SeatNotFree when it cannot be."""
    if level not in LEVELS or not 1 <= seat <= game.players:
        raise ValueError(level)
    if state.phase == "over" or seat in state.left or seat in computer_seats(game.code):
        raise SeatNotFree(seat)
    try:
        with writing():
            touch(game.code)
            db.session.add(ComputerSeat(code=game.code, seat=seat, level=level))
    except IntegrityError:  # handed over by a racing request: a computer's already
        raise SeatNotFree(seat) from None


def labelled_names(names: dict[int, str], computers: dict[int, str], gettext) -> dict[int, str]:
    """Seat names with the computer mark and level on computer seats, for every place a seat is named."""
    return {
        seat: gettext("%(name)s (computer, %(level)s)", name=name, level=gettext(str(LEVEL_NAMES[computers[seat]])))
        if seat in computers else name
        for seat, name in names.items()
    }


# The worker's side ------------------------------------------------------------------------------------------

def decide(state: State, seat: int, level: str, hint: str | None = None) -> Move:
    """The move a computer of `level` makes at `seat`, from that seat's own view only."""
    rng = random.Random(f"{state.game.code}/{state.version}/{seat}")
    return choose_move(view(state, seat), LEVELS[level], rng, hint)


_OWED = select(ComputerSeat.code, ComputerSeat.seat, ComputerSeat.level, TableRecord.last_activity,
               TableRecord.changes).join(TableRecord, TableRecord.code == ComputerSeat.code)


def pending_turns() -> list[tuple[str, int, int]]:
    """Every turn a computer owes now, as (code, version, seat): its move, or a cube it must place."""
    tables: dict[str, tuple[str, dict[int, str]]] = {}
    with reading() as connection:
        for code, seat, level, last_activity, changes in connection.execute(_OWED):
            tables.setdefault(code, (stamp_of(last_activity, changes), {}))[1][seat] = level
    owed = []
    settled = {code: stamp for code, stamp in _settled().items() if code in tables}
    current_app.extensions["cryptid.computers_settled"] = settled
    for code, (stamp, seats) in tables.items():
        if settled.get(code) == stamp:
            continue
        state = _state(code, stamp)
        if state is not None and state.phase in (OPENING, TURNS) and state.turn in seats and state.turn not in state.left:
            owed.append((code, state.version, state.turn))
        else:
            settled[code] = stamp  # nothing owed until the table changes
    return owed


def take_turn(turn: tuple[str, int, int]) -> None:
    """Play one owed turn, if the game still waits for it; a move that came first makes it moot."""
    code, version, seat = turn
    game = dealer().load(code)
    state = load_play(game)
    level = computer_seats(code).get(seat)
    if state.version != version or state.turn != seat or level is None:
        return
    # The table's hint, once unlocked, shows on the seat's phone too.
    hint = game.hint if HINT in load_agreement(game).unlocked else None
    try:
        submit(game, decide(state, seat, level, hint), version)
    except (Conflict, IllegalMove):  # another worker played this turn first
        log.info("computer turn %s taken elsewhere", turn)


def _state(code: str, stamp: str) -> State | None:
    try:
        game = dealer().load(code)
    except ValueError:
        return None
    return load_play(game, TableHead(stamp, True))


def _settled() -> dict[str, str]:
    """Tables that owed nothing at the stamp noted (kept per process: most tables wait for a phone)."""
    return current_app.extensions.setdefault("cryptid.computers_settled", {})


def init_app() -> None:
    worker.register("cryptid", pending_turns, take_turn)
