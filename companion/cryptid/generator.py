"""From a game code (and the server's key) to a complete, valid setup, and from one game to the next on a map.

A code names its generator version; every version's procedure stays loadable, so a code keeps its game.
Random choices come from rng.Stream with the labels shown (after NAMESPACE and the version); "secret" streams
are keyed with the server's key (rng.secret_of), so only that server can compute what they choose.

Version 2 (current). Public, from the code alone: the map and the setup steps.
1. Map ("map", mode, seed): shuffle the tiles 1-6 into slots 0-5, turn each with probability 1/2, then put the
   structures in official order on distinct land hexes, each uniform among the land hexes still free.
Secret, from the code and the key:
2. Habitat order ("habitats", mode, seed): a shuffle of the 108 hexes.
3. Habitat of game n for P players ("target", mode, seed, n, P): in advanced mode draw how many clues are
   negated, with weights.NEGATION_WEIGHTS for the game's clue count (normal mode: none). Candidates are the
   hexes, in habitat order, that no game m < n on the map for P players uses (so successive games for the same
   player count never repeat a habitat, docs/cryptid-rules.md section 5.6) and that admit a valid setup (docs/cryptid-rules.md section 5)
   with that many clues and negations. Each candidate in turn is accepted when a draw below ACCEPTANCE_SCALE
   falls under weights.HABITAT_WEIGHTS of its terrain (mode and clue count); the habitat is the first accepted
   candidate, or the first candidate when none is. When no hex is a candidate, the nearest other negation count
   is tried (the lower first); when no count has one, the map has no game n for P players.
4. Clues ("clues", mode, seed, n, P): order the clues allowing the habitat by weighted draws without
   replacement (weights.CLUE_WEIGHTS of each clue's family, for the mode and clue count) and take the first
   valid set in that order (search.py) with the negation count of step 3. Seats get the clues in a shuffled
   order; then a hint category is drawn among those no clue mentions (weights.HINT_WEIGHTS for the mode).
5. Kept maps: a map is dealt only when at least MIN_HABITATS hexes admit a valid setup of each clue count
   (3, 4 and 5), so games 1 to MIN_HABITATS exist for every player count. New maps' seeds come from the
   operating system (or a test's stream) and are tried in turn until one gives a kept map.
The weights (weights.py) are fitted to the official setups by fit.py; they are part of the procedure.

Version 1 (no key: every code's game is public).
1. Map: as in version 2, with version label 1.
2. Habitat order ("habitats", mode, seed): a shuffle of the 108 hexes. The map's habitats are the hexes, in that
   order, that admit a valid setup with 3, 4 and 5 clues alike; game n on the map uses habitat n, whatever the
   player count, so a sequence of games never repeats a habitat. A map is kept only when it has at least
   MIN_HABITATS of them.
3. Clues ("game", mode, seed, number, players): draw how many clues are negated (advanced mode, from
   V1_NEGATION_WEIGHTS), order the clues allowing the habitat by weighted draws (V1 family weights), and take
   the first valid set in that order with that many negations (then the nearest other counts). Seats get the
   clues in a shuffled order; then a hint category is drawn among those no clue mentions (V1_HINT_WEIGHTS).
4. New maps: none are made any more; version-1 codes load and continue on their maps.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from . import weights
from .board import ADVANCED, Board, Structure, TilePlacement, structure_order
from .clues import (
    CLUES,
    FAMILY_NEAR_ANIMAL,
    MAX_AREA,
    MIN_AREA,
    Clue,
    clue_areas,
    clues_for_mode,
)
from .codes import GAME_LIMIT, SEED_LIMIT, GameCodeError, GameId
from .hexgrid import ALL_HEXES, HEX_COUNT, hex_row_col, hexes_of
from .hints import V1_HINT_WEIGHTS, open_categories
from .rng import Stream, secret_of
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

VERSION = 2
KNOWN_VERSIONS = frozenset({1, 2})
NAMESPACE = "cryptid-companion"

MIN_HABITATS = 4
CLUE_SIZES = (3, 4, 5)
CLUES_PER_GAME = {2: 4, 3: 3, 4: 4, 5: 5}

# Version 1: how many clues of an advanced setup are negated (official counts; index = count), and the draw
# weight of each clue by family.
V1_NEGATION_WEIGHTS = {3: (112, 216, 139, 13), 4: (32, 119, 207, 106, 16), 5: (9, 69, 154, 144, 89, 15)}
V1_FAMILY_WEIGHTS = {FAMILY_NEAR_ANIMAL: 2}
V1_DEFAULT_WEIGHT = 3


@dataclass(frozen=True, eq=False)
class Tuning:
    """The weights of the version-2 draws: FITTED (weights.py) for games, others while fitting."""

    negations: Mapping[int, Sequence[int]]  # clue count -> weight of 0, 1, 2, ... negated clues (advanced)
    clues: Mapping[tuple[str, int], Mapping[str, int]]  # (mode, clue count) -> clue family -> draw weight
    hints: Mapping[str, Mapping[str, int]]  # mode -> hint category -> draw weight
    habitats: Mapping[tuple[str, int], Mapping[str, int]]  # (mode, clue count) -> terrain -> acceptance


ACCEPTANCE_SCALE = 10_000  # a habitat acceptance weight is a chance out of this


FITTED = Tuning(weights.NEGATION_WEIGHTS, weights.CLUE_WEIGHTS, weights.HINT_WEIGHTS, weights.HABITAT_WEIGHTS)


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

    @cached_property
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


def map_board(mode: str, seed: int, version: int) -> Board:
    """The board a seed names (step 1 of either procedure)."""
    stream = Stream(NAMESPACE, version, "map", mode, seed)
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


class _MapAreas:
    """A map's board and the clues usable on it (42-66 hexes), shared by both procedures."""

    version: int

    def __init__(self, mode: str, seed: int) -> None:
        self.mode = mode
        self.seed = seed
        self.board = map_board(mode, seed, self.version)
        areas = clue_areas(self.board)
        self.usable = [
            (clue.index, areas[clue.index])
            for clue in clues_for_mode(mode)
            if MIN_AREA <= areas[clue.index].bit_count() <= MAX_AREA
        ]
        self._indices = [index for index, _ in self.usable]
        self._membership = transpose([area for _, area in self.usable])
        self._lock = threading.RLock()

    def candidates(self, habitat: int) -> list[tuple[int, int]]:
        """(clue index, area) of the usable clues that allow a hex."""
        bit = 1 << habitat
        return [pair for pair in self.usable if pair[1] & bit]

    def _search(self, habitat: int) -> ClueSetSearch:
        return ClueSetSearch.for_habitat(self._indices, self._membership, habitat)


