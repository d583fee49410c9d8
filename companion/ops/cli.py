"""Cryptid companion: print games (readable or as JSON lines), measure the generator and the server, run the site."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from companion.cryptid import (
    ADVANCED,
    NORMAL,
    Game,
    GameCodeError,
    NoHabitatLeft,
    load_game,
    new_game,
    next_game,
)
from companion.cryptid.text import clue_text, hint_text, mode_name

from .server import (  # standard library only
    LIVE_CONNECTIONS,
    REQUEST_THREADS,
    SERVERS,
    default_computer_workers,
    default_server,
    default_workers,
)

PLAYER_CHOICES = (2, 3, 4, 5)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(program_name(sys.argv[0]))
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (GameCodeError, NoHabitatLeft) as exc:
        return _error(exc, 2)
    except BrokenPipeError:
        # The reader stopped early (`... | head`). Python flushes stdout once more on the way out: point it
        # at the null device so that flush cannot fail too, and leave quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130


def program_name(argv0: str) -> str:
    """How the user started the command line, for usage lines: `python -m companion` or the script's name."""
    path = Path(argv0)
    if path.name == "__main__.py":
        return "python -m companion"
    return path.stem if path.suffix.lower() == ".exe" else path.name


def build_parser(prog: str) -> argparse.ArgumentParser:
    """Every command with its options; each option's help ends with its default."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    def command(name: str, summary: str, run) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=summary, description=summary)
        sub.set_defaults(run=run)
        return sub

    def output_flags(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--json", action="store_true", help="one JSON object per line instead of readable text")
        sub.add_argument(
            "--reveal", action="store_true", help="also print the clues, the habitat and the hint (spoilers)"
        )

    new = command("new", "Generate new games on fresh maps.", _run_new)
    new.add_argument(
        "--players", type=int, choices=PLAYER_CHOICES, default=4, metavar="N",
        help="players, 2 to 5 (default: %(default)s)",
    )
    new.add_argument("--advanced", action="store_true", help="advanced mode: negated clues and black structures")
    new.add_argument("--count", type=_at_least(1), default=1, metavar="K", help="how many games (default: %(default)s)")
    output_flags(new)

    show = command(
        "show",
        "Print the game a code names. Clue sets depend on the site's secret key: this uses the same key as the "
        "site on this machine (COMPANION_SECRET_KEY, else the key file in the instance folder), so --reveal "
        "shows what this site's phones show, and nothing another server dealt.",
        _run_show,
    )
    show.add_argument("code", metavar="CODE", help="a game code, such as R342R-4E92A")
    output_flags(show)

    following = command("next", "Print the next game on the same map: new clues and a new habitat.", _run_next)
    following.add_argument("code", metavar="CODE", help="the code of the game before")
    following.add_argument(
        "--players", type=int, choices=PLAYER_CHOICES, metavar="N", help="players, 2 to 5 (default: as in CODE)"
    )
    output_flags(following)

    bench = command("bench", "Time the engine (new games, next games, loading codes, folding a refereed game), "
                            "the pages (--pages) or how official the puzzles look (--puzzles).", _run_bench)
    bench.add_argument(
        "--games", type=_at_least(1), metavar="N",
        help="games per mode (default: 2000), or with --deduction per mode and player count (default: 40)",
    )
    bench.add_argument("--pages", action="store_true", help="time the pages a game night leans on instead")
    bench.add_argument("--puzzles", action="store_true", help="compare the setups with the official ones instead")
    bench.add_argument(
        "--deduction", action="store_true",
        help="time the deduction engine (notebook updates and posteriors) over random refereed histories instead",
    )
    bench.add_argument(
        "--setups", type=_at_least(1), default=1000, metavar="N", help="with --puzzles: per mode and player count (default: %(default)s)"
    )

    bots = command("bots", "Computer players against each other: win rates, game lengths and decision times.", _run_bots)
    bots.add_argument("--games", type=_at_least(1), default=200, metavar="N", help="games (default: %(default)s)")
    bots.add_argument(
        "--variant", choices=("classic", "markers"), default="classic",
        help="the refereed game, or the Markers variant of docs/cryptid-markers.md (default: %(default)s)",
    )
    bots.add_argument(
        "--players", type=int, choices=(2, 3, 4, 5), default=None,
        help="players (default: 4; with --variant markers every count, 2, 3 and 4, one after the other)",
    )
    bots.add_argument("--mode", choices=(NORMAL, ADVANCED), default=NORMAL, help="mode (default: %(default)s)")
    bots.add_argument(
        "--levels", default=None, metavar="L[,L...]",
        help="one level for every seat, or one per seat, rotated over the seats from game to game; levels: "
        "novice, beginner, solid, expert, and the reference players random-asks, exact-sure, even-split and gain-34 "
        "(default: expert); with "
        "--variant markers, basic and sharp (default), and sharp-34, sharp-75 and sharp-100, a list of any length",
    )
    bots.add_argument("--seed", type=int, default=1, metavar="S", help="the same seed plays the same games (default: %(default)s)")
    bots.add_argument(
        "--rules", default="", metavar="NAME=VALUE[,...]",
        help="with --variant markers: readings other than the table's, e.g. objections=first,refund=no, "
        "see docs/cryptid-markers.md (default: the table's)",
    )

    load = command(
        "load", "Simulate game-night traffic against the production server, on this machine only: by default "
        "box-game tables, whose host screen and phones each hold a long poll of the hint panel.", _run_load
    )
    load.add_argument("--tables", type=_at_least(1), default=40, metavar="N", help="tables (default: %(default)s)")
    load.add_argument(
        "--phones", type=_at_least(1), default=5, metavar="N",
        help="phones per box-game table, each holding a long poll of the table's panel (default: %(default)s)",
    )
    load.add_argument(
        "--seconds", type=_at_least(1), default=60, metavar="S",
        help="how long the traffic lasts (default: %(default)s)",
    )
    load.add_argument(
        "--url",
        help="a server already running on this machine, such as http://127.0.0.1:5000 "
        "(default: start one on a free loopback port)",
    )
    load.add_argument(
        "--play", action="store_true",
        help="refereed tables instead: 5 phones each holding a live-update request, a move every few seconds",
    )
    load.add_argument(
        "--computers", action="store_true",
        help="refereed tables of one phone against four computer players instead (100 tables is the target); "
        "reports the move-to-phone latency of the computers' moves",
    )
    load.add_argument(
        "--hold", type=_at_least(1), metavar="N",
        help="instead: N phones each holding a live-update request at once, while the site is probed "
        "(default: off; 1000 is the target)",
    )

    load.add_argument(
        "--abuse", choices=("held", "slow", "reconnect"),
        help="instead: one client from an address of its own tries to stop everyone else (held: 3,000 held live "
        "updates; slow: 2,500 bodies sent a byte a second; reconnect: live updates dropped and opened again, 200 a "
        "second) while a table plays; reports the other users' latencies and failures (default: off)",
    )
    load.add_argument(
        "--connections", type=_at_least(1), metavar="N",
        help="with --abuse: the attacker's connections (or new ones a second, for reconnect) (default: as above)",
    )

    fuzz = command(
        "fuzz", "Send junk requests to every route of a running site (every method, genuine tokens, deep and "
        "wrongly typed JSON) and report any server error (5xx).", _run_fuzz,
    )
    fuzz.add_argument("url", metavar="URL", help="the running site, such as http://127.0.0.1:5000")
    fuzz.add_argument(
        "--requests", type=_at_least(1), default=20_000, metavar="N", help="how many (default: %(default)s)"
    )
    fuzz.add_argument("--seed", type=int, default=1, metavar="S", help="the same seed sends the same requests "
                      "(default: %(default)s)")
    fuzz.add_argument(
        "--connections", type=_at_least(1), default=8, metavar="C", help="sent over C connections at once "
        "(default: %(default)s)"
    )

    purge = command("purge", "Delete the votes and unlocks of games idle for longer than --days.", _run_purge)
    purge.add_argument(
        "--days", type=_at_least(0), metavar="D",
        help="idle days; 0 purges every game (default: COMPANION_PURGE_AFTER_DAYS, else 30)",
    )

    computers = command(
        "computers", "Take the computer players' turns at every table of the site's database (serve starts this "
        "beside its web workers; run it yourself under another server).", _run_computers,
    )
    computers.add_argument(
        "--share", type=_share, default="0/1", metavar="I/N",
        help="worker I of N (counted from 0): takes its share of the turns first and the others' once they are "
        "overdue (default: %(default)s, every turn)",
    )

    server = default_server()
    serve = command("serve", "Run the web site on a production server.", _run_serve)
    serve.add_argument(
        "--host", default="0.0.0.0", metavar="H",
        help="address to listen on; 127.0.0.1 keeps phones out (default: %(default)s, every address)",
    )
    serve.add_argument("--port", type=int, default=5000, metavar="P", help="port (default: %(default)s)")
    serve.add_argument(
        "--workers", type=_at_least(1), metavar="N",
        help=f"worker processes, granian only (default: one per core, {default_workers(server)} here)",
    )
    serve.add_argument(
        "--threads", type=_at_least(1), metavar="N",
        help=f"threads per worker process (default: {LIVE_CONNECTIONS + REQUEST_THREADS}: each can hold "
        f"{LIVE_CONNECTIONS} live updates and answer other requests meanwhile)",
    )
    serve.add_argument(
        "--server", choices=SERVERS,
        help=f"granian (Linux, macOS) or waitress (any system) (default: {server} here)",
    )
    serve.add_argument(
        "--computer-workers", type=_at_least(0), metavar="N",
        help=f"computer players' worker processes, each with a share of the turns (default: one per core, "
        f"{default_computer_workers()} here; 0: none in this serve, for a second serve on the same database or "
        f"`computers` run apart)",
    )
    serve.add_argument(
        "--unix-socket", metavar="PATH",
        help="listen on this socket file (mode 660) instead of --host and --port, for a reverse proxy on this "
        "machine: only the proxy reaches the site, so no one can forge the X-Forwarded-For it sets (default: none, "
        "listen on --host and --port)",
    )
    return parser


def _share(text: str):
    """An argparse type: "I/N", worker I of N."""
    from companion.web.core.computers import Share

    try:
        return Share.from_text(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected I/N with 0 <= I < N, such as 0/2, not {text!r}") from None


def _at_least(minimum: int):
    """An argparse type: a whole number no smaller than `minimum`."""

    def whole_number(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}")
        return value

    return whole_number


def _error(exc: Exception, status: int) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return status


def _site_key() -> bytes:
    """The key the site on this machine computes clue sets with (instance folder or COMPANION_SECRET_KEY), so
    that `show --reveal` tells the host what the site's phones show."""
    from companion.web.core.config import ConfigurationError, secret_key
    from companion.web.cryptid.dealing import clue_key

    try:
        return clue_key(secret_key())
    except ConfigurationError as exc:
        raise SystemExit(f"error: {exc}") from None


