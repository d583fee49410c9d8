"""The dealer: one key, a pool of checked maps per mode, a refill thread that can be stopped."""

import threading
import time

import pytest

from companion.cryptid import load_game
from companion.cryptid.dealer import Dealer
from companion.cryptid.generator import MapPlan
from companion.cryptid.rng import secret_of
from tests.helpers.rules import setup_problems

KEY = b"dealer test key"


def wait_until(condition, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


@pytest.mark.parametrize("mode", ["normal", "advanced"])
def test_a_pooled_map_deals_exactly_the_game_its_code_names(mode):
    dealer = Dealer(KEY, pool_size=3, background=False)
    dealer.fill()
    assert dealer.pooled(mode) == 3
    for players in (2, 3, 5):
        game = dealer.new_game(players, mode)
        assert setup_problems(game) == []
        # A server that never saw the map, with the same key, computes the same game from the code alone.
        assert MapPlan(mode, game.id.seed, secret_of(KEY)).game(game.id) == game
        assert dealer.load(game.code) == game == load_game(game.code, key=KEY)
    assert dealer.pooled(mode) == 0


def test_an_empty_pool_still_deals_and_next_games_follow():
    dealer = Dealer(KEY, background=False)
    game = dealer.new_game(4, "advanced")
    assert dealer.pooled("advanced") == 0
    following = dealer.next(game, players=3)
    assert following.board == game.board and following.players == 3
    assert following == load_game(following.code, key=KEY)


def test_the_refill_thread_keeps_the_pools_full_until_stopped():
    before = set(threading.enumerate())
    dealer = Dealer(KEY, pool_size=2)
    ours = [t for t in threading.enumerate() if t not in before and t.name == "cryptid-dealer"]
    try:
        assert wait_until(lambda: dealer.pooled("normal") == dealer.pooled("advanced") == 2)
        dealer.new_game(5, "normal")
        assert wait_until(lambda: dealer.pooled("normal") == 2)
    finally:
        dealer.stop()
    # This dealer's thread ended (other tests' sites may run dealers of their own meanwhile).
    assert len(ours) == 1 and not ours[0].is_alive()
    dealer.new_game(3, "normal")
    assert dealer.pooled("normal") == 1  # stopped (its thread ended, asserted above): nothing refills
