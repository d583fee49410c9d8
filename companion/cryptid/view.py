"""What one viewer may see of a refereed game (docs/cryptid-play.md section 7): the only place that decides it.

A viewer is a seat (a player's phone) or None (the host screen and the public). Everyone sees the map, every piece,
whose turn it is, the log and the names; a seat also sees its own clue, the hexes that clue allows and its own
choices now. Every clue and the habitat appear only once the game is over. The seat's page and the JSON of
docs/cryptid-play.md section 8.6 are both drawn from a View, so neither can show more than it holds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .clues import Clue
from .hexgrid import hex_row_col, hexes_of
from .play import OVER, LogEntry, State
from .text import Translate, untranslated


@dataclass(frozen=True, slots=True)
class Reveal:
    """The end of a game: the habitat, and every clue with the seat that held it, in the game's clue order."""

    habitat: int
    clues: tuple[tuple[int, Clue], ...]

    def seat_clues(self, seat: int) -> tuple[Clue, ...]:
        return tuple(clue for holder, clue in self.clues if holder == seat)

    def to_json(self) -> dict:
        row, col = hex_row_col(self.habitat)
        clues = [clue.to_json() | {"seat": seat} for seat, clue in self.clues]
        return {"clues": clues, "habitat": {"row": row, "col": col}}


@dataclass(frozen=True, slots=True)
class View:
    """A refereed game as one viewer sees it: the public position, the viewer's own secrets, and the reveal.

    Masks are 108-bit hex masks; per-seat tuples are indexed by seat - 1. For the public (seat None) the clue is
    None and every mask is 0.
    """

    version: int
    players: int
    mode: str
    map_code: str
    phase: str
    first: int | None
    turn: int | None
    pending: str | None
    names: dict[int, str]  # the name people see, per seat
    left: frozenset[int]
    discs: tuple[int, ...]
    cubes: tuple[int, ...]
    log: tuple[LogEntry, ...]
    winner: int | None
    ranks: dict[int, int] | None
    reveal: Reveal | None  # only once the game is over
    seat: int | None = None  # the viewer
    clue: Clue | None = None  # the viewer's own clue
    allowed: int = 0  # hexes the viewer's clue allows (a disc answer)
    cube_choices: int = 0  # hexes where the viewer may place a cube now
    disc_choices: int = 0  # hexes where the viewer may place its search's extra disc now
    search_choices: int = 0  # hexes the viewer may search now
    ask_hexes: tuple[int, ...] = ()  # per seat, hexes the viewer may ask that seat about now
    search_hex: int | None = None  # the hex of a search waiting for its searcher's extra disc
    clue_within: tuple[int, ...] = ()  # per seat, a mask its clue's hexes are known to lie within (State's)

    @property
    def seats(self) -> range:
        return range(1, self.players + 1)

    @property
    def to_act(self) -> bool:
        """Whether the game waits for the viewer."""
        return self.seat is not None and self.turn == self.seat

    @property
    def choices(self) -> int:
        """Every hex on which the viewer may act now: cube, extra disc, search or ask."""
        mask = self.cube_choices | self.disc_choices | self.search_choices
        for hexes in self.ask_hexes:
            mask |= hexes
        return mask

    def ask_targets(self, hex: int) -> tuple[int, ...]:
        """The seats the viewer may ask about a hex now."""
        return tuple(target for target, hexes in enumerate(self.ask_hexes, 1) if hexes >> hex & 1)

    def to_json(self) -> dict:
        """The state of docs/cryptid-play.md section 8.6 without `code`; `you` and `clue` for a seat only."""
        data = {
            "version": self.version,
            "players": self.players,
            "mode": self.mode,
            "map_code": self.map_code,
            "phase": self.phase,
            "first": self.first,
            "turn": self.turn,
            "pending": self.pending,
            "seats": [{"seat": s, "name": self.names[s], "left": s in self.left} for s in self.seats],
            "discs": _pieces_json(self.discs),
            "cubes": _pieces_json(self.cubes),
            "log": [entry.to_json() for entry in self.log],
            "winner": self.winner,
            "ranks": None if self.ranks is None else {str(s): rank for s, rank in self.ranks.items()},
        }
        if self.seat is not None:
            data["you"] = self.seat
            data["clue"] = self.clue.to_json()
        data["reveal"] = None if self.reveal is None else self.reveal.to_json()
        return data


def view(state: State, viewer: int | None = None, gettext: Translate = untranslated) -> View:
    """The game as `viewer` (a seat, or None for the public) may see it; names of unnamed seats in the reader's
    language. ValueError for a seat the game does not have."""
    game = state.game
    reveal = None
    if state.phase == OVER:
        reveal = Reveal(game.habitat, tuple((game.seat_of(i), clue) for i, clue in enumerate(game.clues)))
    public = View(
        version=state.version, players=state.players, mode=game.mode, map_code=game.board.to_map_code(),
        phase=state.phase, first=state.first, turn=state.turn, pending=state.pending,
        names=state.display_names(gettext), left=state.left, discs=state.discs, cubes=state.cubes, log=state.log,
        winner=state.winner, ranks=state.ranks, reveal=reveal, search_hex=state.search_hex,
        clue_within=state.clue_within,
    )
    if viewer is None:
        return public
    (clue,) = game.seat_clues(viewer)
    return replace(
        public, seat=viewer, clue=clue, allowed=state.allowed(viewer), cube_choices=state.cube_choices(viewer),
        disc_choices=state.disc_choices(viewer),
        search_choices=state.search_choices(viewer),
        ask_hexes=tuple(state.ask_hexes(viewer, target) for target in state.seats),
    )


def _pieces_json(masks: tuple[int, ...]) -> list[dict]:
    return [
        {"seat": seat, "row": row, "col": col}
        for seat, mask in enumerate(masks, 1)
        for row, col in map(hex_row_col, hexes_of(mask))
    ]
