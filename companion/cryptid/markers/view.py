"""What one viewer may see of a Markers game: the only place that decides it (view), and a finished game's earlier
steps for the replay (replay_view)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from ..clues import Clue
from ..hexgrid import hex_name, hex_row_col, hexes_of
from ..text import Translate, untranslated
from .moves import Move
from .rules import OVER
from .state import LogEntry, State


@dataclass(frozen=True, slots=True)
class Reveal:
    """The end of a game: the habitat, and every clue with the seat that held it, in the game's clue order."""

    habitat: int
    clues: tuple[tuple[int, Clue], ...]

    def to_json(self) -> dict:
        row, col = hex_row_col(self.habitat)
        return {"habitat": {"row": row, "col": col},
                "clues": [clue.to_json() | {"seat": seat} for seat, clue in self.clues]}


@dataclass(frozen=True, slots=True)
class View:
    """A game of Markers as one viewer sees it: the public record, the viewer's own clues and choices, and the
    reveal once the game is over. For the public (seat None) there are no clues and every choice is 0."""

    version: int
    players: int
    mode: str
    map_code: str
    phase: str
    first: int | None
    turn: int | None
    names: dict[int, str]
    hands: tuple[int, ...]
    supply: int
    markers: tuple[tuple[int, int, str], ...]
    allows: tuple[int, ...]
    rules_out: tuple[int, ...]
    clue_seats: tuple[int, ...]  # per clue position, the seat holding it (public: it is the seat order)
    out: frozenset[int]
    left: frozenset[int]
    log: tuple[LogEntry, ...]
    winners: tuple[int, ...]
    outcome: str | None
    reveal: Reveal | None
    sealed_by: tuple[int, ...] = ()  # seats with a sealed "it's here" waiting for the end of the round
    gone_votes: tuple[frozenset[int], ...] = ()  # per seat, who voted it gone
    right: tuple[int, ...] = ()  # the seats whose "it's here" was right when the game was found (State.right)
    # Every sealed claim (seat, hex) as it stood: only in a step of a finished game's replay (replay_view).
    sealed_claims: tuple[tuple[int, int], ...] = ()
    seat: int | None = None
    clues: tuple[Clue, ...] = ()  # the viewer's own clues
    allowed: int = 0  # hexes every clue of the viewer allows
    not_here_choices: int = 0
    its_here_choices: int = 0
    sealed_hex: int | None = None  # the viewer's own sealed claim

    @property
    def seats(self) -> range:
        return range(1, self.players + 1)

    @property
    def to_act(self) -> bool:
        return self.seat is not None and self.turn == self.seat

    @property
    def own_positions(self) -> tuple[int, ...]:
        return tuple(position for position, seat in enumerate(self.clue_seats) if seat == self.seat)

    def to_json(self) -> dict:
        data = {
            "variant": "markers",
            "version": self.version,
            "players": self.players,
            "mode": self.mode,
            "map_code": self.map_code,
            "phase": self.phase,
            "first": self.first,
            "turn": self.turn,
            "supply": self.supply,
            "seats": [{"seat": s, "name": self.names[s], "markers": self.hands[s - 1], "out": s in self.out,
                       "left": s in self.left, "gone_votes": sorted(self.gone_votes[s - 1])} for s in self.seats],
            "markers": [{"row": hex_row_col(hex)[0], "col": hex_row_col(hex)[1], "seat": seat, "kind": kind}
                        for hex, seat, kind in self.markers],
            "answers": [{"clue": position, "seat": self.clue_seats[position],
                         "allows": [hex_name(h) for h in hexes_of(self.allows[position])],
                         "rules_out": [hex_name(h) for h in hexes_of(self.rules_out[position])]}
                        for position in range(len(self.clue_seats))],
            "log": [entry.to_json() for entry in self.log],
            "winners": list(self.winners),
            "outcome": self.outcome,
            "sealed_by": list(self.sealed_by),
            "right": list(self.right),
        }
        if self.seat is not None:
            data["you"] = self.seat
            data["clues"] = [clue.to_json() for clue in self.clues]
            data["sealed"] = None if self.sealed_hex is None else hex_name(self.sealed_hex)
        data["reveal"] = None if self.reveal is None else self.reveal.to_json()
        return data


def view(state: State, viewer: int | None = None, gettext: Translate = untranslated) -> View:
    """The game as `viewer` (a seat, or None for the host screen and the public) may see it: the only place that
    decides it. ValueError for a seat the game does not have."""
    game = state.game
    reveal = None
    if state.phase == OVER:
        reveal = Reveal(game.habitat, tuple((game.seat_of(i), clue) for i, clue in enumerate(game.clues)))
    public = View(
        version=state.version, players=state.players, mode=game.mode, map_code=game.board.to_map_code(),
        phase=state.phase, first=state.first, turn=state.turn, names=state.display_names(gettext),
        hands=state.hands, supply=state.supply, markers=state.markers, allows=state.allows,
        rules_out=state.rules_out, clue_seats=tuple(game.seat_of(i) for i in range(len(game.clues))),
        out=state.out, left=state.left, log=state.log, winners=state.winners, outcome=state.outcome, reveal=reveal,
        sealed_by=tuple(seat for seat, _ in state.sealed), gone_votes=state.gone_votes, right=state.right,
    )
    if viewer is None:
        return public
    clues = game.seat_clues(viewer)
    return replace(
        public, seat=viewer, clues=clues, allowed=state.allowed(viewer),
        not_here_choices=state.not_here_choices(viewer), its_here_choices=state.its_here_choices(viewer),
        sealed_hex=next((hex for seat, hex in state.sealed if seat == viewer), None),
    )


def replay_view(final: State, moves: Sequence[Move], step: int, viewer: int | None = None,
                gettext: Translate = untranslated) -> View:
    """A finished game as it stood after its first `step` moves, for the replay: the viewer's view of that
    position, with every clue (the final reveal) and every sealed claim as it stood then, and no choices.
    ValueError while the game is not over: until then a sealed claim stays its claimant's."""
    if final.phase != OVER:
        raise ValueError("only a finished game is replayed")
    past = State.replay(final.game, moves[:step], final.rules)
    return replace(view(past, viewer, gettext), reveal=view(final).reveal, sealed_claims=past.sealed,
                   not_here_choices=0, its_here_choices=0)
