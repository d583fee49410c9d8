"""The moves a table makes, and their JSON form (docs/decrypto-rules.md section 13).

A move is a small frozen value. Its shape (team names, seat numbers, types) is checked when it is built and
raises ValueError: the web builds moves from its own buttons. What people type (clues, codes, names, keyword
guesses) is checked against the state when the move is played and raises IllegalMove with a sentence.
`seat` is the acting seat's number in `team`; None means the table itself, from the shared host screen.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

from .rules import CODE_LENGTH, KEYWORDS, TEAMS

PLAYER_ID_LIMIT = 64


def _check_team(team: str) -> None:
    if team not in TEAMS:
        raise ValueError(f"team {team!r} is not white or black")


def _check_seat(seat: int | None) -> None:
    if seat is not None and (type(seat) is not int or seat < 1):
        raise ValueError(f"seat {seat!r} is not a seat number from 1")


def _check_player(player: str) -> None:
    if not isinstance(player, str) or not 0 < len(player) <= PLAYER_ID_LIMIT or not player.isprintable():
        raise ValueError(f"player id {player!r} is not 1-{PLAYER_ID_LIMIT} printable characters")


def _check_texts(texts, count: int) -> None:
    # Only the structure: what the texts say is the state's business.
    if not isinstance(texts, tuple) or not all(isinstance(t, str) for t in texts) or len(texts) != count:
        raise ValueError(f"{texts!r} is not a tuple of {count} strings")


class MoveFormatError(ValueError):
    """A JSON value that is not a move."""


class Move:
    """Base of every move: its JSON form is {"action": ..., its fields...}, tuples as lists."""

    action: ClassVar[str]

    def to_json(self) -> dict:
        data = {"action": self.action}
        for item in fields(self):
            value = getattr(self, item.name)
            data[item.name] = list(value) if isinstance(value, tuple) else value
        return data

    @classmethod
    def from_json(cls, data: object) -> Move:
        """Read the JSON form back; MoveFormatError for anything else (unknown kind or field, a bad shape).

        Logs stored before moves were keyed by "action" name the kind "type": that key is read as well.
        """
        if not isinstance(data, dict):
            raise MoveFormatError(f"{data!r} is not a move")
        data = _with_action_key(data)
        if not isinstance(data.get("action"), str) or data["action"] not in MOVE_TYPES:
            raise MoveFormatError(f"{data!r} is not a move")
        move_type = MOVE_TYPES[data["action"]]
        names = {f.name for f in fields(move_type)}
        unknown = set(data) - names - {"action"}
        if unknown:
            raise MoveFormatError(f"a {move_type.action} move has no field {sorted(unknown)[0]!r}")
        values = {name: tuple(value) if name in _TUPLE_FIELDS and isinstance(value, list) else value
                  for name, value in data.items() if name != "action"}
        try:
            return move_type(**values)
        except (TypeError, ValueError) as error:
            raise MoveFormatError(f"{data!r} is not a {move_type.action} move: {error}") from None


def _with_action_key(data: dict) -> dict:
    """The JSON form with its kind under "action", also for a row stored under the old key "type"."""
    if "type" in data and "action" not in data:
        return {"action": data["type"]} | {key: value for key, value in data.items() if key != "type"}
    return data


@dataclass(frozen=True)
class Join(Move):
    """A phone joins a team: it claims `seat`, else the team's first free seat, else a new seat.

    Joining the team one is already in changes one's name; joining the other team moves one there, which is
    allowed only before the game starts (nobody has seen a keyword then).
    """

    action: ClassVar[str] = "join"
    player: str
    team: str
    name: str = ""
    seat: int | None = None

    def __post_init__(self) -> None:
        _check_player(self.player)
        _check_team(self.team)
        _check_seat(self.seat)
        if not isinstance(self.name, str):
            raise ValueError("a name is a string")


@dataclass(frozen=True)
class Leave(Move):
    """A phone gives its seat back: before the start the seat goes, afterwards it stays for the table to play."""

    action: ClassVar[str] = "leave"
    player: str

    def __post_init__(self) -> None:
        _check_player(self.player)


@dataclass(frozen=True)
class Start(Move):
    """The table starts a game whose players chose their teams on their phones."""

    action: ClassVar[str] = "start"


@dataclass(frozen=True)
class ShowCode(Move):
    """The team's encryptor looks at this round's code (on their phone, or on the shared screen)."""

    action: ClassVar[str] = "show_code"
    team: str
    seat: int | None = None

    def __post_init__(self) -> None:
        _check_team(self.team)
        _check_seat(self.seat)


@dataclass(frozen=True)
class GiveClues(Move):
    """The encryptor gives three clues, in code order; `clues=None` when they were said aloud only."""

    action: ClassVar[str] = "give_clues"
    team: str
    clues: tuple[str, str, str] | None = None
    seat: int | None = None

    def __post_init__(self) -> None:
        _check_team(self.team)
        _check_seat(self.seat)
        if self.clues is not None:
            _check_texts(self.clues, CODE_LENGTH)


@dataclass(frozen=True)
class Guess(Move):
    """`team` guesses the code of `target`: its own code, or the other team's (an interception attempt)."""

    action: ClassVar[str] = "guess"
    team: str
    target: str
    code: tuple[int, ...]
    seat: int | None = None

    def __post_init__(self) -> None:
        _check_team(self.team)
        _check_team(self.target)
        _check_seat(self.seat)
        if not isinstance(self.code, tuple):
            raise ValueError("a guessed code is a tuple of digits")


