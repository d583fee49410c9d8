"""Refereed play (docs/cryptid-play.md): the server holds every clue and answers every ask and search.

A game is its Game plus a sequence of moves folded into immutable states, in the manner of python-chess:
State.initial(game), state.apply(move) -> a new state (or IllegalMove, with a stable reason, and nothing
changed), State.replay(game, moves); legal_moves(state, seat) lists what a seat may do now. Moves are small frozen
values with a plain JSON form, so a site can store one row per move and fold them back. Discs and cubes are
108-bit hex masks per seat, as everywhere in the engine. What a seat may see of a state is view.view's business.

What docs/cryptid-play.md leaves open is decided here:
- Before Start the phase is "lobby": players may name themselves, and the table may already leave, mark seats
  gone or reveal. A seat that left before Start simply never acts.
- A "skip" log entry means that a seat had to place a cube (or, with the piece "disc", a search's extra disc) and no
  hex qualified. The turns and opening
  cubes of a seat that left are skipped without log entries: its "leave" entry explains them.
- VoteGone: a seat counts as left once every other active seat has voted it gone. Votes stand until then (a
  voter may take theirs back with WithdrawGone), a voter who leaves stops counting, and a seat that is the only one still active can be marked gone by the host
  only. Being marked gone is logged as "leave", like leaving.
- Reveal ends the game with no winner and no log entry; `outcome` tells how a game ended.
- A search of a hex that already holds the searcher's disc waits for the searcher's extra disc (PENDING_DISC)
  before anyone answers. When no hex can take it, the log says so with a "skip" entry whose piece is "disc", and
  the searcher's clue is known to allow no hex outside the cubes and its own discs (State.clue_within). A
  searcher who leaves while the extra disc is owed abandons the search: nobody answers it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cache
from typing import ClassVar, Iterable, NamedTuple

from .clues import clue_areas
from .generator import Game
from .hexgrid import ALL_HEXES, COLS, HEX_COUNT, ROWS, hex_name, hex_row_col, hexes_of
from .text import Translate, illegal_move_text, seat_name, untranslated

PLAYER_COUNTS = (3, 4, 5)
OPENING_ROUNDS = 2
NAME_LIMIT = 24

LOBBY, OPENING, TURNS, OVER = "lobby", "opening", "turns", "over"
# What the seat to act must do: place a cube, place the extra disc of a search (docs/cryptid-play.md section 4),
# or ask or search.
PENDING_CUBE, PENDING_DISC, PENDING_MOVE = "cube", "disc", "move"
DISC, CUBE = "disc", "cube"
# Log actions (docs/cryptid-play.md section 8.7); CUBE is also one.
ASK, SEARCH, ANSWER, SKIP, LEAVE, WIN = "ask", "search", "answer", "skip", "leave", "win"
# How a game ended.
WON, REVEALED, ABANDONED = "win", "reveal", "all_left"


class IllegalMove(ValueError):
    """A move the rules forbid now. `reason` is a stable key, `params` fill the message; str() reads well."""

    def __init__(self, reason: str, **params) -> None:
        self.reason = reason
        self.params = params
        super().__init__(illegal_move_text(reason, params))


class MoveFormatError(ValueError):
    """A JSON value that is not a move."""


def hex_from_row_col(row: int, col: int) -> int:
    """The hex at 0-based board (row, col), as a request names it; IllegalMove('off_board') off the board."""
    if not (0 <= row < ROWS and 0 <= col < COLS):
        raise IllegalMove("off_board", row=row, col=col)
    return row * COLS + col


def clean_name(name: str) -> str:
    """A display name with its whitespace collapsed; IllegalMove when empty, too long or unprintable."""
    cleaned = " ".join(name.split())
    if not cleaned:
        raise IllegalMove("name_empty")
    if len(cleaned) > NAME_LIMIT:
        raise IllegalMove("name_too_long", limit=NAME_LIMIT)
    if any(not char.isprintable() and char not in _WRITING_JOINERS for char in cleaned):
        raise IllegalMove("name_invalid")
    return cleaned


# Joiners that writing needs (a Persian name takes the zero-width non-joiner, an emoji sequence the joiner); every
# other format character (bidirectional overrides, zero-width spaces) and every control is refused.
_WRITING_JOINERS = frozenset("\u200c\u200d")


class Move:
    """A move: a frozen value whose JSON form is {"action": ..., its fields...}, a hex as "row" and "col".

    `types` names the move types of one family by action (this module's, or another engine's that builds on the
    same JSON form, as markers.py does); from_json reads a move of the family it is called on.
    """

    __slots__ = ()
    action: ClassVar[str]
    types: ClassVar[dict[str, type["Move"]]]

    def to_json(self) -> dict:
        data = {"action": self.action}
        for name, kind in _json_fields(type(self)):
            if kind == "hex":
                data["row"], data["col"] = hex_row_col(self.hex)
            else:
                data[name] = getattr(self, name)
        return data

    @classmethod
    def from_json(cls, data: object) -> "Move":
        """Read the JSON form back; MoveFormatError for anything else (unknown or missing keys, wrong types)."""
        if not isinstance(data, dict) or data.get("action") not in cls.types:
            raise MoveFormatError(f"not a move: {data!r}")
        move_type = cls.types[data["action"]]
        if data.keys() != _json_keys(move_type):
            raise MoveFormatError(f"a {move_type.action} move has the keys {sorted(_json_keys(move_type))}: {data!r}")
        values = []
        for name, kind in _json_fields(move_type):
            if kind == "hex":
                row, col = data["row"], data["col"]
                if not (_is_int(row) and _is_int(col) and 0 <= row < ROWS and 0 <= col < COLS):
                    raise MoveFormatError(f"({row!r}, {col!r}) is not a hex on the board")
                values.append(row * COLS + col)
            elif kind == "str" and isinstance(data[name], str) or kind == "int" and _is_int(data[name]):
                values.append(data[name])
            else:
                raise MoveFormatError(f"{name} must be of type {kind}, not {data[name]!r}")
        return move_type(*values)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Start(Move):
    """Start the opening; the caller draws the first player."""

    action: ClassVar[str] = "start"
    first: int


@dataclass(frozen=True, slots=True)
class Name(Move):
    """A player's display name; allowed in every phase, and not logged."""

    action: ClassVar[str] = "name"
    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class Cube(Move):
    """An opening cube, or the cube a seat owes after a failed ask or search."""

    action: ClassVar[str] = "cube"
    seat: int
    hex: int


