"""How to set up the box and how to play, in plain words."""

from __future__ import annotations

from flask import Blueprint, render_template

bp = Blueprint("help", __name__, url_prefix="/help")


@bp.get("/setup")
def setup():
    return render_template("help/setup.html")


@bp.get("/play")
def play():
    return render_template("help/play.html")


@bp.get("/decrypto")
def decrypto():
    return render_template("help/decrypto.html")