class MapPlanV1(_MapAreas):
    """A version-1 map: its habitats, found lazily in habitat order and remembered."""

    version = 1

    def __init__(self, mode: str, seed: int) -> None:
        super().__init__(mode, seed)
        # In normal mode most hexes admit no 3-clue setup; finding them all at once rejects bad maps cheaply.
        self._three_clue = three_clue_habitats(self.usable) if mode != ADVANCED else None
        self._order = Stream(NAMESPACE, 1, "habitats", mode, seed).shuffled(range(HEX_COUNT))
        self._checked = 0
        self._habitats: list[int] = []

    @property
    def cache_key(self) -> tuple:
        return 1, self.mode, self.seed, b""

    def qualifies(self, habitat: int) -> bool:
        """Whether the hex admits valid setups of 3, 4 and 5 clues."""
        if self._three_clue is not None and habitat not in self._three_clue:
            return False
        search = self._search(habitat)
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

    def has_game(self, number: int, players: int) -> bool:
        return len(self.habitats(number + 1)) > number

    def game(self, game_id: GameId) -> Game:
        """Game `game_id.number` on this map for `game_id.players` players (step 3 of version 1)."""
        found = self.habitats(game_id.number + 1)
        if len(found) <= game_id.number:
            raise GameCodeError("no_such_game", available=len(found), number=game_id.number + 1)
        habitat = found[game_id.number]
        stream = Stream(NAMESPACE, 1, "game", self.mode, self.seed, game_id.number, game_id.players)
        size = CLUES_PER_GAME[game_id.players]
        candidates = self.candidates(habitat)
        weights_ = [V1_FAMILY_WEIGHTS.get(CLUES[index].family, V1_DEFAULT_WEIGHT) for index, _ in candidates]
        ordered = stream.weighted_order(candidates, weights_)
        search = ClueSetSearch.for_candidates(ordered, habitat)
        chosen = None
        for negated in _v1_negation_targets(stream, self.mode, size):
            chosen = search.find(size, negated)
            if chosen:
                break
        assert chosen is not None, "a qualifying habitat always has a clue set"
        clues = tuple(CLUES[i] for i in stream.shuffled(chosen))
        categories = open_categories(clues)
        hint = categories[stream.weighted_index([V1_HINT_WEIGHTS[c] for c in categories])]
        return Game(game_id, self.board, habitat, clues, hint)


