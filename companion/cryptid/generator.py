"""From a game code to a complete, valid setup, and from one game to the next on the same map.

Procedure (generator version 1), every random choice drawn from rng.Stream with the labels shown:
1. Map ("map", mode, seed): shuffle the tiles 1-6 into slots 0-5, turn each with probability 1/2, then put the
   structures in official order on distinct land hexes, each uniform among the land hexes still free.
2. Habitat order ("habitats", mode, seed): a shuffle of the 108 hexes. The map's habitats are the hexes, in that
   order, that admit a valid setup (RULES.md section 5) with 3, 4 and 5 clues alike; game n on the map uses
   habitat n, whatever the player count, so a sequence of games never repeats a habitat. A map is kept only
   when it has at least MIN_HABITATS of them.
3. Clues ("game", mode, seed, number, players): draw how many clues are negated (advanced mode, from the
   official distribution), order the clues allowing the habitat by weighted draws, and take the first valid set
   in that order with that many negations (then the nearest other counts). Seats get the clues in a shuffled
   order; then a hint category is drawn among those no clue mentions, with the official-like weights.
4. New maps: seeds are drawn from the operating system and tried in turn until one gives a kept map.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass

from .board import ADVANCED, Board, Structure, TilePlacement, structure_order
from .clues import CLUES, FAMILY_NEAR_ANIMAL, Clue, clue_areas, clues_for_mode
from .codes import GAME_LIMIT, SEED_LIMIT, GameCodeError, GameId
from .hexgrid import ALL_HEXES, HEX_COUNT, hex_row_col, hexes_of
from .hints import HINT_WEIGHTS, open_categories
from .rng import Stream
from .search import ALL_CATEGORIES, MENTIONS, ClueSetSearch, transpose
from .text import (
    Translate,
    clue_text,
    hint_text,
    no_habitat_left_text,
    structure_step_text,
    tile_step_text,
    untranslated,
)
from .tiles import PIECES, TILE_NUMBERS

VERSION = 1
KNOWN_VERSIONS = frozenset({1})
NAMESPACE = "cryptid-companion"

MIN_AREA, MAX_AREA = 42, 66
MIN_HABITATS = 4
CLUE_SIZES = (3, 4, 5)
CLUES_PER_GAME = {2: 4, 3: 3, 4: 4, 5: 5}

# How many clues of an advanced setup are negated, counted over official setups (RULES.md; index = count).
NEGATION_WEIGHTS = {3: (112, 216, 139, 13), 4: (32, 119, 207, 106, 16), 5: (9, 69, 154, 144, 89, 15)}
# Draw weight of each clue when ordering candidates: tuned so the mix of families follows the official one.
FAMILY_WEIGHTS = {FAMILY_NEAR_ANIMAL: 2}
DEFAULT_WEIGHT = 3


class NoHabitatLeft(Exception):
    """The map has no unused habitat for another game."""

    def __init__(self, used: int) -> None:
        self.used = used
        super().__init__(no_habitat_left_text(used))


@dataclass(frozen=True)
class Game:
    """A complete setup: the map, the habitat, each seat's clues and the hint."""

    id: GameId
    board: Board
    habitat: int
    clues: tuple[Clue, ...]
    hint: str

    @property
    def code(self) -> str:
        return self.id.to_code()

    @property
    def players(self) -> int:
        return self.id.players

    @property
    def mode(self) -> str:
        return self.id.mode

    @property
    def number(self) -> int:
        """Which game on this map, counting from 0."""
        return self.id.number

    def seat_clues(self, seat: int) -> tuple[Clue, ...]:
        """Clues held by a seat (1-based): one each, or two each in the 2-player variant."""
        if not 1 <= seat <= self.players:
            raise ValueError(f"seat {seat} is not in 1-{self.players}")
        per_seat = len(self.clues) // self.players
        return self.clues[(seat - 1) * per_seat : seat * per_seat]

    def seat_of(self, clue_position: int) -> int:
        """Seat (1-based) holding the clue at a position of `clues`."""
        return clue_position // (len(self.clues) // self.players) + 1

    def allowed(self, seat: int) -> int:
        """Mask of the hexes a seat's clues allow: where that player answers with a disc."""
        areas = clue_areas(self.board)
        mask = ALL_HEXES
        for clue in self.seat_clues(seat):
            mask &= areas[clue.index]
        return mask

    def habitat_tile(self) -> tuple[int, int]:
        """(printed tile number, slot) of the tile the habitat lies on: the second, stronger hint."""
        placement = self.board.placement_of(self.habitat)
        return placement.tile, placement.slot

    def tile_steps(self, gettext: Translate = untranslated) -> list[str]:
        """One sentence per slot: which tile goes there and which way round."""
        return [tile_step_text(t.slot, t.tile, t.rotated, gettext) for t in self.board.tiles]

    def structure_steps(self, gettext: Translate = untranslated) -> list[str]:
        """One sentence per structure: the tile it stands on and the hex counted on that tile as it lies."""
        steps = []
        for s in self.board.structures:
            placement, row, col = self.board.tile_position(s.hex)
            steps.append(structure_step_text(s.kind, s.color, placement.slot, placement.tile, row, col, gettext))
        return steps

    def to_json(self, reveal: bool = False) -> dict:
        """The public setup; with reveal, also every clue (with its seat), the habitat and the hint."""
        data = {
            "code": self.code,
            "players": self.players,
            "mode": self.mode,
            "game": self.number + 1,
            "map_code": self.board.to_map_code(),
            "tiles": [{"slot": t.slot, "tile": t.tile, "rotated": t.rotated} for t in self.board.tiles],
            "structures": [
                {"kind": s.kind, "color": s.color, "row": s.row, "col": s.col} for s in self.board.structures
            ],
        }
        if reveal:
            data["clues"] = [
                clue.to_json() | {"seat": self.seat_of(i), "text": clue_text(clue)} for i, clue in enumerate(self.clues)
            ]
            row, col = hex_row_col(self.habitat)
            data["habitat"] = {"row": row, "col": col}
            data["hint"] = {"category": self.hint, "text": hint_text(self.hint)}
        return data


