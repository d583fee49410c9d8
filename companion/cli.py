"""Command line: new, show and next print games (readable or JSON lines); bench measures the engine."""

from __future__ import annotations

import argparse
import json
import sys

from .cryptid import ADVANCED, NORMAL, Game, GameCodeError, NoHabitatLeft, load_game, new_game, next_game
from .cryptid.text import clue_text, hint_text, mode_name

PLAYER_CHOICES = (2, 3, 4, 5)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (GameCodeError, NoHabitatLeft) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m companion", description=__doc__)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    def output_flags(command: argparse.ArgumentParser) -> None:
        command.add_argument("--json", action="store_true", help="one JSON object per line")
        command.add_argument("--reveal", action="store_true", help="also print clues, habitat and hint (spoilers)")

    new = commands.add_parser("new", help="generate new games on fresh maps")
    new.add_argument("--players", type=int, choices=PLAYER_CHOICES, default=4)
    new.add_argument("--advanced", action="store_true", help="advanced mode: negated clues, black structures")
    new.add_argument("--count", type=_positive, default=1, metavar="K", help="how many games (default 1)")
    output_flags(new)
    new.set_defaults(run=_run_new)

    show = commands.add_parser("show", help="print the game a code names")
    show.add_argument("code")
    output_flags(show)
    show.set_defaults(run=_run_show)

    following = commands.add_parser("next", help="the next game on the same map (new clues and habitat)")
    following.add_argument("code")
    following.add_argument("--players", type=int, choices=PLAYER_CHOICES, help="change the player count")
    output_flags(following)
    following.set_defaults(run=_run_next)

    bench = commands.add_parser("bench", help="time new games, next games and folding a long refereed game; --puzzles: compare setups with official ones")
    bench.add_argument("--games", type=_positive, default=2000, help="games per mode (default 2000)")
    bench.add_argument("--puzzles", action="store_true", help="measure how official the setups look instead")
    bench.add_argument("--setups", type=_positive, default=1000, help="with --puzzles: per mode and player count")
    bench.set_defaults(run=_run_bench)

    load = commands.add_parser("load", help="simulate game-night traffic against the production server (loopback)")
    load.add_argument("--tables", type=_positive, default=40)
    load.add_argument("--phones", type=_positive, default=5, help="phones per table (default 5)")
    load.add_argument("--seconds", type=_positive, default=60)
    load.add_argument("--url", help="a running server on this machine (default: start one)")
    load.set_defaults(run=_run_load)

    purge = commands.add_parser("purge", help="delete the votes of games idle for longer than --days")
    purge.add_argument("--days", type=int, help="default: PURGE_AFTER_DAYS (30)")
    purge.set_defaults(run=_run_purge)

    serve = commands.add_parser("serve", help="run the web site with a production server")
    serve.add_argument("--host", default="0.0.0.0")
    serve.add_argument("--port", type=int, default=5000)
    serve.set_defaults(run=_run_serve)
    return parser


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _run_new(args) -> int:
    mode = ADVANCED if args.advanced else NORMAL
    for _ in range(args.count):
        _print_game(new_game(args.players, mode), args)
    return 0


def _run_show(args) -> int:
    _print_game(load_game(args.code), args)
    return 0


def _run_next(args) -> int:
    _print_game(next_game(load_game(args.code), args.players), args)
    return 0


def _run_bench(args) -> int:
    from .bench import run_benchmark, run_puzzles

    if args.puzzles:
        return 0 if all(row.met for row in run_puzzles(args.setups)) else 1
    run_benchmark(args.games)
    return 0


def _run_load(args) -> int:
    from .loadtest import run_load

    result = run_load(args.tables, args.phones, args.seconds, args.url)
    return 1 if result["errors"] else 0


def _run_purge(args) -> int:
    from .app import create_app
    from .table_state import purge_idle

    app = create_app()
    with app.app_context():
        removed = purge_idle(args.days if args.days is not None else app.config["PURGE_AFTER_DAYS"])
    print(f"Purged {removed} idle game(s).")
    return 0


def _run_serve(args) -> int:
    from .server import serve

    serve(args.host, args.port)
    return 0


def _print_game(game: Game, args) -> None:
    if args.json:
        print(json.dumps(game.to_json(reveal=args.reveal), ensure_ascii=False), flush=True)
    else:
        print(format_game(game, args.reveal), flush=True)


def format_game(game: Game, reveal: bool = False) -> str:
    """A readable setup for a terminal: tiles, structures and, with reveal, the secrets."""
    lines = [
        f"Game {game.code}: {game.players} players, {mode_name(game.mode)}, game {game.number + 1} on this map",
        f"Official map code: {game.board.to_map_code()}",
        "",
        "Tiles (slots left to right, top to bottom):",
        *(f"  {n}. {step}" for n, step in enumerate(game.tile_steps(), 1)),
        "Structures (rows and hexes counted from the top left of the tile as it lies):",
        *(f"  {n}. {step}" for n, step in enumerate(game.structure_steps(), 1)),
    ]
    if reveal:
        lines.append("Clues:")
        for seat in range(1, game.players + 1):
            for clue in game.seat_clues(seat):
                lines.append(f"  Player {seat}: {clue_text(clue)}")
        row, col = divmod(game.habitat, 12)
        lines.append(f"Habitat: board row {row + 1}, column {col + 1} (0-based {row}, {col})")
        lines.append(f"Hint: {hint_text(game.hint)}")
    lines.append("")
    return "\n".join(lines)
