"""What a table agrees on around a game: who must agree, and the steps a table can unlock.

A table unlocks, each step with its own agreement: the official-style hint, then a stronger hint (the printed
number of the tile the habitat is on), and at any time the full reveal (habitat, every clue, the hint).
"""

from __future__ import annotations

HINT = "hint"
TILE_HINT = "tile"
REVEAL = "reveal"
STEPS = (HINT, TILE_HINT, REVEAL)
# A step can be asked for only once the step it builds on is unlocked.
REQUIRES = {HINT: None, TILE_HINT: HINT, REVEAL: None}


class UnknownStep(ValueError):
    """A step name that is not one of STEPS."""

    def __init__(self, step: str) -> None:
        self.step = step
        super().__init__(f"there is no step {step!r}: the steps are {', '.join(STEPS)}")


def agreement_needed(players: int) -> int:
    """Seats that must agree before a hint or the reveal: every player at 2-3 players, all but one at 4-5."""
    if not 2 <= players <= 5:
        raise ValueError(f"{players} players is not 2-5")
    return players if players <= 3 else players - 1


def check_step(step: str) -> str:
    if step not in STEPS:
        raise UnknownStep(step)
    return step


def step_open(step: str, unlocked: frozenset[str] | set[str]) -> bool:
    """Whether the table may ask for a step, given the steps already unlocked."""
    required = REQUIRES[check_step(step)]
    return required is None or required in unlocked
