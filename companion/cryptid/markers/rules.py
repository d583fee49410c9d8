"""The Markers variant's constants and the readings of the points its original description leaves open
(docs/cryptid-markers.md): RULES is the reading played at the table, the others exist so that the simulation
(companion/ops/markersplay.py) can measure them."""

from __future__ import annotations

from dataclasses import dataclass, fields

PLAYER_COUNTS = (2, 3, 4)
SUPPLY = 16  # every marker of the game: the hands are dealt from it, the rest stays beside the board
HAND_SIZES = {2: 4, 3: 3, 4: 2}

LOBBY, TURNS, OVER = "lobby", "turns", "over"
NOT_HERE, ITS_HERE = "not_here", "its_here"
# Log actions besides the two claims.
OBJECT, SILENT, ALLOWS, RULES_OUT = "object", "silent", "allows", "rules_out"
PAY, REFUND, BORROW, OUT, WIN, LEAVE = "pay", "refund", "borrow", "out", "win", "leave"
SEAL = "seal"  # a sealed "it's here": who, not where, until the end of the round
# How a game ended.
FOUND, LAST_STANDING, EXHAUSTED, ENDED, ABANDONED = "found", "last_standing", "exhausted", "ended", "all_left"

# The readings of the open points (docs/cryptid-markers.md).
EVERY, FIRST = "every", "first"  # point 6: every objector pays, or the first objection ends the check
PAY_EACH, PAY_FIRST, TAKE = "pay_each", "pay_first", "take"  # point 3: who pays whom after a wrong "it's here"
STAYS_OUT, BORROWS = "out", "borrow"  # point 4: a player without markers is out, or borrows one to play
LATER, EARLIER, SHARE = "later", "earlier", "share"  # point 5: two right sealed claims, as many markers


@dataclass(frozen=True, slots=True)
class Rules:
    """One reading of the open points: objections (6), a wrong "it's here" (3), an empty hand (4), and how a game
    lasts and ends (5): whether a "not here" nobody objects to is refunded from the supply, whether "it's here"
    claims are sealed until the end of the round, and how ties between right sealed claims are settled."""

    objections: str = EVERY
    wrong_claim: str = PAY_EACH
    empty_hand: str = STAYS_OUT
    refund: bool = True
    sealed: bool = True  # point 5 too: "it's here" claims are sealed and all checked at the end of the round
    ties: str = SHARE  # right sealed claims with as many markers: they share the win, or the later or earlier wins

    def to_text(self) -> str:
        """The "name=value,..." form that from_text reads."""
        return ",".join(f"{f.name}={_text_value(getattr(self, f.name))}" for f in fields(self))

    @classmethod
    def from_text(cls, text: str) -> "Rules":
        """Rules from "name=value,..." (the simulation command's --rules); ValueError for anything else."""
        values: dict[str, object] = {}
        for part in filter(None, text.split(",")):
            name, _, value = part.partition("=")
            if name not in _READINGS:
                raise ValueError(f"no reading called {name!r}; readings: {', '.join(_READINGS)}")
            choices = _READINGS[name]
            if value not in choices:
                raise ValueError(f"{name} is one of {', '.join(choices)}, not {value!r}")
            values[name] = value == "yes" if name in ("refund", "sealed") else value
        return cls(**values)


def _text_value(value: str | bool) -> str:
    return ("yes" if value else "no") if isinstance(value, bool) else value


_READINGS = {
    "objections": (EVERY, FIRST),
    "wrong_claim": (PAY_EACH, PAY_FIRST, TAKE),
    "empty_hand": (STAYS_OUT, BORROWS),
    "refund": ("yes", "no"),
    "sealed": ("yes", "no"),
    "ties": (SHARE, LATER, EARLIER),
}
RULES = Rules()  # the reading played at the table, chosen by simulation (docs/cryptid-markers.md)
