"""Helpers for the Decrypto tests: tables, scripted rounds, and the rules restated independently of the engine."""

from __future__ import annotations

from companion.decrypto import CODES, Setup, State
from companion.decrypto.game import Transmission
from companion.decrypto.moves import GiveClues, Guess, ShowCode

SERVER_KEY = b"decrypto tests server key"
WORDS = tuple(f"word{i:02}" for i in range(40))


def make_setup(sizes=(2, 2), box=False, table="table-1", game=1, ending="rulebook", reveal_pause=False) -> Setup:
    if box:
        return Setup.create(SERVER_KEY, table, game=game, team_sizes=sizes, ending=ending, reveal_pause=reveal_pause)
    return Setup.create(SERVER_KEY, table, game=game, team_sizes=sizes, language="en", words=WORDS, ending=ending,
                        reveal_pause=reveal_pause)


def make_game(sizes=(2, 2), box=False, table="table-1", ending="rulebook") -> State:
    return State.initial(make_setup(sizes, box, table, ending=ending))


def wrong(code) -> tuple[int, ...]:
    """Some code other than `code`."""
    return next(c for c in CODES if c != code)


def give_moves(state: State, team: str, clues=("alpha", "beta", "gamma")) -> list:
    """The team's encryptor looks at the code and gives clues (on their phone, else on the shared screen)."""
    encryptor = state.encryptor(team)
    seat = encryptor if state.roster(team)[encryptor - 1].player is not None else None
    return [ShowCode(team, seat), GiveClues(team, clues, seat)]


def decode_moves(state: State, team: str, *, own_right=True, intercepted=False) -> list:
    """Both guesses on `team`'s code this round: the interception (from round 2) first, then its own."""
    code = state.current.of(team).code
    rival = "black" if team == "white" else "white"
    guesses = [Guess(rival, team, code if intercepted else wrong(code))] if state.round > 1 else []
    return guesses + [Guess(team, team, code if own_right else wrong(code))]


def give(state: State, team: str, clues=("alpha", "beta", "gamma")) -> State:
    """The state after give_moves."""
    for move in give_moves(state, team, clues):
        state = state.apply(move)
    return state


def decode(state: State, team: str, *, own_right=True, intercepted=False) -> State:
    """The state after decode_moves."""
    for move in decode_moves(state, team, own_right=own_right, intercepted=intercepted):
        state = state.apply(move)
    return state


def play_round(state: State, white=(True, False), black=(True, False), clues=None) -> State:
    """A whole round: each pair is (the team decodes its own code, the other team intercepts it)."""
    for team in ("white", "black"):
        state = give(state, team, clues or tuple(f"{team}-{state.round}-{n}" for n in (1, 2, 3)))
    for team, (own_right, intercepted) in (("white", white), ("black", black)):
        state = decode(state, team, own_right=own_right, intercepted=intercepted)
    return state


def expected_tokens(transmission: Transmission) -> tuple[int, int]:
    """(interception tokens to the other team, miscommunication tokens to this team) for a revealed code."""
    intercepted = transmission.round >= 2 and transmission.interception_guess == transmission.code
    return int(intercepted), int(transmission.own_guess != transmission.code)


def expected_end(tokens: dict, round_number: int, ending: str = "rulebook") -> tuple | None:
    """How a round ends with these token totals (team -> (interceptions, miscommunications)), from the rules;
    `ending` is the table's reading of the end of round 8 (the rulebook's points first, or the short one).

    ("win", team, reason), ("points", team), ("tiebreak", cause), or None when play goes on.
    """
    (white_i, white_m), (black_i, black_m) = tokens["white"], tokens["black"]
    white_ahead = white_i >= 2 or black_m >= 2
    black_ahead = black_i >= 2 or white_m >= 2
    if white_ahead and black_ahead:
        white_points, black_points = white_i - white_m, black_i - black_m
        if white_points == black_points:
            return ("tiebreak", "score")
        return ("points", "white" if white_points > black_points else "black")
    if white_ahead or black_ahead:
        winner = "white" if white_ahead else "black"
        own_i = white_i if white_ahead else black_i
        their_m = black_m if white_ahead else white_m
        if own_i >= 2 and their_m >= 2:
            return ("win", winner, "interceptions_and_miscommunications")
        return ("win", winner, "interceptions" if own_i >= 2 else "miscommunications")
    if round_number == 8 and ending == "short":
        return ("tiebreak", "rounds")
    if round_number == 8:
        white_points, black_points = white_i - white_m, black_i - black_m
        if white_points == black_points:
            return ("tiebreak", "rounds_score")
        return ("points", "white" if white_points > black_points else "black")
    return None