@dataclass(frozen=True, slots=True)
class Ask(Move):
    """Ask the seat `target` about a hex; the server answers with its clue."""

    action: ClassVar[str] = "ask"
    seat: int
    target: int
    hex: int


@dataclass(frozen=True, slots=True)
class Search(Move):
    """Search a hex the seat's own clue allows; every other seat answers in turn."""

    action: ClassVar[str] = "search"
    seat: int
    hex: int


@dataclass(frozen=True, slots=True)
class Disc(Move):
    """The extra disc of a search whose hex already held the searcher's disc: on another hex the clue allows."""

    action: ClassVar[str] = "disc"
    seat: int
    hex: int


@dataclass(frozen=True, slots=True)
class Leave(Move):
    """A seat leaves: its clue keeps answering, it never acts again."""

    action: ClassVar[str] = "leave"
    seat: int


@dataclass(frozen=True, slots=True)
class VoteGone(Move):
    """`voter` says that `seat`'s player has vanished; once every other active seat agrees, `seat` counts as left."""

    action: ClassVar[str] = "vote_gone"
    voter: int
    seat: int


@dataclass(frozen=True, slots=True)
class WithdrawGone(Move):
    """`voter` takes back their vote that `seat`'s player has vanished (the player came back, or it was a slip)."""

    action: ClassVar[str] = "withdraw_gone"
    voter: int
    seat: int


