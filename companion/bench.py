"""`python -m companion bench`: new games on fresh maps, next games on known maps and folding a long refereed game,
median and p99 ms."""

from __future__ import annotations

import random
import statistics
import time

from .cryptid import ADVANCED, NORMAL, Game, GameId, NoHabitatLeft, new_game, next_game
from .cryptid.generator import MapPlan
from .cryptid.play import Ask, Move, PlayState, Search, Start
from .cryptid.rng import Stream

FOLD_MOVES = 300


def _percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * fraction))]


def _report(label: str, seconds: list[float]) -> dict:
    seconds.sort()
    row = {
        "what": label,
        "n": len(seconds),
        "median_ms": round(statistics.median(seconds) * 1000, 3),
        "p99_ms": round(_percentile(seconds, 0.99) * 1000, 3),
    }
    print(f"{label:<40} n={row['n']:<5} median {row['median_ms']:7.3f} ms   p99 {row['p99_ms']:7.3f} ms", flush=True)
    return row


def run_benchmark(games: int = 2000) -> list[dict]:
    """Time `games` fresh games per mode (player counts 2-5 in turn), the next game on each of their maps, and
    loading each code on a server that has never seen its map."""
    rows = []
    for mode in (NORMAL, ADVANCED):
        made, new_times, next_times = [], [], []
        for i in range(games):
            start = time.perf_counter()
            game = new_game((2, 3, 4, 5)[i % 4], mode)
            new_times.append(time.perf_counter() - start)
            made.append(game)
            # The table asks for the next game on the map it has just laid out.
            start = time.perf_counter()
            try:
                next_game(game)
            except NoHabitatLeft:
                pass
            next_times.append(time.perf_counter() - start)
        rows.append(_report(f"new game, {mode}", new_times))
        rows.append(_report(f"next game on a known map, {mode}", next_times))
        cold_times = []
        for game in made:
            start = time.perf_counter()
            # What loading a code costs on a server that has not seen its map (no cached plan).
            MapPlan(game.mode, game.id.seed).game(GameId.from_code(game.code))
            cold_times.append(time.perf_counter() - start)
        rows.append(_report(f"load a code, map not cached, {mode}", cold_times))
        game = new_game(5, mode, Stream("bench-play", mode))
        stored = [move.to_json() for move in long_refereed_game(game, FOLD_MOVES)]
        fold_times = []
        for _ in range(games):
            # What the site does on a request: read the stored moves and fold them from the lobby.
            start = time.perf_counter()
            PlayState.replay(game, [Move.from_json(data) for data in stored])
            fold_times.append(time.perf_counter() - start)
        rows.append(_report(f"fold a {FOLD_MOVES}-move refereed game, {mode}", fold_times))
    return rows


def long_refereed_game(game: Game, count: int) -> list[Move]:
    """`count` legal moves of one refereed game: mostly asks answered with a disc (the benchmark knows every clue),
    so cubes fill the board slowly, and nobody searches the habitat, so the game lasts."""
    rng = random.Random(count)
    allowed = {seat: game.allowed(seat) for seat in range(1, game.players + 1)}
    state = PlayState.initial(game).apply(Start(1))
    moves: list[Move] = [Start(1)]
    while len(moves) < count:
        choices = [m for m in state.legal_moves() if not (isinstance(m, Search) and m.hex == game.habitat)]
        discs = [m for m in choices if isinstance(m, Ask) and allowed[m.target] >> m.hex & 1]
        move = rng.choice(discs if discs and rng.random() < 0.9 else choices)
        state = state.apply(move)
        moves.append(move)
    return moves
