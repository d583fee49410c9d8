"""Computer players for refereed Cryptid (docs/cryptid-bots.md): pure functions from one seat's view to a move.

A computer player is given exactly what its seat's phone is given, a view.View of its own seat, plus a random
generator for its ties. The view holds no other seat's clue, so a computer player cannot peek: it is fair by
construction. Each level is a Strategy: how it reasons (one opponent at a time from the pieces it keeps in mind,
as people do, or the exact posterior of deduction.py), which question it asks, how sure it must be to search,
and where it puts its cubes. The gentler levels lose as people lose: they forget, reason about one opponent
at a time and search on a hunch; none of them moves at random.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import log2

from .deduction import Evidence, Posterior, clue_table, posterior, prepare, seat_clues
from .hexgrid import DISTANCE, hexes_of, mask_of
from .play import CUBE, DISC, PENDING_CUBE, PENDING_DISC, SEARCH, Ask, Cube, Disc, Move, Search
from .view import View

# How a strategy reasons: each seat on its own (cheap, loose), or every valid setup at once (exact).
PER_SEAT, EXACT = "per_seat", "exact"
# Which question it asks: a random hex that may be the habitat (a reference only), a plain "is it here?" about
# the hex it believes in most, the one that leaves it the fewest hexes it still thinks possible, the answer
# closest to an even split of the exact assignments, or the one with the most expected information.
RANDOM, PLAIN, SHRINK, EVEN_SPLIT, GAIN = "random", "plain", "shrink", "even_split", "gain"
# Where it puts a cube: anywhere it may (a reference only), or where it tells the table the least about its clue.
ANYWHERE, HIDDEN = "anywhere", "hidden"
# Where it puts the extra disc of a search on a hex it already marked: the nearest hex it may (what a person
# does), or where it tells the table the least about its clue.
NEAR = "near"


@dataclass(frozen=True, slots=True)
class Strategy:
    """One way to play. search_at: the least probability of the likeliest hex at which it searches (1: only
    when sure); cube_cost: bits of information a question is docked for each cube answer it may bring (the
    asker then places a cube, which tells everyone something about its clue)."""

    name: str
    reasoning: str
    questions: str
    search_at: float
    cubes: str
    cube_cost: float = 0.0
    wary: bool = False  # lowers search_at by the chance that another player already knows (see _danger)
    rivalry: float = 0.0  # docks a question by this share of what it teaches the rest of the table
    aim: float = 0.0  # adds this many bits per unit of the chance of naming the habitat right after the answer
    # One opponent at a time (PER_SEAT): how many of each opponent's latest pieces it keeps in mind (None: all),
    # whether it reads their cubes too or only their discs, and how few hexes it must be down to before it
    # searches the one it believes in most (1: only when its reckoning leaves one hex).
    memory: int | None = None
    reads_cubes: bool = True
    hunch: int = 1
    discs: str = NEAR


# The levels a table may choose, gentlest first (their ids are stored per computer seat: keep them).
LEVELS: dict[str, Strategy] = {
    "novice": Strategy("novice", PER_SEAT, PLAIN, 1.0, HIDDEN, memory=2, reads_cubes=False, hunch=2),
    "beginner": Strategy("beginner", PER_SEAT, PLAIN, 1.0, HIDDEN, memory=4, hunch=2),
    "solid": Strategy("solid", PER_SEAT, SHRINK, 0.2, HIDDEN, hunch=2),
    "expert": Strategy("expert", EXACT, GAIN, 0.34, HIDDEN, cube_cost=0.25, wary=True, rivalry=0.3,
                       discs=HIDDEN),
}
# Reference players of the measurements (docs/cryptid-bots.md): not offered at the table.
REFERENCES: dict[str, Strategy] = {
    "random-asks": Strategy("random-asks", PER_SEAT, RANDOM, 1.0, ANYWHERE, discs=ANYWHERE),
    "exact-sure": Strategy("exact-sure", EXACT, GAIN, 1.0, ANYWHERE, discs=ANYWHERE),
    "even-split": Strategy("even-split", EXACT, EVEN_SPLIT, 1.0, ANYWHERE, discs=ANYWHERE),
    "gain-34": Strategy("gain-34", EXACT, GAIN, 0.34, ANYWHERE, discs=ANYWHERE),
}
STRATEGIES = LEVELS | REFERENCES


def think_ahead(map_code: str, players: int, strategy: Strategy) -> None:
    """What a computer player may work out while the opening is played, before its first question: the exact
    reasoner finds the map's valid clue sets (deduction.prepare), so its questions only filter them. Knows
    nothing of any seat: what it finds depends on the map alone."""
    if strategy.reasoning == EXACT:
        prepare(map_code, players)


def choose_move(view: View, strategy: Strategy, rng: random.Random, hint: str | None = None) -> Move:
    """The move `strategy` makes from this seat's view; ValueError when the game does not wait for the seat.

    hint: a hint category the table has been shown (hints.HINT_CATEGORIES), if any.
    """
    if not view.to_act:
        raise ValueError("the game does not wait for this seat")
    evidence = Evidence.from_view(view, hint)
    if view.pending == PENDING_CUBE:
        return Cube(view.seat, _cube_hex(view, evidence, strategy, rng))
    if view.pending == PENDING_DISC:
        return Disc(view.seat, _disc_hex(view, evidence, strategy, rng))
    if strategy.reasoning == PER_SEAT:
        return _per_seat_turn(view, evidence, strategy, rng)
    return _exact_turn(view, evidence, strategy, rng)


def _cube_hex(view: View, evidence: Evidence, strategy: Strategy, rng: random.Random) -> int:
    """Anywhere it may, or where the fewest of the clues the table still thinks it may hold are ruled out."""
    return _hiding_hex(view, evidence, strategy, rng, view.cube_choices, allows=False)


def _hiding_hex(view: View, evidence: Evidence, strategy: Strategy, rng: random.Random, choices: int,
                allows: bool) -> int:
    """One of `choices` for a piece of the seat's own: any for a careless strategy; for a HIDDEN one, a hex that
    keeps the most clues the table still thinks the seat may hold (those whose area `allows` the hex or not)."""
    hexes = hexes_of(choices)
    if strategy.cubes == ANYWHERE:
        return rng.choice(hexes)
    areas = clue_table(view.map_code).areas
    mine = hexes_of(seat_clues(evidence.public())[view.seat - 1])
    kept = {hex: sum(1 for clue in mine if bool(areas[clue] >> hex & 1) == allows) for hex in hexes}
    most = max(kept.values())
    return rng.choice([hex for hex, count in kept.items() if count == most])


def _disc_hex(view: View, evidence: Evidence, strategy: Strategy, rng: random.Random) -> int:
    """Where a search's extra disc goes, each level its own way: NEAR, the hex nearest the searched one (what a
    person does; ties by the generator); HIDDEN, where it rules out the fewest of the clues the table still thinks
    it may hold (a disc tells that the clue allows its hex); ANYWHERE, any hex it may."""
    if strategy.discs != NEAR:
        return _hiding_hex(view, evidence, strategy, rng, view.disc_choices, allows=True)
    options = hexes_of(view.disc_choices)
    searched = next((entry.hex for entry in reversed(view.log) if entry.action == SEARCH), None)
    if searched is not None:
        nearest = min(DISTANCE[searched][hex] for hex in options)
        options = [hex for hex in options if DISTANCE[searched][hex] == nearest]
    return rng.choice(options)


def _per_seat_turn(view: View, evidence: Evidence, strategy: Strategy, rng: random.Random) -> Move:
    """Reason as a person with a notepad: each opponent's clue from the pieces it keeps in mind, the habitat on a
    hex its own clue and every opponent's possible clues allow; search when sure or down to a hunch, else ask."""
    clues = _remembered_clues(view, evidence, strategy)
    areas = clue_table(view.map_code).areas
    possible = view.allowed
    for cubes in view.cubes:
        possible &= ~cubes
    everyone = possible  # hexes where every opponent has a disc: the habitat, whatever it reasoned
    for seat in view.seats:
        if seat != view.seat:
            reach = 0
            for clue in hexes_of(clues[seat - 1]):
                reach |= areas[clue]
            possible &= reach
            everyone &= view.discs[seat - 1]
    searchable = possible & view.search_choices
    if everyone & view.search_choices:
        return Search(view.seat, _believed(view, everyone & view.search_choices, rng))
    if searchable and searchable.bit_count() <= strategy.hunch and possible.bit_count() <= strategy.hunch:
        return Search(view.seat, _believed(view, searchable, rng))
    if searchable and strategy.search_at < 1:
        chances = _per_seat_chances(view, clues, possible, areas)
        best = max(chances[hex] for hex in hexes_of(searchable))
        if best >= strategy.search_at:
            return Search(view.seat, rng.choice([hex for hex in hexes_of(searchable) if chances[hex] == best]))
    question = _per_seat_question(view, clues, possible, strategy, rng)
    if question is None:
        return Search(view.seat, _believed(view, searchable or view.search_choices, rng))
    return Ask(view.seat, *question)


