"""Each Decrypto rule the engine enforces, one readable example at a time."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace

import pytest

from companion.decrypto import (
    CODES,
    TABLE,
    CountKeywords,
    GiveClues,
    Guess,
    GuessKeywords,
    IllegalMove,
    Join,
    Leave,
    Move,
    MoveFormatError,
    NextRound,
    Seat,
    Setup,
    ShowCode,
    Start,
    State,
    derive_secret,
    draw_code,
    format_code,
    parse_code,
    view,
)
from companion.decrypto.text import ILLEGAL_MOVES, OUTCOMES, illegal_move_text
from tests.helpers import REPO
from tests.helpers.decrypto import (
    SERVER_KEY,
    WORDS,
    decode,
    give,
    make_game,
    make_setup,
    play_round,
    wrong,
)

ENGINE = REPO / "companion" / "decrypto"


def refused(state, move) -> IllegalMove:
    with pytest.raises(IllegalMove) as caught:
        state.apply(move)
    return caught.value


def lobby(white=(), black=()):
    state = State.initial(make_setup(sizes=None))
    for player in white:
        state = state.apply(Join(player, "white", name=player.title()))
    for player in black:
        state = state.apply(Join(player, "black", name=player.title()))
    return state


def tiebreak_after_eight_rounds(box=False):
    state = make_game(box=box)
    for _ in range(8):
        state = play_round(state)
    assert state.phase == "tiebreak" and state.tiebreak.cause == "rounds_score"
    return state


# Setup and secrets.


def test_setup_deals_four_different_keywords_to_each_team():
    setup = make_setup()
    white, black = setup.keywords
    assert len(white) == len(black) == 4
    assert len(set(white + black)) == 8 and set(white + black) <= set(WORDS)


def test_box_cards_mean_positions_only():
    setup = make_setup(box=True)
    assert setup.keywords is None and setup.language is None
    assert view(make_game(box=True), Seat("white", 1)).teams["white"]["keywords"] is None


@pytest.mark.parametrize("sizes", [(1, 2), (2, 5), (3,), (0, 0)])
def test_team_sizes_are_two_to_four(sizes):
    with pytest.raises(ValueError):
        Setup.create(SERVER_KEY, "t", team_sizes=sizes)


def test_codes_and_keywords_are_reproducible_from_the_server_key_and_table():
    again = Setup.create(SERVER_KEY, "table-1", team_sizes=(2, 2), language="en", words=WORDS)
    assert again == make_setup()
    assert [draw_code(again.secret, r, "white") for r in range(1, 9)] == [
        draw_code(make_setup().secret, r, "white") for r in range(1, 9)
    ]


def test_the_secret_depends_on_the_key_the_table_and_the_game():
    secrets = {
        derive_secret(SERVER_KEY, "t", 1),
        derive_secret(b"another server key", "t", 1),
        derive_secret(SERVER_KEY, "u", 1),
        derive_secret(SERVER_KEY, "t", 2),
    }
    assert len(secrets) == 4


def test_the_setup_json_leaves_the_secret_out_and_comes_back_with_the_key():
    setup = make_setup(sizes=(3, 2))
    data = json.loads(json.dumps(setup.to_json()))
    assert "secret" not in data and setup.secret.hex() not in json.dumps(data)
    assert Setup.from_json(data, SERVER_KEY) == setup
    assert Setup.from_json(data, b"wrong key") != setup
    assert "secret" not in repr(setup) and setup.secret.hex() not in repr(setup)


# Teams and seats.


def test_sizes_chosen_up_front_start_round_one_with_seats_for_the_table_to_play():
    state = make_game(sizes=(3, 2))
    assert state.phase == "playing" and state.round == 1
    assert [len(state.roster(team)) for team in ("white", "black")] == [3, 2]
    assert state.encryptor("white") == state.encryptor("black") == 1
    assert refused(state, Start()).reason == "already_started"


def test_phones_pick_their_teams_in_the_lobby_and_someone_starts():
    state = lobby(white=["ann"], black=["bob", "cy"])
    assert state.phase == "lobby" and state.round == 0
    assert refused(state, Start()).params == {"minimum": 2}
    assert refused(state, ShowCode("white")).reason == "not_started"
    state = state.apply(Join("dee", "white"))
    state = state.apply(Start())
    assert state.phase == "playing" and state.round == 1
    assert [m.player for m in state.roster("white")] == ["ann", "dee"]


def test_in_the_lobby_a_phone_may_change_team_or_leave():
    state = lobby(white=["ann", "bob"], black=["cy"])
    state = state.apply(Join("bob", "black"))
    assert [m.player for m in state.roster("white")] == ["ann"]
    assert [m.player for m in state.roster("black")] == ["cy", "bob"]
    state = state.apply(Leave("cy"))
    assert [m.player for m in state.roster("black")] == ["bob"]
    assert refused(state, Leave("cy")).reason == "not_joined"


def test_a_team_has_at_most_four_players():
    state = lobby(white=["a", "b", "c", "d"])
    error = refused(state, Join("e", "white"))
    assert error.reason == "team_full" and error.params == {"maximum": 4}
    assert state.joinable_teams() == ["black"]


def test_a_phone_claims_a_free_seat_or_the_seat_it_asks_for():
    state = make_game(sizes=(3, 2))
    state = state.apply(Join("ann", "white", seat=2)).apply(Join("bob", "white"))
    assert state.seat_of("ann") == Seat("white", 2) and state.seat_of("bob") == Seat("white", 1)
    assert refused(state, Join("cy", "white", seat=2)).params == {"seat": 2}
    assert refused(state, Join("cy", "white", seat=4)).reason == "no_such_seat"
    assert state.seat_of("cy") is None


def test_once_started_nobody_changes_team_but_names_can_change():
    state = make_game().apply(Join("ann", "white", name="Ann"))
    assert refused(state, Join("ann", "black")).reason == "already_in_team"
    state = state.apply(Join("ann", "white", name="  Ann   B. "))
    assert state.roster("white")[0].name == "Ann B."
    assert refused(state, Join("ann", "white", name="x" * 25)).params == {"limit": 24}


def test_a_phone_leaving_during_the_game_leaves_its_seat_to_the_table():
    state = make_game().apply(Join("ann", "white"))
    assert refused(state, ShowCode("white")).reason == "seat_has_phone"
    state = state.apply(Leave("ann"))
    assert len(state.roster("white")) == 2 and state.seat_of("ann") is None
    assert state.apply(ShowCode("white")).current.of("white").shown


def test_a_latecomer_joins_the_rotation_in_the_lobby_and_only_a_free_seat_once_the_game_started():
    state = lobby(white=["ann", "bob"], black=["cy", "di"]).apply(Join("late", "white"))
    assert state.seat_of("late") == Seat("white", 3)
    state = make_game(sizes=(2, 2)).apply(Join("ann", "white")).apply(Join("bob", "white"))
    state = play_round(state)
    # Nobody joins a team mid-game from a second browser: no new seat once the game has started.
    assert refused(state, Join("late", "white")).reason == "no_free_seat"
    assert refused(state, Join("ann", "black")).reason == "already_in_team"
    state = state.apply(Join("late", "black"))  # Black's seats have no phone yet: one of them, not a new one
    assert state.seat_of("late") == Seat("black", 1) and len(state.roster("black")) == 2
    state = state.apply(Leave("bob")).apply(Join("late2", "white"))
    assert state.seat_of("late2") == Seat("white", 2)


# Encryptors and codes.


def test_encryptors_rotate_within_each_team_every_round():
    state = make_game(sizes=(3, 2))
    seen = []
    for _ in range(6):
        seen.append((state.encryptor("white"), state.encryptor("black")))
        state = play_round(state)
    assert seen == [(1, 1), (2, 2), (3, 1), (1, 2), (2, 1), (3, 2)]


def test_only_the_encryptor_looks_at_the_code_and_gives_clues():
    state = make_game(sizes=(3, 2)).apply(Join("ann", "white", seat=1)).apply(Join("bob", "white", seat=2))
    assert refused(state, ShowCode("white", seat=2)).reason == "not_the_encryptor"
    assert refused(state, ShowCode("white", seat=7)).params == {"seat": 7}
    assert refused(state, GiveClues("white", None, seat=1)).reason == "code_not_shown"
    state = state.apply(ShowCode("white", seat=1))
    assert refused(state, ShowCode("white", seat=1)).reason == "code_already_shown"
    assert refused(state, GiveClues("white", ("a", "b", "c"), seat=2)).reason == "not_the_encryptor"
    state = state.apply(GiveClues("white", ("  Mexico ", "insect", "horror"), seat=1))
    assert state.current.of("white").clues == ("Mexico", "insect", "horror")
    assert refused(state, GiveClues("white", None, seat=1)).reason == "clues_already_given"


@pytest.mark.parametrize("clues", [("a", "b", ""), ("a", "   ", "c"), ("a", "b", "x" * 41)])
def test_three_clues_of_one_to_forty_characters(clues):
    state = make_game().apply(ShowCode("white"))
    error = refused(state, GiveClues("white", clues))
    assert error.reason == "malformed_clues" and error.params == {"limit": 40}


def test_clues_said_aloud_are_marked_given_without_words():
    state = make_game().apply(ShowCode("white")).apply(GiveClues("white", None))
    transmission = state.current.of("white")
    assert transmission.given and transmission.clues is None
    state = decode(state, "white")
    assert view(state, TABLE).teams["white"]["sheet"] == [[], [], [], []]


def test_a_code_is_three_different_digits_from_one_to_four():
    assert len(CODES) == 24 and len(set(CODES)) == 24
    assert all(len(set(code)) == 3 and set(code) <= {1, 2, 3, 4} for code in CODES)


@pytest.mark.parametrize(
    "text, code", [("4-2-1", (4, 2, 1)), ("421", (4, 2, 1)), (" 1 3 2 ", (1, 3, 2)), ("３–１–２", (3, 1, 2))]
)
def test_typed_codes(text, code):
    assert parse_code(text) == code
    assert parse_code(format_code(code)) == code and format_code((4, 2, 1)) == "4-2-1"


@pytest.mark.parametrize("text", ["", "12", "1234", "112", "125", "041", "a-b-c", "4-2-x"])
def test_typed_codes_that_are_not_codes(text):
    with pytest.raises(IllegalMove) as caught:
        parse_code(text)
    assert caught.value.reason == "malformed_code"


@pytest.mark.parametrize("code", [(1, 1, 2), (1, 2), (0, 1, 2), (5, 1, 2), ("1", "2", "3"), (1.0, 2, 3), (True, 2, 3)])
def test_a_guess_must_be_a_code(code):
    state = give(make_game(), "white")
    assert refused(state, Guess("white", "white", code)).reason == "malformed_code"


def test_codes_are_drawn_afresh_each_round_so_they_can_come_back():
    games = [[draw_code(derive_secret(SERVER_KEY, f"t{n}", 1), r, "white") for r in range(1, 9)] for n in range(20)]
    assert any(len(set(codes)) < 8 for codes in games)


# Guessing and tokens.


def test_nobody_intercepts_in_round_one():
    state = give(give(make_game(), "white"), "black")
    assert refused(state, Guess("black", "white", CODES[0])).reason == "no_interception_in_round_one"
    state = state.apply(Guess("white", "white", state.current.of("white").code))
    assert state.current.of("white").revealed and state.current.turn == "black"


def test_white_s_code_is_decoded_before_black_s():
    state = give(give(make_game(), "white"), "black")
    assert refused(state, Guess("black", "black", CODES[0])).reason == "out_of_turn"


def test_a_guess_waits_for_the_clues():
    state = make_game().apply(ShowCode("white"))
    assert refused(state, Guess("white", "white", CODES[0])).reason == "clues_not_given"


def test_the_encryptor_does_not_guess_their_own_code():
    state = give(make_game(), "white")
    assert refused(state, Guess("white", "white", CODES[0], seat=1)).reason == "encryptor_cannot_guess"
    assert state.is_legal(Guess("white", "white", CODES[0], seat=2))


def test_each_team_guesses_a_code_once():
    state = play_round(make_game())
    state = give(give(state, "white"), "black")
    state = state.apply(Guess("black", "white", CODES[0]))
    assert refused(state, Guess("black", "white", CODES[1])).reason == "already_guessed"
    state = state.apply(Guess("white", "white", CODES[0]))
    assert refused(state, Guess("white", "white", CODES[1])).reason == "already_guessed"


def test_guesses_stay_sealed_until_the_code_is_revealed():
    state = give(give(play_round(make_game()), "white"), "black")
    code = state.current.of("white").code
    state = state.apply(Guess("white", "white", wrong(code)))
    for viewer in (TABLE, None, Seat("black", 1), Seat("white", 2)):
        entry = view(state, viewer).history[-1]["white"]
        assert entry["own_guessed"] and not entry["interception_guessed"]
        assert {"code", "own_guess", "interception_guess"}.isdisjoint(entry)
    state = state.apply(Guess("black", "white", code))
    entry = view(state, TABLE).history[-1]["white"]
    assert entry["code"] == list(code) and entry["interception_guess"] == list(code)
    assert entry["own_guess"] == list(wrong(code))
    assert entry["intercepted"] and entry["miscommunicated"]
    assert entry["texts"] == [
        "Black intercepted White's code.",
        "White missed its own code and takes a miscommunication token.",
    ]


@pytest.mark.parametrize(
    "own_right, intercepted, tokens",
    [(True, False, (0, 0)), (True, True, (1, 0)), (False, False, (0, 1)), (False, True, (1, 1))],
)
def test_tokens_from_one_code(own_right, intercepted, tokens):
    state = play_round(make_game())
    state = play_round(state, white=(own_right, intercepted))
    assert (state.interceptions("black"), state.miscommunications("white")) == tokens
    assert (state.interceptions("white"), state.miscommunications("black")) == (0, 0)


def test_the_clue_sheet_files_each_clue_under_its_keyword_number():
    state = give(make_game(), "white", ("hat", "insect", "horror"))
    code = state.current.of("white").code
    assert view(state, TABLE).teams["white"]["sheet"] == [[], [], [], []]  # not before the reveal
    state = decode(state, "white")
    sheet = view(state, Seat("black", 1)).teams["white"]["sheet"]
    for digit, clue in zip(code, ("hat", "insect", "horror")):
        assert sheet[digit - 1] == [{"round": 1, "clue": clue}]
    assert sum(map(len, sheet)) == 3


# How the game ends.

# What happens to one team's code in a round: (the team decodes it, the other team intercepts it).
OK = (True, False)
MISSED = (False, False)
INTERCEPTED = (True, True)
MISSED_AND_INTERCEPTED = (False, True)


@pytest.mark.parametrize(
    "rounds, outcome",
    [
        # White intercepts Black twice.
        ([(OK, OK), (OK, INTERCEPTED), (OK, INTERCEPTED)], ("white", "interceptions", 0, 0)),
        # White misses its own code twice: White loses.
        ([(MISSED, OK), (MISSED, OK)], ("black", "miscommunications", 0, 0)),
        # White's second interception and Black's second miscommunication: both point to White.
        ([(OK, OK), (OK, MISSED_AND_INTERCEPTED), (OK, MISSED_AND_INTERCEPTED)],
         ("white", "interceptions_and_miscommunications", 0, 0)),
        # Both teams intercept twice: points 2-0 against 2-1.
        ([(OK, OK), (INTERCEPTED, INTERCEPTED), (INTERCEPTED, MISSED_AND_INTERCEPTED)], ("white", "score", 2, 1)),
        # Round 3: White's second interception and second miscommunication; Black has one interception.
        ([(MISSED, OK), (OK, INTERCEPTED), (MISSED_AND_INTERCEPTED, INTERCEPTED)], ("black", "score", 0, 1)),
    ],
)
def test_end_conditions(rounds, outcome):
    state = make_game()
    for white, black in rounds:
        assert state.outcome is None
        state = play_round(state, white=white, black=black)
    assert state.phase == "over"
    assert (state.outcome.winner, state.outcome.reason, state.outcome.white, state.outcome.black) == outcome
    assert refused(state, Join("x", "white")).reason == "game_over"


def test_end_conditions_with_equal_points_go_to_the_keyword_tiebreak():
    # Round 3: White reaches two interceptions and two miscommunications at once; Black has nothing.
    state = make_game()
    state = play_round(state, white=MISSED)
    state = play_round(state, black=INTERCEPTED)
    state = play_round(state, white=MISSED, black=INTERCEPTED)
    assert state.phase == "tiebreak" and state.tiebreak.cause == "score"
    assert view(state, TABLE).status.startswith("Both teams met an end condition")


def test_no_winner_after_eight_rounds_goes_to_the_keyword_tiebreak():
    state = make_game()
    for round_number in range(1, 9):
        assert state.round == round_number and state.phase == "playing"
        state = play_round(state)
    assert state.phase == "tiebreak" and state.round == 8
    assert refused(state, ShowCode("white")).reason == "tiebreak_under_way"


def test_the_tiebreak_scores_site_keywords_exactly_after_normalising():
    state = tiebreak_after_eight_rounds()
    black_words = state.setup.keywords_of("black")
    white_guess = (f"  {black_words[0].upper()} ", "ｗｏｒｄ" + black_words[1][4:], "nope", "")
    assert refused(state, CountKeywords("white", 2)).reason == "site_keywords"
    state = state.apply(GuessKeywords("white", white_guess))
    assert state.tiebreak.of("white").right == 2
    assert refused(state, GuessKeywords("white", ("",) * 4)).reason == "keywords_already_guessed"
    assert view(state, TABLE).tiebreak["answered"] == {"white": True, "black": False}
    assert "answers" not in view(state, Seat("black", 1)).tiebreak
    state = state.apply(GuessKeywords("black", (state.setup.keywords_of("white")[0], "", "", "")))
    outcome = state.outcome
    assert (outcome.winner, outcome.reason, outcome.white, outcome.black) == ("white", "keywords", 2, 1)
    tidied = [black_words[0].upper(), *white_guess[1:]]
    assert view(state, TABLE).tiebreak["answers"]["white"] == {
        "words": tidied, "right": 2, "matched": [True, True, False, False], "accepted": []}


def test_a_keyword_tiebreak_can_end_in_a_draw():
    state = tiebreak_after_eight_rounds(box=True)
    assert refused(state, GuessKeywords("white", ("a", "b", "c", "d"))).reason == "box_keywords"
    assert refused(state, CountKeywords("white", 5)).reason == "malformed_count"
    state = state.apply(CountKeywords("white", 3)).apply(CountKeywords("black", 3))
    assert state.outcome.winner is None and view(state, TABLE).status == "Draw: the keyword tiebreak ends 3 to 3."


def test_keyword_guesses_only_in_the_tiebreak():
    assert refused(make_game(), GuessKeywords("white", ("",) * 4)).reason == "no_tiebreak"
    assert refused(lobby(), CountKeywords("white", 1)).reason == "not_started"


# What each screen sees.


def test_players_see_their_own_keywords_and_nobody_sees_the_other_teams_until_the_end():
    state = make_game()
    white, black = state.setup.keywords
    assert view(state, Seat("white", 2)).teams["white"]["keywords"] == list(white)
    assert view(state, Seat("white", 2)).teams["black"]["keywords"] is None
    assert view(state, Seat("black", 1)).teams["white"]["keywords"] is None
    for viewer in (TABLE, None):
        assert [view(state, viewer).teams[t]["keywords"] for t in ("white", "black")] == [None, None]
    state = make_game(sizes=(2, 2))
    for _ in range(2):
        state = play_round(state, white=MISSED)
    assert view(state, None).teams["black"]["keywords"] == list(black)


def test_nobody_sees_keywords_in_the_lobby():
    state = lobby(white=["ann"])
    assert view(state, Seat("white", 1)).teams["white"]["keywords"] is None


def test_the_encryptor_sees_the_code_after_asking_and_until_the_reveal():
    state = make_game()
    encryptor = Seat("white", 1)
    assert view(state, encryptor).my_code is None
    state = state.apply(ShowCode("white"))
    code = list(state.current.of("white").code)
    assert view(state, encryptor).my_code == code
    assert all(view(state, v).my_code is None for v in (Seat("white", 2), Seat("black", 1), TABLE, None))
    state = decode(give(state.apply(GiveClues("white", None)), "black"), "white")
    assert view(state, encryptor).my_code is None
    assert view(state, None).history[0]["white"]["code"] == code


@pytest.mark.parametrize("viewer", [Seat("white", 3), Seat("white", 0), Seat("red", 1), "host"])
def test_only_real_seats_and_screens_can_look(viewer):
    with pytest.raises(ValueError):
        view(make_game(), viewer)


def test_views_are_json_and_never_show_player_ids():
    state = make_game().apply(Join("secret-phone-id", "white", name="Ann"))
    for viewer in (TABLE, None, Seat("white", 1), Seat("black", 2)):
        text = json.dumps(view(state, viewer).to_json())
        assert "secret-phone-id" not in text
    seat = view(state, TABLE).teams["white"]["seats"][0]
    assert seat == {"seat": 1, "name": "Ann", "phone": True, "encryptor": True}


def test_each_screen_is_offered_exactly_its_moves():
    state = make_game().apply(Join("ann", "white"))
    assert view(state, Seat("white", 1)).can == [{"action": "show_code", "team": "white", "seat": 1}]
    assert view(state, Seat("white", 2)).can == []
    assert view(state, TABLE).can == [{"action": "show_code", "team": "black", "seat": None}]
    assert view(state, None).can == [{"action": "join", "team": "white"}, {"action": "join", "team": "black"}]
    state = give(state.apply(ShowCode("white", 1)).apply(GiveClues("white", None, 1)), "black")
    assert view(state, Seat("white", 2)).can == [{"action": "guess", "team": "white", "target": "white", "seat": 2}]
    assert view(state, Seat("black", 1)).can == []  # round 1: no interception
    assert view(lobby(white=["a"]), Seat("white", 1)).can == [{"action": "join", "team": "black"}]


def test_status_sentences_follow_the_round():
    state = make_game()
    # Both encryptors work at once: the shared screen and the other team say so.
    assert view(state, TABLE).status == "Both encryptors are looking at their codes and writing three clues."
    assert view(give(state, "black"), TABLE).status == (
        "White's encryptor is looking at the code and writing three clues.")
    state = give(state, "white")
    assert view(state, TABLE).status == "White is guessing its own code."
    state = give(decode(state, "white"), "black")
    assert view(state, TABLE).status == "Black is guessing its own code."
    state = give(decode(state, "black"), "white")
    assert view(state, TABLE).status == "Both teams are guessing White's code."
    assert view(lobby(), None).status.startswith("Players are choosing their teams.")


def test_only_the_shared_screen_starts_a_split_table_and_phones_are_told_so():
    state = lobby(white=["ann", "bob"], black=["cy", "di"])
    assert view(state, TABLE).can == [{"action": "start"}]
    assert view(state, TABLE).status == (
        "Players are choosing their teams. Start the game once each team has two to four players.")
    phone = view(state, Seat("white", 1))
    assert all(offer["action"] == "join" for offer in phone.can)  # switching teams, never starting
    assert phone.status == (
        "Players are choosing their teams. The host starts the game once each team has two to four players.")


# The round's reveal, on a table that pauses at each round's end.


def paused_game(sizes=(2, 2)) -> State:
    return State.initial(replace(make_setup(sizes), reveal_pause=True))


def test_a_round_ends_on_its_reveal_until_both_teams_are_ready():
    state = play_round(paused_game(), white=(True, False), black=(False, False))
    assert state.phase == "reveal" and state.round == 1 and state.current is None
    seen = view(state, Seat("white", 2))
    assert seen.status == "Round 1 is over: both codes are revealed. The next round starts when both teams are ready."
    assert seen.waiting == ["White to press Next round", "Black to press Next round"]
    white, black = seen.reveal["teams"]["white"], seen.reveal["teams"]["black"]
    assert white["code"] == list(state.rounds[-1].of("white").code) == white["own_guess"]
    assert black["own_guess"] != black["code"] and black["miscommunications_taken"] == 1
    assert seen.can == [{"action": "next_round", "team": "white", "seat": 2}]
    # The shared screen starts it for everyone, or says a team is ready (a team it plays without phones).
    assert view(state, TABLE).can == [{"action": "next_round", "team": team, "seat": None}
                                      for team in (None, "white", "black")]
    assert refused(state, ShowCode("white")).reason == "round_revealed"
    # One seat of a team speaks for it; the round starts once both teams are ready.
    state = state.apply(NextRound("white", 1))
    assert refused(state, NextRound("white", 2)).reason == "already_ready"
    assert state.phase == "reveal" and view(state, TABLE).waiting == ["Black to press Next round"]
    state = state.apply(NextRound("black", 2))
    assert state.phase == "playing" and state.round == 2 and view(state, TABLE).reveal is None
    assert refused(state, NextRound("white", 1)).reason == "not_revealed"


def test_the_shared_screen_starts_the_next_round_for_the_whole_table():
    state = play_round(paused_game())
    assert state.apply(NextRound()).round == 2
    assert refused(make_game(), NextRound()).reason == "not_revealed"
    assert refused(lobby(), NextRound("white", 1)).reason == "not_started"


def test_the_reveal_shows_the_interception_and_its_token():
    state = play_round(paused_game(), white=(True, False), black=(True, False)).apply(NextRound())
    state = play_round(state, white=(True, True), black=(True, False))
    reveal = view(state, Seat("white", 1)).reveal
    assert reveal["round"] == 2 and reveal["waiting"]
    assert reveal["teams"]["black"]["interceptions_won"] == 1 and reveal["teams"]["white"]["interceptions_won"] == 0
    assert reveal["teams"]["white"]["interception_guess"] == reveal["teams"]["white"]["code"]
    assert reveal["teams"]["white"]["texts"] == ["Black intercepted White's code."]


def test_nothing_of_the_reveal_shows_before_both_guesses_of_the_last_code_are_in():
    state = give(give(paused_game(), "white"), "black")
    state = decode(state, "white")
    assert view(state, TABLE).reveal is None
    for viewer in (TABLE, Seat("white", 2), Seat("black", 2)):
        assert "code" not in view(state, viewer).history[-1]["black"]
    state = decode(state, "black")
    assert view(state, Seat("white", 2)).history[-1]["black"]["code"] == list(state.rounds[-1].of("black").code)


def test_a_round_that_ends_the_game_does_not_pause():
    state = paused_game()
    state = play_round(state, white=(False, False)).apply(NextRound())
    state = play_round(state, white=(False, False))
    assert state.phase == "over" and view(state, TABLE).reveal["round"] == 2
    assert not view(state, TABLE).reveal["waiting"]


def test_setups_stored_before_the_reveal_replay_without_it():
    data = make_setup().to_json()
    del data["reveal_pause"]
    setup = Setup.from_json(data, SERVER_KEY)
    assert not setup.reveal_pause and play_round(State.initial(setup)).round == 2
    assert Setup.from_json(replace(setup, reveal_pause=True).to_json(), SERVER_KEY).reveal_pause


# Repeated clues are a warning.


def test_a_clue_the_team_already_gave_is_reported():
    state = play_round(make_game(), clues=("Hat", "insect", "horror"))
    warnings = state.repeated_clues("white", ("ＨＡＴ", "new one", "  Insect  "))
    assert [(w.position, w.round, w.other) for w in warnings] == [(1, 1, None), (3, 1, None)]
    assert warnings[0].text() == "Clue 1, “ＨＡＴ”, was already given by your team in round 1."
    assert state.repeated_clues("black", ("hat", "x", "y")) != ()  # play_round gives both teams these clues
    assert make_game().repeated_clues("white", ("hat", "x", "y")) == ()


def test_repeating_a_clue_within_the_same_three_is_reported():
    warnings = make_game().repeated_clues("white", ("sun", "moon", "SUN"))
    assert [(w.position, w.other) for w in warnings] == [(3, 1)]
    assert warnings[0].text() == "Clue 3, “SUN”, repeats clue 1 of this round."


def test_a_repeated_clue_is_still_accepted():
    state = play_round(make_game(), clues=("hat", "insect", "horror"))
    state = state.apply(ShowCode("white")).apply(GiveClues("white", ("hat", "insect", "horror")))
    assert state.current.of("white").clues == ("hat", "insect", "horror")


# Moves as JSON, replays and texts.

MOVES = [
    Join("p1", "white", "Ann", 2),
    Leave("p1"),
    Start(),
    ShowCode("black", 3),
    GiveClues("white", ("a", "b", "c")),
    GiveClues("white", None, 1),
    Guess("black", "white", (4, 2, 1), 2),
    GuessKeywords("white", ("a", "", "c", "d")),
    CountKeywords("black", 3, None),
    NextRound(),
    NextRound("black", 2),
]


@pytest.mark.parametrize("move", MOVES)
def test_moves_round_trip_through_json(move):
    assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move


@pytest.mark.parametrize(
    "data",
    [
        {"action": "fly"},
        {"action": ["guess"]},
        {"action": "guess", "team": "red", "target": "white", "code": [1, 2, 3]},
        {"action": "guess", "team": "white", "target": "white", "code": [1, 2, 3], "extra": 1},
        {"action": "show_code"},
        {"action": "show_code", "team": "white", "seat": 0},
        {"action": "give_clues", "team": "white", "clues": ["a", "b"]},
        {"action": "join", "player": "", "team": "white"},
        {"action": "join", "player": "a\nb", "team": "white"},
        {"action": "count_keywords", "team": "white", "right": "3"},
        {"action": "next_round", "seat": 2},
        ["show_code"],
    ],
)
def test_malformed_move_json_is_a_value_error(data):
    with pytest.raises(MoveFormatError) as caught:
        Move.from_json(data)
    assert not isinstance(caught.value, IllegalMove)


@pytest.mark.parametrize("move", MOVES)
def test_moves_stored_under_the_old_type_key_still_read(move):
    data = move.to_json()
    legacy = {"type": data.pop("action")} | data
    assert Move.from_json(legacy) == move
    with pytest.raises(MoveFormatError):
        Move.from_json(legacy | {"action": move.action})  # one key for the kind, never both


def test_replaying_the_moves_gives_the_same_state():
    setup = make_setup()
    state = State.initial(setup)
    moves = [ShowCode("white"), GiveClues("white", ("a", "b", "c")), ShowCode("black"), GiveClues("black", None)]
    for move in moves:
        state = state.apply(move)
    moves.append(Guess("white", "white", state.current.of("white").code))
    assert State.replay(setup, moves) == state.apply(moves[-1])


def _raised_reasons() -> set[str]:
    reasons = set()
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "IllegalMove":
                reasons.add(node.args[0].value)
    return reasons


def test_every_refusal_the_engine_raises_has_a_sentence_and_every_sentence_is_used():
    assert _raised_reasons() == set(ILLEGAL_MOVES)


@pytest.mark.parametrize("reason", sorted(ILLEGAL_MOVES))
def test_refusal_sentences_are_whole_sentences_with_named_placeholders(reason):
    template = ILLEGAL_MOVES[reason]
    params = {name: 7 for name in re.findall(r"\{(\w+)\}", template)}
    text = illegal_move_text(reason, params, gettext=lambda english: "» " + english)
    assert text == "» " + template.format(**params) and text.endswith(".") and "{" not in text
    assert str(IllegalMove(reason, **params)) == template.format(**params)


def test_outcome_sentences_name_the_right_team_first():
    for (reason, winner), template in OUTCOMES.items():
        if winner is not None and reason != "miscommunications":
            assert template.startswith(winner.title())


def test_keyword_guesses_are_refused_on_a_rounds_reveal():
    state = play_round(paused_game())
    assert refused(state, GuessKeywords("white", ("a", "b", "c", "d"))).reason == "no_tiebreak"
    assert refused(state, CountKeywords("white", 2)).reason == "no_tiebreak"
