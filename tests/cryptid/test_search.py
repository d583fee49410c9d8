"""The fast searches agree with brute force straight from the rules."""

import itertools

import pytest

from companion.cryptid.clues import CLUES
from companion.cryptid.generator import MapPlan, three_clue_habitats
from companion.cryptid.hints import open_categories
from companion.cryptid.rng import Stream, secret_of
from companion.cryptid.search import ClueSetSearch
from tests.helpers.rules import intersection


def brute_force_valid(candidates, habitat, size):
    for combination in itertools.combinations(candidates, size):
        masks = [area for _, area in combination]
        if intersection(masks) != 1 << habitat:
            continue
        if any(intersection(masks[:k] + masks[k + 1 :]).bit_count() < 2 for k in range(size)):
            continue
        if open_categories(CLUES[index] for index, _ in combination):
            return True
    return False


@pytest.mark.parametrize("mode, sizes", [("normal", (3, 4, 5)), ("advanced", (3, 4))])
def test_clue_set_search_matches_brute_force(mode, sizes):
    stream = Stream("search-test", mode)
    for _ in range(3):
        plan = MapPlan(mode, stream.below(10**9), secret_of(b""))
        for habitat in stream.shuffled(range(108))[:12]:
            candidates = plan.candidates(habitat)
            search = ClueSetSearch.for_candidates(candidates, habitat)
            for size in sizes:
                found = search.find(size)
                assert (found is not None) == brute_force_valid(candidates, habitat, size) == plan.admits(habitat, size)
                if found:
                    areas = dict(candidates)
                    assert intersection(areas[i] for i in found) == 1 << habitat


def test_negation_count_is_respected():
    plan = MapPlan("advanced", 7, secret_of(b""))
    habitat, _ = plan.habitat(0, 4)
    search = ClueSetSearch.for_candidates(plan.candidates(habitat), habitat)
    for negated in range(5):
        found = search.find(4, negated)
        if found:
            assert sum(CLUES[i].negated for i in found) == negated


def test_three_clue_habitats_match_the_search():
    stream = Stream("triples")
    for _ in range(4):
        plan = MapPlan("normal", stream.below(10**9), secret_of(b""))
        expected = {h for h in range(108) if ClueSetSearch.for_candidates(plan.candidates(h), h).find(3)}
        assert three_clue_habitats(plan.usable) == expected
