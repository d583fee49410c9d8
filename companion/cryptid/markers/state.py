"""A Markers game folded from its moves: the State (the public record, the hands and every seat's clues),
the rules that check a move against it, and the moves a seat may make now.

Every clue answers on its own. The state keeps, per clue (in the game's clue order), the hexes it has been
publicly seen to allow and to rule out; that, the markers, the hands and the log are the public record. A
vanished player is marked gone with VoteGone, WithdrawGone and HostGone; only the seats still in the game (not
out of the turns) vote and can be voted for."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, NamedTuple

from ..clues import clue_areas
from ..generator import Game
from ..hexgrid import ALL_HEXES, HEX_COUNT, hex_row_col, hexes_of
from ..text import Translate, seat_name, untranslated
from .moves import (
    End,
    HostGone,
    IllegalMove,
    ItsHere,
    Leave,
    Move,
    Name,
    NotHere,
    Start,
    VoteGone,
    WithdrawGone,
    clean_name,
    is_int,
)
from .rules import (
    ABANDONED,
    ALLOWS,
    BORROW,
    BORROWS,
    ENDED,
    EXHAUSTED,
    FIRST,
    FOUND,
    HAND_SIZES,
    ITS_HERE,
    LAST_STANDING,
    LATER,
    LEAVE,
    LOBBY,
    NOT_HERE,
    OBJECT,
    OUT,
    OVER,
    PAY,
    PAY_FIRST,
    PLAYER_COUNTS,
    REFUND,
    RULES,
    RULES_OUT,
    Rules,
    SEAL,
    SHARE,
    SILENT,
    STAYS_OUT,
    SUPPLY,
    TAKE,
    TURNS,
    WIN,
)


class LogEntry(NamedTuple):
    """One line of the log: who did what, on which hex, with which clue (a position in the game's clue order)
    and, for a payment, to whom (`other`)."""

    n: int
    seat: int
    action: str
    hex: int | None = None
    clue: int | None = None
    other: int | None = None

    def to_json(self) -> dict:
        data: dict = {"n": self.n, "seat": self.seat, "action": self.action}
        if self.hex is not None:
            data["row"], data["col"] = hex_row_col(self.hex)
        if self.clue is not None:
            data["clue"] = self.clue
        if self.other is not None:
            data["other"] = self.other
        return data


@dataclass(frozen=True, slots=True)
class State:
    """A game of Markers after some moves. Per-seat tuples are indexed by seat - 1, per-clue tuples by the clue's
    position in game.clues. markers: (hex, seat, kind) in the order they were placed."""

    game: Game
    rules: Rules
    version: int
    phase: str
    first: int | None
    turn: int | None
    hands: tuple[int, ...]
    supply: int
    markers: tuple[tuple[int, int, str], ...]
    sealed: tuple[tuple[int, int], ...]  # (seat, hex) of the sealed "it's here" claims of this round (secret)
    allows: tuple[int, ...]  # per clue, hexes the table has seen it allow
    rules_out: tuple[int, ...]  # per clue, hexes the table has seen it rule out
    out: frozenset[int]  # seats without markers (under the "out" reading) and seats that left
    left: frozenset[int]
    names: tuple[str | None, ...]
    log: tuple[LogEntry, ...]
    winners: tuple[int, ...]  # one seat, or several sharing a win
    outcome: str | None
    gone_votes: tuple[frozenset[int], ...]  # per seat, who voted it gone (public)
    _areas: tuple[int, ...] = field(repr=False, compare=False)  # per clue, the hexes it allows (secret)
    # The seats whose "it's here" was right when the game was found, in the order claimed: the winners are the
    # ones among them with the most markers in hand, so a page can say why the others did not win.
    right: tuple[int, ...] = ()

    @classmethod
    def initial(cls, game: Game, rules: Rules = RULES) -> "State":
        if game.players not in PLAYER_COUNTS:
            raise ValueError(f"Markers is for {PLAYER_COUNTS[0]}-{PLAYER_COUNTS[-1]} players, not {game.players}")
        areas = clue_areas(game.board)
        clues = len(game.clues)
        return cls(
            game=game, rules=rules, version=0, phase=LOBBY, first=None, turn=None, hands=(0,) * game.players,
            supply=SUPPLY, markers=(), sealed=(), allows=(0,) * clues, rules_out=(0,) * clues, out=frozenset(),
            left=frozenset(), names=(None,) * game.players, log=(), winners=(), outcome=None,
            gone_votes=(frozenset(),) * game.players, _areas=tuple(areas[clue.index] for clue in game.clues),
        )

    @classmethod
    def replay(cls, game: Game, moves: Iterable[Move], rules: Rules = RULES) -> "State":
        """The state after the moves in order from the lobby; IllegalMove at the first illegal one."""
        state = cls.initial(game, rules)
        for move in moves:
            state = state.apply(move)
        return state

    # Reading the position.

    @property
    def players(self) -> int:
        return self.game.players

    @property
    def seats(self) -> range:
        return range(1, self.players + 1)

    @property
    def in_game(self) -> tuple[int, ...]:
        """Seats still in the game: not out of the turns and not left. They alone vote a seat gone, and only
        they can be voted gone (an out seat has no turn left to skip)."""
        return tuple(seat for seat in self.seats if seat not in self.out)

    def clue_positions(self, seat: int) -> range:
        """Positions in game.clues of the seat's clues: one, or two with 2 players."""
        per_seat = len(self.game.clues) // self.players
        return range((seat - 1) * per_seat, seat * per_seat)

    def allowed(self, seat: int) -> int:
        """Hexes every clue of the seat allows (its secret: show it to that seat only)."""
        mask = ALL_HEXES
        for position in self.clue_positions(seat):
            mask &= self._areas[position]
        return mask

    @property
    def marked(self) -> int:
        """Mask of the hexes that have a marker."""
        mask = 0
        for hex, _, _ in self.markers:
            mask |= 1 << hex
        return mask

    def not_here_choices(self, seat: int) -> int:
        """Hexes where the seat may claim "not here" now (from its clues: show it to that seat only)."""
        if not self._may_claim(seat):
            return 0
        return ALL_HEXES & ~self.allowed(seat) & ~self.marked

    def its_here_choices(self, seat: int) -> int:
        """Hexes where the seat may claim "it's here" now (from its clues: show it to that seat only)."""
        if not self._may_claim(seat):
            return 0
        return self.allowed(seat) & ~self.marked

    def _may_claim(self, seat: int) -> bool:
        return self.phase == TURNS and self.turn == seat and (self.hands[seat - 1] > 0 or self._can_borrow(seat))

    def _can_borrow(self, seat: int) -> bool:
        return self.rules.empty_hand == BORROWS and any(self.hands[other - 1] for other in self.seats if other != seat)

    def display_names(self, gettext: Translate = untranslated) -> dict[int, str]:
        return {seat: self.names[seat - 1] or seat_name(seat, gettext) for seat in self.seats}

    @property
    def claims(self) -> int:
        """Claims made so far: the turns played."""
        return len(self.markers)

    def check_version(self, version: int | None) -> None:
        if version is not None and version != self.version:
            raise IllegalMove("stale_version", version=version, current=self.version)

    def is_legal(self, move: Move) -> bool:
        try:
            self.check(move)
        except IllegalMove:
            return False
        return True

    def check(self, move: Move) -> None:
        """Raise IllegalMove when the move breaks a rule now."""
        if type(move) is not Name and self.phase == OVER:
            raise IllegalMove("game_over")
        _CHECKS[type(move)](self, move)

    def _check_start(self, move: Start) -> None:
        if self.phase != LOBBY:
            raise IllegalMove("already_started")
        self._check_seat(move.first)

    def _check_name(self, move: Name) -> None:
        self._check_seat(move.seat)
        clean_name(move.name)

    def _check_leave(self, move: Leave) -> None:
        self._check_seat(move.seat)
        if move.seat in self.left:
            raise IllegalMove("you_left")

    def _check_host_gone(self, move: HostGone) -> None:
        self._check_seat(move.seat)
        self._check_target(move.seat)

    def _check_end(self, move: End) -> None:
        """The host may end a game at any time before it is over."""

    def _check_vote(self, move: VoteGone | WithdrawGone) -> None:
        self._check_seat(move.voter)
        if move.voter in self.left:
            raise IllegalMove("you_left")
        if move.voter in self.out:
            raise IllegalMove("you_are_out")
        self._check_seat(move.seat)
        if move.seat == move.voter:
            raise IllegalMove("vote_self")
        self._check_target(move.seat)
        voted = move.voter in self.gone_votes[move.seat - 1]
        if isinstance(move, VoteGone) and voted:
            raise IllegalMove("already_voted")
        if isinstance(move, WithdrawGone) and not voted:
            raise IllegalMove("not_voted")

    def _check_target(self, seat: int) -> None:
        if seat in self.left:
            raise IllegalMove("seat_left")
        if seat in self.out:
            raise IllegalMove("seat_out")

    def _check_seat(self, seat: int) -> None:
        if not (is_int(seat) and 1 <= seat <= self.players):
            raise IllegalMove("no_such_seat", seat=seat)

    def _check_claim(self, move: NotHere | ItsHere) -> None:
        if self.phase == LOBBY:
            raise IllegalMove("not_started")
        self._check_seat(move.seat)
        if move.seat in self.left:
            raise IllegalMove("you_left")
        if self.turn != move.seat:
            raise IllegalMove("not_your_turn")
        if not self._may_claim(move.seat):
            raise IllegalMove("no_markers")
        if not (is_int(move.hex) and 0 <= move.hex < HEX_COUNT):
            raise IllegalMove("off_board", hex=move.hex)
        if self.marked >> move.hex & 1:
            raise IllegalMove("hex_has_marker")
        allowed = self.allowed(move.seat) >> move.hex & 1
        if isinstance(move, NotHere) and allowed:
            raise IllegalMove("clue_allows_hex")
        if isinstance(move, ItsHere) and not allowed:
            raise IllegalMove("clue_rules_out_hex")

    # Changing it.

    def apply(self, move: Move) -> "State":
        """The state after one more move; IllegalMove (this state unchanged) when the rules forbid it."""
        self.check(move)
        fold = _Fold(self)
        _APPLY[type(move)](fold, move)
        fold.settle_gone_votes()
        return fold.freeze(self.version + 1)

    @property
    def ranks(self) -> dict[int, int] | None:
        """The winner (or winners) 1, every other seat 2; None without a winner."""
        if not self.winners:
            return None
        return {seat: 1 if seat in self.winners else 2 for seat in self.seats}

    @property
    def winner(self) -> int | None:
        """The sole winner, if one seat won alone."""
        return self.winners[0] if len(self.winners) == 1 else None


class _Fold:
    """A working copy of a state that one move changes in place; freeze() makes the next State."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.rules = state.rules
        self.phase, self.first, self.turn = state.phase, state.first, state.turn
        self.hands, self.supply = list(state.hands), state.supply
        self.markers, self.sealed = list(state.markers), list(state.sealed)
        self.allows, self.rules_out = list(state.allows), list(state.rules_out)
        self.out, self.left, self.names = set(state.out), set(state.left), list(state.names)
        self.log = list(state.log)
        self.winners, self.outcome, self.right = state.winners, state.outcome, state.right
        self.gone_votes = list(state.gone_votes)

    def freeze(self, version: int) -> State:
        return replace(
            self.state, version=version, phase=self.phase, first=self.first, turn=self.turn,
            hands=tuple(self.hands), supply=self.supply, markers=tuple(self.markers), sealed=tuple(self.sealed),
            allows=tuple(self.allows),
            rules_out=tuple(self.rules_out), out=frozenset(self.out), left=frozenset(self.left),
            names=tuple(self.names), log=tuple(self.log), winners=self.winners, outcome=self.outcome,
            gone_votes=tuple(self.gone_votes), right=self.right,
        )

    def _log(self, seat: int, action: str, hex: int | None = None, clue: int | None = None,
             other: int | None = None) -> None:
        self.log.append(LogEntry(len(self.log) + 1, seat, action, hex, clue, other))

    def start(self, first: int) -> None:
        state = self.state
        hand = HAND_SIZES[state.players]
        self.hands = [0 if seat in self.left else hand for seat in state.seats]
        self.supply = SUPPLY - sum(self.hands)
        self.out |= self.left
        self.phase, self.first = TURNS, first
        self.turn = None
        self._next_turn(first - 1)

    def name(self, seat: int, name: str) -> None:
        self.names[seat - 1] = clean_name(name)

    def vote_gone(self, voter: int, seat: int, gone: bool) -> None:
        """`voter` votes `seat` gone (gone) or takes its vote back."""
        if gone:
            self.gone_votes[seat - 1] |= {voter}
        else:
            self.gone_votes[seat - 1] -= {voter}

    def settle_gone_votes(self) -> None:
        """Mark gone every seat that each other seat still in the game has voted gone, one at a time (a removal,
        or a voter going out of the turns, can complete another vote); it then counts as left."""
        while self.phase != OVER:
            in_game = [seat for seat in self.state.seats if seat not in self.out]
            gone = next((seat for seat in in_game
                         if len(in_game) > 1 and set(in_game) - {seat} <= self.gone_votes[seat - 1]), None)
            if gone is None:
                return
            self.leave(gone)

    def _answers(self, clue: int, hex: int) -> bool:
        """Whether the clue allows the hex; the answer becomes public."""
        if self.state._areas[clue] >> hex & 1:
            self.allows[clue] |= 1 << hex
            return True
        self.rules_out[clue] |= 1 << hex
        return False

    def _others(self, seat: int) -> list[tuple[int, int]]:
        """(seat, clue) of every other seat's clues, clockwise from the seat after `seat`."""
        state = self.state
        order = []
        for step in range(1, state.players):
            other = (seat - 1 + step) % state.players + 1
            order += [(other, clue) for clue in state.clue_positions(other)]
        return order

    def _place(self, seat: int, hex: int, kind: str) -> None:
        """Take a marker from the seat's hand (borrowing one first if the reading lets it) onto the hex, or face
        down beside the board for a sealed claim."""
        if not self.hands[seat - 1]:
            lender = next(other for other, _ in self._others(seat) if self.hands[other - 1])
            self.hands[lender - 1] -= 1
            self._log(seat, BORROW, other=lender)
        else:
            self.hands[seat - 1] -= 1
        if kind == ITS_HERE and self.rules.sealed:
            self.sealed.append((seat, hex))
            self._log(seat, SEAL)
        else:
            self.markers.append((hex, seat, kind))
            self._log(seat, kind, hex)

    def _pay(self, payer: int, payee: int) -> bool:
        """One marker from payer to payee, when the payer has one and the payee is still in; whether it moved."""
        if not self.hands[payer - 1] or payee in self.out:
            return False
        self.hands[payer - 1] -= 1
        self.hands[payee - 1] += 1
        self._log(payer, PAY, other=payee)
        return True

    def not_here(self, seat: int, hex: int) -> None:
        self._place(seat, hex, NOT_HERE)
        own = self.state.clue_positions(seat)
        if len(own) == 1:  # the claim says, publicly, that a lone clue rules the hex out
            self._answers(own[0], hex)
        objectors: set[int] = set()
        for other, clue in self._others(seat):
            if self._answers(clue, hex):
                self._log(other, OBJECT, hex, clue)
                if other not in objectors:  # a player pays once, even when both their clues object
                    objectors.add(other)
                    self._pay(other, seat)
                if self.rules.objections == FIRST:
                    break
            else:
                self._log(other, SILENT, hex, clue)
        if not objectors and self.rules.refund and self.supply:
            self.supply -= 1
            self.hands[seat - 1] += 1
            self._log(seat, REFUND, hex)
        self._after_turn(seat)

    def its_here(self, seat: int, hex: int) -> None:
        self._place(seat, hex, ITS_HERE)
        if self.rules.sealed:
            self._after_turn(seat)
            return
        if self._check_its_here(seat, hex):
            self.right = (seat,)
            self._win([seat], hex)
            return
        self._after_turn(seat)

    def _check_its_here(self, seat: int, hex: int) -> bool:
        """Every other clue checks the claim (publicly) and, when it is wrong, markers change hands; whether it
        was right."""
        wrong = []
        for other, clue in self._others(seat):
            if self._answers(clue, hex):
                self._log(other, ALLOWS, hex, clue)
            else:
                self._log(other, RULES_OUT, hex, clue)
                wrong.append(other)
        for clue in self.state.clue_positions(seat):
            self._answers(clue, hex)  # the claimant's own clues allow it: the claim says so publicly
        wrong_claim = self.rules.wrong_claim
        for other in dict.fromkeys(wrong):  # each seat once, even with two clues that rule it out
            if wrong_claim == TAKE:
                self._pay(other, seat)
            elif self._pay(seat, other) and wrong_claim == PAY_FIRST:
                break
        return not wrong

    def _win(self, seats: list[int], hex: int) -> None:
        for seat in seats:
            self._log(seat, WIN, hex)
        self.winners = tuple(seats)
        self.end(FOUND)

    def _open_seals(self) -> bool:
        """At the end of a round, show and check every sealed claim in the order made; of the right ones, the
        claimant with the most markers in hand wins (with as many, the rules' `ties` decide). Whether anyone won."""
        sealed, self.sealed = self.sealed, []
        right = []
        for seat, hex in sealed:
            self.markers.append((hex, seat, ITS_HERE))
            self._log(seat, ITS_HERE, hex)
            if self._check_its_here(seat, hex):
                right.append((seat, hex))
        if not right:
            return False
        self.right = tuple(seat for seat, _ in right)
        most = max(self.hands[seat - 1] for seat, _ in right)
        best = [(seat, hex) for seat, hex in right if self.hands[seat - 1] == most]
        if self.rules.ties != SHARE:
            best = [best[-1] if self.rules.ties == LATER else best[0]]
        self._win([seat for seat, _ in best], best[0][1])
        return True

    def leave(self, seat: int) -> None:
        self.left.add(seat)
        self.out.add(seat)
        kept = [claim for claim in self.sealed if claim[0] != seat]
        self.supply += self.hands[seat - 1] + len(self.sealed) - len(kept)
        self.hands[seat - 1], self.sealed = 0, kept
        self._log(seat, LEAVE)
        if self.phase == LOBBY:
            if len(self.left) == self.state.players:
                self.end(ABANDONED)
        elif self.turn == seat:
            self._after_turn(seat)
        else:
            self._settle()

    def _after_turn(self, seat: int) -> None:
        if self.sealed and self._round_over(seat) and self._open_seals():
            return
        if not self._settle():
            self._next_turn(seat)

    def _round_over(self, seat: int) -> bool:
        """Whether the turn after `seat` begins a new round: no seat before the first player's place can still
        claim in this one."""
        players = self.state.players
        for step in range(1, players + 1):
            other = (seat - 1 + step) % players + 1
            if other == self.first:
                return True
            if self._can_act(other):
                return False
        return True

    def _can_act(self, seat: int) -> bool:
        return seat not in self.out and (self.hands[seat - 1] > 0 or self.rules.empty_hand == BORROWS)

    def _settle(self) -> bool:
        """Put out the seats with empty hands (under the "out" reading) and end the game when one seat or none can
        still claim; whether it ended. A seat waiting on a sealed claim is not out yet."""
        state = self.state
        waiting = {seat for seat, _ in self.sealed}
        if self.rules.empty_hand == STAYS_OUT:
            for seat in state.seats:
                if not self.hands[seat - 1] and seat not in self.out and seat not in waiting:
                    self.out.add(seat)
                    self._log(seat, OUT)
        playing = [seat for seat in state.seats if seat not in self.out]
        if not playing:
            self.end(ABANDONED if len(self.left) == state.players else EXHAUSTED)
            return True
        if len(playing) == 1 and len(self.left) < state.players and not waiting:
            if self.rules.empty_hand == STAYS_OUT or len(self.left) == state.players - 1:
                self.winners = (playing[0],)
                self._log(playing[0], WIN)
                self.end(LAST_STANDING)
                return True
        if not any(self.hands):
            if waiting and self._open_seals():
                return True
            self.end(EXHAUSTED)
            return True
        return False

    def _next_turn(self, after: int) -> None:
        """The next seat clockwise after `after` that can claim; at a round's end its sealed claims are opened."""
        players = self.state.players
        for step in range(1, players + 1):
            seat = (after - 1 + step) % players + 1
            if self._can_act(seat):
                self.turn = seat
                return
        if self.sealed and self._open_seals():
            return
        if not self._settle():
            self.end(EXHAUSTED)

    def end(self, outcome: str) -> None:
        self.phase, self.turn, self.outcome = OVER, None, outcome


# One entry per move type, as in the classic engine (play.py): what a move must satisfy now, and how it changes
# the working copy of the state.
_CHECKS = {
    Start: State._check_start,
    Name: State._check_name,
    NotHere: State._check_claim,
    ItsHere: State._check_claim,
    Leave: State._check_leave,
    End: State._check_end,
    VoteGone: State._check_vote,
    WithdrawGone: State._check_vote,
    HostGone: State._check_host_gone,
}
_APPLY = {
    Start: lambda fold, move: fold.start(move.first),
    Name: lambda fold, move: fold.name(move.seat, move.name),
    NotHere: lambda fold, move: fold.not_here(move.seat, move.hex),
    ItsHere: lambda fold, move: fold.its_here(move.seat, move.hex),
    Leave: lambda fold, move: fold.leave(move.seat),
    End: lambda fold, move: fold.end(ENDED),
    VoteGone: lambda fold, move: fold.vote_gone(move.voter, move.seat, True),
    WithdrawGone: lambda fold, move: fold.vote_gone(move.voter, move.seat, False),
    HostGone: lambda fold, move: fold.leave(move.seat),
}


def legal_moves(state: State, seat: int | None) -> list[Move]:
    """Every move `seat` may make now (its claims, leaving, and voting a seat gone or taking the vote back); with
    seat None, the host's (Start, HostGone, End). Name takes free text, so it is not listed."""
    if seat is None:
        table = [*(Start(first) for first in state.seats), *(HostGone(other) for other in state.seats), End()]
        return [move for move in table if state.is_legal(move)]
    moves: list[Move] = [NotHere(seat, hex) for hex in hexes_of(state.not_here_choices(seat))]
    moves += [ItsHere(seat, hex) for hex in hexes_of(state.its_here_choices(seat))]
    table = [Leave(seat), *(VoteGone(seat, other) for other in state.seats),
             *(WithdrawGone(seat, other) for other in state.seats)]
    return moves + [move for move in table if state.is_legal(move)]
