"""`python -m companion bots`: computer players against each other, to measure how strong each level is.

Each game is dealt from the seed (the same seed gives the same games, moves and results), played to the end by
the engine's own rules with every decision taken from the deciding seat's view, and the strategies are rotated
over the seats from game to game, so no level keeps the first turn. Win rates come with their standard errors.
"""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict
from dataclasses import dataclass, field

from companion.cryptid.bots import STRATEGIES, Strategy, choose_move, think_ahead
from companion.cryptid.generator import new_game
from companion.cryptid.play import ASK, OVER, PENDING_MOVE, SEARCH, Start, State
from companion.cryptid.rng import Stream
from companion.cryptid.view import view

from .measure import summarize

MOVE_CAP = 400  # a game still running after this many moves is counted as unfinished


@dataclass
class Tally:
    """What one strategy did over a run: seats played, wins, its seats' own turns after the opening, the times
    of its turn decisions (asks and searches; not the cubes and discs placed when told to)."""

    seats: int = 0
    wins: int = 0
    turns: int = 0
    decisions: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class GameResult:
    winner: int | None  # the seat that found the habitat; None when unfinished
    turns: int  # asks and searches after the opening, by every seat together
    searches: int
    seat_turns: tuple[int, ...] = ()  # per seat (seat - 1), its own asks and searches


def play_game(game, strategies: list[Strategy], rng: random.Random, times: list[list[float]]) -> GameResult:
    """One game to its end, seat n played by strategies[n - 1]; appends the seconds of each of its turn decisions
    (asks and searches) to times[n - 1]."""
    state = State.initial(game).apply(Start(1))
    for _ in range(MOVE_CAP):
        if state.phase == OVER:
            break
        seat = state.turn
        seen = view(state, seat)
        started = time.perf_counter()
        move = choose_move(seen, strategies[seat - 1], rng)
        if seen.pending == PENDING_MOVE:
            times[seat - 1].append(time.perf_counter() - started)
        state = state.apply(move)
    # The opening is cubes only: every ask and search is a turn after it.
    turns = sum(entry.action in (ASK, SEARCH) for entry in state.log)
    searches = sum(entry.action == SEARCH for entry in state.log)
    seat_turns = tuple(sum(entry.action in (ASK, SEARCH) and entry.seat == seat for entry in state.log)
                       for seat in state.seats)
    return GameResult(state.winner if state.phase == OVER else None, turns, searches, seat_turns)


def run_selfplay(games: int, players: int, mode: str, levels: list[str], seed: int = 1) -> dict:
    """Play `games` games with the named strategies (one per seat, rotated each game); print and return figures."""
    if len(levels) == 1:
        levels = levels * players
    if len(levels) != players:
        raise ValueError(f"give one level, or one per seat ({players})")
    tallies: dict[str, Tally] = defaultdict(Tally)
    turns, unfinished, ahead = [], 0, []
    for number in range(games):
        game = new_game(players, mode, entropy=Stream("bots", seed, mode, players, number))
        order = levels[number % players:] + levels[: number % players]
        strategies = [STRATEGIES[name] for name in order]
        # What the computers work out while the opening is played (one process, as at a table of the site).
        started = time.perf_counter()
        for strategy in strategies:
            think_ahead(game.board.to_map_code(), players, strategy)
        ahead.append(time.perf_counter() - started)
        times: list[list[float]] = [[] for _ in range(players)]
        result = play_game(game, strategies, random.Random(f"bots-{seed}-{number}"), times)
        for seat, name in enumerate(order, 1):
            tally = tallies[name]
            tally.seats += 1
            tally.wins += result.winner == seat
            tally.turns += result.seat_turns[seat - 1]
            tally.decisions += times[seat - 1]
        if result.winner is None:
            unfinished += 1
        else:
            turns.append(result.turns)
    fair = 1 / players
    print(f"{games} games, {players} players, {mode} mode, seats: {', '.join(levels)}, seed {seed}")
    print(f"unfinished games: {unfinished}; turns after the opening (every seat's asks and searches): "
          f"mean {_mean(turns):.2f} ± {_standard_error(turns):.2f}")
    thinking = summarize(ahead, digits=1)
    print(f"thinking ahead while the opening is played (once a game): p50 {thinking.p50_ms} ms, "
          f"p95 {thinking.p95_ms} ms")
    rows = {}
    for name, tally in tallies.items():
        rate = tally.wins / tally.seats
        error = math.sqrt(rate * (1 - rate) / tally.seats)
        timing = summarize(tally.decisions, digits=1)
        own = tally.turns / tally.seats
        rows[name] = {"seats": tally.seats, "wins": tally.wins, "win_rate": rate, "standard_error": error,
                      "fair_share": fair, "own_turns": own, "decision_p50_ms": timing.p50_ms,
                      "decision_p95_ms": timing.p95_ms}
        print(f"  {name:<12} seats {tally.seats:>6}  win rate {rate:6.1%} ± {error:5.1%} "
              f"({rate / fair:4.2f}x fair share)  own turns {own:5.2f}  "
              f"decision p50 {timing.p50_ms} ms, p95 {timing.p95_ms} ms")
    return {"games": games, "unfinished": unfinished, "mean_turns": _mean(turns), "levels": rows,
            "ahead_p50_ms": thinking.p50_ms, "ahead_p95_ms": thinking.p95_ms}


def _mean(values: list[int]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _standard_error(values: list[int]) -> float:
    if len(values) < 2:
        return float("nan")
    mean = _mean(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1) / len(values))
