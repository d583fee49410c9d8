"""The games the site referees at a Cryptid table, each a record: classic Cryptid and Markers
(docs/cryptid-markers.md). The store asks a table's record for its engine; a new variant adds a record here and
its engine, and the table's row names it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


from companion.cryptid import Game, markers, play
from companion.web.core.i18n import lazy_gettext
from companion.web.core.referee import Referee
from companion.web.core.store import load_log

from .models import CLASSIC, MARKERS


@dataclass(frozen=True, slots=True)
class Variant:
    """What the store needs of a refereed game: its engine's state and move types, its IllegalMove, the move that
    starts it (with the first player drawn) and the one that ends a game still running when the table agrees to
    the reveal, the phase of a finished game, and the player counts it is played with (with the sentences that say
    so to a host who asks for another, and to a JSON client that sends another)."""

    name: str
    state_type: type
    move_type: type
    illegal_move: type[Exception]
    start: Callable[[int], object]
    reveal: Callable[[], object]
    over: str
    player_counts: tuple[int, ...]
    players_refused: str
    json_table_shape: str

    def moves(self, game: Game) -> list:
        """The table's move log as this variant's moves."""
        return [self.move_type.from_json(data) for data in load_log(game.code)]

    def referee(self, game: Game) -> Referee:
        """The table of `game` as the core referees it; the cache keeps each variant's states apart."""
        return Referee(self.name, game.code, lambda: self.state_type.replay(game, self.moves(game)))


CLASSIC_VARIANT = Variant(
    CLASSIC, play.State, play.Move, play.IllegalMove, play.Start, play.Reveal, play.OVER, play.PLAYER_COUNTS,
    lazy_gettext("The app referees games of 3 to 5 players: asking needs at least two other players."),
    lazy_gettext('Send {"players": 3, 4 or 5, "advanced": true or false}.'))
MARKERS_VARIANT = Variant(
    MARKERS, markers.State, markers.Move, markers.IllegalMove, markers.Start, markers.End, markers.OVER,
    markers.PLAYER_COUNTS, lazy_gettext("Markers is for 2 to 4 players."),
    lazy_gettext('Send {"players": 2, 3 or 4, "advanced": true or false, "variant": "markers"}.'))
VARIANTS = {variant.name: variant for variant in (CLASSIC_VARIANT, MARKERS_VARIANT)}
