"""The Markers variant's moves: small frozen values with the classic game's JSON form, read back by
Move.from_json into this variant's types, and its one IllegalMove (a kind of the classic game's, with this
variant's own reasons besides the classic ones)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .. import play as _classic
from ..play import IllegalMove as _ClassicIllegalMove
from ..play import Move as _ClassicMove
from ..play import MoveFormatError as MoveFormatError  # the same error for a JSON value that is no move
from ..play import clean_name as _clean_name
from ..text import N_, Translate, illegal_move_text, untranslated


class IllegalMove(_ClassicIllegalMove):
    """A move the rules forbid now. `reason` is a stable key, `params` fill the message; str() reads well."""

    def __init__(self, reason: str, **params) -> None:
        ValueError.__init__(self, illegal_text(reason, params))
        self.reason = reason
        self.params = params


def clean_name(name: str) -> str:
    """A display name with its whitespace collapsed, as in the classic game; IllegalMove when it is not one."""
    try:
        return _clean_name(name)
    except _ClassicIllegalMove as error:
        raise IllegalMove(error.reason, **error.params) from None


class Move(_ClassicMove):
    """A move of this variant: a frozen value with the JSON form of the classic game's moves (play.Move), read back
    by Move.from_json into this variant's move types (MoveFormatError for anything else)."""

    __slots__ = ()


def is_int(value: object) -> bool:
    """A whole number, and not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


# The moves both games share keep the classic game's fields and JSON forms, as moves of this variant.


class Start(_classic.Start, Move):
    """Deal the hands and begin with `first` (the caller draws it)."""

    __slots__ = ()


class Name(_classic.Name, Move):
    """A player's display name; allowed in every phase, and not logged."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class NotHere(Move):
    """Claim "not here" on a hex the seat's own clues rule out, putting a marker on it."""

    action: ClassVar[str] = "not_here"
    seat: int
    hex: int


@dataclass(frozen=True, slots=True)
class ItsHere(Move):
    """Claim "it's here" on a hex the seat's own clues allow, putting a marker on it; every clue checks it."""

    action: ClassVar[str] = "its_here"
    seat: int
    hex: int


class Leave(_classic.Leave, Move):
    """A seat leaves: its clues keep answering, its markers go back to the supply, it never acts again."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class End(Move):
    """The table ends the game (the host's button): no winner, every clue shown."""

    action: ClassVar[str] = "end"


# Marking a vanished player gone (docs/cryptid-markers.md section 5): here only the seats still in the game vote
# and can be voted for.


class VoteGone(_classic.VoteGone, Move):
    """A seat still in the game votes another gone (the classic game's VoteGone)."""

    __slots__ = ()


class WithdrawGone(_classic.WithdrawGone, Move):
    """A seat takes its vote back (the classic game's WithdrawGone)."""

    __slots__ = ()


class HostGone(_classic.HostGone, Move):
    """The host marks a seat gone (the classic game's HostGone)."""

    __slots__ = ()


MOVE_TYPES: dict[str, type[_ClassicMove]] = {
    kind.action: kind for kind in (Start, Name, NotHere, ItsHere, Leave, End, VoteGone, WithdrawGone, HostGone)
}
Move.types = MOVE_TYPES


# Reasons of this variant's own; every other reason reads as in the classic game (text.ILLEGAL_MOVES).
_ILLEGAL_TEXTS = {
    "hex_has_marker": N_("That hex already has a marker."),
    "no_markers": N_("You have no markers left."),
    "clue_allows_hex": N_("Your clue allows that hex: you cannot claim the creature is not there."),
    "clue_rules_out_hex": N_("Your clue rules that hex out: you cannot claim the creature is there."),
    "you_are_out": N_("You are out of the turns: only the players still in the game mark a player as gone."),
    "seat_out": N_("That player is already out of the turns."),
}


def illegal_text(reason: str, params: dict, gettext: Translate = untranslated) -> str:
    """The message of an illegal move, in the reader's language."""
    text = _ILLEGAL_TEXTS.get(reason)
    if text is None:
        return illegal_move_text(reason, params, gettext)
    return gettext(text).format(**params)
