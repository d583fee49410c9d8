"""Decrypto tables in the database: each table's current setup in decrypto_tables, its moves in `moves`.

A table's log holds every game it played: a {"action": "next_game"} row starts the next game, so the current
game is the moves after the last such row, folded into the setup stored with the table. Rows written before moves
were keyed by "action" say {"type": ...}; Move.from_json and this module read both (docs/decrypto-rules.md
section 13). Moves are appended through the shared store (core.store.append_move): checked against the folded
state, then inserted as the next seq under the unique (code, seq), so of two racing moves one lands and the
other gets Conflict.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from flask import current_app

from companion.decrypto import (
    Move,
    Setup,
    State,
    load_words,
    used_after,
)
from companion.web.core.db import db, writing
from companion.web.core.store import Conflict, append_move, load_log, touch
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


def server_key() -> bytes:
    """Every game's secret comes from the site's SECRET_KEY, so codes and keywords never need storing."""
    return current_app.config["SECRET_KEY"].encode()


def _dealt(setup: Setup) -> list[str]:
    return [] if setup.keywords is None else [word for words in setup.keywords for word in words]


def create_table(team_sizes: tuple[int, int] | None, language: str | None) -> str:
    """A new table with its first game dealt; returns its id."""
    code = new_id(TABLE_ID_LENGTH)
    setup = Setup.create(server_key(), code, team_sizes=team_sizes, language=language)
    used = [] if language is None else sorted(used_after(load_words(language), (), _dealt(setup)))
    with writing():
        touch(code)
        db.session.add(DecryptoTableRecord(code=code, setup=json.dumps(setup.to_json()), used=json.dumps(used)))
    return code


def load_table(code: str) -> DecryptoTable | None:
    """The table as the database holds it now; None when there is no such table."""
    record = db.session.get(DecryptoTableRecord, code)
    if record is None:
        db.session.commit()
        return None
    setup = Setup.from_json(json.loads(record.setup), server_key())
    used = frozenset(json.loads(record.used))
    log = load_log(code)  # in the same transaction as the setup, so a next game cannot fall between the reads
    db.session.commit()  # end the read transaction: the next read sees newer commits
    starts = [index for index, data in enumerate(log) if data.get("action", data.get("type")) == NEXT_GAME]
    current = log[starts[-1] + 1 :] if starts else log
    return DecryptoTable(code, State.replay(setup, map(Move.from_json, current)), len(log), used)


def play(table: DecryptoTable, move: Move) -> DecryptoTable:
    """Apply one move: IllegalMove when the rules refuse it, Conflict when another move took its place."""
    following = table.state.apply(move)
    if not append_move(table.code, table.version + 1, move.to_json()):
        raise Conflict(load_table(table.code))
    return DecryptoTable(table.code, following, table.version + 1, table.used)


def next_game(table: DecryptoTable) -> DecryptoTable:
    """Deal the table's next game: keywords it has not seen while its list has them, the same teams and source."""
    setup = table.state.setup
    following = Setup.create(server_key(), table.code, game=setup.game + 1, team_sizes=setup.team_sizes,
                             language=setup.language, used=table.used, recent=_dealt(setup))
    used = table.used
    if setup.language is not None:
        used = used_after(load_words(setup.language), table.used, _dealt(following))
    record = db.session.get(DecryptoTableRecord, table.code)
    record.setup = json.dumps(following.to_json())
    record.used = json.dumps(sorted(used))
    if not append_move(table.code, table.version + 1, {"action": NEXT_GAME, "game": following.game}):
        raise Conflict(load_table(table.code))
    return load_table(table.code)

