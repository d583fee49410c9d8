import json
import os
import subprocess
import sys

import pytest

from companion.cryptid import GameCodeError, GameId, NoHabitatLeft, load_game, new_game, next_game
from companion.cryptid.generator import MIN_HABITATS, MapPlan, map_board
from companion.cryptid.rng import Stream

from .rules import setup_problems


@pytest.mark.parametrize("mode", ["normal", "advanced"])
def test_thousands_of_new_games_obey_every_rule(mode):
    entropy = Stream("test-generator", mode)
    seen_habitats = set()
    for i in range(1200):
        game = new_game((2, 3, 4, 5)[i % 4], mode, entropy)
        assert setup_problems(game) == [], game.code
        seen_habitats.add(game.habitat)
    assert len(seen_habitats) > 80  # habitats spread over the board


@pytest.mark.parametrize("mode", ["normal", "advanced"])
def test_sequences_of_next_games_never_repeat_a_habitat(mode):
    entropy = Stream("test-next", mode)
    for _ in range(15):
        game = new_game(3, mode, entropy)
        used = [game.habitat]
        players = (4, 2, 5, 3)
        for step in range(64):
            try:
                game2 = next_game(game, players[step % 4])
            except NoHabitatLeft as exc:
                assert "Start a new map" in str(exc)
                break
            assert game2.board == game.board and game2.mode == mode
            assert game2.players == players[step % 4]
            assert game2.habitat not in used
            assert setup_problems(game2) == []
            assert load_game(game2.code) == game2
            used.append(game2.habitat)
            game = game2
        assert len(used) >= MIN_HABITATS


@pytest.mark.parametrize("mode", ["normal", "advanced"])
def test_kept_maps_have_enough_habitats_for_every_player_count(mode):
    entropy = Stream("test-kept", mode)
    for _ in range(20):
        game = new_game(4, mode, entropy)
        plan = MapPlan(mode, game.id.seed)
        habitats = plan.habitats(MIN_HABITATS)
        assert len(habitats) == MIN_HABITATS
        for number in range(MIN_HABITATS):
            for players in (2, 3, 4, 5):
                other = plan.game(GameId(1, mode, players, game.id.seed, number))
                assert other.habitat == habitats[number]
                assert setup_problems(other) == []


def test_a_map_with_fewer_habitats_reports_missing_games():
    # Seed 0 in normal mode is a map the generator would not keep; asking for a late game must say so.
    plan = MapPlan("normal", 0)
    available = len(plan.habitats(108))
    code = GameId(1, "normal", 3, 0, available).to_code()
    with pytest.raises(GameCodeError, match=f"its last game is game {available}"):
        load_game(code)


def test_structures_stand_on_distinct_land_hexes():
    for seed in range(200):
        board = map_board("advanced", seed)
        assert len({s.hex for s in board.structures}) == 8
        assert all(board.cell(s.hex)[0] != "water" for s in board.structures)


def test_two_player_variant_gives_each_seat_two_clues():
    game = new_game(2, "advanced", Stream("two"))
    assert len(game.clues) == 4
    assert game.seat_clues(1) + game.seat_clues(2) == game.clues
    with pytest.raises(ValueError):
        game.seat_clues(3)


def test_seat_areas_contain_the_habitat():
    game = new_game(5, "normal", Stream("areas"))
    for seat in range(1, 6):
        assert game.allowed(seat) >> game.habitat & 1


def test_new_codes_differ_between_calls():
    assert new_game(4, "normal").code != new_game(4, "normal").code


def test_games_do_not_depend_on_the_hash_seed():
    codes = [new_game(p, m, Stream("hashseed", p, m)).code for p in (2, 5) for m in ("normal", "advanced")]
    script = (
        "import json, sys; from companion.cryptid import load_game; "
        "print(json.dumps([load_game(c).to_json(reveal=True) for c in sys.argv[1:]]))"
    )
    outputs = set()
    for hash_seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        result = subprocess.run([sys.executable, "-c", script, *codes], env=env, capture_output=True, text=True, check=True)
        outputs.add(result.stdout)
    assert len(outputs) == 1
    assert json.loads(outputs.pop()) == [load_game(c).to_json(reveal=True) for c in codes]
