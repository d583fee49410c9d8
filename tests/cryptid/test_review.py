"""The after-game review's facts (docs/cryptid-deduction.md section 6) on games built move by move: when a
player's clue and the pieces left one hex, what the Solver could tell, each search with who stopped it, and what
each cube ruled out."""

from __future__ import annotations

import dataclasses

from companion.cryptid.deduction import Evidence, clue_table, posterior, seat_clues
from companion.cryptid.hexgrid import hexes_of
from companion.cryptid.play import Cube, Disc, LogEntry, Search, State
from companion.cryptid.review import fitting_hexes, review
from companion.cryptid.view import view
from tests.cryptid.test_play import FOUR, THREE, finish_turn, game, hex_where, lowest, opened, searching_own_disc


def failed_search(code: str = FOUR) -> tuple[State, int, int]:
    """The game just past its opening, where the first seat searches a hex its clue allows and the next seat's
    rules out: (the state after the search, the searched hex, the seat that stopped it)."""
    state = opened(code)
    seat = state.turn
    stopper = seat % state.players + 1
    hex = hex_where(state, allows=(seat,), rules_out=(stopper,))
    return state.apply(Search(seat, hex)), hex, stopper


def test_a_failed_search_is_named_with_the_seat_that_stopped_it():
    state, hex, stopper = failed_search()
    searcher = next(e.seat for e in state.log if e.action == "search")
    (search,) = review(state)[searcher - 1].searches
    assert (search.hex, search.found, search.stopped_by, search.extra_disc) == (hex, False, stopper, None)
    assert (state.log[search.entry - 1].action, state.log[search.entry - 1].hex) == ("search", hex)
    assert all(not r.searches for r in review(state) if r.seat != searcher)


def test_the_searchers_own_winning_search_is_not_when_they_could_have_known():
    """The winning search's answers settle the habitat for everyone: they are its result, not evidence anybody
    had. In this 3-player game the searcher's clue and the six opening cubes still left 55 hexes; the Solver,
    counting every setup, was sure at move 5 already: that is its fact, not the player's."""
    state = opened(THREE)
    seat = state.turn
    won = state.apply(Search(seat, state.game.habitat))
    search_entry = next(e.n for e in won.log if e.action == "search")
    reviews = review(won)
    assert won.winner == seat
    for seat_review in reviews:
        assert seat_review.known_at is None and not seat_review.in_opening
    winner = reviews[seat - 1]
    (search,) = winner.searches
    assert (search.entry, search.found, search.stopped_by) == (search_entry, True, None)
    assert (search.fitting, search.fits) == (55, True)
    assert winner.solver_at == 5 < search_entry


def test_could_have_known_is_the_first_entry_after_which_the_clue_and_the_pieces_leave_one_hex():
    """Played on turn by turn (questions that get discs, cubes owed), each position's view checked on its own:
    the review's entry falls inside the first move after which the seat's view leaves one hex."""
    for code in (THREE, FOUR):
        state = opened(code)
        states = [state]
        while len(states) < 60:  # both games go on that long: each seat's clue and the pieces leave one hex
            state = finish_turn(state)
            states.append(state)
        reviews = review(state)
        for seat_review in reviews:
            seat = seat_review.seat
            single = [len(s.log) for s in states
                      if fitting_hexes(Evidence.from_view(view(s, seat))).bit_count() == 1]
            if not single:
                assert seat_review.known_at is None
                continue
            before = max(len(s.log) for s in states if len(s.log) < single[0])
            assert before < seat_review.known_at <= single[0]
            assert fitting_hexes(Evidence.from_view(view(states[0], seat))).bit_count() > 1
            assert seat_review.in_opening is False


