"""Fit the version-2 weights to the official setups and write them to weights.py.

    python -m companion.ops.fit [--official PATH] [--maps N] [--rounds R] [--dry-run]

Each round deals game 1 for 3, 4 and 5 players on N kept maps per mode (seeds from a fixed stream, so a run
is reproducible) and moves each weight towards the official shares of puzzles.py, per mode and clue count:
- a clue family's draw weight by the family's official share over its dealt share;
- a negation count's weight (advanced mode) by its official share over its dealt share;
- a terrain's habitat acceptance by its official share of habitats over its dealt share.
Each factor is damped (square root) so the rounds settle instead of chasing sampling noise. Then the hint
weights per mode are solved on the setups the final weights deal: each broad category, the animal hint and
the single terrains (one weight for all five) are scaled by target share over expected share until the
expected shares of the weighted pick meet the official hint shares (iterative scaling). The defaults are
the run that wrote weights.py: running it again writes the same file.

The weights are part of generator version 2: writing new ones changes version-2 games, so a fit that is not
for a new generator version must not be written (use --dry-run to look).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

from companion.cryptid.board import ADVANCED, MODES
from companion.cryptid.clues import FAMILIES
from companion.cryptid.codes import GameId
from companion.cryptid.generator import (
    ACCEPTANCE_SCALE,
    NAMESPACE,
    VERSION,
    Tuning,
    kept_plan,
    map_seeds,
)
from companion.cryptid.hints import (
    BROAD_CATEGORIES,
    HINT_CATEGORIES,
    NO_ANIMAL,
    TERRAIN_CATEGORIES,
    open_categories,
)
from companion.cryptid.puzzles import (
    OFFICIAL_SETUPS,
    Row,
    Setup,
    compare,
    family_shares,
    load_official,
    negation_shares,
    official_hint_shares,
    terrain_shares,
)
from companion.cryptid.rng import Stream, secret_of
from companion.cryptid import weights as weights_module
from companion.cryptid.tiles import TERRAINS

WEIGHTS_MODULE = Path(weights_module.__file__)
FITTED_PLAYERS = (3, 4, 5)  # the clue counts; the 2-player variant deals 4-clue setups
TOP_WEIGHT = 10_000
HINT_SCALING_STEPS = 300
HINT_GROUPS = [(c,) for c in BROAD_CATEGORIES] + [(NO_ANIMAL,), TERRAIN_CATEGORIES]


def sample(tuning: Tuning, maps: int) -> list[Setup]:
    """Game 1 for 3, 4 and 5 players on the first `maps` kept maps of each mode (fixed seeds)."""
    setups = []
    secret = secret_of(b"")
    for mode in MODES:
        seeds = map_seeds(Stream(NAMESPACE, "fit", mode))
        for _ in range(maps):
            plan = kept_plan(mode, secret, seeds, tuning=tuning)
            for players in FITTED_PLAYERS:
                setups.append(Setup.of_game(plan.game(GameId(VERSION, mode, players, plan.seed, 0))))
    return setups


def refit(tuning: Tuning, dealt: list[Setup], official: list[Setup]) -> Tuning:
    """One round: clue, negation and habitat weights moved towards the official shares."""
    clues, habitats, negations = {}, {}, dict(tuning.negations)
    for mode in MODES:
        for size in FITTED_PLAYERS:
            ours = [s for s in dealt if s.mode == mode and s.players == size]
            theirs = [s for s in official if s.mode == mode and s.players == size]
            clues[(mode, size)] = _moved(tuning.clues[(mode, size)], family_shares(theirs), family_shares(ours))
            habitats[(mode, size)] = _moved(tuning.habitats[(mode, size)], terrain_shares(theirs), terrain_shares(ours))
            if mode == ADVANCED:
                old = dict(enumerate(negations[size]))
                moved = _moved(old, negation_shares(theirs, size), negation_shares(ours, size))
                negations[size] = tuple(moved[n] for n in sorted(moved))
    return replace(tuning, clues=clues, habitats=habitats, negations=negations)


def fit_hints(tuning: Tuning, dealt: list[Setup], official: list[Setup]) -> Tuning:
    """Hint weights per mode whose expected shares on the dealt setups meet the official hint shares."""
    hints = {}
    for mode in MODES:
        target = official_hint_shares([s for s in official if s.mode == mode])
        open_sets = [open_categories(s.clues) for s in dealt if s.mode == mode]
        weight = {c: 1.0 for c in HINT_CATEGORIES}
        for _ in range(HINT_SCALING_STEPS):
            expected = Counter()
            for categories in open_sets:
                total = sum(weight[c] for c in categories)
                for c in categories:
                    expected[c] += weight[c] / total / len(open_sets)
            for group in HINT_GROUPS:
                reached = sum(expected[c] for c in group)
                if reached:
                    factor = sum(target[c] for c in group) / reached
                    weight.update({c: weight[c] * factor for c in group})
        hints[mode] = _scaled(weight)
    return replace(tuning, hints=hints)


def _moved(weights: dict, target: dict, dealt: dict) -> dict:
    """Each weight times the damped ratio of its target share to its dealt share, rescaled."""
    return _scaled({k: w * ((target[k] / dealt[k]) ** 0.5 if dealt[k] and target[k] else 1.0) for k, w in weights.items()})


def _scaled(weights: dict) -> dict:
    """Integer weights in the same proportions, the largest TOP_WEIGHT (none below 1)."""
    top = max(weights.values())
    return {k: max(1, round(w / top * TOP_WEIGHT)) for k, w in weights.items()}


def starting_tuning(official: list[Setup]) -> Tuning:
    """Every family and terrain alike, negation counts as often as officially, hints uniform."""
    negations = {}
    for size in FITTED_PLAYERS:
        theirs = negation_shares([s for s in official if s.mode == ADVANCED and s.players == size], size)
        negations[size] = tuple(_scaled(theirs).values())
    cells = [(mode, size) for mode in MODES for size in FITTED_PLAYERS]
    return Tuning(
        negations=negations,
        clues={cell: {family: TOP_WEIGHT for family in FAMILIES} for cell in cells},
        hints={mode: {category: TOP_WEIGHT for category in HINT_CATEGORIES} for mode in MODES},
        habitats={cell: {terrain: ACCEPTANCE_SCALE for terrain in TERRAINS} for cell in cells},
    )


def module_text(tuning: Tuning) -> str:
    """The source of weights.py for a tuning."""

    def table(name: str, comment: str, value: dict) -> str:
        lines = [f"# {comment}", f"{name} = {{"]
        for key, entry in value.items():
            if isinstance(entry, dict):
                items, opening, closing = [f"{_literal(k)}: {v}" for k, v in entry.items()], "{", "}"
            else:
                items, opening, closing = [str(v) for v in entry], "(", ")"
            rows = [f"    {_literal(key)}: {opening}"]
            for item in items:
                if len(rows[-1]) + len(item) > 110:
                    rows[-1] = rows[-1].rstrip()
                    rows.append("        ")
                rows[-1] += item + ", "
            rows[-1] = rows[-1][:-2] + closing + ","
            lines.extend(rows)
        return "\n".join(lines + ["}"])

    return "\n\n".join([
        '"""Weights of generator version 2, fitted to the official setups by companion/ops/fit.py.\n\n'
        "Written by `python -m companion.ops.fit`, not by hand. They are part of the version-2 procedure:\n"
        'other numbers would change version-2 games.\n"""',
        table("NEGATION_WEIGHTS", "Clue count -> draw weight of 0, 1, 2, ... negated clues (advanced mode).",
              dict(tuning.negations)),
        table("CLUE_WEIGHTS", "(mode, clue count) -> clue family -> draw weight when ordering the candidate clues.",
              dict(tuning.clues)),
        table("HINT_WEIGHTS", "Mode -> hint category -> draw weight among the categories no clue mentions.",
              dict(tuning.hints)),
        table("HABITAT_WEIGHTS", f"(mode, clue count) -> terrain -> chance out of {ACCEPTANCE_SCALE} that a "
              "habitat there is accepted.", dict(tuning.habitats)),
    ]) + "\n"


