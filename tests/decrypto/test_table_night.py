"""The engine at a real table (issue 21): the rulebook's end of round 8, lenient keyword matching and the table's
override, typed texts without control characters, carried-over seats, and what the guess step shows."""

from __future__ import annotations

import pytest

from companion.decrypto import (
    TABLE,
    AcceptKeyword,
    GiveClues,
    Guess,
    GuessKeywords,
    IllegalMove,
    Join,
    Seat,
    Setup,
    ShowCode,
    Start,
    State,
    keyword_matches,
    legal_moves,
    view,
)
from tests.helpers.decrypto import SERVER_KEY, make_game, play_round, wrong

OK, MISSED, INTERCEPTED = (True, False), (False, False), (True, True)


def refused(state, move) -> IllegalMove:
    with pytest.raises(IllegalMove) as caught:
        state.apply(move)
    return caught.value


def eight_rounds(ending="rulebook", first=None):
    """Eight rounds where only `first` (White's and Black's results of round 1) gives a token."""
    state = make_game(ending=ending)
    state = play_round(state, *(first or (OK, OK)))
    for _ in range(7):
        state = play_round(state)
    return state


# The end of round 8.


def test_the_rulebook_compares_points_after_round_8():
    state = eight_rounds(first=(OK, MISSED))  # Black missed once: White leads 0 to -1
    assert state.phase == "over"
    assert (state.outcome.winner, state.outcome.reason, state.outcome.white, state.outcome.black) == (
        "white", "score", 0, -1)
    assert view(state, TABLE).status == "White wins on points (interceptions minus miscommunications): 0 to -1."


def test_the_rulebook_goes_to_the_keywords_only_on_equal_points():
    state = eight_rounds()
    assert state.phase == "tiebreak" and state.tiebreak.cause == "rounds_score"
    assert view(state, TABLE).status.startswith("Eight rounds are over with equal points")


def test_the_short_reading_goes_straight_to_the_keywords():
    state = eight_rounds("short", first=(OK, MISSED))
    assert state.phase == "tiebreak" and state.tiebreak.cause == "rounds"
    with pytest.raises(ValueError):
        Setup.create(SERVER_KEY, "t", team_sizes=(2, 2), ending="longest")


def test_a_tie_in_the_keywords_is_a_shared_win():
    state = eight_rounds()
    white_words, black_words = state.setup.keywords
    state = state.apply(GuessKeywords("white", (black_words[0], "", "", "")))
    state = state.apply(GuessKeywords("black", (white_words[0], "", "", "")))
    assert state.outcome.winner is None and state.outcome.reason == "keywords"


# Lenient keyword matching.


@pytest.mark.parametrize("guess, keyword, language", [
    ("de", "dé", "fr"), ("ΜΗΛΟ", "μήλο", "el"), ("ΚΟΣΜΟΣ", "κόσμος", "el"), ("いちご", "イチゴ", "ja"),
    ("ｲﾁｺﾞ", "いちご", "ja"), ("apples", "apple", "en"), ("box", "boxes", "en"), ("Äpfel", "Apfel", "de"),
    ("Hunde", "Hund", "de"), ("gatti", "gatto", "it"), ("chevaux", "chevau", "fr"), ("árboles", "árbol", "es"),
    ("almák", "alma", "hu"), ("سیب‌ها", "سیب", "fa"), ("كتاب", "کتاب", "fa"), ("  Ice  Cream ", "ice cream", "en"),
    ("niño", "nino", "es"),
])
def test_a_guess_matches_its_keyword_leniently(guess, keyword, language):
    assert keyword_matches(guess, keyword, language)


@pytest.mark.parametrize("guess, keyword, language", [
    ("pear", "apple", "en"), ("", "apple", "en"), ("がき", "かき", "ja"), ("apples", "apple", "pl"),
    ("gatta", "gatto", "it"), ("cats", "cat", None),
])
def test_a_different_word_does_not_match(guess, keyword, language):
    assert not keyword_matches(guess, keyword, language)


def test_the_table_counts_a_guess_the_site_did_not_match_and_the_outcome_follows():
    state = eight_rounds()
    white_words, black_words = state.setup.keywords
    state = state.apply(GuessKeywords("white", (black_words[0].upper() + "s", "close enough", "", "")))
    assert refused(state, AcceptKeyword("white", 2)).reason == "keyword_guesses_sealed"
    state = state.apply(GuessKeywords("black", (white_words[0], white_words[1], "", "")))
    assert (state.outcome.winner, state.outcome.white, state.outcome.black) == ("black", 1, 2)
    offered = [m for m in legal_moves(state, TABLE) if isinstance(m, AcceptKeyword)]
    assert offered == [AcceptKeyword("white", 2)]  # the only typed guess the site did not count
    assert refused(state, AcceptKeyword("white", 2, seat=1)).reason == "table_only"
    assert refused(state, AcceptKeyword("white", 3)).reason == "no_guess_to_count"
    assert refused(state, AcceptKeyword("white", 1)).reason == "guess_already_counted"
    state = state.apply(AcceptKeyword("white", 2))
    assert (state.outcome.winner, state.outcome.white, state.outcome.black) == (None, 2, 2)
    answer = view(state, TABLE).tiebreak["answers"]["white"]
    assert answer["matched"] == [True, False, False, False] and answer["accepted"] == [2] and answer["right"] == 2
    assert refused(state, Join("x", "white")).reason == "game_over"


