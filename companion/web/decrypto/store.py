"""Decrypto tables in the database: each table's current setup in decrypto_tables, its moves in `moves`.

A table's log holds every game it played: a {"action": "next_game"} row starts the next game, so the current
game is the moves after the last such row, folded into the setup stored with the table. Rows written before moves
were keyed by "action" say {"type": ...}; Move.from_json and this module read both (docs/decrypto-rules.md
section 13). A table is refereed through the core (core/referee.py), as every game's is: its state folded once per
change of the table and remembered, a move checked against it (and against the version the form showed, when it
names one), then inserted as the next seq under the unique (code, seq), so of two racing moves one lands and the
other gets Conflict.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime, timezone

from flask import current_app
from sqlalchemy import bindparam, select

from companion.decrypto import (
    TEAMS,
    GiveClues,
    Move,
    Setup,
    State,
    load_words,
    used_after,
)
from companion.web.core.db import MoveRecord, db, utcnow, writing
from companion.web.core.referee import Referee
from companion.web.core.store import Conflict, append_move, touch
from companion.web.core.tokens import new_id

from .models import DecryptoTableRecord

NEXT_GAME = "next_game"
TABLE_ID_LENGTH = 10


@dataclass(frozen=True)
class DecryptoTable:
    """A table as stored: its current game's state, how many rows its log has, and the keywords it has seen."""

    code: str
    state: State
    version: int
    used: frozenset[str]
    # When the first team's clues of the round being played came in, while the other team is still writing:
    # the box's sand timer runs from then (None otherwise).
    clues_in_at: datetime | None = None

    def check_version(self, version: int | None) -> None:
        """Conflict when a form was sent from another version of the table than this one (None: it names none)."""
        if version is not None and version != self.version:
            raise Conflict(self)

    def apply(self, move: Move, at: datetime | None = None) -> DecryptoTable:
        """The table after one more move, made `at` (now, unless the log says when): the engine's IllegalMove
        when the rules refuse it."""
        state = self.state.apply(move)
        clues_in_at = self.clues_in_at
        if isinstance(move, GiveClues) and state.current is not None:
            clues_in_at = (at or utcnow()) if sum(t.given for t in state.current.transmissions) == 1 else None
        if state.current is None or all(t.given for t in state.current.transmissions):
            clues_in_at = None
        return replace(self, state=state, version=self.version + 1, clues_in_at=clues_in_at)


def server_key() -> bytes:
    """Every game's secret comes from the site's SECRET_KEY, so codes and keywords never need storing."""
    return current_app.config["SECRET_KEY"].encode()


def _dealt(setup: Setup) -> list[str]:
    return [] if setup.keywords is None else [word for words in setup.keywords for word in words]


def create_table(team_sizes: tuple[int, int] | None, language: str | None, ending: str) -> str:
    """A new table with its first game dealt; returns its id."""
    code = new_id(TABLE_ID_LENGTH)
    # The site's tables end each round on its reveal until the teams are ready (docs/decrypto-rules.md section 6).
    setup = Setup.create(server_key(), code, team_sizes=team_sizes, language=language, ending=ending,
                         reveal_pause=True)
    used = [] if language is None else sorted(used_after(load_words(language), (), _dealt(setup)))
    with writing():
        touch(code)
        db.session.add(DecryptoTableRecord(code=code, setup=json.dumps(setup.to_json()), used=json.dumps(used)))
    return code


def referee(code: str) -> Referee:
    """The table `code` as the core referees it."""
    return Referee("decrypto", code, lambda: _fold(code))


def load_table(code: str) -> DecryptoTable | None:
    """The table as its moves leave it, remembered per change of the table; None when there is no such table."""
    return referee(code).state()


def _fold(code: str) -> DecryptoTable | None:
    """The table as the database holds it now, folded from its setup and the current game's moves."""
    record = db.session.get(DecryptoTableRecord, code)
    if record is None:
        db.session.commit()
        return None
    setup = Setup.from_json(json.loads(record.setup), server_key())
    used = frozenset(json.loads(record.used))
    # In the same transaction as the setup, so a next game cannot fall between the reads; with each move's time,
    # for the sand timer.
    rows = db.session.execute(_LOG, {"code": code}).all()
    db.session.commit()  # end the read transaction: the next read sees newer commits
    log = [(json.loads(data), made_at) for data, made_at in rows]
    starts = [index for index, (data, _) in enumerate(log) if data.get("action", data.get("type")) == NEXT_GAME]
    first = starts[-1] + 1 if starts else 0  # the current game's first move
    table = DecryptoTable(code, State.initial(setup), first, used)
    for data, made_at in log[first:]:
        if made_at.tzinfo is None:
            made_at = made_at.replace(tzinfo=timezone.utc)  # SQLite gives the stored UTC time back naive
        table = table.apply(Move.from_json(data), made_at)
    return table


_LOG = select(MoveRecord.data, MoveRecord.made_at).where(MoveRecord.code == bindparam("code")).order_by(MoveRecord.seq)


def play(table: DecryptoTable, move: Move, version: int | None = None) -> DecryptoTable:
    """Apply one move to the table as it is now: IllegalMove when the rules refuse it, Conflict when a `version`
    the form showed is no longer current or another move took its place; either way nothing changes."""
    return referee(table.code).play(move, version)


def next_game(table: DecryptoTable) -> DecryptoTable:
    """Deal the table's next game: keywords it has not seen while its list has them, the same teams, players,
    source and ending, and each team's encryptor order going on from where it stopped."""
    state = table.state
    setup = state.setup
    # Phones that picked their team keep it; a seat whose phone left goes (a table of fixed sizes keeps its seats).
    seated = tuple(tuple((m.player, m.name) for m in state.roster(team) if m.player or setup.team_sizes)
                   for team in TEAMS)
    firsts = tuple(
        state.rounds[-1].of(team).encryptor % len(state.roster(team)) + 1 if state.rounds else 1 for team in TEAMS
    )
    following = Setup.create(server_key(), table.code, game=setup.game + 1, team_sizes=setup.team_sizes,
                             language=setup.language, used=table.used, recent=_dealt(setup), ending=setup.ending,
                             seated=seated, first_encryptors=firsts, reveal_pause=setup.reveal_pause)
    used = table.used
    if setup.language is not None:
        used = used_after(load_words(setup.language), table.used, _dealt(following))
    record = db.session.get(DecryptoTableRecord, table.code)
    record.setup = json.dumps(following.to_json())
    record.used = json.dumps(sorted(used))
    if not append_move(table.code, table.version + 1, {"action": NEXT_GAME, "game": following.game}):
        raise Conflict(load_table(table.code))
    return load_table(table.code)