def _per_seat_chances(view: View, clues: tuple[int, ...], possible: int, areas) -> dict[int, float]:
    """How likely each possible hex is by one-opponent-at-a-time reckoning: each opponent's clues taken as equally
    likely and the opponents as independent, so a hex's weight is the product over opponents of the share of
    their clues that allow it (what a person estimates; the exact posterior also weighs how clues combine)."""
    weights = {}
    for hex in hexes_of(possible):
        weight = 1.0
        for seat in view.seats:
            if seat != view.seat:
                candidates = hexes_of(clues[seat - 1])
                weight *= sum(areas[clue] >> hex & 1 for clue in candidates) / len(candidates)
        weights[hex] = weight
    total = sum(weights.values())
    return {hex: weight / total for hex, weight in weights.items()} if total else weights


def _remembered_clues(view: View, evidence: Evidence, strategy: Strategy) -> tuple[int, ...]:
    """Per seat, the clues agreeing with the pieces of that seat the strategy keeps in mind: its latest `memory`
    pieces (all when None), discs only unless it reads cubes."""
    if strategy.memory is None and strategy.reads_cubes:
        return seat_clues(evidence)
    discs, cubes = [0] * view.players, [0] * view.players
    kept = [0] * view.players
    for entry in reversed(view.log):
        placement = entry.placement()
        if placement is None or entry.hex is None:
            continue
        owner, piece = placement
        if owner == view.seat or (strategy.memory is not None and kept[owner - 1] >= strategy.memory):
            continue
        if piece == DISC:
            discs[owner - 1] |= 1 << entry.hex
        elif piece == CUBE and strategy.reads_cubes:
            cubes[owner - 1] |= 1 << entry.hex
        else:
            continue
        kept[owner - 1] += 1
    remembered = Evidence(view.map_code, tuple(discs), tuple(cubes), view.seat, view.clue, evidence.hint)
    return seat_clues(remembered)


