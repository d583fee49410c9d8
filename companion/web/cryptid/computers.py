"""Computer players at refereed Cryptid tables (docs/cryptid-play.md section 10, docs/cryptid-bots.md): which seats
are computers, their marks wherever a seat is named, and their turns, taken by the core's worker.

A computer decides from view(state, seat), the very view its seat's phone is drawn from, with a random generator
seeded from the game's code, the length of its move log and the seat: the same position always gets the same
move, so a decision replays, and two workers taking the same turn make the same move (the move log keeps one).
"""

from __future__ import annotations

import logging
import random
from typing import Iterable

from flask import current_app, request
from sqlalchemy import bindparam, select
from sqlalchemy.exc import IntegrityError

from companion.cryptid import Game
from companion.cryptid.agreement import REVEAL, STEPS
from companion.cryptid.bots import LEVELS, choose_move, think_ahead
from companion.cryptid.play import (
    OPENING,
    OVER,
    TURNS,
    IllegalMove,
    Move,
    State,
    VoteGone,
)
from companion.cryptid.view import view
from companion.web.core import computers as worker
from companion.web.core.db import TableRecord, db, writing
from companion.web.core.errors import error_response
from companion.web.core.i18n import lazy_gettext
from companion.web.core.moves import after_action
from companion.web.core.store import Conflict, read_once_per_request, reading, stamp_of, touch

from .agreement import cast_vote, load_agreement, unlocked_hint
from .dealing import dealer
from .head import TableHead
from .models import MARKERS, ComputerSeat, RefereedTable
from .refereed import load_play, settle_reveal, submit

log = logging.getLogger(__name__)

# The levels a table may choose, gentlest first, with their plain names (bots.LEVELS has the strategies; the ids
# are stored per computer seat and sent by the JSON API, so they stay).
LEVEL_NAMES = {"novice": lazy_gettext("novice"), "beginner": lazy_gettext("beginner"),
               "solid": lazy_gettext("solid"), "expert": lazy_gettext("expert")}
# What each level is like, in a line for the forms that offer them (docs/cryptid-bots.md section 1).
LEVEL_LINES = {
    "novice": lazy_gettext("Novice: takes its time and keeps only some of the answers in mind; good for a first game."),
    "beginner": lazy_gettext("Beginner: remembers the latest answers and searches on a hunch; good once you know the rules."),
    "solid": lazy_gettext("Solid: keeps careful notes on every player and asks pointed questions; a fair match for a regular."),
    "expert": lazy_gettext("Expert: works out everything the table has shown and searches boldly; hard to beat."),
}
# The level "Play against the computer" starts with: the gentlest, against which a first-time player gets turns
# of their own and a fair chance (docs/benchmarks.md, computer players).
DEFAULT_LEVEL = "novice"


class SeatNotFree(Exception):
    """A seat that cannot be handed to a computer: it left, it is a computer already, or the game is over."""


_SEATS = select(ComputerSeat.seat, ComputerSeat.level).where(ComputerSeat.code == bindparam("code"))


def computer_seats(code: str) -> dict[int, str]:
    """The table's computer seats and their levels, in one indexed read once per request (every hand-over touches
    the table); a copy, which the caller may change."""

    def read() -> dict[int, str]:
        with reading() as connection:
            return dict(connection.execute(_SEATS, {"code": code}).all())

    return dict(read_once_per_request("computer seats", code, read))


def hand_over(game: Game, seat: int, level: str, still_in: Iterable[int]) -> None:
    """The host hands a seat still in the game (one of `still_in`, empty once it is over) to a computer player;
    SeatNotFree when it cannot be."""
    if level not in LEVELS or not 1 <= seat <= game.players:
        raise ValueError(level)
    if seat not in still_in or seat in computer_seats(game.code):
        raise SeatNotFree(seat)
    try:
        with writing():
            touch(game.code)
            db.session.add(ComputerSeat(code=game.code, seat=seat, level=level))
    except IntegrityError:  # handed over by a racing request: a computer's already
        raise SeatNotFree(seat) from None


# A refereed move or host form that is malformed (400): both variants' seat and host forms, and the hand-over.
MALFORMED_MOVE = lazy_gettext("That move did not make sense. Tap a hex on the board, then choose what to do.")
CANNOT_HAND_OVER = lazy_gettext("That seat cannot be handed to a computer player now.")


def hand_over_response(game: Game, load, still_in, fragment_of, back_url: str):
    """The host screen's hand-over form (fields `target` and `level`), for a table of either variant (`load` reads
    its state, `still_in(state)` names the seats that may be handed over while it runs, `fragment_of(state)`
    renders the host's live fragment): 303 back (or the new live fragment for the page's script), 400 when
    malformed, 409 for a seat that cannot be handed over (docs/cryptid-play.md section 10)."""
    target, state = request.form.get("target", ""), load(game)
    try:
        if not (target.isascii() and target.isdigit() and len(target) <= 3):
            raise ValueError(target)
        hand_over(game, int(target), request.form.get("level", ""), () if state.phase == OVER else still_in(state))
    except SeatNotFree:
        return error_response(409, str(CANNOT_HAND_OVER))
    except ValueError:
        return error_response(400, str(MALFORMED_MOVE))
    return after_action(lambda: fragment_of(load(game)), back_url, anchor="#play")


