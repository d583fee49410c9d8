"""Random Decrypto games, checked after every move against the rules restated in tests/decrypto_tools.py.

A random table (team sizes 2-4 a side, fixed up front or picked by phones, site words or box cards) plays
until the game ends: mostly moves some screen is offered, filled with right or wrong guesses at rates drawn
per game, and now and then an arbitrary move, which must either be refused with a known reason or obey the
rules like any other. Views are checked by non-interference: changing every secret a viewer may not see must
not change a byte of what that viewer is shown.
"""

from __future__ import annotations

import json
import random
import unicodedata
from collections import Counter
from dataclasses import dataclass, field, replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.decrypto import (
    CODES,
    TABLE,
    TEAMS,
    AcceptKeyword,
    CountKeywords,
    GiveClues,
    Guess,
    GuessKeywords,
    IllegalMove,
    Join,
    Leave,
    Move,
    NextRound,
    Seat,
    ShowCode,
    Start,
    State,
    derive_secret,
    draw_code,
    legal_moves,
    view,
)
from companion.decrypto.game import KeywordGuesses
from companion.decrypto.rng import SecretStream
from companion.decrypto.text import ILLEGAL_MOVES
from tests.helpers import how_many
from tests.helpers.decrypto import SERVER_KEY, expected_end, expected_tokens, make_setup

CLUE_WORDS = ("sun", "Sun", "moon", "river", "hat", "ＨＡＴ", "insect", "  horror ", "Mexico", "salt")
STEP_LIMIT = 400
PINNED_DRAWS = [363, 545, 42, 241, 268]
# What people type into a move: a screen offers the move, the phone fills these in.
TYPED = {"clues", "code", "words", "right"}


@dataclass
class Table:
    """One random game being played, with what the checks need to remember."""

    rng: random.Random
    state: State
    right_rate: float
    interception_rate: float
    thorough: bool
    moves: list = field(default_factory=list)
    refusals: Counter = field(default_factory=Counter)
    roster_changed: set = field(default_factory=set)
    first_round_sizes: dict = field(default_factory=dict)


def start_table(rng: random.Random, thorough: bool) -> Table:
    sizes = (rng.randint(2, 4), rng.randint(2, 4))
    phones_pick = rng.random() < 0.4
    setup = make_setup(None if phones_pick else sizes, box=rng.random() < 0.3, table=f"t{rng.getrandbits(48)}",
                       ending=rng.choice(["rulebook", "short"]), reveal_pause=rng.random() < 0.5)
    table = Table(rng, State.initial(setup), rng.choice([1.0, 0.85, 0.6]), rng.choice([0.0, 0.2, 0.5]), thorough)
    if phones_pick:
        players = [f"p{i}" for i in range(sum(sizes))]
        for player, team in zip(players, ["white"] * sizes[0] + ["black"] * sizes[1]):
            play(table, Join(player, rng.choice(TEAMS) if rng.random() < 0.2 else team, name=player.upper()))
        while table.state.phase == "lobby":
            short = [t for t in TEAMS if len(table.state.roster(t)) < 2]
            if short:
                play(table, Join(f"extra{rng.getrandbits(32)}", short[0]))
            play(table, Start())
    else:
        for number in range(1, sizes[0] + 1):
            if rng.random() < 0.3:
                play(table, Join(f"w{number}", "white", seat=number))
    table.first_round_sizes = {team: len(table.state.roster(team)) for team in TEAMS}
    return table


def offered_action(table: Table) -> dict:
    """An action some screen is offered now: the table plays seats without a phone, phones their own seats."""
    actors = [TABLE] + [Seat(t, n) for t in TEAMS for n, m in enumerate(table.state.roster(t), 1) if m.player]
    table.rng.shuffle(actors)
    return next(table.rng.choice(offered) for actor in actors if (offered := offers(table.state, actor)))


def offers(state: State, actor) -> list[dict]:
    """What an actor's screen offers: its legal moves as JSON without what people type, each once."""
    found = []
    for move in legal_moves(state, actor):
        offer = {k: v for k, v in move.to_json().items() if k not in TYPED}
        if offer not in found:
            found.append(offer)
    return found