@dataclass(frozen=True, slots=True)
class HostGone(Move):
    """The host marks a seat gone at once."""

    action: ClassVar[str] = "host_gone"
    seat: int


@dataclass(frozen=True, slots=True)
class Reveal(Move):
    """The table agreed to the reveal: the game ends with no winner."""

    action: ClassVar[str] = "reveal"


MOVE_TYPES: dict[str, type[Move]] = {
    kind.action: kind for kind in (Start, Name, Cube, Ask, Search, Disc, Leave, VoteGone, WithdrawGone, HostGone, Reveal)
}
Move.types = MOVE_TYPES


@cache
def _json_fields(move_type: type[Move]) -> tuple[tuple[str, str], ...]:
    """A move type's fields in order with their JSON kind ("hex" is read and written as "row" and "col")."""
    return tuple((f.name, "hex" if f.name == "hex" else f.type) for f in fields(move_type))


@cache
def _json_keys(move_type: type[Move]) -> frozenset[str]:
    return frozenset({"action"}.union(*(("row", "col") if name == "hex" else (name,) for name, _ in _json_fields(move_type))))


class LogEntry(NamedTuple):
    """One line of the log (docs/cryptid-play.md section 8.7); `placed` says whether a piece went on the board
    with it.

    A named tuple rather than a frozen dataclass: folding a long game makes hundreds of entries, and tuples are
    four times quicker to make.
    """

    n: int
    seat: int
    action: str
    hex: int | None = None
    seat_asked: int | None = None
    piece: str | None = None
    placed: bool = False

    @property
    def row(self) -> int:
        return self.hex // COLS

    @property
    def col(self) -> int:
        return self.hex % COLS

    def placement(self) -> tuple[int, str] | None:
        """(owner seat, piece) of the piece this entry put on the board, for a table mirroring it on real tiles."""
        if not self.placed:
            return None
        if self.action == CUBE:
            return self.seat, CUBE
        if self.action == ASK:
            return self.seat_asked, self.piece
        if self.action in (SEARCH, DISC):
            return self.seat, DISC
        return self.seat, self.piece

    def to_json(self) -> dict:
        data = {"n": self.n, "seat": self.seat, "action": self.action}
        if self.hex is not None:
            data["row"], data["col"] = self.row, self.col
        if self.seat_asked is not None:
            data["seat_asked"] = self.seat_asked
        if self.piece is not None:
            data["piece"] = self.piece
        return data


