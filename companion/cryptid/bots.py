"""Computer players for refereed Cryptid (docs/cryptid-bots.md): pure functions from one seat's view to a move.

A computer player is given exactly what its seat's phone is given, a view.View of its own seat, plus a random
generator for its ties and whims. The view holds no other seat's clue, so a computer player cannot peek: it is
fair by construction. Each level is a Strategy: how it reasons (one seat at a time, or the exact posterior of
deduction.py), which question it asks, how sure it must be to search, and where it puts its cubes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import log2

from .deduction import Evidence, Posterior, clue_table, posterior, seat_clues
from .hexgrid import hexes_of
from .play import PENDING_CUBE, PENDING_DISC, Ask, Cube, Disc, Move, Search
from .view import View

# How a strategy reasons: each seat on its own (cheap, loose), or every valid setup at once (exact).
PER_SEAT, EXACT = "per_seat", "exact"
# Which question it asks: a random hex that may be the habitat, the answer closest to an even split, or the
# one with the most expected information about the habitat.
RANDOM, EVEN_SPLIT, GAIN = "random", "even_split", "gain"
# Where it puts a cube: anywhere it may, or where it tells the table the least about its own clue.
ANYWHERE, HIDDEN = "anywhere", "hidden"


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


LEVELS: dict[str, Strategy] = {
    "beginner": Strategy("beginner", PER_SEAT, RANDOM, 1.0, ANYWHERE),
    "solid": Strategy("solid", EXACT, GAIN, 1.0, ANYWHERE),
    "expert": Strategy("expert", EXACT, GAIN, 0.34, HIDDEN, cube_cost=0.25, wary=True, rivalry=0.3),
}
# Reference players of the measurements (docs/cryptid-bots.md): not offered at the table.
REFERENCES: dict[str, Strategy] = {
    "even-split": Strategy("even-split", EXACT, EVEN_SPLIT, 1.0, ANYWHERE),
    "gain-34": Strategy("gain-34", EXACT, GAIN, 0.34, ANYWHERE),
}
STRATEGIES = LEVELS | REFERENCES


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
        return _per_seat_turn(view, evidence, rng)
    return _exact_turn(view, evidence, strategy, rng)


def _cube_hex(view: View, evidence: Evidence, strategy: Strategy, rng: random.Random) -> int:
    """Anywhere it may, or where the fewest of the clues the table still thinks it may hold are ruled out."""
    return _hiding_hex(view, evidence, strategy, rng, view.cube_choices, allows=False)


def _disc_hex(view: View, evidence: Evidence, strategy: Strategy, rng: random.Random) -> int:
    """Where a search's extra disc goes: anywhere it may, or where it rules out the fewest of the clues the table
    still thinks it may hold (a disc tells that the clue allows its hex)."""
    return _hiding_hex(view, evidence, strategy, rng, view.disc_choices, allows=True)


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


def _per_seat_turn(view: View, evidence: Evidence, rng: random.Random) -> Move:
    """Reason one seat at a time: the habitat is on a hex every seat's remaining clues could allow."""
    areas = clue_table(view.map_code).areas
    possible = view.allowed
    for seat, mask in enumerate(seat_clues(evidence), 1):
        if seat != view.seat:
            reach = 0
            for clue in hexes_of(mask):
                reach |= areas[clue]
            possible &= reach
    for cubes in view.cubes:
        possible &= ~cubes
    if possible and not possible & (possible - 1) and possible & view.search_choices:
        return Search(view.seat, possible.bit_length() - 1)
    asks = [(target, hex) for target in view.seats for hex in hexes_of(view.ask_hexes[target - 1] & possible)]
    if not asks:
        asks = [(target, hex) for target in view.seats for hex in hexes_of(view.ask_hexes[target - 1])]
    if not asks:
        return Search(view.seat, rng.choice(hexes_of(view.search_choices)))
    target, hex = rng.choice(asks)
    return Ask(view.seat, target, hex)


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
        for signature, hexes in splits.items():
            disc: dict[int, int] = {}
            cube: dict[int, int] = {}
            for (clue, habitat), count in counts.items():
                side = disc if signature >> clues.index(clue) & 1 else cube
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
