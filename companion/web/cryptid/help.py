"""How to set up the box and how to play, in plain words."""

from __future__ import annotations

import re

from flask import Blueprint, render_template, request

from companion.web.core.security import mark_private
from companion.web.cryptid.tokens import read_seat_token

bp = Blueprint("help", __name__, url_prefix="/help")

_SEAT_PATH = re.compile(r"/s/([A-Za-z0-9_.-]+)")


def seat_to_return_to() -> str | None:
    """The `back` parameter when it is a seat page this server signed, else None: never another site.

    A phone opening help from its seat page gets a way back; the page then carries the seat's address,
    so it is private like the seat page itself (no caching, no referrer).
    """
    match = _SEAT_PATH.fullmatch(request.args.get("back", ""))
    if not match or read_seat_token(match.group(1)) is None:
        return None
    mark_private()
    return match.group(0)


@bp.get("/setup")
def setup():
    return render_template("cryptid/help/setup.html", back=seat_to_return_to())


@bp.get("/play")
def play():
    return render_template("cryptid/help/play.html", back=seat_to_return_to())


@bp.get("/refereed")
def refereed():
    """How a game the app referees goes, for a seat's phone (with its way back to the seat)."""
    return render_template("cryptid/help/play.html", back=seat_to_return_to(), refereed=True)


@bp.get("/markers")
def markers():
    """The Markers variant: its rules as played here, and how each open point of its description was read."""
    return render_template("cryptid/help/markers.html", back=seat_to_return_to())