def gone_candidates(in_game: Iterable[int], gone_votes, viewer: int | None, names: dict[int, str],
                    computers: dict[int, str]) -> list[dict]:
    """Seats the viewer may mark as gone (every other seat still in the game; the host may mark any), with their
    votes, and whether the host may hand each to a computer player instead. Empty for a viewer out of the game."""
    in_game = tuple(in_game)
    if viewer is not None and viewer not in in_game:
        return []
    return [{"seat": other, "name": names[other], "voted": viewer is not None and viewer in gone_votes[other - 1],
             "votes": len(gone_votes[other - 1]), "computer": other in computers}
            for other in in_game if other != viewer]


def owed_gone_votes(in_game: Iterable[int], gone_votes, computers: Iterable[int]) -> list[tuple[int, int]]:
    """(computer, target) for each gone vote a computer owes: a computer marks a seat gone once every other
    person still in the game has (docs/cryptid-play.md section 10)."""
    in_game, computers = tuple(in_game), set(computers)
    people = [seat for seat in in_game if seat not in computers]
    owed = []
    for target in in_game:
        voters, others = gone_votes[target - 1], [seat for seat in people if seat != target]
        if others and all(seat in voters for seat in others):
            owed += [(seat, target) for seat in in_game if seat in computers and seat != target and seat not in voters]
    return owed


def computers_json(data: dict, computers: dict[int, str]) -> dict:
    """A state's JSON with each seat's computer level (null for a person)."""
    for entry in data["seats"]:
        entry["computer"] = computers.get(entry["seat"])
    return data


def computers_mark(code: str) -> str:
    """The computer seats, for the ETags: a seat handed to a computer changes every page that names it."""
    return "".join(f"{seat}{level[0]}" for seat, level in sorted(computer_seats(code).items()))


def labelled_names(names: dict[int, str], computers: dict[int, str], gettext) -> dict[int, str]:
    """Seat names with the computer mark and level on computer seats, for every place a seat is named."""
    return {
        seat: gettext("%(name)s (computer, %(level)s)", name=name, level=str(LEVEL_NAMES[computers[seat]]))
        if seat in computers else name
        for seat, name in names.items()
    }


# The worker's side ------------------------------------------------------------------------------------------

def decide(state: State, seat: int, level: str, hint: str | None = None) -> Move:
    """The move a computer of `level` makes at `seat`, from that seat's own view only."""
    rng = random.Random(f"{state.game.code}/{state.version}/{seat}")
    return choose_move(view(state, seat), LEVELS[level], rng, hint)


# Classic tables only: a Markers table's computers are markers.py's (docs/cryptid-markers.md section 5).
_OWED = (select(ComputerSeat.code, ComputerSeat.seat, ComputerSeat.level, TableRecord.last_activity,
                TableRecord.changes).join(TableRecord, TableRecord.code == ComputerSeat.code)
         .join(RefereedTable, RefereedTable.code == ComputerSeat.code).where(RefereedTable.variant != MARKERS))


def pending_turns() -> list[tuple]:
    """Everything a computer owes its table now: its move or the cube it must place ("move", code, version,
    seat), and its agreement where every person still playing agreed: that a seat is gone ("gone", code,
    version, seat, target), or to a hint or the reveal ("agree", code, stamp, seat, step)."""
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
        found = _owed_at(code, stamp, seats)
        owed += found
        if not found:
            settled[code] = stamp  # nothing owed until the table changes
    return owed


def _owed_at(code: str, stamp: str, seats: dict[int, str]) -> list[tuple]:
    try:
        game = dealer().load(code)
    except ValueError:
        return []
    head = TableHead(stamp, True)
    state = load_play(game, head)
    if state.phase == OVER:
        return []
    computers = [seat for seat in state.active_seats if seat in seats]
    people = [seat for seat in state.active_seats if seat not in seats]
    if state.phase in (OPENING, TURNS) and state.turn in computers:
        return [("move", code, state.version, state.turn)]
    # A vanished person: the computers agree once every other person did.
    owed = [("gone", code, state.version, seat, target)
            for seat, target in owed_gone_votes(state.active_seats, state.gone_votes, seats)]
    agreement = load_agreement(game, head)
    for step in STEPS:  # a hint or the reveal: the computers agree once every person asked for it
        voters = agreement.voters(step)
        if step not in agreement.unlocked and agreement.is_open(step) and people and set(people) <= voters:
            owed += [("agree", code, stamp, seat, step) for seat in computers if seat not in voters]
    return owed


def take_turn(turn: tuple) -> None:
    """Take one owed turn, if the table still waits for it; a move that came first makes it moot."""
    kind, code, position, seat, *rest = turn
    game = dealer().load(code)
    level = computer_seats(code).get(seat)
    if level is None:
        return
    if kind == "agree":
        if REVEAL in cast_vote(game, seat, rest[0]).unlocked:
            settle_reveal(game)
        return
    state = load_play(game)
    if state.version != position:
        return
    if kind == "gone":
        move = VoteGone(seat, rest[0])
    elif state.turn == seat:
        # The table's hint, once unlocked, shows on the seat's phone too.
        move = decide(state, seat, level, unlocked_hint(game))
    else:
        return
    try:
        submit(game, move, position)
    except (Conflict, IllegalMove):  # another worker took this turn first
        log.info("computer turn %s taken elsewhere", turn)
    if state.phase == OPENING:
        # The table's turns fall to this worker: what it works out now spares its computers' first question.
        think_ahead(game.board.to_map_code(), state.players, LEVELS[level])


def _settled() -> dict[str, str]:
    """Tables that owed nothing at the stamp noted (kept per process: most tables wait for a phone)."""
    return current_app.extensions.setdefault("cryptid.computers_settled", {})


def init_app() -> None:
    worker.register("cryptid", pending_turns, take_turn, table=lambda turn: turn[1])
