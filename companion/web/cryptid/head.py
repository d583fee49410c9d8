"""What one primary-key read tells of a Cryptid table: its stamp, whether the site referees its game, and how."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, select

from companion.web.core.db import TableRecord
from companion.web.core.store import read_once_per_request, reading, stamp_of

from .models import CLASSIC, RefereedTable


@dataclass(frozen=True, slots=True)
class TableHead:
    stamp: str
    refereed: bool
    solver: bool = False  # a refereed table that chose the solver (docs/cryptid-play.md section 9.1)
    variant: str = CLASSIC  # the game a refereed table plays: classic Cryptid or Markers
    next_code: str | None = None  # the game the host dealt after this one (dealing it touches this table)


_HEAD = (
    select(TableRecord.last_activity, TableRecord.changes, RefereedTable.code, RefereedTable.solver,
           RefereedTable.variant, RefereedTable.next_code)
    .outerjoin(RefereedTable, RefereedTable.code == TableRecord.code)
    .where(TableRecord.code == bindparam("code"))
)


def read_head(code: str) -> TableHead:
    """The table's head in one read, so that a poll which finds nothing new costs almost nothing; read once per
    request (until the request changes the table or waits for a change), however many parts of it ask."""
    return read_once_per_request("cryptid-head", code, lambda: _read_head(code))


def _read_head(code: str) -> TableHead:
    with reading() as connection:
        row = connection.execute(_HEAD, {"code": code}).first()
    if row is None:
        return TableHead("0", False)
    return TableHead(stamp_of(row[0], row[1]), row[2] is not None, bool(row[3]), row[4] or CLASSIC, row[5])
