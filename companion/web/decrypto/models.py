"""Decrypto's row beside the shared tables: each table's current setup and the keywords it has seen."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Text
from sqlalchemy.orm import Mapped, mapped_column

from companion.web.core.db import Base, utcnow


class DecryptoTableRecord(Base):
    """A Decrypto table: the current game's setup as Setup.to_json writes it, and the keywords it has seen.

    Its moves are in `moves` under the table id; a {"type": "next_game"} row starts the next game's log.
    """

    __tablename__ = "decrypto_tables"
    code: Mapped[str] = mapped_column(ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    setup: Mapped[str] = mapped_column(Text)  # JSON: team sizes, language, keywords, game number
    used: Mapped[str] = mapped_column(Text, default="[]")  # JSON list: keywords dealt to this table so far
