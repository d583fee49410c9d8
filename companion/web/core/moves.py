"""A move's way through the site, the same for every game: a page's form names a move, the game applies it,
and the answer is the page's new live fragment (for its script) or a redirect back to the page (a plain form
post, JavaScript off); a move the rules refuse gets 409 with the reason, a form that names no move 400."""

from __future__ import annotations

from typing import Callable, TypeVar

from flask import redirect, request
from flask.typing import ResponseReturnValue

from .errors import error_response
from .store import Conflict

Move = TypeVar("Move")
State = TypeVar("State")


def wants_fragment() -> bool:
    """Whether the page's script sent this form (it asks for the new fragment rather than a redirect)."""
    return request.headers.get("X-Requested-With") == "fetch"


def form_version(form) -> int | None:
    """The version of the table a form was drawn from, which a move made from it must still find (a stale one is
    refused); None when it names none."""
    value = form.get("version", "")
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 6 else None


def after_action(fragment: Callable[[], str], page_url: str, anchor: str = "#table") -> ResponseReturnValue:
    """The new fragment for the page's script, or a redirect back to the page for a plain form post."""
    if wants_fragment():
        return fragment()
    return redirect(page_url + anchor, 303)


def act(
    parse: Callable[[], Move | None],
    apply: Callable[[Move], State],
    fragment: Callable[[State], str],
    page_url: str,
    *,
    refusals: tuple[type[Exception], ...],
    refused: Callable[[Exception], ResponseReturnValue],
    malformed: str,
    confirm: Callable[[Move], ResponseReturnValue | None] | None = None,
    anchor: str = "",
) -> ResponseReturnValue:
    """Play the move a page's form names. `parse()` reads it (None or ValueError: 400 with `malformed`);
    `confirm(move)` may answer first to have the player look again (a warning, not a refusal); `apply(move)`
    plays it. An exception in `refusals`, or a Conflict with a move that came first, is answered by
    `refused(error)`; either way nothing changes. A plain form post is sent back to `page_url` + `anchor`."""
    try:
        move = parse()
        if move is None:
            return error_response(400, malformed)
        stop = confirm(move) if confirm else None
        if stop is not None:
            return stop
        state = apply(move)
    except (*refusals, Conflict) as error:
        return refused(error)
    except ValueError:
        return error_response(400, malformed)
    return after_action(lambda: fragment(state), page_url, anchor=anchor)
