"""`python -m companion bench`: how fast the engine deals games and folds a long refereed game, (--pages) how long
the site takes over its busiest pages in-process, and (--puzzles) how official its puzzles look."""

from __future__ import annotations

import random
import time
from urllib.parse import urlsplit

from companion.cryptid import ADVANCED, NORMAL, Game, GameId, NoHabitatLeft
from companion.cryptid.dealer import Dealer
from companion.cryptid.generator import MapPlan, new_game
from companion.cryptid.play import Ask, Cube, Move, Search, Start, State, legal_moves
from companion.cryptid.puzzles import Setup, compare, load_official
from companion.cryptid.rng import Stream, secret_of

from .measure import summarize

BENCH_KEY = b"benchmark key"
PLAYER_CYCLE = (2, 3, 4, 5)
FOLD_MOVES = 300


def _report(label: str, seconds: list[float]) -> dict:
    """Print one timing's line (mean, median, p99) and return it as a row."""
    figures = summarize(seconds, digits=3)
    row = {
        "what": label,
        "n": figures.count,
        "mean_ms": figures.mean_ms,
        "median_ms": figures.p50_ms,
        "p99_ms": figures.p99_ms,
    }
    print(
        f"{label:<52} n={row['n']:<5} mean {row['mean_ms']:7.3f} ms   median {row['median_ms']:7.3f} ms"
        f"   p99 {row['p99_ms']:7.3f} ms",
        flush=True,
    )
    return row


def _timed(call) -> tuple[float, object]:
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def run_benchmark(games: int = 2000) -> list[dict]:
    """Per mode, `games` times each (player counts 2-5 in turn): a new game from a warm pool (the refill thread
    running, each deal once the pool is full again) and the next game on its map; then a new game with an
    empty pool; then loading each code on a server that has not seen its map."""
    rows = []
    warm = Dealer(BENCH_KEY)
    cold = Dealer(BENCH_KEY, background=False)
    secret = secret_of(BENCH_KEY)
    try:
        for mode in (NORMAL, ADVANCED):
            warm_times, next_times, made = [], [], []
            for i in range(games):
                while warm.pooled(mode) < warm.pool_size:
                    time.sleep(0.001)
                seconds, game = _timed(lambda: warm.new_game(PLAYER_CYCLE[i % len(PLAYER_CYCLE)], mode))
                warm_times.append(seconds)
                made.append(game)
                # The table asks for the next game on the map it has just laid out.
                try:
                    next_times.append(_timed(lambda: warm.next(game))[0])
                except NoHabitatLeft:
                    pass
            rows.append(_report(f"new game, warm pool, {mode}", warm_times))
            rows.append(_report(f"next game on a known map, {mode}", next_times))
            cold_times = [_timed(lambda: cold.new_game(PLAYER_CYCLE[i % 4], mode))[0] for i in range(games)]
            rows.append(_report(f"new game, empty pool, {mode}", cold_times))
            load_times = []
            for game in made:
                # What loading a code costs on a server that has not seen its map (no cached plan).
                game_id = GameId.from_code(game.code)
                load_times.append(_timed(lambda: MapPlan(game.mode, game.id.seed, secret).game(game_id))[0])
            rows.append(_report(f"load a code, map not cached, {mode}", load_times))
            game = new_game(5, mode, key=BENCH_KEY, entropy=Stream("bench-play", mode))
            stored = [move.to_json() for move in long_refereed_game(game, FOLD_MOVES)]
            # What the site does on a request: read the stored moves and fold them from the lobby.
            fold_times = [_timed(lambda: State.replay(game, [Move.from_json(data) for data in stored]))[0] for _ in range(games)]
            rows.append(_report(f"fold a {FOLD_MOVES}-move refereed game, {mode}", fold_times))
    finally:
        warm.stop()
    return rows


def long_refereed_game(game: Game, count: int) -> list[Move]:
    """`count` legal moves of one refereed game: mostly asks answered with a disc (the benchmark knows every clue),
    so cubes fill the board slowly, and nobody searches the habitat, so the game lasts."""
    rng = random.Random(count)
    allowed = {seat: game.allowed(seat) for seat in range(1, game.players + 1)}
    state = State.initial(game).apply(Start(1))
    moves: list[Move] = [Start(1)]
    while len(moves) < count:
        choices = [m for m in legal_moves(state, state.turn)
                   if isinstance(m, (Cube, Ask, Search)) and not (isinstance(m, Search) and m.hex == game.habitat)]
        discs = [m for m in choices if isinstance(m, Ask) and allowed[m.target] >> m.hex & 1]
        move = rng.choice(discs if discs and rng.random() < 0.9 else choices)
        state = state.apply(move)
        moves.append(move)
    return moves


def run_puzzles(setups: int = 1000) -> list:
    """Deal `setups` new games per mode and player count and print every distance to the official setups."""
    dealt = []
    for mode in (NORMAL, ADVANCED):
        for players in PLAYER_CYCLE:
            entropy = Stream("puzzles benchmark", mode, players)
            dealt.extend(Setup.of_game(new_game(players, mode, key=BENCH_KEY, entropy=entropy)) for _ in range(setups))
    rows = compare(dealt, load_official())
    print(f"{setups} new games per mode and player count against the official setups (total variation distance)")
    print(f"{'measure':<17} {'mode':<9} {'players':<8} {'distance':>8}   goal")
    for row in rows:
        goal = f"<= {row.goal:.2f}  {'met' if row.met else 'MISSED'}" if row.goal is not None else "(reported)"
        print(f"{row.measure:<17} {row.mode:<9} {row.players:<8} {row.distance:8.3f}   {goal}", flush=True)
    return rows


