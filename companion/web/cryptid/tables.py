"""A refereed table's pages and JSON, per variant: each variant's web module (play.py for classic Cryptid,
markers.py for Markers) registers a record of them, and the shared routes (a seat's page, the host screen, the
public page, the JSON API) ask the record of the table's variant instead of branching on it. A new variant
registers its record and touches no route."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from flask.typing import ResponseReturnValue

from companion.cryptid import Game

from .head import TableHead


class BadJson(Exception):
    """A request body the API cannot read: answered 400 with the message."""


@dataclass(frozen=True, slots=True)
class VariantWeb:
    """What the shared routes ask of a refereed variant.

    seat_page(token, game, seat, head), host_page(token, game, head), public_page(game, head, panel): its pages
    (`panel()` draws the table's hint panel, for a variant that shows one); view_json(game, state, seat): a viewer's
    JSON; move_from_json(seat, body): the move a request body names for a seat (BadJson when malformed);
    illegal_text(reason, params, gettext): a refusal's sentence."""

    seat_page: Callable[[str, Game, int, TableHead], ResponseReturnValue]
    host_page: Callable[[str, Game, TableHead], ResponseReturnValue]
    public_page: Callable[[Game, TableHead, Callable[[], str]], ResponseReturnValue]
    view_json: Callable[[Game, object, int | None], dict]
    move_from_json: Callable[[int, dict], object]
    illegal_text: Callable[..., str]


_RECORDS: dict[str, VariantWeb] = {}


def register(variant: str, record: VariantWeb) -> None:
    """Serve the tables of `variant` (a name stored with the table, variants.py) through `record`."""
    _RECORDS[variant] = record


def web_of(head: TableHead) -> VariantWeb:
    """The record of the variant a refereed table plays."""
    return _RECORDS[head.variant]