def _v1_negation_targets(stream: Stream, mode: str, size: int) -> list[int | None]:
    if mode != ADVANCED:
        return [0]
    first = stream.weighted_index(V1_NEGATION_WEIGHTS[size])
    return sorted(range(size + 1), key=lambda n: (abs(n - first), n))


class MapPlan(_MapAreas):
    """A version-2 map under one server's secret: each game's habitat and negation count, found lazily."""

    version = VERSION

    def __init__(self, mode: str, seed: int, secret: bytes, tuning: Tuning = FITTED) -> None:
        super().__init__(mode, seed)
        self._secret = secret
        self._tuning = tuning
        self._order = Stream(NAMESPACE, VERSION, "habitats", mode, seed, secret=secret).shuffled(range(HEX_COUNT))
        self._three_clue: frozenset[int] | None = None
        self._last_search: tuple[int, ClueSetSearch | None] = (-1, None)
        self._admitted: dict[tuple[int, int, int | None], bool] = {}
        self._chosen: dict[tuple[int, int], tuple[int, int] | None] = {}
        self._games: dict[tuple[int, int], Game] = {}

    @property
    def cache_key(self) -> tuple:
        return VERSION, self.mode, self.seed, self._secret

    def admits(self, habitat: int, size: int, negated: int | None = None) -> bool:
        """Whether a hex admits a valid set of `size` clues (with exactly `negated` negations if given)."""
        key = (habitat, size, negated)
        found = self._admitted.get(key)
        if found is None:
            if size == 3 and negated is None:
                found = habitat in self.three_clue_habitats()
            elif negated is not None and not self.admits(habitat, size):
                found = False
            else:
                # One search serves a hex's questions in a row (any negation count, then a given one); keeping
                # a search per hex would triple the plan's memory.
                searched, search = self._last_search
                if searched != habitat or search is None:
                    search = self._search(habitat)
                    self._last_search = (habitat, search)
                found = search.find(size, negated) is not None
            self._admitted[key] = found
        return found

    def three_clue_habitats(self) -> frozenset[int]:
        """The hexes that admit a valid 3-clue set, found all at once the first time they are needed: few hexes
        do, so one enumeration of the clue triples costs less than a search at each hex."""
        with self._lock:
            if self._three_clue is None:
                self._three_clue = three_clue_habitats(self.usable)
            return self._three_clue

    def habitat(self, number: int, players: int) -> tuple[int, int] | None:
        """(hex, negated clue count) of game `number` for `players` (step 3), or None: no such game."""
        with self._lock:
            used: set[int] = set()
            for earlier in range(number):
                found = self._choose(earlier, players, used)
                if found is None:
                    return None
                used.add(found[0])
            return self._choose(number, players, used)

    def _choose(self, number: int, players: int, used: set[int]) -> tuple[int, int] | None:
        """Step 3 for one game, remembered; `used` holds the habitats of the earlier games for these players."""
        key = (number, players)
        if key not in self._chosen:
            size = CLUES_PER_GAME[players]
            stream = Stream(NAMESPACE, VERSION, "target", self.mode, self.seed, number, players, secret=self._secret)
            acceptance = self._tuning.habitats[(self.mode, size)]
            chosen = None
            for negated in self._negation_targets(stream, size):
                admitted = (h for h in self._order if h not in used and self.admits(h, size, negated))
                first = next(admitted, None)
                if first is None:
                    continue
                chosen = (first, negated)
                for hex_ in itertools.chain([first], admitted):
                    if stream.below(ACCEPTANCE_SCALE) < acceptance[self.board.cell(hex_)[0]]:
                        chosen = (hex_, negated)
                        break
                break
            self._chosen[key] = chosen
        return self._chosen[key]

    def _negation_targets(self, stream: Stream, size: int) -> list[int]:
        if self.mode != ADVANCED:
            return [0]
        first = stream.weighted_index(self._tuning.negations[size])
        return sorted(range(size + 1), key=lambda n: (abs(n - first), n))

    def has_game(self, number: int, players: int) -> bool:
        return self.habitat(number, players) is not None

    def is_kept(self, between_steps: Callable[[], None] = lambda: None) -> bool:
        """Whether games 0 to MIN_HABITATS - 1 exist for every player count (step 5): those games use
        MIN_HABITATS distinct hexes, so it is enough that as many admit a setup of each clue count.
        `between_steps` runs between searches (a background thread sleeps there so requests need not wait)."""
        return all(self._admitting(size, between_steps) >= MIN_HABITATS for size in CLUE_SIZES)

    def _admitting(self, size: int, between_steps: Callable[[], None]) -> int:
        """How many hexes admit a set of `size` clues, counting no further than MIN_HABITATS."""
        if size == 3:
            return min(len(self.three_clue_habitats()), MIN_HABITATS)
        count = 0
        for hex_ in self._order:
            between_steps()
            count += self.admits(hex_, size)
            if count == MIN_HABITATS:
                break
        return count

    def game(self, game_id: GameId) -> Game:
        """Game `game_id.number` on this map for `game_id.players` players (steps 3 and 4 of version 2),
        remembered: a site loads the same game for every page of the table."""
        key = (game_id.number, game_id.players)
        with self._lock:
            if key not in self._games:
                self._games[key] = self._deal(game_id)
            return self._games[key]

    def _deal(self, game_id: GameId) -> Game:
        found = self.habitat(game_id.number, game_id.players)
        if found is None:
            available = next(n for n in range(game_id.number + 1) if not self.has_game(n, game_id.players))
            raise GameCodeError("no_such_game", available=available, number=game_id.number + 1)
        habitat, negated = found
        size = CLUES_PER_GAME[game_id.players]
        stream = Stream(
            NAMESPACE, VERSION, "clues", self.mode, self.seed, game_id.number, game_id.players, secret=self._secret
        )
        candidates = self.candidates(habitat)
        clue_weights = self._tuning.clues[(self.mode, size)]
        ordered = stream.weighted_order(candidates, [clue_weights[CLUES[index].family] for index, _ in candidates])
        chosen = ClueSetSearch.for_candidates(ordered, habitat).find(size, negated)
        assert chosen is not None, "step 3 chose a habitat that admits this clue set"
        clues = tuple(CLUES[i] for i in stream.shuffled(chosen))
        categories = open_categories(clues)
        hint_weights = self._tuning.hints[self.mode]
        hint = categories[stream.weighted_index([hint_weights[c] for c in categories])]
        return Game(game_id, self.board, habitat, clues, hint)


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
_plans: OrderedDict[tuple, MapPlanV1 | MapPlan] = OrderedDict()
_plans_lock = threading.Lock()