def test_the_table_cannot_count_a_guess_when_the_game_did_not_end_by_keywords():
    state = make_game()
    for _ in range(2):
        state = play_round(state, white=MISSED)
    assert state.outcome.reason == "miscommunications"
    assert refused(state, AcceptKeyword("white", 1)).reason == "game_over"


# Typed texts.


@pytest.mark.parametrize("text", ["Ana\u202eGNP", "Ana\u200b", "be\x07ll", "nul\x00", "iso\u2066late", "\ufeffbom"])
def test_names_clues_and_keyword_guesses_refuse_control_characters(text):
    lobby = State.initial(Setup.create(SERVER_KEY, "t", language="en", words=[f"w{i}" for i in range(20)]))
    assert refused(lobby, Join("p1", "white", name=text)).reason == "control_characters"
    state = make_game().apply(ShowCode("white"))
    assert refused(state, GiveClues("white", ("fine", text, "also fine"))).reason == "control_characters"
    assert "invisible or control characters" in str(refused(state, GiveClues("white", (text, "b", "c"))))
    tiebreak = eight_rounds()
    assert refused(tiebreak, GuessKeywords("white", (text, "", "", ""))).reason == "control_characters"


def test_persian_words_keep_their_zero_width_non_joiner():
    lobby = State.initial(Setup.create(SERVER_KEY, "t", language="en", words=[f"w{i}" for i in range(20)]))
    assert lobby.apply(Join("p1", "white", name="می\u200cخواهم")).roster("white")[0].name == "می\u200cخواهم"


def test_a_clue_that_is_one_of_the_teams_own_keywords_is_found():
    state = make_game()
    keywords = state.setup.keywords_of("white")
    found = state.keyword_clues("white", ("sky", keywords[2].upper(), "sea"))
    assert [(w.position, w.clue) for w in found] == [(2, keywords[2].upper())]
    assert "is one of your own keywords" in found[0].text()
    assert state.keyword_clues("black", ("sky", keywords[2], "sea")) == ()


# Carrying a table over to the next game.


def test_seats_names_and_the_encryptor_order_carry_over():
    seated = ((("p1", "Ana"), ("p2", "Ben"), ("p3", "Cy")), (("p4", "Di"), ("p5", "Ed")))
    setup = Setup.create(SERVER_KEY, "t", game=2, language="en", words=[f"w{i}" for i in range(20)],
                         seated=seated, first_encryptors=(3, 2))
    lobby = State.initial(setup)
    assert lobby.phase == "lobby" and lobby.seat_of("p3") == Seat("white", 3)
    assert lobby.roster("black")[1].name == "Ed"
    switched = lobby.apply(Join("p3", "black", name="Cy"))  # teams can still be switched in the lobby
    assert switched.seat_of("p3") == Seat("black", 3)
    started = lobby.apply(Start())
    assert (started.encryptor("white"), started.encryptor("black")) == (3, 2)
    assert Setup.from_json(setup.to_json(), SERVER_KEY) == setup


# The guess step as each screen sees it.


def test_teammates_see_what_their_team_sent_and_everyone_sees_whom_the_table_waits_for():
    state = make_game(sizes=(3, 3))
    assert view(state, TABLE).waiting == ["White's encryptor", "Black's encryptor"]
    state = play_round(state)
    state = state.apply(ShowCode("white")).apply(GiveClues("white", ("sun", "moon", "star")))
    assert view(state, TABLE).waiting == ["Black's encryptor", "White's guess", "Black's interception"]
    assert view(state, TABLE).decoding == {"team": "white", "clues": ["sun", "moon", "star"]}
    code = state.current.of("white").code
    state = state.apply(Guess("white", "white", code, 3))
    assert view(state, Seat("white", 1)).sent == [{"target": "white", "code": list(code)}]
    assert view(state, Seat("black", 2)).sent == [] and view(state, TABLE).sent == []
    state = state.apply(Guess("black", "white", wrong(code), 1))
    assert view(state, Seat("black", 3)).sent == []  # revealed now: the history has both guesses
    history = view(state, TABLE).history[-1]["white"]
    assert history["own_guess"] == list(code) and history["interception_guess"] == list(wrong(code))