class _Position:
    """The rules that read a position: legal choices and move checks, shared by State and the fold building it.

    Attributes (see State): game, version, phase, first, turn, pending, discs, cubes, left, names, log, winner,
    outcome, opening_step, gone_votes, _allowed. Per-seat sequences are indexed by seat - 1.
    """

    __slots__ = ()

    @property
    def players(self) -> int:
        return self.game.players

    @property
    def seats(self) -> range:
        return range(1, self.game.players + 1)

    @property
    def active_seats(self) -> tuple[int, ...]:
        """Seats that have not left, in seat order."""
        return tuple(seat for seat in self.seats if seat not in self.left)

    def discs_of(self, seat: int) -> int:
        return self.discs[seat - 1]

    def cubes_of(self, seat: int) -> int:
        return self.cubes[seat - 1]

    @property
    def all_cubes(self) -> int:
        """Mask of the hexes that have a cube of anyone."""
        mask = 0
        for cubes in self.cubes:
            mask |= cubes
        return mask

    def to_act(self, seat: int) -> bool:
        """Whether the game waits for this seat."""
        return self.turn == seat

    def allowed(self, seat: int) -> int:
        """Hexes the seat's clue allows, where it answers with a disc (its secret: show it to that seat only)."""
        return self._allowed[seat - 1]

    def cube_choices(self, seat: int) -> int:
        """Hexes where the seat may place a cube now (derived from its clue: show it to that seat only)."""
        if self.turn != seat or self.pending != PENDING_CUBE:
            return 0
        return self._cube_room(seat)

    def disc_choices(self, seat: int) -> int:
        """Hexes where the seat may put its search's extra disc now (derived from its clue: show it to that seat
        only)."""
        if self.turn != seat or self.pending != PENDING_DISC:
            return 0
        return self._disc_room(seat)

    def search_choices(self, seat: int) -> int:
        """Hexes the seat may search now (derived from its clue: show it to that seat only)."""
        if self.turn != seat or self.pending != PENDING_MOVE:
            return 0
        return self._allowed[seat - 1] & ~self.all_cubes

    def ask_hexes(self, seat: int, target: int) -> int:
        """Hexes the seat may ask `target` about now."""
        if self.turn != seat or self.pending != PENDING_MOVE or target == seat or target not in self.seats:
            return 0
        return ALL_HEXES & ~self.all_cubes & ~self.discs[target - 1]

    def ask_targets(self, seat: int, hex: int) -> tuple[int, ...]:
        """Seats the seat may ask about a hex now."""
        return tuple(target for target in self.seats if self.ask_hexes(seat, target) >> hex & 1)

    def is_legal(self, move: Move) -> bool:
        try:
            self.check(move)
        except IllegalMove:
            return False
        return True

    def check_version(self, version: int | None) -> None:
        """IllegalMove('stale_version') when a phone acted on another version than this one (None: not given)."""
        if version is not None and version != self.version:
            raise IllegalMove("stale_version", version=version, current=self.version)

    def check(self, move: Move) -> None:
        """Raise IllegalMove when the move breaks a rule now."""
        if type(move) is not Name and self.phase == OVER:
            raise IllegalMove("game_over")
        _CHECKS[type(move)](self, move)

    def _disc_room(self, seat: int) -> int:
        """Hexes that may take the seat's extra disc: its clue allows them, no cube and none of its discs."""
        return self._allowed[seat - 1] & ~self.all_cubes & ~self.discs[seat - 1]

    def _cube_room(self, seat: int) -> int:
        """Hexes the cube rule lets the seat cover: no cube of anyone, and the seat's clue rules them out."""
        return ALL_HEXES & ~self._allowed[seat - 1] & ~self.all_cubes

    def _check_seat(self, seat: int) -> None:
        if not 1 <= seat <= self.players:
            raise IllegalMove("no_such_seat", seat=seat)

    def _check_active(self, seat: int) -> None:
        self._check_seat(seat)
        if seat in self.left:
            raise IllegalMove("you_left")

    def _check_to_act(self, seat: int, pending: str, hex: int) -> None:
        if self.phase == LOBBY:
            raise IllegalMove("not_started")
        self._check_active(seat)
        if self.turn != seat:
            raise IllegalMove("not_your_turn")
        if self.pending != pending:
            if self.pending == PENDING_DISC:
                raise IllegalMove("disc_expected", hex=hex_name(self.search_hex))
            raise IllegalMove("cube_expected" if self.pending == PENDING_CUBE else "move_expected")
        if not 0 <= hex < HEX_COUNT:
            raise IllegalMove("off_board", hex=hex)
        if self.all_cubes >> hex & 1:
            raise IllegalMove("hex_has_cube")

    def _check_start(self, move: Start) -> None:
        if self.phase != LOBBY:
            raise IllegalMove("already_started")
        self._check_seat(move.first)

    def _check_name(self, move: Name) -> None:
        self._check_seat(move.seat)
        clean_name(move.name)

    def _check_cube(self, move: Cube) -> None:
        self._check_to_act(move.seat, PENDING_CUBE, move.hex)
        if self._allowed[move.seat - 1] >> move.hex & 1:
            raise IllegalMove("clue_allows_hex")

    def _check_ask(self, move: Ask) -> None:
        self._check_to_act(move.seat, PENDING_MOVE, move.hex)
        self._check_seat(move.target)
        if move.target == move.seat:
            raise IllegalMove("ask_self")
        if self.discs[move.target - 1] >> move.hex & 1:
            raise IllegalMove("already_has_disc")

    def _check_search(self, move: Search) -> None:
        self._check_to_act(move.seat, PENDING_MOVE, move.hex)
        if not self._allowed[move.seat - 1] >> move.hex & 1:
            raise IllegalMove("clue_rules_out_hex")

    def _check_disc(self, move: Disc) -> None:
        self._check_to_act(move.seat, PENDING_DISC, move.hex)
        if not self._allowed[move.seat - 1] >> move.hex & 1:
            raise IllegalMove("disc_clue_rules_out")
        if self.discs[move.seat - 1] >> move.hex & 1:
            raise IllegalMove("disc_already_there")

    def _check_leave(self, move: Leave) -> None:
        self._check_active(move.seat)

    def _check_vote_gone(self, move: VoteGone) -> None:
        self._check_active(move.voter)
        self._check_seat(move.seat)
        if move.seat == move.voter:
            raise IllegalMove("vote_self")
        if move.seat in self.left:
            raise IllegalMove("seat_left")
        if move.voter in self.gone_votes[move.seat - 1]:
            raise IllegalMove("already_voted")

    def _check_withdraw_gone(self, move: WithdrawGone) -> None:
        self._check_active(move.voter)
        self._check_seat(move.seat)
        if move.seat in self.left:
            raise IllegalMove("seat_left")
        if move.voter not in self.gone_votes[move.seat - 1]:
            raise IllegalMove("not_voted")

    def _check_host_gone(self, move: HostGone) -> None:
        self._check_seat(move.seat)
        if move.seat in self.left:
            raise IllegalMove("seat_left")

    def _check_reveal(self, move: Reveal) -> None:
        """The table may agree to the reveal in any phase before the end."""


