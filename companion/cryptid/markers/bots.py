"""Computer players for Markers (docs/cryptid-markers.md): pure functions from one seat's markers.View to a claim.

Like the classic game's computer players (bots.py), a player is given exactly what its seat's phone is given, so
it cannot peek. Every clue answers on its own, so the public record is one "seat" per clue for deduction.py: the
hexes each clue has been seen to allow are its discs, those it ruled out its cubes. With 2 players the reasoner's
second clue is given as pieces on every hex (the deduction engine knows one own clue per reasoner).

Levels: "basic" reasons one clue at a time (seat_clues), claims "not here" anywhere its clues let it and "it's
here" only when one hex is left; "sharp" uses the exact posterior, claims "not here" where the answers teach the
most and the others are likely to object (each objection is a marker won), and claims "it's here" once the
likeliest hex reaches its calibrated risk.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import log2

from ..deduction import Evidence, clue_table, posterior, seat_clues
from ..hexgrid import ALL_HEXES, HEX_COUNT, hexes_of
from .moves import ItsHere, Move, NotHere
from .view import View

PER_CLUE, EXACT = "per_clue", "exact"


@dataclass(frozen=True, slots=True)
class Level:
    """One way to play: how it reasons, the least probability at which it claims "it's here" (claim_at; 1: only
    when sure; last_at: the same when its hand is down to one marker) and how much a likely objection (a marker
    won) weighs against a bit of information when it chooses a "not here" hex."""

    name: str
    reasoning: str
    claim_at: float
    last_at: float
    objection_weight: float = 0.0


LEVELS: dict[str, Level] = {
    "basic": Level("basic", PER_CLUE, 1.0, 0.0),  # with its last marker it guesses the likeliest hex
    "sharp": Level("sharp", EXACT, 0.5, 0.34, objection_weight=0.5),
}
# Variants of "sharp" with other risks, measured to calibrate it (docs/cryptid-markers.md).
REFERENCES: dict[str, Level] = {
    f"sharp-{round(risk * 100)}": Level(f"sharp-{round(risk * 100)}", EXACT, risk, min(risk, 0.34), 0.5)
    for risk in (0.34, 0.75, 1.0)
}
ALL_LEVELS = LEVELS | REFERENCES


def evidence_of(view: View) -> Evidence:
    """The seat's evidence for deduction.py: one reasoning seat per clue, the reasoner at its first clue."""
    discs, cubes = list(view.allows), list(view.rules_out)
    own = view.own_positions
    areas = clue_table(view.map_code).areas
    for position, clue in zip(own[1:], view.clues[1:]):
        discs[position], cubes[position] = areas[clue.index], ALL_HEXES & ~areas[clue.index]
    return Evidence(view.map_code, tuple(discs), tuple(cubes), own[0] + 1, view.clues[0])


def habitat_odds(view: View, level: Level) -> tuple[list[float], list[list[float]]]:
    """(per hex the probability that it is the habitat, per clue per hex the probability that the clue allows
    it), as the level reasons."""
    evidence = evidence_of(view)
    areas = clue_table(view.map_code).areas
    masks = seat_clues(evidence)
    if level.reasoning == EXACT:
        found = posterior(evidence, masks)
        total = found.assignments or 1
        odds = [weight / total for weight in found.weights]
        allows = []
        for counts in found.by_clue:
            per_hex = [0.0] * HEX_COUNT
            for clue, weight in _clue_totals(counts).items():
                for hex in hexes_of(areas[clue]):
                    per_hex[hex] += weight / total
            allows.append(per_hex)
        return odds, allows
    allows = []
    for mask in masks:
        candidates = hexes_of(mask)
        per_hex = [0.0] * HEX_COUNT
        for clue in candidates:
            for hex in hexes_of(areas[clue]):
                per_hex[hex] += 1 / len(candidates)
        allows.append(per_hex)
    odds = [1.0] * HEX_COUNT
    for per_hex in allows:
        odds = [a * b for a, b in zip(odds, per_hex)]
    total = sum(odds) or 1.0
    return [value / total for value in odds], allows


def _clue_totals(counts: dict[tuple[int, int], int]) -> dict[int, int]:
    totals: dict[int, int] = {}
    for (clue, _), count in counts.items():
        totals[clue] = totals.get(clue, 0) + count
    return totals


def choose_claim(view: View, level: Level, rng: random.Random) -> Move:
    """The claim `level` makes from this seat's view; ValueError when the game does not wait for the seat."""
    if not view.to_act or not (view.not_here_choices or view.its_here_choices):
        raise ValueError("the game does not wait for this seat")
    odds, allows = habitat_odds(view, level)
    places = hexes_of(view.its_here_choices)
    if places:
        best = max(odds[hex] for hex in places)
        claim_at = level.last_at if view.hands[view.seat - 1] <= 1 else level.claim_at
        if best >= claim_at - 1e-9 or not view.not_here_choices:
            return ItsHere(view.seat, rng.choice([hex for hex in places if odds[hex] == best]))
    choices = hexes_of(view.not_here_choices)
    if level.reasoning != EXACT:
        return NotHere(view.seat, rng.choice(choices))
    own = set(view.own_positions)
    others = [per_hex for position, per_hex in enumerate(allows) if position not in own]

    def worth(hex: int) -> float:
        return sum(_bits(p[hex]) + level.objection_weight * p[hex] for p in others)

    scores = {hex: worth(hex) for hex in choices}
    top = max(scores.values())
    return NotHere(view.seat, rng.choice([hex for hex, score in scores.items() if score >= top - 1e-9]))


def _bits(p: float) -> float:
    """The entropy in bits of a yes/no answer given yes with probability p."""
    if p <= 0.0 or p >= 1.0:
        return 0.0
    return -p * log2(p) - (1 - p) * log2(1 - p)