@dataclass(frozen=True)
class GuessKeywords(Move):
    """In the tiebreak, `team` guesses the other team's keywords in order 1-4 (empty: no idea)."""

    action: ClassVar[str] = "guess_keywords"
    team: str
    words: tuple[str, str, str, str]
    seat: int | None = None

    def __post_init__(self) -> None:
        _check_team(self.team)
        _check_seat(self.seat)
        _check_texts(self.words, KEYWORDS)


@dataclass(frozen=True)
class CountKeywords(Move):
    """In the tiebreak with the box's keyword cards, the table says how many keywords `team` guessed right."""

    action: ClassVar[str] = "count_keywords"
    team: str
    right: int
    seat: int | None = None

    def __post_init__(self) -> None:
        _check_team(self.team)
        _check_seat(self.seat)
        if type(self.right) is not int:
            raise ValueError("a count of keywords is an integer")


@dataclass(frozen=True)
class AcceptKeyword(Move):
    """The table counts a typed keyword guess the site did not match ("count it"): keyword `number` of `team`'s
    guesses. Only the table makes it, from the shared screen, so everyone sees it and it stays in the log."""

    action: ClassVar[str] = "accept_keyword"
    team: str
    number: int
    seat: int | None = None

    def __post_init__(self) -> None:
        _check_team(self.team)
        _check_seat(self.seat)
        if type(self.number) is not int or not 1 <= self.number <= KEYWORDS:
            raise ValueError(f"keyword number {self.number!r} is not 1-{KEYWORDS}")


@dataclass(frozen=True)
class NextRound(Move):
    """After a round's reveal, `team` is ready for the next round (any of its seats, or the table for it); with
    no team, the shared screen starts the next round for everyone. The round starts once both teams are ready."""

    action: ClassVar[str] = "next_round"
    team: str | None = None
    seat: int | None = None

    def __post_init__(self) -> None:
        if self.team is not None:
            _check_team(self.team)
        elif self.seat is not None:
            raise ValueError("a seat acts for its team: name the team")
        _check_seat(self.seat)


MOVE_TYPES = {
    kind.action: kind
    for kind in (Join, Leave, Start, ShowCode, GiveClues, Guess, GuessKeywords, CountKeywords, AcceptKeyword,
                 NextRound)
}
_TUPLE_FIELDS = {"clues", "code", "words"}