_CHECKS = {
    Start: _Position._check_start,
    Name: _Position._check_name,
    Cube: _Position._check_cube,
    Ask: _Position._check_ask,
    Search: _Position._check_search,
    Disc: _Position._check_disc,
    Leave: _Position._check_leave,
    VoteGone: _Position._check_vote_gone,
    WithdrawGone: _Position._check_withdraw_gone,
    HostGone: _Position._check_host_gone,
    Reveal: _Position._check_reveal,
}


@dataclass(frozen=True, slots=True)
class State(_Position):
    """A refereed game after some moves: pieces, whose move it is, the log and the outcome. Never changes."""

    game: Game
    version: int  # moves applied so far
    phase: str  # LOBBY, OPENING, TURNS or OVER
    first: int | None
    turn: int | None  # the seat that must act now
    pending: str | None  # what it must do: PENDING_CUBE or PENDING_MOVE
    discs: tuple[int, ...]  # mask per seat
    cubes: tuple[int, ...]  # mask per seat
    left: frozenset[int]
    names: tuple[str | None, ...]  # chosen names per seat
    log: tuple[LogEntry, ...]
    winner: int | None
    outcome: str | None  # WON, REVEALED or ABANDONED once over
    opening_step: int  # opening placements done or skipped, 0 to OPENING_ROUNDS * players
    gone_votes: tuple[frozenset[int], ...]  # per seat, who voted it gone
    search_hex: int | None  # the hex of a search waiting for the searcher's extra disc (PENDING_DISC)
    # Per seat, a mask its clue's hexes are known to lie within: every hex, until a search found no hex for its
    # extra disc, which shows the searcher's clue allows nothing outside the cubes and its own discs then.
    clue_within: tuple[int, ...]
    _allowed: tuple[int, ...] = field(repr=False, compare=False)  # per seat, the hexes its clue allows

    @classmethod
    def initial(cls, game: Game) -> "State":
        """The lobby of a refereed game; ValueError unless it has 3-5 players."""
        if game.players not in PLAYER_COUNTS:
            raise ValueError(f"refereed play needs 3-5 players, not {game.players}")
        none = (0,) * game.players
        # With 3-5 players each seat holds one clue, in seat order: what the seat allows is that clue's area.
        areas = clue_areas(game.board)
        return cls(
            game=game, version=0, phase=LOBBY, first=None, turn=None, pending=None, discs=none, cubes=none,
            left=frozenset(), names=(None,) * game.players, log=(), winner=None, outcome=None, opening_step=0,
            gone_votes=(frozenset(),) * game.players, search_hex=None, clue_within=(ALL_HEXES,) * game.players,
            _allowed=tuple(areas[clue.index] for clue in game.clues),
        )

    @classmethod
    def replay(cls, game: Game, moves: Iterable[Move]) -> "State":
        """The state after playing the moves in order from the lobby; IllegalMove at the first illegal one."""
        fold = _Fold(cls.initial(game))
        for move in moves:
            fold.play(move)
        return fold.freeze()

    def apply(self, move: Move) -> "State":
        """The state after one more move; IllegalMove (this state unchanged) when the rules forbid it."""
        fold = _Fold(self)
        fold.play(move)
        return fold.freeze()

    @property
    def ranks(self) -> dict[int, int] | None:
        """Rank per seat once somebody won: the winner 1, other seats 2, seats that left 3; None without a winner."""
        if self.winner is None:
            return None
        return {seat: 1 if seat == self.winner else 3 if seat in self.left else 2 for seat in self.seats}

    def display_names(self, gettext: Translate = untranslated) -> dict[int, str]:
        """Each seat's chosen name, or 'Player N' in the reader's language."""
        return {seat: self.names[seat - 1] or seat_name(seat, gettext) for seat in self.seats}


