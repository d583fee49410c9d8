"""The moves a table makes, and their JSON form.

A move is a small frozen value. Its shape (team names, seat numbers, types) is checked when it is built and
raises ValueError: the web builds moves from its own buttons. What people type (clues, codes, names, keyword
guesses) is checked against the state when the move is played and raises IllegalAction with a sentence.
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


class Move:
    """Base of every move: its JSON form is its fields plus its `type`."""

    type: ClassVar[str]

    def to_json(self) -> dict:
        data = {"type": self.type}
        for item in fields(self):
            value = getattr(self, item.name)
            data[item.name] = list(value) if isinstance(value, tuple) else value
        return data


@dataclass(frozen=True)
class Join(Move):
    """A phone joins a team: it claims `seat`, else the team's first free seat, else a new seat.

    Joining the team one is already in changes one's name; joining the other team moves one there, which is
    allowed only before the game starts (nobody has seen a keyword then).
    """

    type: ClassVar[str] = "join"
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

    type: ClassVar[str] = "leave"
    player: str

    def __post_init__(self) -> None:
        _check_player(self.player)


@dataclass(frozen=True)
class Start(Move):
    """The table starts a game whose players chose their teams on their phones."""

    type: ClassVar[str] = "start"


@dataclass(frozen=True)
class ShowCode(Move):
    """The team's encryptor looks at this round's code (on their phone, or on the shared screen)."""

    type: ClassVar[str] = "show_code"
    team: str
    seat: int | None = None

    def __post_init__(self) -> None:
        _check_team(self.team)
        _check_seat(self.seat)


@dataclass(frozen=True)
class GiveClues(Move):
    """The encryptor gives three clues, in code order; `clues=None` when they were said aloud only."""

    type: ClassVar[str] = "give_clues"
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

    type: ClassVar[str] = "guess"
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

    type: ClassVar[str] = "guess_keywords"
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

    type: ClassVar[str] = "count_keywords"
    team: str
    right: int
    seat: int | None = None

    def __post_init__(self) -> None:
        _check_team(self.team)
        _check_seat(self.seat)
        if type(self.right) is not int:
            raise ValueError("a count of keywords is an integer")


MOVE_TYPES = {cls.type: cls for cls in (Join, Leave, Start, ShowCode, GiveClues, Guess, GuessKeywords, CountKeywords)}
_TUPLE_FIELDS = {"clues", "code", "words"}


def move_from_json(data: dict) -> Move:
    """The move a JSON object describes (as Move.to_json writes it); raises ValueError when it describes none."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str) or data["type"] not in MOVE_TYPES:
        raise ValueError(f"{data!r} is not a move")
    cls = MOVE_TYPES[data["type"]]
    names = {f.name for f in fields(cls)}
    unknown = set(data) - names - {"type"}
    if unknown:
        raise ValueError(f"a {cls.type} move has no field {sorted(unknown)[0]!r}")
    values = {name: tuple(value) if name in _TUPLE_FIELDS and isinstance(value, list) else value
              for name, value in data.items() if name != "type"}
    try:
        return cls(**values)
    except TypeError as error:
        raise ValueError(f"{data!r} is not a {cls.type} move: {error}") from None