def _run_new(args) -> int:
    mode = ADVANCED if args.advanced else NORMAL
    key = _site_key()
    for _ in range(args.count):
        _print_game(new_game(args.players, mode, key=key), args)
    return 0


def _run_show(args) -> int:
    _print_game(load_game(args.code, _site_key()), args)
    return 0


def _run_next(args) -> int:
    key = _site_key()
    _print_game(next_game(load_game(args.code, key), args.players, key=key), args)
    return 0


def _run_bench(args) -> int:
    from .bench import run_benchmark, run_deduction, run_pages, run_puzzles
    from .measure import machine_line

    print(machine_line(), flush=True)
    if args.pages:
        run_pages()
    elif args.puzzles:
        return 0 if all(row.met for row in run_puzzles(args.setups)) else 1
    elif args.deduction:
        run_deduction(args.games or 40)
    else:
        run_benchmark(args.games or 2000)
    print(machine_line(), flush=True)
    return 0


def _run_bots(args) -> int:
    from companion.cryptid.bots import STRATEGIES

    from .measure import machine_line
    from .selfplay import run_selfplay

    if args.variant == "markers":
        return _run_markers_bots(args)
    args.players = args.players or 4
    levels = [name.strip() for name in (args.levels or "expert").split(",")]
    unknown = [name for name in levels if name not in STRATEGIES]
    if args.players == 2 or unknown or len(levels) not in (1, args.players):
        if args.players == 2:
            return _error("--players: the refereed game is for 3-5 players; Markers (--variant markers) for 2-4", 2)
        return _error(f"--levels: give one level or {args.players}, from {', '.join(STRATEGIES)}", 2)
    print(machine_line(), flush=True)
    run_selfplay(args.games, args.players, args.mode, levels, args.seed)
    print(machine_line(), flush=True)
    return 0