def map_board(mode: str, seed: int) -> Board:
    """The board a seed names (step 1 of the procedure)."""
    stream = Stream(NAMESPACE, VERSION, "map", mode, seed)
    order = stream.shuffled(TILE_NUMBERS)
    tiles = tuple(TilePlacement(slot, tile, stream.below(2) == 1) for slot, tile in enumerate(order))
    water = 0
    for t in tiles:
        water |= PIECES[(t.tile, t.rotated, t.slot)]["water"]
    land = hexes_of(ALL_HEXES & ~water)
    structures = tuple(
        Structure(kind, color, land.pop(stream.below(len(land)))) for kind, color in structure_order(mode)
    )
    return Board(tiles, structures)


class MapPlan:
    """A map with its usable clue areas and its habitats, found lazily in habitat order and remembered."""

    def __init__(self, mode: str, seed: int) -> None:
        self.mode = mode
        self.seed = seed
        self.board = map_board(mode, seed)
        areas = clue_areas(self.board)
        self.usable = [
            (clue.index, areas[clue.index])
            for clue in clues_for_mode(mode)
            if MIN_AREA <= areas[clue.index].bit_count() <= MAX_AREA
        ]
        self._indices = [index for index, _ in self.usable]
        self._membership = transpose([area for _, area in self.usable])
        self._order = Stream(NAMESPACE, VERSION, "habitats", mode, seed).shuffled(range(HEX_COUNT))
        self._checked = 0
        self._habitats: list[int] = []
        self._lock = threading.Lock()
        # In normal mode most hexes admit no 3-clue setup; finding them all at once rejects bad maps cheaply.
        self._three_clue = three_clue_habitats(self.usable) if mode != ADVANCED else None

    def candidates(self, habitat: int) -> list[tuple[int, int]]:
        bit = 1 << habitat
        return [pair for pair in self.usable if pair[1] & bit]

    def qualifies(self, habitat: int) -> bool:
        """Whether the hex admits valid setups of 3, 4 and 5 clues."""
        if self._three_clue is not None and habitat not in self._three_clue:
            return False
        search = ClueSetSearch.for_habitat(self._indices, self._membership, habitat)
        return all(search.find(size) is not None for size in CLUE_SIZES)

    def habitats(self, count: int) -> list[int]:
        """The first `count` habitats of the map (fewer when the map has fewer)."""
        with self._lock:
            while len(self._habitats) < count and self._checked < HEX_COUNT:
                hex_ = self._order[self._checked]
                self._checked += 1
                if self.qualifies(hex_):
                    self._habitats.append(hex_)
            return self._habitats[:count]

    def is_kept(self) -> bool:
        if self._three_clue is not None and len(self._three_clue) < MIN_HABITATS:
            return False
        return len(self.habitats(MIN_HABITATS)) >= MIN_HABITATS

    def game(self, game_id: GameId) -> Game:
        """Game `game_id.number` on this map for `game_id.players` players (step 3 of the procedure)."""
        found = self.habitats(game_id.number + 1)
        if len(found) <= game_id.number:
            raise GameCodeError("no_such_game", available=len(found), number=game_id.number + 1)
        habitat = found[game_id.number]
        stream = Stream(NAMESPACE, VERSION, "game", self.mode, self.seed, game_id.number, game_id.players)
        size = CLUES_PER_GAME[game_id.players]
        candidates = self.candidates(habitat)
        weights = [FAMILY_WEIGHTS.get(CLUES[index].family, DEFAULT_WEIGHT) for index, _ in candidates]
        ordered = stream.weighted_order(candidates, weights)
        search = ClueSetSearch.for_candidates(ordered, habitat)
        chosen = None
        for negated in _negation_targets(stream, self.mode, size):
            chosen = search.find(size, negated)
            if chosen:
                break
        assert chosen is not None, "a qualifying habitat always has a clue set"
        clues = tuple(CLUES[i] for i in stream.shuffled(chosen))
        categories = open_categories(clues)
        hint = categories[stream.weighted_index([HINT_WEIGHTS[c] for c in categories])]
        return Game(game_id, self.board, habitat, clues, hint)