def _believed(view: View, hexes: int, rng: random.Random) -> int:
    """The hex of `hexes` a person believes in most: the one with the most discs on it (ties by the generator)."""
    counts = {hex: sum(discs >> hex & 1 for discs in view.discs) for hex in hexes_of(hexes)}
    most = max(counts.values())
    return rng.choice([hex for hex, count in counts.items() if count == most])


def _per_seat_question(
    view: View, clues: tuple[int, ...], possible: int, strategy: Strategy, rng: random.Random
) -> tuple[int, int] | None:
    """(target, hex) of the question a per-seat reasoner asks, about a hex it still thinks possible if it can.

    PLAIN: "is it here?" about the hex it believes in most, to the opponent it knows least about. SHRINK: the
    question about a possible hex after which it expects the fewest possible hexes. RANDOM: any possible hex of
    any player (a reference of the measurements).
    """
    asks = [(target, hex) for target in view.seats for hex in hexes_of(view.ask_hexes[target - 1] & possible)]
    if not asks:
        asks = [(target, hex) for target in view.seats for hex in hexes_of(view.ask_hexes[target - 1])]
    if not asks:
        return None
    if strategy.questions == RANDOM:
        return rng.choice(asks)
    areas = clue_table(view.map_code).areas
    if strategy.questions == PLAIN:
        hex = _believed(view, mask_of(hex for _, hex in asks), rng)
        targets = [target for target, asked in asks if asked == hex]
        widest = max(clues[target - 1].bit_count() for target in targets)
        return rng.choice([target for target in targets if clues[target - 1].bit_count() == widest]), hex
    scores = {(target, hex): -_hexes_left(clues, possible, target, hex, areas) for target, hex in asks}
    top = max(scores.values())
    return rng.choice([ask for ask, score in scores.items() if score == top])


def _hexes_left(clues: tuple[int, ...], possible: int, target: int, hex: int, areas) -> float:
    """How many hexes a per-seat reasoner expects to have left after asking `target` about `hex`: each answer
    keeps the target's clues that give it, weighted by how many of the target's clues do."""
    kept = {True: 0, False: 0}
    reach = {True: 0, False: 0}
    for clue in hexes_of(clues[target - 1]):
        side = bool(areas[clue] >> hex & 1)
        kept[side] += 1
        reach[side] |= areas[clue]
    total = kept[True] + kept[False]
    return sum(kept[side] * (possible & reach[side]).bit_count() for side in (True, False)) / total if total else 0.0