class _Fold(_Position):
    """A private working copy of a state that moves change in place; `freeze` returns the new State.

    Every move is checked in full before it changes anything, so an illegal move leaves the copy as it was.
    """

    __slots__ = tuple(f.name for f in fields(State))

    def __init__(self, state: State) -> None:
        self.game, self.version, self.phase, self.first = state.game, state.version, state.phase, state.first
        self.turn, self.pending, self.winner, self.outcome = state.turn, state.pending, state.winner, state.outcome
        self.opening_step, self._allowed, self.search_hex = state.opening_step, state._allowed, state.search_hex
        self.clue_within = list(state.clue_within)
        self.discs, self.cubes, self.names = list(state.discs), list(state.cubes), list(state.names)
        self.log, self.left, self.gone_votes = list(state.log), set(state.left), list(state.gone_votes)

    def freeze(self) -> State:
        return State(
            game=self.game, version=self.version, phase=self.phase, first=self.first, turn=self.turn,
            pending=self.pending, discs=tuple(self.discs), cubes=tuple(self.cubes), left=frozenset(self.left),
            names=tuple(self.names), log=tuple(self.log), winner=self.winner, outcome=self.outcome,
            opening_step=self.opening_step, gone_votes=tuple(self.gone_votes), search_hex=self.search_hex,
            clue_within=tuple(self.clue_within), _allowed=self._allowed,
        )

    def play(self, move: Move) -> None:
        self.check(move)
        _EFFECTS[type(move)](self, move)
        self.version += 1

    def _log(self, seat: int, action: str, hex: int | None = None, seat_asked: int | None = None,
             piece: str | None = None, placed: bool = False) -> None:
        self.log.append(LogEntry(len(self.log) + 1, seat, action, hex, seat_asked, piece, placed))

    def _start(self, move: Start) -> None:
        self.phase, self.first = OPENING, move.first
        self._next_opening_cube()

    def _name(self, move: Name) -> None:
        self.names[move.seat - 1] = clean_name(move.name)

    def _cube(self, move: Cube) -> None:
        self.cubes[move.seat - 1] |= 1 << move.hex
        self._log(move.seat, CUBE, move.hex, placed=True)
        if self.phase == OPENING:
            self.opening_step += 1
            self._next_opening_cube()
        else:
            self._pass_turn(move.seat)

    def _ask(self, move: Ask) -> None:
        bit = 1 << move.hex
        if self._allowed[move.target - 1] & bit:
            self.discs[move.target - 1] |= bit
            self._log(move.seat, ASK, move.hex, move.target, DISC, placed=True)
            self._pass_turn(move.seat)
        else:
            self.cubes[move.target - 1] |= bit
            self._log(move.seat, ASK, move.hex, move.target, CUBE, placed=True)
            self._owe_cube(move.seat)

    def _search(self, move: Search) -> None:
        seat, bit = move.seat, 1 << move.hex
        if not self.discs[seat - 1] & bit:
            self.discs[seat - 1] |= bit
            self._log(seat, SEARCH, move.hex, placed=True)
            self._answer_search(seat, move.hex)
            return
        # The searcher's disc is there already: the rulebook has them place one on another hex their clue allows.
        self._log(seat, SEARCH, move.hex)
        if self._disc_room(seat):
            self.pending, self.search_hex = PENDING_DISC, move.hex
            return
        self.clue_within[seat - 1] &= self.all_cubes | self.discs[seat - 1]
        self._log(seat, SKIP, move.hex, piece=DISC)
        self._answer_search(seat, move.hex)

    def _disc(self, move: Disc) -> None:
        searched, self.search_hex = self.search_hex, None
        self.discs[move.seat - 1] |= 1 << move.hex
        self._log(move.seat, DISC, move.hex, placed=True)
        self._answer_search(move.seat, searched)

    def _answer_search(self, seat: int, hex: int) -> None:
        """The other seats answer a search in turn from the searcher's left; the first cube stops it, and when
        none does the searcher wins."""
        bit = 1 << hex
        for step in range(1, self.players):
            other = (seat - 1 + step) % self.players + 1
            if self.discs[other - 1] & bit:
                self._log(other, ANSWER, hex, piece=DISC)
            elif self._allowed[other - 1] & bit:
                self.discs[other - 1] |= bit
                self._log(other, ANSWER, hex, piece=DISC, placed=True)
            else:
                self.cubes[other - 1] |= bit
                self._log(other, ANSWER, hex, piece=CUBE, placed=True)
                self._owe_cube(seat)
                return
        self._log(seat, WIN, hex)
        self.winner = seat
        self._end(WON)

    def _leave(self, move: Leave) -> None:
        self._remove(move.seat)

    def _vote_gone(self, move: VoteGone) -> None:
        self.gone_votes[move.seat - 1] |= {move.voter}
        self._settle_gone_votes()

    def _withdraw_gone(self, move: WithdrawGone) -> None:
        self.gone_votes[move.seat - 1] -= {move.voter}

    def _host_gone(self, move: HostGone) -> None:
        self._remove(move.seat)

    def _reveal(self, move: Reveal) -> None:
        self._end(REVEALED)

    def _next_opening_cube(self) -> None:
        """Hand the next opening cube to its seat, logging cubes that cannot be placed; after the last, start the
        turns with the first player (or the next active seat)."""
        while self.opening_step < OPENING_ROUNDS * self.players:
            seat = (self.first - 1 + self.opening_step) % self.players + 1
            if seat not in self.left:
                if self._cube_room(seat):
                    self.turn, self.pending = seat, PENDING_CUBE
                    return
                self._log(seat, SKIP)
            self.opening_step += 1
        self.phase = TURNS
        self._pass_turn(self.first - 1)

    def _pass_turn(self, after: int) -> None:
        """The next active seat after `after` in seat order (wrapping, so possibly `after` itself) asks or searches."""
        players = self.players
        seat = after % players + 1
        while seat in self.left:
            seat = seat % players + 1
        self.turn, self.pending, self.search_hex = seat, PENDING_MOVE, None

    def _owe_cube(self, seat: int) -> None:
        """After a cube answer the mover places a cube of its own, or the log says it could not."""
        if self._cube_room(seat):
            self.pending = PENDING_CUBE
        else:
            self._log(seat, SKIP)
            self._pass_turn(seat)

    def _remove(self, seat: int) -> None:
        """The seat leaves (or is marked gone): its turn passes on; when nobody is left, the game ends."""
        self.left.add(seat)
        self._log(seat, LEAVE)
        if len(self.left) == self.players:
            self._end(ABANDONED)
            return
        if self.turn == seat:
            if self.phase == OPENING:
                self._next_opening_cube()
            else:
                self._pass_turn(seat)
        self._settle_gone_votes()

    def _settle_gone_votes(self) -> None:
        """Remove the first seat that every other active seat has voted gone (removing it settles again)."""
        active = set(self.active_seats)
        for seat in sorted(active):
            others = active - {seat}
            if others and others <= self.gone_votes[seat - 1]:
                self._remove(seat)
                return

    def _end(self, outcome: str) -> None:
        self.phase, self.turn, self.pending, self.outcome, self.search_hex = OVER, None, None, outcome, None