def map_plan(game_id: GameId, secret: bytes) -> MapPlanV1 | MapPlan:
    """The plan of a code's map, remembered (least recently used first out) so later games on it are quick.
    Version 1 ignores the secret; version 2 has one plan per map and secret."""
    if game_id.version == 1:
        key: tuple = (1, game_id.mode, game_id.seed, b"")
    else:
        key = (game_id.version, game_id.mode, game_id.seed, secret)
    with _plans_lock:
        plan = _plans.get(key)
        if plan is not None:
            _plans.move_to_end(key)
            return plan
    if game_id.version == 1:
        return remember(MapPlanV1(game_id.mode, game_id.seed))
    return remember(MapPlan(game_id.mode, game_id.seed, secret))


def remember(plan: MapPlanV1 | MapPlan) -> MapPlanV1 | MapPlan:
    """Put a plan in the cache (or return the one already there for its map and secret)."""
    with _plans_lock:
        plan = _plans.setdefault(plan.cache_key, plan)
        _plans.move_to_end(plan.cache_key)
        while len(_plans) > _PLAN_CACHE_SIZE:
            _plans.popitem(last=False)
        return plan


def map_seeds(entropy: Stream | None = None) -> Iterator[int]:
    """Map seeds to try, from `entropy` (tests, benchmarks, fitting) or the operating system's randomness."""
    while True:
        yield entropy.below(SEED_LIMIT) if entropy else int.from_bytes(os.urandom(8), "little") % SEED_LIMIT


