import json
import os
import subprocess
import sys
from collections import defaultdict

import pytest

from companion.cryptid import (
    GameCodeError,
    GameId,
    NoHabitatLeft,
    load_game,
    new_game,
    next_game,
)
from companion.cryptid.dealer import Dealer
from companion.cryptid.generator import MIN_HABITATS, VERSION, MapPlan, map_board
from companion.cryptid.rng import Stream, secret_of
from tests.helpers import GOLDEN
from tests.helpers.rules import setup_problems

KEY = b"test server key"
MODES = ["normal", "advanced"]


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_hundreds_of_new_games_obey_every_rule(mode):
    entropy = Stream("test-generator", mode)
    seen_habitats = set()
    for i in range(400):
        game = new_game((2, 3, 4, 5)[i % 4], mode, key=KEY, entropy=entropy)
        assert game.id.version == VERSION
        assert setup_problems(game) == [], game.code
        seen_habitats.add(game.habitat)
    assert len(seen_habitats) > 80  # habitats spread over the board


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_next_games_for_one_player_count_never_repeat_a_habitat(mode, players):
    game = new_game(players, mode, key=KEY, entropy=Stream("test-next", mode, players))
    used = [game.habitat]
    while True:
        try:
            following = next_game(game, key=KEY)
        except NoHabitatLeft as exc:
            assert "Start a new map" in str(exc)
            break
        assert following.board == game.board and following.mode == mode and following.players == players
        assert following.habitat not in used
        assert setup_problems(following) == []
        assert load_game(following.code, key=KEY) == following
        used.append(following.habitat)
        game = following
    assert len(used) >= MIN_HABITATS


@pytest.mark.parametrize("mode", MODES)
def test_a_table_changing_its_player_count_keeps_the_board_and_valid_setups(mode):
    game = new_game(3, mode, key=KEY, entropy=Stream("test-change", mode))
    habitats_by_players = defaultdict(list, {3: [game.habitat]})
    for players in (4, 2, 5, 3, 4, 3, 5, 2):
        try:
            following = next_game(game, players, key=KEY)
        except NoHabitatLeft:
            break
        assert following.board == game.board and following.players == players
        assert following.number == game.number + 1
        assert following.habitat not in habitats_by_players[players]
        assert setup_problems(following) == []
        habitats_by_players[players].append(following.habitat)
        game = following


@pytest.mark.parametrize("mode", MODES)
def test_kept_maps_have_enough_games_for_every_player_count(mode):
    entropy = Stream("test-kept", mode)
    for _ in range(10):
        game = new_game(4, mode, key=KEY, entropy=entropy)
        plan = MapPlan(mode, game.id.seed, secret_of(KEY))
        for players in (2, 3, 4, 5):
            habitats = [plan.game(GameId(VERSION, mode, players, game.id.seed, n)).habitat for n in range(MIN_HABITATS)]
            assert len(set(habitats)) == MIN_HABITATS
        assert plan.game(game.id) == game


def test_a_map_with_fewer_games_reports_the_missing_ones():
    # Seed 0 in normal mode is a map the generator would not keep; asking for a late game must say so.
    plan = MapPlan("normal", 0, secret_of(b""))
    available = next(n for n in range(64) if not plan.has_game(n, 3))
    code = GameId(VERSION, "normal", 3, 0, available).to_code()
    with pytest.raises(GameCodeError, match=f"its last game is game {available}"):
        load_game(code)


def test_another_key_deals_unrelated_secrets_on_the_same_public_map():
    codes = [
        new_game(players, mode, key=KEY, entropy=Stream("test-keys", mode, players)).code
        for mode in MODES for players in (2, 3, 4, 5) for _ in range(10)
    ]
    same_habitat = same_clues = 0
    for code in codes:
        ours, theirs = load_game(code, key=KEY), load_game(code, key=b"another server's key")
        assert ours.to_json() == theirs.to_json()  # the public part: map, tiles, structures
        same_habitat += ours.habitat == theirs.habitat
        same_clues += set(ours.clues) == set(theirs.clues)
        assert setup_problems(theirs) == []
    assert same_habitat <= len(codes) // 5
    assert same_clues <= 1


@pytest.mark.parametrize("golden", GOLDEN[:4], ids=lambda g: g["code"])
def test_version_1_games_and_their_next_games_ignore_the_key(golden):
    game = load_game(golden["code"], key=KEY)
    assert game == load_game(golden["code"]) and game.id.version == 1
    following = next_game(game, key=KEY)
    assert following.id.version == 1 and following == next_game(game)


def test_the_key_stays_out_of_every_repr():
    key = b"a very secret server key"
    dealer = Dealer(key, pool_size=1, background=False)
    dealer.fill()
    game = dealer.new_game(4, "normal")
    shown = repr(dealer) + repr(game) + repr(MapPlan("normal", game.id.seed, secret_of(key)))
    for secret in (key, secret_of(key)):
        assert repr(secret) not in shown and secret.hex() not in shown and secret.decode("latin-1") not in shown


def test_structures_stand_on_distinct_land_hexes():
    for seed in range(200):
        board = map_board("advanced", seed, VERSION)
        assert len({s.hex for s in board.structures}) == 8
        assert all(board.cell(s.hex)[0] != "water" for s in board.structures)


def test_two_player_variant_gives_each_seat_two_clues():
    game = new_game(2, "advanced", entropy=Stream("two"))
    assert len(game.clues) == 4
    assert game.seat_clues(1) + game.seat_clues(2) == game.clues
    with pytest.raises(ValueError):
        game.seat_clues(3)


def test_seat_areas_contain_the_habitat():
    game = new_game(5, "normal", entropy=Stream("areas"))
    for seat in range(1, 6):
        assert game.allowed(seat) >> game.habitat & 1


def test_new_codes_differ_between_calls():
    assert new_game(4, "normal").code != new_game(4, "normal").code


def test_games_do_not_depend_on_the_hash_seed():
    codes = [new_game(p, m, entropy=Stream("hashseed", p, m)).code for p in (2, 5) for m in MODES]
    codes.append(GOLDEN[0]["code"])
    script = (
        "import json, sys; from companion.cryptid import load_game; "
        "print(json.dumps([load_game(c, key=b'k').to_json(reveal=True) for c in sys.argv[1:]]))"
    )
    outputs = set()
    for hash_seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        result = subprocess.run([sys.executable, "-c", script, *codes], env=env, capture_output=True, text=True, check=True)
        outputs.add(result.stdout)
    assert len(outputs) == 1
    assert json.loads(outputs.pop()) == [load_game(c, key=b"k").to_json(reveal=True) for c in codes]