_EFFECTS = {
    Start: _Fold._start,
    Name: _Fold._name,
    Cube: _Fold._cube,
    Ask: _Fold._ask,
    Search: _Fold._search,
    Disc: _Fold._disc,
    Leave: _Fold._leave,
    VoteGone: _Fold._vote_gone,
    WithdrawGone: _Fold._withdraw_gone,
    HostGone: _Fold._host_gone,
    Reveal: _Fold._reveal,
}


def log_turns(log: tuple[LogEntry, ...]) -> list[tuple[LogEntry, ...]]:
    """The log cut into what people call one move each, in order: an ask or a search with its answers, its extra
    disc and the cube its mover then owed (or the skip saying none could go), an opening cube, a leave."""
    turns: list[list[LogEntry]] = []
    for entry in log:
        if turns and _continues(turns[-1], entry):
            turns[-1].append(entry)
        else:
            turns.append([entry])
    return [tuple(turn) for turn in turns]


def _continues(turn: list[LogEntry], entry: LogEntry) -> bool:
    """Whether a log entry belongs to the move that `turn` began."""
    if entry.action in (ANSWER, WIN, DISC) or entry.action == SKIP and entry.piece == DISC:
        return True
    head, last = turn[0], turn[-1]
    # The cube a mover owes after a cube answer (or the skip saying no hex could take it) ends that same move.
    owed = head.action in (ASK, SEARCH) and head.seat == entry.seat and last.piece == CUBE and last.action != CUBE
    return entry.action in (CUBE, SKIP) and owed


