"""The front page: deal a new game, or load one from its code."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for

from companion.cryptid import ADVANCED, NORMAL
from companion.web.core.ratelimit import deals

from .common import seat_url
from .computers import LEVEL_LINES
from .dealing import dealer
from .forms import REFEREED, LoadCodeForm, NewGameForm, SoloForm
from .host import host_url
from .models import CLASSIC
from .refereed import create_refereed

bp = Blueprint("home", __name__)


@bp.get("/")
def index():
    return _home()


def _home(status: int = 200, **forms):
    forms = {"new_form": NewGameForm(), "load_form": LoadCodeForm(), "solo_form": SoloForm(prefix="solo")} | forms
    return render_template("cryptid/home.html", level_lines=list(LEVEL_LINES.values()), **forms), status


@bp.post("/")
@deals
def create():
    form = NewGameForm()
    if not form.validate_on_submit():
        return _home(400, new_form=form)
    game = dealer().new_game(form.players.data, ADVANCED if form.advanced.data else NORMAL)
    if form.how.data == REFEREED:
        create_refereed(game, solver=form.solver.data, computers=form.computer_levels(),
                        variant=form.variant.data if form.markers else CLASSIC)
    return redirect(host_url(game.code), 303)


@bp.post("/solo")
@deals
def solo():
    """"Play against the computer": seat 1 is the person, every other seat a computer, and the game starts at once
    on the person's own seat page."""
    form = SoloForm(prefix="solo")
    if not form.validate_on_submit():
        return _home(400, solo_form=form)
    players = form.opponents.data + 1
    game = dealer().new_game(players, ADVANCED if form.advanced.data else NORMAL)
    create_refereed(game, start=True, solver=form.solver.data,
                    computers={seat: form.level.data for seat in range(2, players + 1)})
    return redirect(seat_url("", game.code, 1), 303)


@bp.get("/load")
def load():
    form = LoadCodeForm(request.args)
    if form.validate():
        return redirect(url_for("games.setup", code=form.code.game.code), 303)
    return _home(400, load_form=form)
