import argparse
import json
import re
import subprocess
import sys

import pytest

from companion.cryptid import load_game
from companion.ops.cli import build_parser, main, program_name
from companion.ops.load import arrival_seconds
from tests.helpers import REPO


@pytest.fixture
def golden_code():
    from tests.helpers import GOLDEN

    return GOLDEN[2]["code"]


def test_new_json_lines(capsys):
    assert main(["new", "--players", "5", "--advanced", "--count", "3", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    for line in lines:
        data = json.loads(line)
        assert data["players"] == 5 and data["mode"] == "advanced"
        assert set(data) == {"code", "players", "mode", "game", "map_code", "tiles", "structures"}
        assert len(data["structures"]) == 8


def test_show_reveal_json_matches_the_engine(capsys, golden_code):
    assert main(["show", golden_code.lower(), "--json", "--reveal"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == load_game(golden_code).to_json(reveal=True)
    assert {"clues", "habitat", "hint"} <= set(data)
    assert all({"seat", "text", "negated"} <= set(c) for c in data["clues"])


def test_show_readable_hides_secrets_unless_asked(capsys, golden_code):
    main(["show", golden_code])
    hidden = capsys.readouterr().out
    assert "Top left: tile" in hidden and "Clues" not in hidden and "Habitat" not in hidden
    main(["show", golden_code, "--reveal"])
    shown = capsys.readouterr().out
    assert "Player 1: The habitat" in shown and "Hint:" in shown


def test_next_keeps_the_map_and_may_change_players(capsys, golden_code):
    assert main(["next", golden_code, "--players", "3", "--json", "--reveal"]) == 0
    data = json.loads(capsys.readouterr().out)
    first = load_game(golden_code)
    assert data["map_code"] == first.board.to_map_code()
    assert data["players"] == 3 and data["game"] == first.number + 2
    assert data["habitat"] != first.to_json(reveal=True)["habitat"]


def test_bad_code_exits_2_with_a_message_and_no_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "companion", "show", "ZKM5C-QFEVE"], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert "typo" in result.stderr and "Traceback" not in result.stderr


def test_bad_arguments_are_usage_errors(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["new", "--players", "7"])
    assert exit_info.value.code == 2


COMMANDS = ["new", "show", "next", "bench", "bots", "load", "fuzz", "purge", "computers", "serve"]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (commands,) = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    return commands.choices


def test_a_reader_that_stops_early_gets_no_traceback():
    """`python -m companion new --count 100 | head -1`"""
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", "new", "--count", "100"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    assert process.stdout.readline().startswith(b"Game ")
    process.stdout.close()
    errors = process.stderr.read()
    process.stderr.close()
    assert process.wait(timeout=60) == 1
    assert errors == b""


@pytest.mark.parametrize(
    "argv0, name",
    [
        ("/usr/lib/python3/site-packages/companion/__main__.py", "python -m companion"),
        ("/home/alice/.venv/bin/cryptid-companion", "cryptid-companion"),
        ("/venv/Scripts/cryptid-companion.exe", "cryptid-companion"),
    ],
)
def test_usage_names_the_program_as_it_was_started(argv0, name):
    assert program_name(argv0) == name


def test_python_m_companion_help_names_itself():
    command = [sys.executable, "-m", "companion", "serve", "--help"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0 and result.stdout.startswith("usage: python -m companion serve ")


def test_every_command_is_there_and_every_option_says_its_default():
    commands = _subcommands(build_parser("python -m companion"))
    assert list(commands) == COMMANDS
    for name, command in commands.items():
        for action in command._actions:
            if action.option_strings and action.nargs != 0:  # options with a value, not flags like --json or -h
                assert "(default: " in action.help, f"{name} {action.option_strings[0]}"


def test_the_readme_lists_every_command_as_help_prints_it(monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # one line per usage
    readme = (REPO / "README.md").read_text()
    for name, command in _subcommands(build_parser("python -m companion")).items():
        usage = command.format_usage().removeprefix("usage: ").replace(" [-h]", "").strip()
        assert f"\n{usage}\n" in readme, usage


@pytest.mark.parametrize("url", ["http://192.0.2.10:5000", "https://127.0.0.1:5000", "http://cryptid.example.org"])
def test_load_refuses_any_server_but_this_machine(url):
    with pytest.raises(SystemExit, match="only targets http:// on this machine"):
        main(["load", "--url", url, "--seconds", "1"])


def test_tables_arrive_within_half_of_a_short_load_run():
    assert [arrival_seconds(s) for s in (1, 4, 20, 60)] == [0.5, 2, 10, 10]


@pytest.mark.slow
def test_a_short_load_run_lasts_as_long_as_asked(capsys):
    """Every table sits down and plays, against a server of its own: each host opens the home page, deals a
    game and opens its setup, and each phone its seat page, the screens holding the panel's long polls, all
    without an error. (How soon tables arrive in
    a short run is arrival_seconds' job, tested above; the run's length on a busy machine is no test.)"""
    tables, phones = 5, 2
    assert main(["load", "--tables", str(tables), "--phones", str(phones), "--seconds", "3"]) == 0
    report = capsys.readouterr().out
    assert f"{tables} tables x {phones} phones for " in report
    assert int(re.search(r": (\d+) immediate requests", report).group(1)) >= tables * (3 + phones)
    assert "; 0 errors" in report


@pytest.mark.slow
def test_phones_holding_live_updates_are_all_held_at_once_and_the_site_still_answers(capsys):
    """load --hold against a server of its own: every phone's long poll is held at once, nothing refused."""
    assert main(["load", "--hold", "30", "--seconds", "3"]) == 0
    report = capsys.readouterr().out
    assert "30 phones holding live updates" in report and "30 held at once" in report
    assert re.search(r"meanwhile [1-9]\d* other requests", report) and "; 0 errors" in report


def test_the_page_benchmark_times_every_page_it_names(capsys):
    """bench --pages, cut short: each page answers (the benchmark's app runs with rate limits off), and a new
    QR code is timed too."""
    from companion.ops.bench import run_pages

    rows = run_pages(requests=3)
    assert [row["n"] for row in rows] == [3] * 6
    assert {row["target_ms"] for row in rows} == {10, 4, 1, None}
    output = capsys.readouterr().out
    assert "table panel poll, 304 (target <= 1 ms)" in output and "QR code of a new seat link" in output


@pytest.mark.slow
def test_a_short_refereed_load_run_plays_without_errors(capsys):
    """load --play against a server of its own: tables are dealt, phones hold live updates and move; no request
    fails."""
    assert main(["load", "--play", "--tables", "2", "--seconds", "4"]) == 0
    report = capsys.readouterr().out
    assert re.search(r"2 refereed tables x 5 phones for [\d.]+ s against http://127\.0\.0\.1:\d+: \d+ move", report)
    assert re.search(r"; [1-9]\d* immediate requests, p50 [\d.]+ ms", report) and "; 0 errors" in report
