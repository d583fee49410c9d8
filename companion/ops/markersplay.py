"""`python -m companion bots --variant markers`: computer players of the Markers variant against each other, to
measure a reading of its rules (docs/cryptid-markers.md).

Games are dealt from the seed, the first player drawn from it too, and the levels rotated over the seats from game
to game, so the same seed plays the same games. For each player count it tells whether every game ends, how long
games last, how they end, how often the first player wins, and each level's win rate against its fair share.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from companion.cryptid.generator import new_game
from companion.cryptid.markers import FOUND, OVER, RULES, Rules, Start, State, view
from companion.cryptid.markers.bots import ALL_LEVELS, Level, choose_claim
from companion.cryptid.rng import Stream

CLAIM_CAP = 64  # more claims than the markers allow: a game still running then is counted as unfinished


@dataclass(frozen=True)
class MarkersResult:
    winners: tuple[int, ...]  # one seat, or several sharing the win (each counts 1/n of a win)
    first: int
    outcome: str | None  # None: unfinished
    claims: int


@dataclass
class MarkersRun:
    """What one player count's games did."""

    players: int
    levels: list[str]
    games: int = 0
    ended: int = 0
    claims: list[int] = field(default_factory=list)
    outcomes: Counter = field(default_factory=Counter)
    first_wins: float = 0.0
    seats: Counter = field(default_factory=Counter)  # per level, seats played
    wins: Counter = field(default_factory=Counter)  # per level, games won (a shared win in shares)

    def add(self, result: MarkersResult, seat_levels: list[str]) -> None:
        self.games += 1
        self.ended += result.outcome is not None
        self.claims.append(result.claims)
        self.outcomes[result.outcome or "unfinished"] += 1
        self.seats.update(seat_levels)
        for winner in result.winners:
            share = 1 / len(result.winners)
            self.first_wins += share if winner == result.first else 0
            self.wins[seat_levels[winner - 1]] += share

    def summary(self) -> dict:
        share = 1 / self.players
        return {
            "players": self.players,
            "levels": self.levels,
            "games": self.games,
            "ended": self.ended,
            "claims_mean": round(sum(self.claims) / self.games, 2),
            "claims_max": max(self.claims),
            "outcomes": {name: round(count / self.games, 3) for name, count in sorted(self.outcomes.items())},
            "found_rate": round(self.outcomes[FOUND] / self.games, 3),
            "first_player_win_rate": round(self.first_wins / self.games, 3),
            "fair_share": round(share, 3),
            "level_win_rates": {
                level: round(self.wins[level] / self.seats[level], 3) for level in sorted(self.seats)
            },
        }


def play_markers(game, levels: list[Level], rules: Rules, first: int, rng: random.Random) -> MarkersResult:
    """One game to its end, seat n played by levels[n - 1], every claim chosen from the claimant's view."""
    state = State.initial(game, rules).apply(Start(first))
    for _ in range(CLAIM_CAP):
        if state.phase == OVER:
            break
        seat = state.turn
        state = state.apply(choose_claim(view(state, seat), levels[seat - 1], rng))
    ended = state.phase == OVER
    return MarkersResult(state.winners, first, state.outcome if ended else None, state.claims)


def run_markers(games: int, players: int, mode: str, levels: list[str], rules: Rules = RULES,
                seed: int = 1) -> dict:
    """Play `games` games of `players` with the levels rotated over the seats (a list shorter than the table is
    repeated); the summary of MarkersRun."""
    unknown = [name for name in levels if name not in ALL_LEVELS]
    if unknown:
        raise ValueError(f"unknown level(s): {', '.join(unknown)}; levels: {', '.join(ALL_LEVELS)}")
    run = MarkersRun(players, levels)
    for number in range(games):
        draw = random.Random(f"markers-{seed}-{players}-{number}")
        game = new_game(players, mode, entropy=Stream("markers", seed, mode, players, number))
        seat_levels = [levels[(seat + number) % len(levels)] for seat in range(players)]
        first = draw.randint(1, players)
        run.add(play_markers(game, [ALL_LEVELS[name] for name in seat_levels], rules, first, draw), seat_levels)
    return run.summary() | {"mode": mode, "rules": rules.to_text(), "seed": seed}


def format_markers(summary: dict) -> str:
    """The summary as the lines the command prints."""
    outcomes = ", ".join(f"{name} {share:.1%}" for name, share in summary["outcomes"].items())
    levels = ", ".join(f"{name} {rate:.1%}" for name, rate in summary["level_win_rates"].items())
    return "\n".join([
        f"Markers, {summary['players']} players, {summary['mode']} mode, {summary['games']} games, "
        f"levels {'/'.join(summary['levels'])}, seed {summary['seed']}",
        f"  rules: {summary['rules']}",
        f"  games that end: {summary['ended']} of {summary['games']}",
        f"  claims per game: mean {summary['claims_mean']}, most {summary['claims_max']}",
        f"  how games end: {outcomes}",
        f"  first player's win rate: {summary['first_player_win_rate']:.1%} (fair share {summary['fair_share']:.1%})",
        f"  win rate per seat of each level: {levels}",
    ])