def _exact_turn(view: View, evidence: Evidence, strategy: Strategy, rng: random.Random) -> Move:
    """Search the likeliest hex when sure enough, else ask the question the strategy values most."""
    known = posterior(evidence)
    # What the table as a whole knows: how sure the others may be, and what a question teaches them too.
    public = posterior(evidence.public()) if strategy.wary or strategy.rivalry else None
    searchable = [hex for hex in hexes_of(known.habitats & view.search_choices)]
    if searchable:
        best = max(known.weights[hex] for hex in searchable)
        threshold = strategy.search_at
        if strategy.wary and best < known.assignments:
            threshold *= 1 - _danger(view, known, public)
        if best / known.assignments >= threshold - 1e-12:
            return Search(view.seat, rng.choice([hex for hex in searchable if known.weights[hex] == best]))
    scored = _questions(view, known, strategy, public)
    if not scored:
        hexes = searchable or hexes_of(view.search_choices)
        return Search(view.seat, rng.choice(hexes))
    top = max(scored.values())
    return Ask(view.seat, *rng.choice([question for question, score in scored.items() if score >= top - 1e-9]))


def _danger(view: View, known: Posterior, public: Posterior) -> float:
    """The chance that some other player already knows the habitat, as this seat can tell.

    Another seat knows what the public record shows plus its own clue, so its posterior is the public record's
    assignments that give it that clue: it knows the habitat when those put the habitat on one hex. This seat's
    own posterior says how likely each clue is for that seat.
    """
    safe = 1.0
    for seat in view.seats:
        if seat == view.seat or seat in view.left:
            continue
        habitats: dict[int, set[int]] = {}
        for clue, habitat in public.by_clue[seat - 1]:
            habitats.setdefault(clue, set()).add(habitat)
        likely = known.clue_weights(seat)
        sure = sum(count for clue, count in likely.items() if len(habitats.get(clue, ())) == 1)
        safe *= 1 - sure / known.assignments
    return 1 - safe


def _questions(
    view: View, known: Posterior, strategy: Strategy, public: Posterior | None
) -> dict[tuple[int, int], float]:
    """The score of every question (target, hex) the seat may ask now; higher is better."""
    answers = _answers(view, known)
    if strategy.questions == EVEN_SPLIT:
        return {question: -abs(disc - cube) / (disc + cube) for question, (_, disc, cube, _) in answers.items()}
    scores = {
        question: gain - strategy.cube_cost * cube / (disc + cube) + strategy.aim * best
        for question, (gain, disc, cube, best) in answers.items()
    }
    if strategy.rivalry and public is not None:
        # What the others learn too: the same question scored on the public record.
        for question, (gain, _, _, _) in _answers(view, public).items():
            if question in scores:
                scores[question] -= strategy.rivalry * gain
    return scores


def _answers(view: View, known: Posterior) -> dict[tuple[int, int], tuple[float, int, int, float]]:
    """For every question the seat may ask now: (expected bits about the habitat, assignments answering with a
    disc, assignments answering with a cube, the chance that the likeliest hex after the answer is the habitat),
    by the posterior `known`."""
    areas = clue_table(view.map_code).areas
    prior = _entropy(known.weights, known.assignments)
    answers = {}
    for target in view.seats:
        legal = view.ask_hexes[target - 1]
        if not legal or target == view.seat:
            continue
        counts = known.by_clue[target - 1]
        clues = sorted({clue for clue, _ in counts})
        # Hexes whose answer splits the target's clues the same way have the same value: score each split once.
        splits: dict[int, list[int]] = {}
        for hex in hexes_of(legal):
            signature = 0
            for position, clue in enumerate(clues):
                if areas[clue] >> hex & 1:
                    signature |= 1 << position
            splits.setdefault(signature, []).append(hex)
        position = {clue: place for place, clue in enumerate(clues)}
        entries = [(position[clue], habitat, count) for (clue, habitat), count in counts.items()]
        for signature, hexes in splits.items():
            disc: dict[int, int] = {}
            cube: dict[int, int] = {}
            for place, habitat, count in entries:
                side = disc if signature >> place & 1 else cube
                side[habitat] = side.get(habitat, 0) + count
            disc_total, cube_total = sum(disc.values()), sum(cube.values())
            total = disc_total + cube_total
            after = (disc_total * _entropy(disc.values(), disc_total)
                     + cube_total * _entropy(cube.values(), cube_total)) / total if total else prior
            best = (max(disc.values(), default=0) + max(cube.values(), default=0)) / total if total else 0.0
            for hex in hexes:
                answers[target, hex] = (prior - after, disc_total, cube_total, best)
    return answers


def _entropy(weights, total: int) -> float:
    """Entropy in bits of a distribution given by counts summing to `total`."""
    if not total:
        return 0.0
    bits = 0.0
    for weight in weights:
        if weight:
            share = weight / total
            bits -= share * log2(share)
    return bits
