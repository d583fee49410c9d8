"""Computer players: legal moves at every turn, whole games that end, and fairness.

Fairness is tested as a property: fix a history and the computer's own clue, give the other seats any other
clues that agree with that history (the deduction engine lists them), replay the same moves, and the computer
must decide exactly the same (same random seed). A player that peeked at another clue would differ somewhere.
"""

import random
from dataclasses import replace

import pytest

from companion.cryptid.bots import LEVELS, PER_SEAT, STRATEGIES, _remembered_clues, choose_move
from companion.cryptid.clues import CLUES
from companion.cryptid.deduction import Evidence, each_assignment, seat_clues
from companion.cryptid.play import OVER, Search, Start, State
from companion.cryptid.view import view
from tests.cryptid.test_deduction import codes_of
from tests.cryptid.test_play import game, turn_moves


def random_position(rng: random.Random, code: str):
    """A game part-way through with the moves that led there, stopped at a seat's turn."""
    state = State.initial(game(code)).apply(Start(rng.randrange(1, game(code).players + 1)))
    moves = [Start(state.first)]
    for _ in range(rng.randrange(0, 30)):
        options = [move for move in turn_moves(state) if move.action != "search"]
        if not options:
            break
        move = rng.choice(options)
        state = state.apply(move)
        moves.append(move)
    return state, moves


def other_clues_same_history(rng: random.Random, mode: str, players: int, pick_seat, attempts: int = 40):
    """Random positions, each as (attempt, seat, its view, the state of the same moves dealt other clues that agree
    with what that seat saw): the seat is pick_seat(state); positions where nothing else agrees are skipped."""
    for attempt in range(attempts):
        code = rng.choice(codes_of(mode, players))
        state, moves = random_position(rng, code)
        if state.phase == OVER:
            continue
        seat = pick_seat(state)
        seen = view(state, seat)
        truth = game(code)
        others = [
            (clues, habitat) for clues, habitat in each_assignment(Evidence.from_view(seen))
            if any(CLUES[clue] != truth.seat_clues(s)[0] for s, clue in enumerate(clues, 1) if s != seat)
        ]
        if not others:
            continue
        clues, habitat = rng.choice(others[:500])
        other_game = replace(truth, clues=tuple(CLUES[clue] for clue in clues), habitat=habitat)
        yield attempt, seat, seen, State.replay(other_game, moves)


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("mode", ["normal", "advanced"])
def test_decisions_depend_only_on_the_seat_view(mode, players):
    rng = random.Random(f"fair-{mode}-{players}")
    checked = 0
    for attempt, seat, seen, other_state in other_clues_same_history(rng, mode, players, lambda state: state.turn):
        if checked == 6:
            break
        assert view(other_state, seat) == seen  # the same history, told the same way to this seat
        for name, strategy in STRATEGIES.items():
            assert choose_move(seen, strategy, random.Random(attempt)) == choose_move(
                view(other_state, seat), strategy, random.Random(attempt)
            ), name
        checked += 1
    assert checked >= 4


@pytest.mark.slow
@pytest.mark.parametrize("level", sorted(LEVELS))
def test_every_level_plays_legal_moves_to_the_end(level):
    rng = random.Random(level)
    for code in codes_of("normal", 4)[:1] + codes_of("advanced", 3)[:1]:
        state = State.initial(game(code)).apply(Start(1))
        for _ in range(400):
            if state.phase == OVER:
                break
            move = choose_move(view(state, state.turn), LEVELS[level], rng)
            assert state.is_legal(move), move
            state = state.apply(move)
        assert state.phase == OVER and state.winner is not None


def test_a_computer_player_does_not_move_out_of_turn():
    state = State.initial(game(codes_of("normal", 3)[0])).apply(Start(1))
    waiting = next(seat for seat in state.seats if seat != state.turn)
    with pytest.raises(ValueError):
        choose_move(view(state, waiting), LEVELS["solid"], random.Random(1))


