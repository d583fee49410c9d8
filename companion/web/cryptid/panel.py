"""The table panel shared by the host screen and the seat pages: votes, unlocked hints, the reveal.

Both pages show the same panel; small JavaScript long-polls its fragment URL (?wait=1 with If-None-Match: the
request waits until the table changes, as the refereed live parts do) and swaps it in. Forms in the panel post
normally (303 back to the page) or, from the script, with X-Requested-With: fetch, and then get the new panel
back.
"""

from __future__ import annotations

from functools import lru_cache

from babel.lists import format_list
from flask import make_response, render_template, request, url_for
from flask_babel import get_locale
from markupsafe import Markup

from companion.cryptid import Game
from companion.cryptid.agreement import HINT, REVEAL, STEPS, TILE_HINT, UnknownStep
from companion.cryptid.text import N_, hint_text, seat_name, tile_hint_text
from companion.web.core.errors import error_response
from companion.web.core.i18n import current_language, gettext, template_gettext
from companion.web.core.live import wait_for_change
from companion.web.cryptid.agreement import Agreement, StepNotOpen, load_agreement
from companion.web.cryptid.head import read_head
from companion.web.cryptid.tokens import host_token

from .common import hex_name
from .forms import AgreeForm

PANEL_TEMPLATE = "cryptid/game/_table.html"
LONG_POLL = "wait"  # the query parameter by which the page's script asks the panel to wait for a change


def step_views(game: Game, state: Agreement, seat: int | None = None) -> list[dict]:
    """What the panel shows for each step the table may ask for now."""
    views = []
    for step in STEPS:
        if not state.is_open(step):
            continue
        voters = sorted(state.voters(step))
        view = {
            "step": step,
            "unlocked": step in state.unlocked,
            # One name list in the reader's language: "Player 1, Player 2 και Player 3", "Player 1、Player 2".
            "voters": format_list([seat_name(s, gettext) for s in voters], locale=get_locale()) if voters else "",
            "count": len(voters),
            "mine": seat in voters,
        }
        if view["unlocked"]:
            view["content"] = unlocked_content(game, step)
        views.append(view)
    return views


def latest_unlocked(game: Game, state: Agreement) -> dict | None:
    """The step the table unlocked last, for the banner at the top of the page; None before any."""
    unlocked = [view for view in step_views(game, state) if view["unlocked"]]
    return unlocked[-1] if unlocked else None


def unlocked_content(game: Game, step: str) -> dict:
    if step == HINT:
        return {"text": hint_text(game.hint, gettext)}
    if step == TILE_HINT:
        return {"text": tile_hint_text(*game.habitat_tile(), gettext)}
    assert step == REVEAL
    return {"text": hex_name(game, game.habitat)}


# The panel's fixed texts, translated once per language (step_texts).
_STEP_TEXTS = {
    "titles": {HINT: N_("Hint"), TILE_HINT: N_("Stronger hint"), REVEAL: N_("Reveal the habitat")},
    "unlocked_titles": {HINT: N_("Hint"), TILE_HINT: N_("Stronger hint"), REVEAL: N_("The habitat")},
    "asks": {HINT: N_("I'd like a hint"), TILE_HINT: N_("I'd like the stronger hint"),
             REVEAL: N_("I'd like to reveal the habitat")},
    "unlock_buttons": {HINT: N_("Show the hint"), TILE_HINT: N_("Show the stronger hint"), REVEAL: N_("Reveal the habitat")},
    "explain": {HINT: N_("Names something no clue mentions. Shown to everyone."),
                TILE_HINT: N_("Names the tile the habitat is on. Shown to everyone."),
                REVEAL: N_("Shows the habitat and every clue. Ends the game.")},
}


@lru_cache(maxsize=None)  # one entry per language
def _step_texts(language: str) -> dict[str, dict[str, Markup]]:
    return {kind: {step: template_gettext(text) for step, text in texts.items()} for kind, texts in _STEP_TEXTS.items()}


def step_texts() -> dict[str, dict[str, Markup]]:
    """The panel's fixed texts in the reader's language, translated once per language and process: a panel is
    drawn for every phone of a table at each vote, and these were a fifth of the drawing."""
    return _step_texts(current_language())


def render_panel(game: Game, state: Agreement, *, seat: int | None, poll_url: str, action=None, host_form=None):
    """The panel's HTML; `action(step, withdraw)` builds each form's URL, `host_form(step)` the host's form
    (neither for the public view, which only shows the tallies)."""
    return render_template(
        PANEL_TEMPLATE,
        game=game,
        state=state,
        steps=step_views(game, state, seat),
        seat=seat,
        poll_url=poll_url,
        action=action,
        host_form=host_form,
        etag=stamped_etag(state.version, seat),
        texts=step_texts(),
    )


def stamped_etag(stamp: str, seat: int | None) -> str:
    """The panel's version from the table's stamp alone (an agreement's version is its stamp): one read says
    whether a page's panel is still current."""
    return f"{stamp}-{seat or 0}"


def panel_response(game: Game, render, seat: int | None):
    """The fragment `render(state)` makes, or 304 after one read of the table's stamp while nothing changed.
    With ?wait, a long poll: while the page's version (If-None-Match) is still current, the request first waits
    for the table to change (a vote, an unlock), up to the live updates' limit."""
    known = next(iter(request.if_none_match.as_set()), None)
    if known and LONG_POLL in request.args:
        wait_for_change(game.code, known, lambda: stamped_etag(read_head(game.code).stamp, seat),
                        from_stamp=lambda stamp: stamped_etag(stamp, seat))
    head = read_head(game.code)
    etag = stamped_etag(head.stamp, seat)
    if request.if_none_match.contains(etag):
        response = make_response("", 304)
    else:
        response = make_response(render(load_agreement(game, head)))
    response.set_etag(etag)
    response.headers["Cache-Control"] = "no-cache"
    return response


def step_error(error: Exception):
    if isinstance(error, UnknownStep):
        return error_response(
            400, gettext("There is no step “%(step)s”. A table can ask for: %(steps)s.", step=error.step, steps=", ".join(STEPS))
        )
    assert isinstance(error, StepNotOpen)
    return error_response(409, gettext("Agree on the first hint before asking for the stronger one."))


def seat_panel(token: str, game: Game, seat: int, state: Agreement | None = None) -> str:
    """The panel as a seat's phone shows it, with that seat's votes."""
    return render_panel(
        game,
        state or load_agreement(game),
        seat=seat,
        poll_url=url_for("seats.table", token=token),
        action=lambda step, withdraw=False: url_for(
            "seats.withdraw" if withdraw else "seats.vote", token=token, step=step
        ),
    )


def host_panel(game: Game, state: Agreement | None = None, agree_forms: dict | None = None) -> str:
    """The panel as the host screen shows it, where the host can unlock a step alone."""
    token = host_token(game.code)
    return render_panel(
        game,
        state or load_agreement(game),
        seat=None,
        poll_url=url_for("host.table", token=token),
        action=lambda step, withdraw=False: url_for("host.unlock_step", token=token, step=step),
        host_form=lambda step: (agree_forms or {}).get(step) or AgreeForm(prefix=step),
    )
