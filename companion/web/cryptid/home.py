"""The front page: deal a new game, or load one from its code."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for

from companion.cryptid import ADVANCED, NORMAL
from companion.web.core.ratelimit import limiter, new_games_limit

from .dealing import dealer
from .forms import REFEREED, LoadCodeForm, NewGameForm
from .host import host_url
from .refereed import create_refereed

bp = Blueprint("home", __name__)


@bp.get("/")
def index():
    return render_template("cryptid/home.html", new_form=NewGameForm(), load_form=LoadCodeForm())


@bp.post("/")
@limiter.limit(new_games_limit)
def create():
    form = NewGameForm()
    if not form.validate_on_submit():
        return render_template("cryptid/home.html", new_form=form, load_form=LoadCodeForm()), 400
    game = dealer().new_game(form.players.data, ADVANCED if form.advanced.data else NORMAL)
    if form.how.data == REFEREED:
        create_refereed(game, notebook=form.notebook.data)
    return redirect(host_url(game.code), 303)


@bp.get("/load")
def load():
    form = LoadCodeForm(request.args)
    if form.validate():
        return redirect(url_for("games.setup", code=form.code.game.code), 303)
    return render_template("cryptid/home.html", new_form=NewGameForm(), load_form=form), 400
