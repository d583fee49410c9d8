"""Which device holds a seat: a seat's link opened on a second phone asks before taking the seat over, and the
first phone is told. Game-agnostic: a seat is any short key a game chooses ("3", "team-1"), within a table.

A device is a browser, known by a random id in a long-lived cookie (no account, nothing personal). The first
device that opens a seat holds it; the same device reopening the link (a closed tab, a flat battery) resumes.
Another device gets `ELSEWHERE` until its player confirms `take_over`, which touches the table so that the
first phone's live update wakes and shows that the seat moved. A claim is a row keyed by the table's code, so
it goes with the table when the table is purged.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from flask import Flask, g, request
from sqlalchemy import DateTime, ForeignKey, String, bindparam, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from .db import Base, db, utcnow, writing
from .store import read_once_per_request, reading, touch

DEVICE_COOKIE = "device"
DEVICE_COOKIE_DAYS = 400  # the longest browsers keep a cookie
HELD = "held"  # this device holds the seat
ELSEWHERE = "elsewhere"  # another device holds it
FREE = "free"  # nobody holds it yet


class SeatClaim(Base):
    """The device that holds one seat of one table."""

    __tablename__ = "seat_claims"
    code: Mapped[str] = mapped_column(ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[str] = mapped_column(String(16), primary_key=True)
    device: Mapped[str] = mapped_column(String(32))
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


def _valid_device(value: str | None) -> bool:
    return bool(value) and len(value) <= 32 and value.isascii() and value.replace("-", "").replace("_", "").isalnum()


def device_id() -> str:
    """This browser's device id: its cookie's, or a new one that the response will set."""
    if "device_id" not in g:
        sent = request.cookies.get(DEVICE_COOKIE)
        g.device_id = sent if _valid_device(sent) else secrets.token_urlsafe(16)
        g.new_device = not _valid_device(sent)
    return g.device_id


_HOLDER = select(SeatClaim.device).where(SeatClaim.code == bindparam("code"), SeatClaim.seat == bindparam("seat"))


def holder(code: str, seat: str) -> str | None:
    """The device holding the seat, or None; read once per request (a page and its ETag both ask), which holds
    because every claim touches the table."""

    def read() -> str | None:
        with reading() as connection:
            return connection.scalar(_HOLDER, {"code": code, "seat": seat})

    return read_once_per_request(f"claim {seat}", code, read)


_CLAIMED = select(SeatClaim.seat).where(SeatClaim.code == bindparam("code"))


def claimed_seats(code: str) -> frozenset[str]:
    """The seats of a table that some device holds (a host screen ticks them)."""
    with reading() as connection:
        return frozenset(connection.scalars(_CLAIMED, {"code": code}))


def status(code: str, seat: str) -> str:
    """HELD, ELSEWHERE or FREE for this device, without claiming anything (for live updates). The answer gives a
    new browser its device id even for a free seat, so that a page's first live update and a tap sent before
    that update returns (it may wait, see page_status) claim as one device."""
    device = device_id()
    found = holder(code, seat)
    if found is None:
        return FREE
    return HELD if found == device else ELSEWHERE


def page_status(code: str, seat: str) -> str:
    """What a seat's page shows of the claim, for its ETag: ELSEWHERE, or HELD whether this device holds the seat
    or finds it free. A page only looks (see claim); its first live update claims the free seat and must then
    find the page unchanged, or every phone would draw its page twice on opening it."""
    return ELSEWHERE if status(code, seat) == ELSEWHERE else HELD


def claim(code: str, seat: str) -> str:
    """Hold the seat if nobody does; returns the seat's status for this device afterwards (HELD or ELSEWHERE).
    Of two devices claiming a free seat at once, the database lets one in."""
    found = status(code, seat)
    if found != FREE:
        return found
    try:
        with writing():
            touch(code)
            db.session.add(SeatClaim(code=code, seat=seat, device=device_id()))
    except IntegrityError:  # another device claimed it first (the rollback has this request read the seat afresh)
        pass
    return status(code, seat)


def take_over(code: str, seat: str) -> None:
    """Move the seat to this device (its player confirmed); the table is touched, so the device that held it
    hears of it through its live update."""
    try:
        with writing():
            touch(code)
            moved = db.session.execute(
                update(SeatClaim).where(SeatClaim.code == code, SeatClaim.seat == seat)
                .values(device=device_id(), claimed_at=utcnow())
            ).rowcount
            if not moved:
                db.session.add(SeatClaim(code=code, seat=seat, device=device_id()))
    except IntegrityError:  # a first claim landed meanwhile: it is a row now, which the update moves
        take_over(code, seat)


def _set_device_cookie(response):
    if g.get("new_device"):
        response.set_cookie(DEVICE_COOKIE, g.device_id, max_age=DEVICE_COOKIE_DAYS * 86400, httponly=True,
                            samesite="Lax", secure=request.is_secure)
    return response


def init_app(app: Flask) -> None:
    """Give a browser its device cookie on the response that first needed it."""
    app.after_request(_set_device_cookie)
