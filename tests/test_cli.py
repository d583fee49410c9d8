import json
import subprocess
import sys

import pytest

from companion.cli import main
from companion.cryptid import load_game



@pytest.fixture
def golden_code():
    from .test_golden import GOLDEN

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