def scripted_action(table: Table) -> dict:
    """The next action as a table plays it, found without asking the engine what is legal (the fast way)."""
    rng, state = table.rng, table.state
    if state.phase == "tiebreak":
        team = rng.choice([t for t in TEAMS if state.tiebreak.of(t) is None])
        kind = "count_keywords" if state.setup.keywords is None else "guess_keywords"
        return {"action": kind, "team": team, "seat": None}
    if state.phase == "reveal":
        team = rng.choice([None, *(t for t in TEAMS if t not in state.rounds[-1].ready)])
        seats = [n for n, m in enumerate(state.roster(team), 1) if m.player] if team else []
        return {"action": "next_round", "team": team, "seat": rng.choice(seats) if seats else None}
    current = state.current
    turn = current.of(state.turn)
    unprepared = [t for t in current.transmissions if not t.given]
    if unprepared and (not turn.given or rng.random() < 0.3):
        t = rng.choice(unprepared)
        seat = t.encryptor if state.roster(t.team)[t.encryptor - 1].player else None
        return {"action": "give_clues" if t.shown else "show_code", "team": t.team, "seat": seat}
    guessers = [turn.team] if turn.own_guess is None else []
    if turn.interceptable and turn.interception_guess is None:
        guessers.append("black" if turn.team == "white" else "white")
    return {"action": "guess", "team": rng.choice(guessers), "target": turn.team, "seat": None}


def progress_move(table: Table, action: dict):
    """The move for an action, filled with a right or wrong answer at the game's rates."""
    rng, state = table.rng, table.state
    kind, team, seat = action["action"], action.get("team"), action.get("seat")
    if kind == "start":
        return Start()
    if kind == "show_code":
        return ShowCode(team, seat)
    if kind == "give_clues":
        clues = None if rng.random() < 0.3 else tuple(rng.choice(CLUE_WORDS) for _ in range(3))
        return GiveClues(team, clues, seat)
    if kind == "guess":
        code = state.current.of(action["target"]).code
        rate = table.right_rate if team == action["target"] else table.interception_rate
        guess = code if rng.random() < rate else rng.choice([c for c in CODES if c != code])
        return Guess(team, action["target"], guess, seat)
    if kind == "guess_keywords":
        keywords = state.setup.keywords_of("black" if team == "white" else "white")
        words = tuple(word.upper() if rng.random() < 0.5 else rng.choice(["", "nope"]) for word in keywords)
        return GuessKeywords(team, words, seat)
    if kind == "accept_keyword":
        return AcceptKeyword(team, action["number"])
    if kind == "next_round":
        return NextRound(team, seat)
    return CountKeywords(team, rng.randint(0, 4), seat)


def arbitrary_move(rng: random.Random):
    """Any move at all: often refused, sometimes legal by chance."""
    team, target = rng.choice(TEAMS), rng.choice(TEAMS)
    seat = rng.choice([None, 1, 2, 3, 4, 5])
    code = rng.choice([rng.choice(CODES), (1, 1, 2), (0, 1, 2), (1, 2)])
    return rng.choice([
        Join(f"late{rng.getrandbits(8)}", team),
        Leave(f"w{rng.randint(1, 4)}"),
        Start(),
        ShowCode(team, seat),
        GiveClues(team, rng.choice([None, ("a", "b", ""), ("x", "y", "z")]), seat),
        Guess(team, target, code, seat),
        GuessKeywords(team, ("a", "b", "c", "d"), seat),
        CountKeywords(team, rng.randint(-1, 5), seat),
        AcceptKeyword(team, rng.randint(1, 4), seat),
        NextRound(team, seat),
        NextRound(),
    ])


def play(table: Table, move) -> None:
    """Try a move; check a refusal's reason, or check the new state against the rules."""
    before = table.state
    try:
        after = before.apply(move)
    except IllegalMove as refusal:
        assert refusal.reason in ILLEGAL_MOVES and str(refusal)
        table.refusals[refusal.reason] += 1
        return
    if table.thorough:
        assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move
    check_transition(table, before, move, after)
    if isinstance(move, (Join, Leave)) and after.phase == "playing":
        table.roster_changed |= {t for t in TEAMS if len(after.roster(t)) != len(before.roster(t))}
    table.state = after
    table.moves.append(move)


def tokens(state: State) -> dict:
    return {team: (state.interceptions(team), state.miscommunications(team)) for team in TEAMS}


