"""Refereed games in the database: each game's moves are rows (code, seq) and its state is their fold.

A move is checked against the state folded from the log, then inserted as row seq = version + 1 under a unique
(code, seq) constraint, in the same transaction that touches the table (which wakes live updates). Two moves
racing for the same place, from two phones or two server processes, cannot both land: the loser's insert
fails, nothing of it is kept, and it is told the state moved on (Conflict). Restarting loses nothing.
"""

from __future__ import annotations

import secrets

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from companion.cryptid import Game, markers
from companion.cryptid.play import OVER, IllegalMove, Move, Reveal, Start, State
from companion.web.core.db import db, writing
from companion.web.core.store import (
    Conflict,
    append_move,
    load_log,
    stamped_cache,
    touch,
)

from .head import TableHead, read_head
from .models import CLASSIC, ComputerSeat, RefereedTable


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
                    computers: dict[int, str] | None = None, variant: str = CLASSIC) -> State | markers.State:
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
    if read_head(game.code).markers:
        state = load_markers(game)
        if start and state.version == 0:
            state = submit_markers(game, markers.Start(draw_first(game).first))
        return state
    state = load_play(game)
    if start and state.version == 0:
        state = submit(game, draw_first(game))
    return state


def draw_first(game: Game) -> Start:
    """The first player, drawn at random when the game starts (docs/cryptid-play.md section 1)."""
    return Start(secrets.randbelow(game.players) + 1)


def load_moves(game: Game) -> list[Move]:
    return [Move.from_json(data) for data in load_log(game.code)]


def load_play(game: Game, head: TableHead | None = None) -> State:
    """The game as its moves leave it: folded once per change of the table, then remembered."""
    stamp = (head or read_head(game.code)).stamp
    return stamped_cache().get("moves", game.code, stamp, lambda: State.replay(game, load_moves(game)))


def submit(game: Game, move: Move, version: int | None = None) -> State:
    """Apply one move: IllegalMove when the rules (or a stale `version`) forbid it, Conflict when another move
    took its place first; either way nothing changes. Returns the new state."""
    return _append(game, move, version, load_play)


def _append(game: Game, move, version: int | None, load):
    """Check the move against the state `load` folds and store it as the next row of the log, or raise."""
    state = load(game)
    state.check_version(version)
    following = state.apply(move)
    if not append_move(game.code, following.version, move.to_json()):
        raise Conflict(load(game))
    return following


def load_markers(game: Game, head: TableHead | None = None) -> markers.State:
    """A Markers table's game as its moves leave it (the same move log, this variant's moves), remembered per change."""
    stamp = (head or read_head(game.code)).stamp
    return stamped_cache().get("markers", game.code, stamp, lambda: markers.State.replay(game, load_markers_moves(game)))


def load_markers_moves(game: Game) -> list[markers.Move]:
    """A Markers table's move log, for its replay."""
    return [markers.Move.from_json(data) for data in load_log(game.code)]


def submit_markers(game: Game, move: markers.Move, version: int | None = None) -> markers.State:
    """submit() for a Markers table: markers.IllegalMove or Conflict, and nothing changes; else the new state."""
    return _append(game, move, version, load_markers)


def settle_reveal(game: Game) -> None:
    """The table agreed to the reveal: a refereed game still running ends with no winner."""
    head = read_head(game.code)
    if not head.refereed:
        return
    if head.markers:
        state = load_markers(game, head)
        if state.phase != markers.OVER:
            try:
                submit_markers(game, markers.End(), state.version)
            except (markers.IllegalMove, Conflict):
                settle_reveal(game)
        return
    state = load_play(game)
    if state.phase != OVER:
        try:
            submit(game, Reveal(), state.version)
        except (IllegalMove, Conflict):
            settle_reveal(game)  # a move came first: try again on the new state

