"""Table rules the site enforces around a game (rulebook, not setup generation)."""

from __future__ import annotations


def agreement_needed(players: int) -> int:
    """Seats that must agree before a hint or the reveal: every player at 2-3 players, all but one at 4-5."""
    if not 2 <= players <= 5:
        raise ValueError(f"{players} players is not 2-5")
    return players if players <= 3 else players - 1