def test_the_review_of_a_game_of_sure_searchers_pins_the_habitat_before_the_winning_search():
    from companion.cryptid.review import review

    rng = random.Random("review")
    state = State.initial(game(codes_of("normal", 4)[0])).apply(Start(1))
    while state.phase != OVER:
        state = state.apply(choose_move(view(state, state.turn), STRATEGIES["exact-sure"], rng))
    reviews = review(state)
    winner = reviews[state.winner - 1]
    # This reference player searches only when sure: the Solver knew before its winning search.
    assert winner.solver_at is not None and winner.solver_at < winner.searches[-1].entry
    assert winner.searches[-1].found
    for seat_review in reviews:
        for cube in seat_review.cubes:
            assert 0 <= cube.gentlest_ruled_out <= cube.ruled_out <= cube.possible
        assert len(seat_review.cubes) >= 2  # the two opening cubes at least


@pytest.mark.parametrize("mode,players", [("normal", 4), ("advanced", 5)])
def test_what_a_level_keeps_in_mind_never_rules_out_an_opponents_true_clue(mode, players):
    """Forgetting widens a gentle level's reckoning, never misleads it: every opponent's real clue stays among the
    clues it thinks possible, and a level that keeps everything in mind reckons as the per-seat notebook does."""
    rng = random.Random(f"memory-{mode}-{players}")
    checked = 0
    for _ in range(8):
        state, _ = random_position(rng, rng.choice(codes_of(mode, players)))
        if state.phase == OVER or not state.log:
            continue
        seat = state.turn
        seen = view(state, seat)
        evidence = Evidence.from_view(seen)
        full = seat_clues(evidence)
        for name, strategy in LEVELS.items():
            if strategy.reasoning != PER_SEAT:
                continue
            kept = _remembered_clues(seen, evidence, strategy)
            for other in seen.seats:
                if other != seat:
                    assert kept[other - 1] >> state.game.seat_clues(other)[0].index & 1, (name, other)
                    assert kept[other - 1] & full[other - 1] == full[other - 1], (name, other)  # only wider
            if strategy.memory is None and strategy.reads_cubes:
                assert kept == full
        checked += 1
    assert checked >= 3


def test_the_novice_forgets_older_pieces_and_the_expert_does_not():
    """Some position where an opponent has more discs than the novice keeps in mind: its reckoning is wider there."""
    rng = random.Random("forgets")
    for _ in range(20):
        state, _ = random_position(rng, rng.choice(codes_of("normal", 4)))
        if state.phase == OVER:
            continue
        seen = view(state, state.turn)
        evidence = Evidence.from_view(seen)
        kept = _remembered_clues(seen, evidence, LEVELS["novice"])
        full = seat_clues(evidence)
        if kept != full:
            assert all(kept[s] & full[s] == full[s] for s in range(seen.players))
            return
    pytest.fail("no position where the novice's memory made a difference")


def test_every_level_places_the_extra_disc_of_a_search_its_own_way():
    """A search on one's own disc waits for an extra disc: every level places a legal one, the gentle levels on a
    hex nearest the searched one, as a person would, the expert where the table learns least about its clue."""
    from companion.cryptid.hexgrid import DISTANCE, hexes_of
    from companion.cryptid.play import PENDING_DISC, Disc

    rng = random.Random("extra disc")
    found = 0
    for _ in range(200):
        state, _ = random_position(rng, rng.choice(codes_of("normal", 4)))
        if state.phase == OVER:
            continue
        seat = state.turn
        own = hexes_of(state.discs_of(seat) & state.search_choices(seat))
        if not own:
            continue
        searched = rng.choice(own)
        state = state.apply(Search(seat, searched))
        if state.pending != PENDING_DISC:
            continue
        seen = view(state, seat)
        choices = hexes_of(seen.disc_choices)
        for name, strategy in LEVELS.items():
            move = choose_move(seen, strategy, random.Random(name))
            assert isinstance(move, Disc) and state.is_legal(move), name
            if strategy.reasoning == PER_SEAT:
                assert DISTANCE[searched][move.hex] == min(DISTANCE[searched][hex] for hex in choices), name
        found += 1
        if found == 5:
            return
    pytest.fail(f"only {found} searches waited for an extra disc")