def _literal(value) -> str:
    """Python source for a table key: a number, a string or a (mode, clue count) pair, in double quotes."""
    if isinstance(value, tuple):
        return "(" + ", ".join(_literal(v) for v in value) + ")"
    return json.dumps(value) if isinstance(value, str) else str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.ops.fit", description=__doc__.split("\n")[0])
    parser.add_argument("--official", type=Path, default=OFFICIAL_SETUPS, help="official setups (JSON lines)")
    parser.add_argument("--maps", type=int, default=1000, help="kept maps per mode and round (default 1000)")
    parser.add_argument("--rounds", type=int, default=8, help="rounds of refitting (default 8)")
    parser.add_argument("--dry-run", action="store_true", help="print the weights instead of writing weights.py")
    args = parser.parse_args(argv)
    official = load_official(args.official)
    tuning = starting_tuning(official)
    for round_number in range(1, args.rounds + 1):
        dealt = sample(tuning, args.maps)
        _print_round(f"round {round_number}", [r for r in compare(dealt, official) if r.measure != "hint categories"])
        tuning = refit(tuning, dealt, official)
    tuning = fit_hints(tuning, sample(tuning, args.maps), official)
    _print_round("with the fitted hints", compare(sample(tuning, args.maps), official))
    text = module_text(tuning)
    if args.dry_run:
        print(text, end="")
    else:
        WEIGHTS_MODULE.write_text(text, encoding="utf-8")
        print(f"wrote {WEIGHTS_MODULE}; measure with: python -m companion bench --puzzles")
    return 0


def _print_round(label: str, rows: list[Row]) -> None:
    print(label + ": " + "  ".join(f"{r.measure} {r.mode} {r.players}: {r.distance:.3f}" for r in rows), flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