def since_last_turn(turns: list[tuple[LogEntry, ...]], seat: int | None) -> int:
    """The index in `turns` of the first move made after `seat`'s own latest move (0 when it has made none); for
    the public (None), that of the latest move."""
    if seat is None:
        return max(len(turns) - 1, 0)
    for index in range(len(turns) - 1, -1, -1):
        if turns[index][0].seat == seat and turns[index][0].action != LEAVE:
            return index + 1
    return 0


def legal_moves(state: State, seat: int | None) -> list[Move]:
    """Every move `seat` may make now: its cube, asks and searches when it is to act, leaving and voting a seat
    gone; with seat None, the host's moves (Start, HostGone, Reveal). Name takes free text, so it is not listed."""
    if seat is None:
        table = [*(Start(first) for first in state.seats), *(HostGone(other) for other in state.seats), Reveal()]
        return [move for move in table if state.is_legal(move)]
    moves: list[Move] = []
    if state.turn == seat:
        if state.pending == PENDING_CUBE:
            moves += [Cube(seat, hex) for hex in hexes_of(state.cube_choices(seat))]
        elif state.pending == PENDING_DISC:
            moves += [Disc(seat, hex) for hex in hexes_of(state.disc_choices(seat))]
        else:
            moves += [
                Ask(seat, target, hex) for target in state.seats for hex in hexes_of(state.ask_hexes(seat, target))
            ]
            moves += [Search(seat, hex) for hex in hexes_of(state.search_choices(seat))]
    table = [Leave(seat), *(VoteGone(seat, other) for other in state.seats),
             *(WithdrawGone(seat, other) for other in state.seats)]
    return moves + [move for move in table if state.is_legal(move)]