def run_pages(requests: int = 300) -> list[dict]:
    """Server time of the pages a game night leans on, in-process: from the WSGI call to the last byte of the
    body, with the headers a phone sends (compression included), so neither network nor client is counted.
    The host screen with 5 players in Greek, a seat page, a refereed seat, the 304 of a panel's poll, and a
    refereed seat's live fragment, each drawn once before timing; then the QR code of a new seat link."""
    import os
    import tempfile

    from werkzeug.test import EnvironBuilder

    from companion.web.core.app import create_app
    from companion.web.core.qr import encode
    from companion.web.cryptid.tokens import host_token, seat_token

    os.environ.setdefault("COMPANION_INSTANCE_PATH", tempfile.mkdtemp(prefix="companion-bench-"))
    app = create_app({"SECRET_KEY": "bench" * 8, "RATELIMIT_ENABLED": False, "PUBLIC_URL": "http://192.0.2.10:5000"})
    client = app.test_client()
    boxed = app.extensions["dealer"].new_game(5, ADVANCED)
    table = client.post("/api/tables", json={"players": 5, "advanced": True}).get_json()
    with app.test_request_context():
        host, seat = f"/h/{host_token(boxed.code)}", f"/s/{seat_token(boxed.code, 1)}"
    refereed_seat = urlsplit(table["seats"][0]["url"]).path
    etag = client.get(seat + "/table").headers["ETag"]
    # A phone that has opened its page before: it holds the language and session cookies.
    client.get(seat)
    session = client.get_cookie("session")
    cookies = "lang=el" + (f"; session={session.value}" if session else "")
    phone = {"Cookie": cookies, "Accept-Encoding": "gzip, deflate, br", "Accept": "text/html"}

    def request(path: str, headers: dict):
        environ = EnvironBuilder(path=path, headers={**phone, **headers}).get_environ()

        def call() -> bytes:
            body = app(dict(environ), lambda status, headers, exc_info=None: None)
            try:
                return b"".join(body)
            finally:
                getattr(body, "close", lambda: None)()

        return call

    rows = []
    for label, target, path, headers in (
        ("host screen, 5 players, Greek", 10, host, {}),
        ("seat page, Greek", 4, seat, {}),
        ("refereed seat page, Greek", None, refereed_seat, {}),
        ("table panel poll, 304", 1, seat + "/table", {"If-None-Match": etag}),
        ("refereed live fragment", None, refereed_seat + "/live", {}),
    ):
        call = request(path, headers)
        call()  # warm: templates compiled, QR codes drawn, the table's state read once
        times = [_timed(call)[0] for _ in range(requests)]
        row = _report(label + (f" (target <= {target} ms)" if target else ""), times)
        rows.append(row | {"target_ms": target})
    app.extensions["dealer"].stop()
    # A new host screen draws six codes before anything is remembered: one link of a seat's length each time.
    links = iter([f"http://192.0.2.10:5000/s/{seat[3:-8]}{number:08d}" for number in range(requests)])
    times = [_timed(lambda: encode(next(links)).to_svg())[0] for _ in range(requests)]
    rows.append(_report("QR code of a new seat link", times) | {"target_ms": None})
    return rows


def run_deduction(games: int = 40, seed: int = 1) -> list[dict]:
    """Per mode and player count: random refereed histories of `games` fresh games (from the start to late in
    the game), each timed for a notebook update (each seat's clues from its pieces), the full posterior of one
    seat's view, the notebook a phone shows (that posterior, grouped) and the posterior of the public record
    (docs/cryptid-deduction.md)."""
    import random

    from companion.cryptid.deduction import Evidence, posterior, seat_clues
    from companion.cryptid.notebook import notebook as seat_notebook
    from companion.cryptid.view import view

    rows = []
    for mode in (NORMAL, ADVANCED):
        for players in (3, 4, 5):
            rng = random.Random(f"{seed}-{mode}-{players}")
            notebook, seat_view, page, public = [], [], [], []
            for number in range(games):
                game = new_game(players, mode, key=BENCH_KEY, entropy=Stream("bench-deduction", seed, mode, players, number))
                state = State.initial(game).apply(Start(1))
                for moves in range(0, 36, 3):
                    for _ in range(3 if moves else 0):
                        choices = [m for m in legal_moves(state, state.turn) if m.action in ("cube", "ask")]
                        if not choices:
                            break
                        state = state.apply(rng.choice(choices))
                    seen = view(state, rng.choice(list(state.seats)))
                    evidence = Evidence.from_view(seen)
                    took, masks = _timed(lambda: seat_clues(evidence))
                    notebook.append(took)
                    seat_view.append(_timed(lambda: posterior(evidence, masks))[0])
                    page.append(_timed(lambda: seat_notebook(seen))[0])
                    public.append(_timed(lambda: posterior(evidence.public()))[0])
            label = f"{mode} {players} players"
            rows.append(_report_p95(f"{label}: notebook update", notebook))
            rows.append(_report_p95(f"{label}: posterior, one seat's view", seat_view))
            rows.append(_report_p95(f"{label}: notebook shown on a phone", page))
            rows.append(_report_p95(f"{label}: posterior, public record", public))
    return rows


def _report_p95(label: str, seconds: list[float]) -> dict:
    """Print one timing's line (median, p95, max) and return it as a row."""
    figures = summarize(seconds, digits=1)
    row = {"what": label, "n": figures.count, "median_ms": figures.p50_ms, "p95_ms": figures.p95_ms,
           "max_ms": round(max(seconds) * 1000, 1)}
    print(f"{label:<52} n={row['n']:<5} median {row['median_ms']:7.1f} ms   p95 {row['p95_ms']:7.1f} ms"
          f"   max {row['max_ms']:7.1f} ms", flush=True)
    return row
