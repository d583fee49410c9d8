"""Refereed Cryptid tables: which games the site referees and as which variant (variants.py), their states and
moves through the core's referee (core/referee.py).

A move is checked against the state folded from the log, then inserted as row seq = version + 1 under a unique
(code, seq) constraint, in the same transaction that touches the table (which wakes live updates). Two moves
racing for the same place, from two phones or two server processes, cannot both land: the loser's insert
fails, nothing of it is kept, and it is told the state moved on (Conflict). Restarting loses nothing.
"""

from __future__ import annotations

import secrets

from flask import abort

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from companion.cryptid import Game
from companion.web.core.db import db, writing
from companion.web.core.store import Conflict, touch

from .head import TableHead, read_head
from .models import CLASSIC, ComputerSeat, RefereedTable
from .variants import VARIANTS, Variant


def is_refereed(game: Game, head: TableHead | None = None) -> bool:
    """Whether the site referees this game; `head` if the caller just read it."""
    return (head or read_head(game.code)).refereed


def next_refereed_code(game: Game, head: TableHead | None = None) -> str | None:
    """The game the host dealt after this one, if any (phones at the end offer to follow it); `head` if the
    caller just read it."""
    return (head or read_head(game.code)).next_code


def has_solver(game: Game, head: TableHead | None = None) -> bool:
    """Whether this refereed table chose the solver; `head` if the caller just read it."""
    return (head or read_head(game.code)).solver


def create_refereed(game: Game, start: bool = False, previous: Game | None = None, solver: bool = False,
                    computers: dict[int, str] | None = None, variant: str = CLASSIC):
    """Make `game` a refereed table (idempotent); with start, draw the first player and begin at once.
    solver: each phone shows the solver (the next game of a table keeps its choice);
    `computers`: the seats computer players take, with their levels (docs/cryptid-play.md section 10);
    `variant`: classic Cryptid or Markers (docs/cryptid-markers.md; the next game of a table keeps it)."""
    try:
        with writing():
            touch(game.code)
            if previous is not None:
                previous_head = read_head(previous.code)
                solver, variant = solver or previous_head.solver, previous_head.variant
            if db.session.get(RefereedTable, game.code) is None:
                db.session.add(RefereedTable(code=game.code, solver=solver, variant=variant))
            for seat, level in sorted((computers or {}).items()):
                db.session.merge(ComputerSeat(code=game.code, seat=seat, level=level))
            if previous is not None:  # touched too, so that the phones still on it hear of the next game
                touch(previous.code)
                db.session.execute(update(RefereedTable).where(RefereedTable.code == previous.code).values(next_code=game.code))
    except IntegrityError:  # created by a racing request: the same table
        pass
    head = read_head(game.code)
    state = load_play(game, head)
    if start and state.version == 0:
        state = submit(game, variant_of(head).start(draw_first(game)))
    return state


def draw_first(game: Game) -> int:
    """The first player, drawn at random when the game starts (docs/cryptid-play.md section 1)."""
    return secrets.randbelow(game.players) + 1


def refereed_as(game: Game, variant: str) -> Game:
    """The game, if the site referees its table as `variant`: 404 for another variant's table (its moves and
    pages are that variant's) and for a box game, which keeps no move log and no computer seats to write."""
    head = read_head(game.code)
    if not head.refereed or head.variant != variant:
        abort(404)
    return game


def variant_of(head: TableHead) -> Variant:
    """The record of the game the table is refereed as (classic for a box game's head, which has none)."""
    return VARIANTS[head.variant]


def load_moves(game: Game, head: TableHead | None = None) -> list:
    """The table's move log, as its variant's moves."""
    return variant_of(head or read_head(game.code)).moves(game)


def load_play(game: Game, head: TableHead | None = None):
    """The game as its moves leave it (classic or Markers, as the table was dealt): folded once per change of the
    table, then remembered; `head` if the caller just read it."""
    head = head or read_head(game.code)
    return variant_of(head).referee(game).state(head.stamp)


def submit(game: Game, move, version: int | None = None):
    """Apply one move: the variant's IllegalMove when the rules (or a stale `version`) forbid it, Conflict when
    another move took its place first; either way nothing changes. Returns the new state."""
    head = read_head(game.code)
    return variant_of(head).referee(game).play(move, version, head.stamp)


def submit_once(game: Game, move, version: int | None):
    """submit(), except that the same move sent again for the version it already moved on from (a double tap on
    Confirm, or a form sent twice) is not an error: the move was made once, and the answer is the game now."""
    head = read_head(game.code)
    rules = variant_of(head)
    return rules.referee(game).play_once(
        move, version, lambda: rules.moves(game), lambda error: getattr(error, "reason", "") == "stale_version",
        (rules.illegal_move,), head.stamp)


def settle_reveal(game: Game) -> None:
    """The table agreed to the reveal: a refereed game still running ends with no winner."""
    head = read_head(game.code)
    if not head.refereed:
        return
    rules = variant_of(head)
    state = load_play(game, head)
    if state.phase != rules.over:
        try:
            submit(game, rules.reveal(), state.version)
        except (rules.illegal_move, Conflict):
            settle_reveal(game)  # a move came first: try again on the new state