def test_the_solver_is_sure_no_later_than_a_person_and_its_entry_is_exact():
    state = opened(FOUR)
    while len(state.log) < 40:
        state = finish_turn(state)
    map_code = state.game.board.to_map_code()
    for seat_review in review(state):
        (clue,) = state.game.seat_clues(seat_review.seat)
        if seat_review.known_at is not None:
            assert seat_review.solver_at is not None and seat_review.solver_at <= seat_review.known_at
        if seat_review.solver_at is None:
            continue
        for n, expected in ((seat_review.solver_at - 1, False), (seat_review.solver_at, True)):
            discs, cubes = pieces_after(state, n)
            solved = posterior(Evidence(map_code, discs, cubes, seat_review.seat, clue)).solved()
            assert (solved is not None) is expected
            if expected:
                assert solved == state.game.habitat


def pieces_after(state: State, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    discs, cubes = [0] * state.players, [0] * state.players
    for entry in state.log[:n]:
        if entry.placed:
            owner, piece = entry.placement()
            (cubes if piece == "cube" else discs)[owner - 1] |= 1 << entry.hex
    return tuple(discs), tuple(cubes)


def test_each_cube_counts_the_clues_it_ruled_out_beside_the_gentlest_cube_then():
    state = opened(FOUR)
    while len(state.log) < 30:
        state = finish_turn(state)
    map_code = state.game.board.to_map_code()
    areas = clue_table(map_code).areas
    reviewed = 0
    for seat_review in review(state):
        assert [c.entry for c in seat_review.cubes] == [e.n for e in state.log
                                                          if e.action == "cube" and e.seat == seat_review.seat]
        for cube in seat_review.cubes:
            discs, cubes = pieces_after(state, cube.entry - 1)
            possible = hexes_of(seat_clues(Evidence(map_code, discs, cubes))[seat_review.seat - 1])
            assert cube.possible == len(possible)
            assert cube.ruled_out == sum(1 for clue in possible if areas[clue] >> cube.hex & 1)
            if cube.gentlest is not None:
                assert cube.gentlest_ruled_out < cube.ruled_out
                assert cube.gentlest_ruled_out == sum(1 for clue in possible if areas[clue] >> cube.gentlest & 1)
                assert not state.game.allowed(seat_review.seat) >> cube.gentlest & 1
            reviewed += 1
    assert reviewed >= 8  # the opening's cubes at least


def test_an_extra_disc_of_a_search_is_the_searchers_piece_and_named_with_the_search():
    """A search on a hex that already holds the searcher's disc: the extra disc they place (log "disc") is named
    with the search and counted among their pieces; the cube they owe next is weighed with it."""
    state, target = searching_own_disc()
    after = state.apply(Search(1, target))
    map_code = state.game.board.to_map_code()
    discs, cubes = pieces_after(after, len(after.log))

    def possible_with(extra: int) -> int:
        with_extra = tuple(d | (1 << extra if seat == 1 else 0) for seat, d in enumerate(discs, 1))
        return seat_clues(Evidence(map_code, with_extra, cubes))[0].bit_count()

    # A hex whose disc tells the table something, so that counting it or not shows.
    extra = next(hex for hex in hexes_of(after.disc_choices(1)) if possible_with(hex) < possible_with(target))
    done = after.apply(Disc(1, extra))
    (search,) = review(done)[0].searches
    assert (search.hex, search.extra_disc, search.no_room) == (target, extra, False)
    assert (search.stopped_by, search.found) == (2, False)
    owed = done.apply(Cube(1, lowest(done.cube_choices(1))))
    assert review(owed)[0].cubes[-1].possible == possible_with(extra)


def test_a_search_whose_extra_disc_had_no_hex_says_so():
    """The log's "skip" with piece "disc" after a search (no hex could take the extra disc) is named with it."""
    state, target = searching_own_disc()
    after = state.apply(Search(1, target))
    skipped = LogEntry(len(after.log) + 1, 1, "skip", target, piece="disc")
    answered = dataclasses.replace(after, log=after.log + (skipped,))
    (search,) = review(answered)[0].searches
    assert (search.no_room, search.extra_disc) == (True, None)


def test_a_game_with_no_search_and_no_piece_reviews_empty():
    state = State.initial(game(THREE))
    assert [(r.known_at, r.solver_at, r.searches, r.cubes) for r in review(state)] == [(None, None, (), ())] * 3