def _negation_targets(stream: Stream, mode: str, size: int) -> list[int | None]:
    if mode != ADVANCED:
        return [0]
    first = stream.weighted_index(NEGATION_WEIGHTS[size])
    return sorted(range(size + 1), key=lambda n: (abs(n - first), n))


def three_clue_habitats(usable: list[tuple[int, int]]) -> frozenset[int]:
    """Every hex that some valid 3-clue set pins down (the same sets ClueSetSearch accepts)."""
    found: set[int] = set()
    count = len(usable)
    for a in range(count):
        index_a, area_a = usable[a]
        for b in range(a + 1, count):
            index_b, area_b = usable[b]
            pair = area_a & area_b
            if pair & (pair - 1) == 0:
                continue
            for c in range(b + 1, count):
                index_c, area_c = usable[c]
                triple = pair & area_c
                if triple == 0 or triple & (triple - 1):
                    continue
                # Irredundant: each pair must leave a second hex; a hint category must stay open.
                ac, bc = area_a & area_c, area_b & area_c
                if ac == triple or bc == triple or pair == triple:
                    continue
                if MENTIONS[index_a] | MENTIONS[index_b] | MENTIONS[index_c] == ALL_CATEGORIES:
                    continue
                found.add(triple.bit_length() - 1)
    return frozenset(found)


_PLAN_CACHE_SIZE = 512
_plans: OrderedDict[tuple[str, int], MapPlan] = OrderedDict()
_plans_lock = threading.Lock()


def map_plan(mode: str, seed: int) -> MapPlan:
    """The plan of a map, remembered (least recently used first out) so later games on it are quick."""
    key = (mode, seed)
    with _plans_lock:
        plan = _plans.get(key)
        if plan is not None:
            _plans.move_to_end(key)
            return plan
    return _remember(MapPlan(mode, seed))


def _remember(plan: MapPlan) -> MapPlan:
    with _plans_lock:
        plan = _plans.setdefault((plan.mode, plan.seed), plan)
        _plans.move_to_end((plan.mode, plan.seed))
        while len(_plans) > _PLAN_CACHE_SIZE:
            _plans.popitem(last=False)
        return plan


def load_game(code: str) -> Game:
    """The game a code names; raises GameCodeError (bad code) or NoHabitatLeft."""
    return game_for(GameId.from_code(code, known_versions=KNOWN_VERSIONS))


def game_for(game_id: GameId) -> Game:
    return map_plan(game_id.mode, game_id.seed).game(game_id)


def new_game(players: int, mode: str, entropy: Stream | None = None) -> Game:
    """A game on a fresh kept map; seeds come from `entropy` (tests, benchmarks) or the operating system."""
    while True:
        seed = entropy.below(SEED_LIMIT) if entropy else int.from_bytes(os.urandom(8), "little") % SEED_LIMIT
        plan = MapPlan(mode, seed)
        if plan.is_kept():
            return _remember(plan).game(GameId(VERSION, mode, players, seed, 0))


def next_game(game: Game, players: int | None = None) -> Game:
    """The next game on the same map (new habitat and clues); the player count may change, the mode not."""
    number = game.number + 1
    plan = map_plan(game.mode, game.id.seed)
    if number >= GAME_LIMIT or len(plan.habitats(number + 1)) <= number:
        raise NoHabitatLeft(number)
    return plan.game(GameId(game.id.version, game.mode, players or game.players, game.id.seed, number))