def _run_markers_bots(args) -> int:
    """Markers games per player count: how they end, the first player's share and each level's win rate."""
    from companion.cryptid.markers import PLAYER_COUNTS, RULES, Rules
    from companion.cryptid.markers.bots import ALL_LEVELS

    from .markersplay import format_markers, run_markers
    from .measure import machine_line

    levels = [name.strip() for name in (args.levels or "sharp").split(",")]
    unknown = [name for name in levels if name not in ALL_LEVELS]
    if unknown:
        return _error(f"--levels: Markers levels are {', '.join(ALL_LEVELS)}", 2)
    if args.players not in (None, *PLAYER_COUNTS):
        return _error("--players: Markers is for 2-4 players", 2)
    try:
        rules = Rules.from_text(args.rules) if args.rules else RULES
    except ValueError as exc:
        return _error(f"--rules: {exc}", 2)
    print(machine_line(), flush=True)
    for players in (args.players,) if args.players else PLAYER_COUNTS:
        print(format_markers(run_markers(args.games, players, args.mode, levels, rules, args.seed)), flush=True)
    print(machine_line(), flush=True)
    return 0


def _run_load(args) -> int:
    if args.abuse:
        from .load.abuse import run_abuse

        result = run_abuse(args.abuse, args.seconds, args.url, args.connections)
    elif args.hold:
        from .load.held_updates import run_held_updates

        result = run_held_updates(args.hold, args.seconds, args.url)
    elif args.computers:
        if args.url:
            raise SystemExit("--computers starts its own server (it reads the moves' times from its database): leave out --url")
        from .load.computer_tables import run_computer_tables

        result = run_computer_tables(args.tables, args.seconds)
    elif args.play:
        from .load.refereed_tables import run_refereed_tables

        result = run_refereed_tables(args.tables, args.seconds, args.url)
    else:
        from .load.box_tables import run_box_tables

        result = run_box_tables(args.tables, args.phones, args.seconds, args.url)
    return 1 if result["errors"] else 0


def _run_fuzz(args) -> int:
    from .fuzz import run_fuzz

    result = run_fuzz(args.url, args.requests, args.seed, args.connections)
    return 1 if result["server_errors"] or result["failures"] else 0


def _run_purge(args) -> int:
    from companion.web.core.app import create_app
    from companion.web.core.config import ConfigurationError
    from companion.web.core.store import purge_idle

    try:
        app = create_app()
    except ConfigurationError as exc:
        return _error(exc, 1)
    with app.app_context():
        removed = purge_idle(args.days if args.days is not None else app.config["PURGE_AFTER_DAYS"])
    print(f"Purged {removed} idle game(s).")
    return 0


def _run_computers(args) -> int:
    from companion.web.core.config import ConfigurationError

    from .server import run_computer_players

    try:
        run_computer_players(args.share)
    except ConfigurationError as exc:
        return _error(exc, 1)
    return 0


def _run_serve(args) -> int:
    from companion.web.core.config import ConfigurationError

    from .server import ServeError, serve

    try:
        serve(args.host, args.port, args.workers, args.threads, args.server, args.unix_socket, args.computer_workers)
    except (ConfigurationError, ServeError) as exc:
        return _error(exc, 1)
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