def normalized(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def check_transition(table: Table, before: State, move, after: State) -> None:
    # A round's reveal comes between two rounds: it leads back to "playing", never to the lobby.
    order = {"lobby": 0, "playing": 1, "reveal": 1, "tiebreak": 2, "over": 3}
    assert order[after.phase] >= order[before.phase]
    for r in after.rounds[len(before.rounds):]:  # a new round: its codes, drawn from the game's secret
        for transmission in r.transmissions:
            assert transmission.code in CODES
            assert transmission.code == draw_code(after.setup.secret, r.number, transmission.team)
    assert all(t.interception_guess is None for r in after.rounds[:1] for t in r.transmissions)
    assert len(after.rounds) <= 8

    revealed = None
    if isinstance(move, Guess):
        transmission = after.rounds[before.round - 1].of(move.target)
        if transmission.revealed:
            revealed = transmission
    # Tokens change only when a code is revealed, and exactly as the rules say.
    expected = dict(tokens(before))
    if revealed is not None:
        intercepted, missed = expected_tokens(revealed)
        rival = "black" if revealed.team == "white" else "white"
        expected[rival] = (expected[rival][0] + intercepted, expected[rival][1])
        expected[revealed.team] = (expected[revealed.team][0], expected[revealed.team][1] + missed)
    assert tokens(after) == expected

    round_over = revealed is not None and revealed.team == "black"
    if round_over:
        check_round_end(table, before, after)
    elif isinstance(move, NextRound):
        check_next_round(table, before, move, after)
    elif before.phase == after.phase == "playing" or isinstance(move, Start):
        assert after.round == max(before.round, 1) and after.outcome is None
    if isinstance(move, (GuessKeywords, CountKeywords)):
        check_keyword_answer(before, move, after)
    if isinstance(move, AcceptKeyword):
        assert after.tiebreak.of(move.team).right == before.tiebreak.of(move.team).right + 1
        assert move.number in after.tiebreak.of(move.team).accepted


def check_next_round(table: Table, before: State, move, after: State) -> None:
    """Next round after a reveal: a team is ready, and the round starts once both are (or the table says so)."""
    assert before.phase == "reveal"
    ready = set(before.rounds[-1].ready) | {move.team}
    if move.team is None or ready == set(TEAMS):
        check_new_round(table, before, after)
    else:
        assert after.phase == "reveal" and set(after.rounds[-1].ready) == ready and after.round == before.round


def check_new_round(table: Table, before: State, after: State) -> None:
    """The next round has begun: new encryptors in turn, nothing shown or given yet."""
    assert after.phase == "playing" and after.round == before.round + 1
    for team in TEAMS:
        size = len(after.roster(team))
        assert after.encryptor(team) == before.rounds[-1].of(team).encryptor % size + 1
        if team not in table.roster_changed:
            # Each player encrypts in turn: seat 1, 2, ... and round again.
            assert after.encryptor(team) == (after.round - 1) % table.first_round_sizes[team] + 1
        assert not after.current.of(team).shown and not after.current.of(team).given


def check_round_end(table: Table, before: State, after: State) -> None:
    end = expected_end(tokens(after), before.round, before.setup.ending)
    if end is None and before.setup.reveal_pause:
        assert after.phase == "reveal" and after.round == before.round and after.rounds[-1].ready == ()
        assert view(after, TABLE).reveal["round"] == before.round
    elif end is None:
        check_new_round(table, before, after)
    elif end[0] == "tiebreak":
        assert after.phase == "tiebreak" and after.tiebreak.cause == end[1] and after.round == before.round
    elif end[0] == "points":
        points = {t: after.interceptions(t) - after.miscommunications(t) for t in TEAMS}
        assert (after.outcome.winner, after.outcome.reason) == (end[1], "score")
        assert (after.outcome.white, after.outcome.black) == (points["white"], points["black"])
    else:
        assert (after.outcome.winner, after.outcome.reason) == (end[1], end[2])


def check_keyword_answer(before: State, move, after: State) -> None:
    assert before.phase == "tiebreak"
    if isinstance(move, GuessKeywords):
        keywords = before.setup.keywords_of("black" if move.team == "white" else "white")
        right = sum(normalized(w) == normalized(k) for w, k in zip(move.words, keywords))
    else:
        right = move.right
    assert after.tiebreak.of(move.team).right == right
    answers = [after.tiebreak.of(t) for t in TEAMS]
    if None in answers:
        assert after.phase == "tiebreak"
        return
    white, black = (a.right for a in answers)
    winner = "white" if white > black else "black" if black > white else None
    assert (after.outcome.winner, after.outcome.reason, after.outcome.white, after.outcome.black) == (
        winner, "keywords", white, black
    )


def play_game(rng: random.Random, thorough: bool) -> Table:
    """A whole random game; thorough: moves from the screens' offers, views and offers checked after each."""
    table = start_table(rng, thorough)
    for _ in range(STEP_LIMIT):
        if table.state.is_game_over():
            break
        if rng.random() < 0.15:
            move = arbitrary_move(rng)
            if thorough:
                check_offer_matches_legality(table.state, move)
                check_legal_moves(table.state, move, rng)
        else:
            move = progress_move(table, offered_action(table) if thorough else scripted_action(table))
        play(table, move)
        if thorough:
            check_no_leaks(table.state, rng)
    assert table.state.is_game_over(), "a game always ends"
    assert State.replay(table.state.setup, table.moves) == table.state
    return table


def check_offer_matches_legality(state: State, move) -> None:
    """A well-formed move is legal exactly when its actor's screen offers it."""
    if isinstance(move, (Join, Leave)):
        return
    well_formed = not (
        (isinstance(move, GiveClues) and move.clues is not None and not all(c.strip() for c in move.clues))
        or (isinstance(move, Guess) and move.code not in CODES)
        or (isinstance(move, CountKeywords) and not 0 <= move.right <= 4)
    )
    if well_formed:
        seat = getattr(move, "seat", None)
        actor = TABLE if seat is None else Seat(move.team, seat)
        template = {k: v for k, v in move.to_json().items() if k not in TYPED}
        offered = template in offers(state, actor)
        assert offered == state.is_legal(move), f"{move} is {'not ' * offered}legal but offered={offered}"


def check_legal_moves(state: State, move, rng: random.Random) -> None:
    """legal_moves lists what apply accepts: a few listed moves are played, and a move it leaves out is refused
    unless it differs from a listed one in typed text only (clues or keyword guesses within the limits)."""
    if isinstance(move, (Join, Leave)):
        return
    seat = getattr(move, "seat", None)
    actor = TABLE if seat is None else Seat(move.team, seat)
    listed = legal_moves(state, actor)
    for sample in rng.sample(listed, min(3, len(listed))):
        state.apply(sample)  # IllegalMove here fails the test
    typed_variant = (
        isinstance(move, GiveClues) and move.clues is not None and GiveClues(move.team, None, seat) in listed
        or isinstance(move, GuessKeywords) and GuessKeywords(move.team, ("",) * 4, seat) in listed
    )
    if move in listed:
        assert state.is_legal(move), f"{move} is listed but refused"
    elif not typed_variant:
        assert not state.is_legal(move), f"{move} is legal but not listed"


# Views.


def viewers(state: State) -> list:
    seats = [Seat(t, n) for t in TEAMS for n in range(1, len(state.roster(t)) + 1)]
    return [TABLE, None, *seats]


def disguised(state: State, viewer) -> State:
    """The state with every secret `viewer` may not see changed to something else."""
    seat = viewer if isinstance(viewer, Seat) else None
    over = state.phase == "over"
    setup = replace(state.setup, secret=derive_secret(b"another key", "elsewhere", 9))
    if setup.keywords is not None and not over:
        keywords = []
        for team, words in zip(TEAMS, setup.keywords):
            own = seat is not None and seat.team == team and state.phase != "lobby"
            keywords.append(words if own else tuple(f"hidden-{team}-{i}" for i in range(4)))
        setup = replace(setup, keywords=tuple(keywords))
    rounds = []
    for r in state.rounds:
        transmissions = []
        for t in r.transmissions:
            if not t.revealed:
                mine = seat == Seat(t.team, t.encryptor) and t.shown and state.phase == "playing"
                other = lambda code: None if code is None else CODES[(CODES.index(code) + 7) % 24]  # noqa: E731
                t = replace(
                    t,
                    code=t.code if mine else other(t.code),
                    # A team sees the guesses it sent itself: its own code's, and its interception of the other's.
                    own_guess=t.own_guess if seat is not None and seat.team == t.team else other(t.own_guess),
                    interception_guess=(t.interception_guess if seat is not None and seat.team != t.team
                                        else other(t.interception_guess)),
                )
            transmissions.append(t)
        rounds.append(replace(r, transmissions=tuple(transmissions)))
    tiebreak = state.tiebreak
    if tiebreak is not None and not over:
        tiebreak = replace(tiebreak, answers=tuple(
            None if a is None else KeywordGuesses(None if a.words is None else ("?",) * 4, (a.right + 1) % 5)
            for a in tiebreak.answers
        ))
    return replace(state, setup=setup, rounds=tuple(rounds), tiebreak=tiebreak)


def check_no_leaks(state: State, rng: random.Random) -> None:
    every = viewers(state)
    plain = rng.choice(every)
    for viewer in every:
        shown = view(state, viewer)
        if viewer == plain:  # JSON has no tuples: what goes out is what the test compares
            assert json.loads(json.dumps(shown.to_json())) == shown.to_json()
        assert view(disguised(state, viewer), viewer) == shown, f"the view for {viewer} shows a secret"
        seat = viewer if isinstance(viewer, Seat) else None
        for team in TEAMS:
            keywords = shown.teams[team]["keywords"]
            allowed = state.phase == "over" or (seat is not None and seat.team == team and state.phase != "lobby")
            assert keywords is None or allowed
        if shown.my_code is not None:
            assert seat == Seat(seat.team, state.encryptor(seat.team)) and state.current.of(seat.team).shown


# The tests.


@settings(
    max_examples=how_many(15, 400),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example, HealthCheck.data_too_large],
)
@pytest.mark.slow
@given(st.randoms(use_true_random=True))
def test_random_games_follow_the_rules_and_views_never_leak(rng):
    play_game(rng, thorough=True)


