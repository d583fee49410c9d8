"""The host's screen, reached only through the host link made when the game was dealt: the seats' QR codes,
the shared-device clues, the table's unlocks, the next game and the reveal.

The host link is a signed token like the seat links; its pages are never cached and send no Referer.
"""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, url_for

from companion.cryptid import Game, NoHabitatLeft
from companion.cryptid.agreement import REVEAL, UnknownStep, check_step
from companion.cryptid.text import clue_text, no_habitat_left_text, seat_name
from companion.web.core.errors import error_response
from companion.web.core.i18n import gettext
from companion.web.core.moves import after_action, wants_fragment
from companion.web.core.network import phone_base
from companion.web.core.qr import qr_svg
from companion.web.core.ratelimit import acts, deals
from companion.web.core.security import mark_private
from companion.web.cryptid.agreement import (
    Agreement,
    StepNotOpen,
    load_agreement,
    unlock,
)
from companion.web.cryptid.head import read_head
from companion.web.cryptid.tokens import host_token

from . import play
from .common import (
    board_context,
    host_game,
    next_game_for,
    reveal_context,
    seat_url,
)
from .forms import AgreeForm, NextGameForm, ShowClueForm
from .panel import (
    host_panel,
    latest_unlocked,
    panel_response,
    step_error,
)
from .refereed import (
    create_refereed,
    is_refereed,
    load_play,
    settle_reveal,
    variant_of,
)
from .tables import web_of

bp = Blueprint("host", __name__, url_prefix="/h")


@bp.url_value_preprocessor
def _private(endpoint, values) -> None:
    # Every host page carries the host token in its URL: never cache it, never send it on as a Referer.
    mark_private()


def host_url(code: str, **values) -> str:
    return url_for("host.screen", token=host_token(code), **values)


def _screen(game: Game, status: int = 200, state: Agreement | None = None, **forms):
    base, reachable = phone_base()
    state = state or load_agreement(game)
    seats = []
    for seat in range(1, game.players + 1):
        url = seat_url(base, game.code, seat)
        seats.append({"number": seat, "name": seat_name(seat, gettext), "url": url, "qr": qr_svg(url)})
    own_url = base + host_url(game.code)
    context = {
        "game": game,
        **board_context(game),
        "host": {"token": host_token(game.code), "url": own_url, "qr": qr_svg(own_url)},
        "seats": seats,
        "phone_base": base,
        "phones_can_reach": reachable,
        "panel": host_panel(game, state, agree_forms=forms.get("agree_forms")),
        "news": latest_unlocked(game, state),
        "next_form": forms.get("next_form") or NextGameForm(players=game.players),
        "clue_form": ShowClueForm(),
        "next_error": forms.get("next_error"),
    }
    return render_template("cryptid/game/setup.html", **context), status


@bp.get("/<token>")
def screen(token: str):
    game = host_game(token)
    head = read_head(game.code)
    state = load_agreement(game, head)
    if head.refereed:
        return web_of(head).host_page(token, game, head)
    return _screen(game, state=state)


@bp.get("/<token>/print")
def print_view(token: str):
    game = host_game(token)
    head = read_head(game.code)
    state = load_play(game, head) if head.refereed else None
    seats = play.seat_cards(game, state, phone_base()[0]) if state else None
    return render_template("cryptid/game/print.html", game=game, back_url=host_url(game.code), seats=seats,
                           **board_context(game))


@bp.get("/<token>/table")
def table(token: str):
    """The host's table panel alone, for the page's script to long-poll (panel_response)."""
    game = host_game(token)
    return panel_response(game, lambda state: host_panel(game, state), None)


@bp.post("/<token>/unlock/<step>")
@acts
def unlock_step(token: str, step: str):
    """The host screen's "the table agrees": unlock a step without phones voting."""
    game = host_game(token)
    form = AgreeForm(prefix=step)
    try:
        check_step(step)
        if not form.validate_on_submit():
            return _screen(game, 400, agree_forms={step: form})
        state = unlock(game, step)
    except (UnknownStep, StepNotOpen) as exc:
        return step_error(exc)
    if step == REVEAL:
        settle_reveal(game)
    if step == REVEAL and not wants_fragment():
        return redirect(url_for("host.reveal", token=token), 303)
    return after_action(lambda: host_panel(game, state), host_url(game.code))


@bp.get("/<token>/reveal")
def reveal(token: str):
    game = host_game(token)
    if REVEAL not in load_agreement(game).unlocked:
        return redirect(host_url(game.code, _anchor="table"), 303)
    return render_template("cryptid/game/reveal.html", **reveal_context(game), next_form=NextGameForm(players=game.players),
                           next_action=url_for("host.next_one", token=token))


@bp.post("/<token>/next")
@deals
def next_one(token: str):
    game = host_game(token)
    form = NextGameForm()
    if not form.validate_on_submit():
        return _screen(game, 400, next_form=form)
    head = read_head(game.code)
    refereed = head.refereed
    if refereed and form.players.data not in variant_of(head).player_counts:
        return error_response(400, str(variant_of(head).players_refused))
    try:
        following = next_game_for(game, form.players.data)
    except NoHabitatLeft as exc:
        if refereed:
            return error_response(409, no_habitat_left_text(exc.used, gettext))
        return _screen(game, 409, next_form=form, next_error=no_habitat_left_text(exc.used, gettext))
    if refereed:
        create_refereed(following, previous=game)
    return redirect(host_url(following.code), 303)


@bp.post("/<token>/clue")
@acts
def shared_clue(token: str):
    """One shared device: first ask who is looking, then show that seat's clue, then hide it again. A refereed
    game has no such page: there each clue is on its own player's phone only (docs/cryptid-play.md section 7)."""
    game = host_game(token)
    if is_refereed(game):
        abort(404)
    form = ShowClueForm()
    if not form.validate_on_submit() or form.seat.data > game.players:
        return redirect(host_url(game.code, _anchor="shared"), 303)
    seat = form.seat.data
    confirmed = form.confirmed.data == "yes"
    return render_template(
        "cryptid/game/shared_clue.html",
        game=game,
        seat=seat,
        name=seat_name(seat, gettext),
        form=ShowClueForm(seat=seat, confirmed="yes"),
        back_url=host_url(game.code, _anchor="shared"),
        action=url_for("host.shared_clue", token=token),
        texts=[clue_text(c, gettext) for c in game.seat_clues(seat)] if confirmed else None,
    )