def kept_plan(
    mode: str,
    secret: bytes,
    seeds: Iterator[int],
    between_steps: Callable[[], None] = lambda: None,
    tuning: Tuning = FITTED,
) -> MapPlan:
    """The first map, taking seeds in turn, that the procedure keeps (step 5)."""
    for seed in seeds:
        plan = MapPlan(mode, seed, secret, tuning)
        if plan.is_kept(between_steps):
            return plan
        between_steps()
    raise ValueError("the seeds ran out before a map was kept")


def first_game(plan: MapPlan, players: int) -> Game:
    """Game 1 on a kept map, with the plan remembered for the games that follow."""
    return remember(plan).game(GameId(VERSION, plan.mode, players, plan.seed, 0))


def following_game(game: Game, players: int | None, secret: bytes) -> Game:
    """The next game on a game's map, in the game's own version."""
    number = game.number + 1
    players = players or game.players
    plan = map_plan(game.id, secret)
    if number >= GAME_LIMIT or not plan.has_game(number, players):
        raise NoHabitatLeft(number)
    return plan.game(GameId(game.id.version, game.mode, players, game.id.seed, number))


@lru_cache(maxsize=1024)
def game_for(game_id: GameId, secret: bytes) -> Game:
    """The game a parsed code names under a secret, remembered: every request of a table's phones names its
    game by code, and finding its clues again (half a millisecond) was a sixth of a panel update's cost."""
    return map_plan(game_id, secret).game(game_id)


def load_game(code: str, key: bytes = b"") -> Game:
    """The game a code names on the server with this key; raises GameCodeError (bad code)."""
    return game_for(GameId.from_code(code, known_versions=KNOWN_VERSIONS), secret_of(key))


def new_game(players: int, mode: str, *, key: bytes = b"", entropy: Stream | None = None) -> Game:
    """Game 1 on a fresh kept map; seeds come from `entropy` (tests, benchmarks) or the operating system.
    A server deals through its Dealer instead, whose pool makes this as cheap as a next game."""
    return first_game(kept_plan(mode, secret_of(key), map_seeds(entropy)), players)


def next_game(game: Game, players: int | None = None, *, key: bytes = b"") -> Game:
    """The next game on the same map (new habitat and clues); the player count may change, the mode not.
    Raises NoHabitatLeft when the map has no further game for that player count."""
    return following_game(game, players, secret_of(key))