@pytest.mark.slow
def test_hundreds_of_random_games_follow_the_rules_and_reach_every_ending():
    endings, causes, refusals = Counter(), Counter(), Counter()
    lengths = Counter()
    for seed in range(how_many(400, 5000)):
        table = play_game(random.Random(seed), thorough=False)
        outcome = table.state.outcome
        endings[(outcome.reason, outcome.winner is None)] += 1
        if table.state.tiebreak is not None:
            causes[table.state.tiebreak.cause] += 1
        refusals.update(table.refusals)
        lengths[table.state.round] += 1
    for reason in ("interceptions", "miscommunications", "interceptions_and_miscommunications", "score"):
        assert endings[(reason, False)] > 0, f"no game ended by {reason}"
    assert endings[("keywords", False)] > 0 and endings[("keywords", True)] > 0
    assert causes["rounds"] > 0 and causes["score"] > 0 and causes["rounds_score"] > 0
    assert lengths[8] > 0 and lengths[2] > 0
    assert set(refusals) >= {
        "no_interception_in_round_one", "out_of_turn", "already_guessed", "malformed_code", "not_the_encryptor",
        "game_over" if False else "clues_not_given", "code_already_shown", "tiebreak_under_way", "no_tiebreak",
    }


def test_codes_are_uniform_over_the_twenty_four():
    counts = Counter()
    for table in range(250):
        secret = derive_secret(SERVER_KEY, f"uniform-{table}", 1)
        for round_number in range(1, 9):
            for team in TEAMS:
                counts[draw_code(secret, round_number, team)] += 1
    draws = sum(counts.values())
    expected = draws / len(CODES)
    chi_square = sum((counts[code] - expected) ** 2 / expected for code in CODES)
    # 23 degrees of freedom: 80 is far beyond any plausible value (p < 1e-7), yet a biased draw fails it.
    assert set(counts) == set(CODES) and chi_square < 80


def test_the_secret_stream_is_pinned_and_keyed():
    stream = SecretStream(b"0123456789abcdef", "pinned")
    # Stored games replay their codes from this stream: these numbers must never change.
    assert [stream.below(1000) for _ in range(5)] == PINNED_DRAWS
    assert SecretStream(b"0123456789abcdeF", "pinned").below(1000) != PINNED_DRAWS[0]
    assert sorted(SecretStream(b"k" * 16, "x").shuffled(range(30))) == list(range(30))
