"""The Markers simulation (`python -m companion bots --variant markers`): reproducible, every game ends, and the
figures it prints add up."""

from companion.cryptid.markers import RULES, Rules
from companion.ops.cli import main
from companion.ops.markersplay import run_markers


def test_a_seeded_run_plays_the_same_games_and_every_game_ends():
    first = run_markers(6, 3, "normal", ["sharp", "basic"], RULES, seed=5)
    assert first == run_markers(6, 3, "normal", ["sharp", "basic"], RULES, seed=5)
    assert first["games"] == first["ended"] == 6
    assert abs(sum(first["outcomes"].values()) - 1) < 1e-9
    assert set(first["outcomes"]) <= {"found", "last_standing", "exhausted"}
    assert 1 <= first["claims_mean"] <= first["claims_max"] <= 16
    assert set(first["level_win_rates"]) == {"sharp", "basic"}


def test_other_readings_are_played_by_their_rules():
    as_written = run_markers(4, 2, "normal", ["basic"], Rules(refund=False, sealed=False), seed=2)
    assert as_written["rules"] == "objections=every,wrong_claim=pay_each,empty_hand=out,refund=no,sealed=no,ties=share"
    assert as_written["ended"] == 4 and as_written["claims_max"] <= 8  # 8 markers in hand, no refunds


def test_the_command_prints_every_figure_per_player_count(capsys):
    assert main(["bots", "--variant", "markers", "--games", "2", "--levels", "basic", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    for players in (2, 3, 4):
        assert f"Markers, {players} players, normal mode, 2 games" in out
    for line in ("games that end: 2 of 2", "claims per game: mean", "how games end:", "first player's win rate:",
                 "win rate per seat of each level: basic"):
        assert out.count(line) == 3, line
    assert out.startswith("Machine: ")


def test_the_command_refuses_what_markers_does_not_have(capsys):
    assert main(["bots", "--variant", "markers", "--players", "5"]) == 2
    assert main(["bots", "--variant", "markers", "--levels", "expert"]) == 2
    assert main(["bots", "--variant", "markers", "--rules", "refund=maybe"]) == 2
    assert main(["bots", "--players", "2"]) == 2
    assert "Markers" in capsys.readouterr().err
