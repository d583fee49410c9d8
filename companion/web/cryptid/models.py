"""Cryptid's rows beside the shared tables: the hint votes and unlocks of a table, and which games are refereed
(their moves are in the shared move log)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    Text,
    DateTime,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from companion.web.core.db import Base, added_column, utcnow

CLASSIC, MARKERS = "classic", "markers"
VARIANTS = (CLASSIC, MARKERS)


class Vote(Base):
    """One seat asking for one step; the unique constraint makes a second vote count once."""

    __tablename__ = "votes"
    __table_args__ = (UniqueConstraint("code", "step", "seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(ForeignKey("tables.code", ondelete="CASCADE"), index=True)
    step: Mapped[str] = mapped_column(String(16))
    seat: Mapped[int] = mapped_column(Integer)
    cast_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Unlock(Base):
    """A step the table agreed on; once there, it stays."""

    __tablename__ = "unlocks"
    code: Mapped[str] = mapped_column(ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True)
    step: Mapped[str] = mapped_column(String(16), primary_key=True)
    unlocked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RefereedTable(Base):
    """A game the site referees (docs/cryptid-play.md): its moves are in `moves`; `next_code` is the game dealt after it;
    `solver`: whether each phone shows the solver, which works the deduction out (a table option,
    docs/cryptid-play.md section 9.1); its column keeps the name `notebook` it had before the notebook that keeps
    the books, so a table that chose the old notebook keeps the same figures;
    `variant`: classic Cryptid or Markers."""

    __tablename__ = "refereed_tables"
    code: Mapped[str] = mapped_column(ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    next_code: Mapped[str | None] = mapped_column(String(16), nullable=True)
    solver: Mapped[bool] = mapped_column("notebook", Boolean, default=False, server_default=false())
    # Which game the site referees: "classic" Cryptid or "markers" (docs/cryptid-markers.md).
    variant: Mapped[str] = mapped_column(String(16), default="classic", server_default="classic")


added_column("refereed_tables", "notebook", "BOOLEAN NOT NULL DEFAULT FALSE")
added_column("refereed_tables", "variant", "VARCHAR(16) NOT NULL DEFAULT 'classic'")


class ComputerSeat(Base):
    """A seat of a refereed game played by a computer player of `level` (cryptid.bots.LEVELS), from the deal or
    handed over by the host; once a computer's, the seat stays one (docs/cryptid-play.md)."""

    __tablename__ = "computer_seats"
    code: Mapped[str] = mapped_column(ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    level: Mapped[str] = mapped_column(String(16))
    since: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SeatNotes(Base):
    """A seat's own notes in its notebook (docs/cryptid-play.md section 9.3): the clues it crossed off per opponent
    and its marks on hexes, as JSON. Keyed by seat, not by phone, so the next phone taking the seat finds them;
    only that seat's pages ever read them. `revision` counts the changes, for the seat's live updates."""

    __tablename__ = "seat_notes"
    code: Mapped[str] = mapped_column(ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    crossed: Mapped[str] = mapped_column(Text, default="{}")  # {"<opponent seat>": [clue indices]}
    marks: Mapped[str] = mapped_column(Text, default="{}")  # {"<hex>": "maybe" | "no"}
    revision: Mapped[int] = mapped_column(Integer, default=0)
