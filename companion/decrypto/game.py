"""A game of Decrypto as an immutable state, and the moves folded into it (docs/decrypto-rules.md).

In the manner of python-chess, as in Cryptid's refereed play: State.initial(setup), state.apply(move) -> a new
state (or IllegalMove, with a stable reason), State.replay(setup, moves); legal_moves(state, seat) lists what a
seat or the table may do now. What a screen may see of a state is view.view's business.

Procedure (version 1, docs/decrypto-rules.md section 5): a game's secret is HMAC-BLAKE2b(server key,
NAMESPACE|VERSION|table id|game number), so codes and keywords are reproducible on the server and unguessable from
anything public. The code of a team in a round is CODES[i], i drawn uniformly from SecretStream(secret, NAMESPACE,
VERSION, "code", round, team): a fresh draw each round, so a code can come back. Keywords are dealt from
SecretStream(secret, NAMESPACE, VERSION, "keywords").

Rules (sections 6-10): each round both encryptors may look at their codes and give clues at once; the codes are
then decoded White's first. On each code the other team guesses from round 2 on (a right guess is an interception
token) and the team itself guesses (a wrong guess is a miscommunication token); guesses stay sealed until both
are in, then the code is revealed. A table that pauses at the round's end (Setup.reveal_pause) then shows the
round until both teams, or the shared screen, press Next round (NextRound). At the end of a round, a team with two interceptions wins and a team with two
miscommunications loses. When those point to both teams, interceptions minus miscommunications decides; a tie
there, or eight rounds without a winner, goes to the keyword tiebreak: each team guesses the other team's
keywords and the team with more right wins, else the game is a draw.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import reduce

from .keywords import deal_keywords, load_words
from .matching import keyword_matches
from .moves import (
    AcceptKeyword,
    CountKeywords,
    GiveClues,
    Guess,
    GuessKeywords,
    Join,
    Leave,
    Move,
    NextRound,
    ShowCode,
    Start,
)
from .rng import SecretStream
from .rules import (
    AFTER_EQUAL_POINTS,
    AFTER_ROUNDS,
    AFTER_ROUNDS_EQUAL,
    BLACK,
    CLUE_LIMIT,
    CODES,
    ENDINGS,
    KEYWORDS,
    LOBBY,
    MAX_TEAM,
    MIN_TEAM,
    NAME_LIMIT,
    OVER,
    PLAYING,
    REVEAL,
    ROUNDS,
    RULEBOOK,
    TABLE,
    TEAMS,
    TIEBREAK,
    TOKENS_TO_END,
    WHITE,
    Code,
    IllegalMove,
    Seat,
    check_code,
    has_control_characters,
    normalize_text,
    other_team,
    tidy_text,
)
from .text import (
    Translate,
    keyword_clue_text,
    outcome_text,
    repeated_clue_text,
    untranslated,
)

NAMESPACE = "decrypto-companion"
VERSION = 1
# Where a team's entry sits in every per-team pair (White's first).
TEAM_INDEX = {team: index for index, team in enumerate(TEAMS)}


def derive_secret(server_key: bytes, table: str, game: int) -> bytes:
    """The secret every random choice of one game at one table comes from."""
    message = "\x1f".join((NAMESPACE, str(VERSION), table, str(game))).encode()
    return hmac.digest(server_key, message, hashlib.blake2b)


def draw_code(secret: bytes, round: int, team: str) -> Code:
    """A team's code in a round: uniform over the 24 codes, independent of every other round."""
    return CODES[SecretStream(secret, NAMESPACE, VERSION, "code", round, team).below(len(CODES))]


@dataclass(frozen=True)
class Setup:
    """What a table chose for one game: teams, keyword source, and the game's secret.

    `team_sizes` (White, Black) means the table counted its players up front and the game starts at once;
    None means phones pick their teams and someone starts the game. `keywords` (White's four, Black's four)
    come from the site's list in `language`; None means the table uses the keyword cards from the box.
    """

    table: str
    game: int
    secret: bytes = field(repr=False)
    team_sizes: tuple[int, int] | None = None
    language: str | None = None
    keywords: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    ending: str = RULEBOOK
    # Carried over from the game before: who sat where (player id or None, name), and whose turn it is to
    # encrypt first in each team, so the order goes on round the table instead of starting at seat 1 again.
    seated: tuple[tuple[tuple[str | None, str], ...], tuple[tuple[str | None, str], ...]] | None = None
    first_encryptors: tuple[int, int] = (1, 1)
    # Whether each round ends on its reveal until the teams are ready (the site's tables since issue 30); games
    # stored before it went straight on to the next round, and still replay so.
    reveal_pause: bool = False

    def __post_init__(self) -> None:
        if self.ending not in ENDINGS:
            raise ValueError(f"ending {self.ending!r} is not one of {ENDINGS}")
        if self.team_sizes is not None and (
            len(self.team_sizes) != 2 or not all(MIN_TEAM <= size <= MAX_TEAM for size in self.team_sizes)
        ):
            raise ValueError(f"team sizes {self.team_sizes!r} are not two sizes of {MIN_TEAM}-{MAX_TEAM}")
        if (self.keywords is None) != (self.language is None):
            raise ValueError("site keywords come with their language; the box's cards with neither")
        if self.keywords is not None and [len(words) for words in self.keywords] != [KEYWORDS, KEYWORDS]:
            raise ValueError("each team has four keywords")

    @classmethod
    def create(
        cls,
        server_key: bytes,
        table: str,
        *,
        game: int = 1,
        team_sizes: tuple[int, int] | None = None,
        language: str | None = None,
        used: Iterable[str] = (),
        recent: Iterable[str] = (),
        words: Sequence[str] | None = None,
        ending: str = RULEBOOK,
        seated=None,
        first_encryptors: tuple[int, int] = (1, 1),
        reveal_pause: bool = False,
    ) -> Setup:
        """A new game's setup; with a language, keywords are dealt from `words` (default: the site's list)."""
        secret = derive_secret(server_key, table, game)
        keywords = None
        if language is not None:
            source = load_words(language) if words is None else words
            stream = SecretStream(secret, NAMESPACE, VERSION, "keywords")
            keywords = deal_keywords(source, frozenset(used), stream, recent=frozenset(recent))
        return cls(table, game, secret, team_sizes, language, keywords, ending, seated, first_encryptors, reveal_pause)

    def keywords_of(self, team: str) -> tuple[str, ...] | None:
        return None if self.keywords is None else self.keywords[TEAM_INDEX[team]]

    def to_json(self) -> dict:
        """Everything but the secret, which the server derives again from its key (Setup.from_json)."""
        return {
            "table": self.table,
            "game": self.game,
            "team_sizes": None if self.team_sizes is None else list(self.team_sizes),
            "language": self.language,
            "keywords": None if self.keywords is None else [list(words) for words in self.keywords],
            "ending": self.ending,
            "seated": None if self.seated is None else [[list(member) for member in team] for team in self.seated],
            "first_encryptors": list(self.first_encryptors),
            "reveal_pause": self.reveal_pause,
        }

    @classmethod
    def from_json(cls, data: dict, server_key: bytes) -> Setup:
        """The setup `to_json` wrote, with its secret derived again from the server's key."""
        sizes, keywords = data["team_sizes"], data["keywords"]
        return cls(
            data["table"],
            data["game"],
            derive_secret(server_key, data["table"], data["game"]),
            None if sizes is None else tuple(sizes),
            data["language"],
            None if keywords is None else tuple(tuple(words) for words in keywords),
            # Setups stored before these fields existed read as the rulebook's ending, nobody seated, seat 1 first.
            data.get("ending", RULEBOOK),
            None if data.get("seated") is None else tuple(tuple(tuple(m) for m in team) for team in data["seated"]),
            tuple(data.get("first_encryptors", (1, 1))),
            data.get("reveal_pause", False),
        )


@dataclass(frozen=True)
class Member:
    """Who sits in a seat: a phone's player id and name, or nobody's phone (the table plays the seat)."""

    player: str | None = None
    name: str = ""


@dataclass(frozen=True)
class Transmission:
    """One team's code in one round: who encrypts it, the clues, both guesses and, from them, the tokens."""

    team: str
    round: int
    encryptor: int
    code: Code = field(repr=False)
    shown: bool = False
    given: bool = False
    clues: tuple[str, ...] | None = None
    own_guess: Code | None = None
    interception_guess: Code | None = None

    @property
    def interceptable(self) -> bool:
        """Whether the other team guesses this code too: from round 2 on."""
        return self.round > 1

    @property
    def revealed(self) -> bool:
        """Every guess is in, so the code is shown to all and scored."""
        return self.own_guess is not None and (self.interception_guess is not None or not self.interceptable)

    @property
    def intercepted(self) -> bool:
        return self.revealed and self.interception_guess == self.code

    @property
    def miscommunicated(self) -> bool:
        return self.revealed and self.own_guess != self.code


@dataclass(frozen=True)
class Round:
    """Both teams' codes in one round, White's first."""

    number: int
    transmissions: tuple[Transmission, Transmission]
    ready: tuple[str, ...] = ()  # the teams that pressed Next round after the reveal


    def of(self, team: str) -> Transmission:
        return self.transmissions[TEAM_INDEX[team]]

    @property
    def turn(self) -> str | None:
        """The team whose code is being decoded: White's first, then Black's; None once both are revealed."""
        for transmission in self.transmissions:
            if not transmission.revealed:
                return transmission.team
        return None


@dataclass(frozen=True)
class KeywordGuesses:
    """A team's tiebreak answer: its four guesses (None with the box's cards) and how many were right."""

    words: tuple[str, ...] | None
    right: int
    matched: tuple[bool, ...] | None = None  # per guess: the site matched it to the keyword
    accepted: tuple[int, ...] = ()  # keyword numbers the table counted although the site did not match them


@dataclass(frozen=True)
class Tiebreak:
    """The keyword tiebreak: why it happens (AFTER_ROUNDS or AFTER_EQUAL_POINTS) and each team's answer."""

    cause: str
    answers: tuple[KeywordGuesses | None, KeywordGuesses | None] = (None, None)

    def of(self, team: str) -> KeywordGuesses | None:
        return self.answers[TEAM_INDEX[team]]


@dataclass(frozen=True)
class Outcome:
    """How the game ended. `white` and `black` are what the reason compared: points or keywords right."""

    winner: str | None
    reason: str
    white: int = 0
    black: int = 0

    def text(self, gettext: Translate = untranslated) -> str:
        return outcome_text(self.reason, self.winner, self.white, self.black, gettext)


@dataclass(frozen=True)
class RepeatedClue:
    """A typed clue the team gave before: in an earlier round, or as clue `other` of the same three."""

    position: int
    clue: str
    round: int
    other: int | None = None

    def text(self, gettext: Translate = untranslated) -> str:
        return repeated_clue_text(self.position, self.clue, self.round, self.other, gettext)


@dataclass(frozen=True)
class KeywordClue:
    """A typed clue that is one of the team's own keywords (a warning: the table may still allow it)."""

    position: int
    clue: str

    def text(self, gettext: Translate = untranslated) -> str:
        return keyword_clue_text(self.position, self.clue, gettext)


@dataclass(frozen=True)
class State:
    """Everything about one game; `apply` returns the state after a move and never changes this one."""

    setup: Setup
    teams: tuple[tuple[Member, ...], tuple[Member, ...]]
    rounds: tuple[Round, ...] = ()
    tiebreak: Tiebreak | None = None
    outcome: Outcome | None = None
    version: int = 0  # moves applied so far

    @classmethod
    def initial(cls, setup: Setup) -> State:
        """The state before the first move: a lobby when phones pick their teams, else round 1 with empty seats."""
        seated = None if setup.seated is None else tuple(tuple(Member(*m) for m in team) for team in setup.seated)
        if setup.team_sizes is None:
            return cls(setup, seated or ((), ()))
        if seated is None or tuple(len(team) for team in seated) != setup.team_sizes:
            seated = tuple(tuple(Member() for _ in range(size)) for size in setup.team_sizes)
        return cls(setup, seated)._begin_round()

    @classmethod
    def replay(cls, setup: Setup, moves: Iterable[Move]) -> State:
        """The state after playing stored moves in order; IllegalMove at the first illegal one."""
        return reduce(cls.apply, moves, cls.initial(setup))

    # Reading the state.

    @property
    def phase(self) -> str:
        if self.outcome is not None:
            return OVER
        if self.tiebreak is not None:
            return TIEBREAK
        if not self.rounds:
            return LOBBY
        return REVEAL if self.rounds[-1].turn is None else PLAYING

    @property
    def round(self) -> int:
        """The round being played, or the last one played; 0 before the start."""
        return len(self.rounds)

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.phase == PLAYING else None

    @property
    def turn(self) -> str | None:
        return self.current.turn if self.current else None

    def is_game_over(self) -> bool:
        return self.outcome is not None

    def roster(self, team: str) -> tuple[Member, ...]:
        return self.teams[TEAM_INDEX[team]]

    def seat_of(self, player: str) -> Seat | None:
        """Where a phone sits, or None when it has not joined a team."""
        for team, roster in zip(TEAMS, self.teams):
            for number, member in enumerate(roster, start=1):
                if member.player == player:
                    return Seat(team, number)
        return None

    def encryptor(self, team: str) -> int | None:
        """The seat number encrypting for a team this round."""
        return self.current.of(team).encryptor if self.current else None

    def interceptions(self, team: str) -> int:
        rival = other_team(team)
        return sum(r.of(rival).intercepted for r in self.rounds)

    def miscommunications(self, team: str) -> int:
        return sum(r.of(team).miscommunicated for r in self.rounds)

    def points(self, team: str) -> int:
        return self.interceptions(team) - self.miscommunications(team)

    def repeated_clues(self, team: str, clues: Sequence[str]) -> tuple[RepeatedClue, ...]:
        """Clues the team already gave this game (a warning to show, not a refusal)."""
        earlier: dict[str, int] = {}
        for r in self.rounds:
            transmission = r.of(team)
            for clue in transmission.clues or ():
                earlier.setdefault(normalize_text(clue), r.number)
        found = []
        for position, clue in enumerate(clues, start=1):
            key = normalize_text(clue)
            previous = [i for i, c in enumerate(clues[: position - 1], start=1) if normalize_text(c) == key]
            if key in earlier:
                found.append(RepeatedClue(position, tidy_text(clue), earlier[key]))
            elif previous:
                found.append(RepeatedClue(position, tidy_text(clue), self.round, previous[0]))
        return tuple(found)

    def keyword_clues(self, team: str, clues: Sequence[str]) -> tuple[KeywordClue, ...]:
        """Typed clues that name one of the team's own keywords (matched as keyword guesses are)."""
        keywords = self.setup.keywords_of(team) or ()
        return tuple(
            KeywordClue(position, tidy_text(clue))
            for position, clue in enumerate(clues, start=1)
            if any(keyword_matches(clue, keyword, self.setup.language) for keyword in keywords)
        )

    # Playing.

    def apply(self, move: Move) -> State:
        """The state after `move`; raises IllegalMove when the rules refuse it now."""
        # The table may still count a keyword guess after a tiebreak ended the game, which can change its outcome.
        if self.outcome is not None and not (isinstance(move, AcceptKeyword) and self.outcome.reason == "keywords"):
            raise IllegalMove("game_over")
        handler = _HANDLERS.get(type(move))
        if handler is None:
            raise TypeError(f"{move!r} is not a Decrypto move")
        return replace(handler(self, move), version=self.version + 1)

    def is_legal(self, move: Move) -> bool:
        try:
            self.apply(move)
        except IllegalMove:
            return False
        return True

    def joinable_teams(self) -> list[str]:
        """The teams a phone that has not joined yet may join now."""
        teams = []
        for team in TEAMS if self.outcome is None else ():
            try:
                self._seat_for_newcomer(team, None)
            except IllegalMove:
                continue
            teams.append(team)
        return teams

    def _join(self, move: Join) -> State:
        name = tidy_text(move.name)
        if len(name) > NAME_LIMIT:
            raise IllegalMove("name_too_long", limit=NAME_LIMIT)
        if has_control_characters(name):
            raise IllegalMove("control_characters")
        seat = self.seat_of(move.player)
        if seat is not None and seat.team == move.team:
            return self._with_member(seat, Member(move.player, name))
        if seat is not None and self.phase != LOBBY:
            raise IllegalMove("already_in_team")
        state = self._without(move.player) if seat is not None else self
        return state._with_member(state._seat_for_newcomer(move.team, move.seat), Member(move.player, name))

    def _seat_for_newcomer(self, team: str, number: int | None) -> Seat:
        """The seat a joining phone takes: the one it asks for, else the first free one, else a new one."""
        roster = self.roster(team)
        if number is not None:
            if number > len(roster):
                raise IllegalMove("no_such_seat", seat=number)
            if roster[number - 1].player is not None:
                raise IllegalMove("seat_taken", seat=number)
            return Seat(team, number)
        free = [n for n, member in enumerate(roster, start=1) if member.player is None]
        # Once the game has started a newcomer only takes a seat nobody's phone holds: teams keep their players.
        if not free and self.phase != LOBBY:
            raise IllegalMove("no_free_seat")
        if not free and len(roster) >= MAX_TEAM:
            raise IllegalMove("team_full", maximum=MAX_TEAM)
        return Seat(team, free[0] if free else len(roster) + 1)

    def _leave(self, move: Leave) -> State:
        seat = self.seat_of(move.player)
        if seat is None:
            raise IllegalMove("not_joined")
        return self._without(move.player)

    def _start(self, move: Start) -> State:
        if self.phase != LOBBY:
            raise IllegalMove("already_started")
        if any(len(roster) < MIN_TEAM for roster in self.teams):
            raise IllegalMove("team_too_small", minimum=MIN_TEAM)
        return self._begin_round()

    def _show_code(self, move: ShowCode) -> State:
        transmission = self._encryptor_transmission(move.team, move.seat)
        if transmission.shown:
            raise IllegalMove("code_already_shown")
        return self._with_transmission(replace(transmission, shown=True))

    def _give_clues(self, move: GiveClues) -> State:
        transmission = self._encryptor_transmission(move.team, move.seat)
        if transmission.given:
            raise IllegalMove("clues_already_given")
        if not transmission.shown:
            raise IllegalMove("code_not_shown")
        clues = None
        if move.clues is not None:
            clues = tuple(tidy_text(clue) for clue in move.clues)
            if not all(0 < len(clue) <= CLUE_LIMIT for clue in clues):
                raise IllegalMove("malformed_clues", limit=CLUE_LIMIT)
            if any(has_control_characters(clue) for clue in clues):
                raise IllegalMove("control_characters")
        return self._with_transmission(replace(transmission, given=True, clues=clues))

    def _guess(self, move: Guess) -> State:
        self._check_round_phase()
        self._check_seat(move.team, move.seat)
        transmission = self.current.of(move.target)
        intercepting = move.team != move.target
        if intercepting and not transmission.interceptable:
            raise IllegalMove("no_interception_in_round_one")
        if move.target != self.current.turn and not transmission.revealed:
            raise IllegalMove("out_of_turn")
        if not transmission.given:
            raise IllegalMove("clues_not_given")
        if not intercepting and move.seat == transmission.encryptor:
            raise IllegalMove("encryptor_cannot_guess")
        if transmission.revealed or (transmission.interception_guess if intercepting else transmission.own_guess):
            raise IllegalMove("already_guessed")
        code = check_code(move.code)
        guess = {"interception_guess": code} if intercepting else {"own_guess": code}
        state = self._with_transmission(replace(transmission, **guess))
        return state._end_round() if state.rounds[-1].turn is None else state

    def _guess_keywords(self, move: GuessKeywords) -> State:
        self._check_tiebreak_phase(move.team, move.seat)
        if self.setup.keywords is None:
            raise IllegalMove("box_keywords")
        words = tuple(tidy_text(word) for word in move.words)
        if not all(len(word) <= CLUE_LIMIT for word in words):
            raise IllegalMove("malformed_keyword_guesses", limit=CLUE_LIMIT)
        if any(has_control_characters(word) for word in words):
            raise IllegalMove("control_characters")
        keywords = self.setup.keywords_of(other_team(move.team))
        matched = tuple(keyword_matches(word, keyword, self.setup.language) for word, keyword in zip(words, keywords))
        return self._with_answer(move.team, KeywordGuesses(words, sum(matched), matched))

    def _accept_keyword(self, move: AcceptKeyword) -> State:
        if move.seat is not None:
            raise IllegalMove("table_only")
        if self.phase == LOBBY:
            raise IllegalMove("not_started")
        if self.tiebreak is None:
            raise IllegalMove("no_tiebreak")
        if self.outcome is None:  # the guesses are sealed until both teams answered
            raise IllegalMove("keyword_guesses_sealed")
        answer = self.tiebreak.of(move.team)
        if answer is None or answer.words is None or not answer.words[move.number - 1]:
            raise IllegalMove("no_guess_to_count")
        if answer.matched[move.number - 1] or move.number in answer.accepted:
            raise IllegalMove("guess_already_counted")
        counted = replace(answer, right=answer.right + 1, accepted=answer.accepted + (move.number,))
        return replace(self, outcome=None)._with_answer(move.team, counted)

    def _next_round(self, move: NextRound) -> State:
        if self.phase == LOBBY:
            raise IllegalMove("not_started")
        if self.phase == PLAYING:
            raise IllegalMove("not_revealed")
        if self.phase == TIEBREAK:
            raise IllegalMove("tiebreak_under_way")
        if move.team is None:  # the shared screen starts it for the whole table
            return self._begin_round()
        self._check_seat(move.team, move.seat)
        last = self.rounds[-1]
        if move.team in last.ready:
            raise IllegalMove("already_ready")
        ready = replace(last, ready=last.ready + (move.team,))
        state = replace(self, rounds=self.rounds[:-1] + (ready,))
        return state._begin_round() if set(ready.ready) == set(TEAMS) else state

    def _count_keywords(self, move: CountKeywords) -> State:
        self._check_tiebreak_phase(move.team, move.seat)
        if self.setup.keywords is not None:
            raise IllegalMove("site_keywords")
        if not 0 <= move.right <= KEYWORDS:
            raise IllegalMove("malformed_count")
        return self._with_answer(move.team, KeywordGuesses(None, move.right))

    # Checks shared by several moves.

    def _check_round_phase(self) -> None:
        if self.phase == LOBBY:
            raise IllegalMove("not_started")
        if self.phase == TIEBREAK:
            raise IllegalMove("tiebreak_under_way")
        if self.phase == REVEAL:
            raise IllegalMove("round_revealed")

    def _check_tiebreak_phase(self, team: str, seat: int | None) -> None:
        if self.phase == LOBBY:
            raise IllegalMove("not_started")
        if self.phase in (PLAYING, REVEAL):
            raise IllegalMove("no_tiebreak")
        self._check_seat(team, seat)
        if self.tiebreak.of(team) is not None:
            raise IllegalMove("keywords_already_guessed")

    def _check_seat(self, team: str, seat: int | None) -> None:
        if seat is not None and seat > len(self.roster(team)):
            raise IllegalMove("no_such_seat", seat=seat)

    def _encryptor_transmission(self, team: str, seat: int | None) -> Transmission:
        """The team's transmission this round, when `seat` (or the table) may act as its encryptor."""
        self._check_round_phase()
        self._check_seat(team, seat)
        transmission = self.current.of(team)
        if seat is None and self.roster(team)[transmission.encryptor - 1].player is not None:
            raise IllegalMove("seat_has_phone")
        if seat is not None and seat != transmission.encryptor:
            raise IllegalMove("not_the_encryptor")
        return transmission

    # Building the next state.

    def _with_member(self, seat: Seat, member: Member) -> State:
        index = TEAM_INDEX[seat.team]
        roster = list(self.teams[index])
        if seat.number > len(roster):
            roster.append(member)
        else:
            roster[seat.number - 1] = member
        teams = tuple(tuple(roster) if i == index else r for i, r in enumerate(self.teams))
        return replace(self, teams=teams)

    def _without(self, player: str) -> State:
        """Before the start a leaving player's seat goes; afterwards it stays, for the table to play."""
        seat = self.seat_of(player)
        if self.phase == LOBBY:
            teams = tuple(tuple(m for m in roster if m.player != player) for roster in self.teams)
            return replace(self, teams=teams)
        return self._with_member(seat, Member())

    def _with_transmission(self, transmission: Transmission) -> State:
        current = self.rounds[-1]
        pair = tuple(transmission if t.team == transmission.team else t for t in current.transmissions)
        return replace(self, rounds=self.rounds[:-1] + (replace(current, transmissions=pair),))

    def _with_answer(self, team: str, answer: KeywordGuesses) -> State:
        answers = tuple(answer if t == team else self.tiebreak.of(t) for t in TEAMS)
        state = replace(self, tiebreak=replace(self.tiebreak, answers=answers))
        if None in answers:
            return state
        white, black = (a.right for a in answers)
        winner = WHITE if white > black else BLACK if black > white else None
        return replace(state, outcome=Outcome(winner, "keywords", white, black))

    def _begin_round(self) -> State:
        number = len(self.rounds) + 1
        transmissions = []
        for team in TEAMS:
            if self.rounds:
                encryptor = self.rounds[-1].of(team).encryptor % len(self.roster(team)) + 1
            else:
                first = self.setup.first_encryptors[TEAM_INDEX[team]]
                encryptor = first if 1 <= first <= len(self.roster(team)) else 1
            transmissions.append(Transmission(team, number, encryptor, draw_code(self.setup.secret, number, team)))
        return replace(self, rounds=self.rounds + (Round(number, tuple(transmissions)),))

    def _end_round(self) -> State:
        """After both codes are revealed: the winner, a tiebreak, or the next round."""
        winning = {team for team in TEAMS if self.interceptions(team) >= TOKENS_TO_END}
        losing = {team for team in TEAMS if self.miscommunications(team) >= TOKENS_TO_END}
        claims = winning | {other_team(team) for team in losing}
        if len(claims) == 1:
            (winner,) = claims
            if winner in winning and other_team(winner) in losing:
                reason = "interceptions_and_miscommunications"
            else:
                reason = "interceptions" if winner in winning else "miscommunications"
            return replace(self, outcome=Outcome(winner, reason))
        if claims:
            white, black = self.points(WHITE), self.points(BLACK)
            if white != black:
                return replace(self, outcome=Outcome(WHITE if white > black else BLACK, "score", white, black))
            return replace(self, tiebreak=Tiebreak(AFTER_EQUAL_POINTS))
        if self.round == ROUNDS:
            if self.setup.ending != RULEBOOK:
                return replace(self, tiebreak=Tiebreak(AFTER_ROUNDS))
            white, black = self.points(WHITE), self.points(BLACK)
            if white != black:
                return replace(self, outcome=Outcome(WHITE if white > black else BLACK, "score", white, black))
            return replace(self, tiebreak=Tiebreak(AFTER_ROUNDS_EQUAL))
        # The round stays on its reveal (phase REVEAL) until NextRound, on a table that pauses there.
        return self if self.setup.reveal_pause else self._begin_round()


_HANDLERS = {
    Join: State._join,
    Leave: State._leave,
    Start: State._start,
    ShowCode: State._show_code,
    GiveClues: State._give_clues,
    Guess: State._guess,
    GuessKeywords: State._guess_keywords,
    CountKeywords: State._count_keywords,
    AcceptKeyword: State._accept_keyword,
    NextRound: State._next_round,
}


def legal_moves(state: State, seat: Seat | str) -> list[Move]:
    """The moves a seat, or the TABLE playing the seats without a phone, may make now.

    Every code of a guess and every count of a keyword tiebreak is listed; what people type (clues, keyword
    guesses) stands as clues said aloud and four empty guesses, and any typed text the limits accept is as legal.
    Joining and leaving belong to a phone rather than a seat, so they are not listed.
    """
    phase = state.phase
    # Only this phase's moves are tried: every other move is refused anyway.
    # Starting is the shared screen's: the host starts the game everyone sees (phones in the lobby wait for it).
    if phase == LOBBY:
        return [Start()] if seat == TABLE and state.is_legal(Start()) else []
    moves: list[Move] = []
    if phase == REVEAL and seat == TABLE:
        moves.append(NextRound())
    for team in TEAMS if seat == TABLE else (seat.team,):
        number = None if seat == TABLE else seat.number
        if phase == REVEAL and state.is_legal(ready := NextRound(team, number)):
            moves.append(ready)
        if phase == PLAYING:
            moves += [move for move in (ShowCode(team, number), GiveClues(team, None, number)) if state.is_legal(move)]
            for target in TEAMS:
                # The code is checked after every other rule, so one code decides for all 24.
                if state.is_legal(Guess(team, target, CODES[0], number)):
                    moves += [Guess(team, target, code, number) for code in CODES]
        if seat == TABLE and phase == OVER:
            moves += [move for n in range(1, KEYWORDS + 1) if state.is_legal(move := AcceptKeyword(team, n))]
        if phase == TIEBREAK:
            if state.is_legal(GuessKeywords(team, ("",) * KEYWORDS, number)):
                moves.append(GuessKeywords(team, ("",) * KEYWORDS, number))
            if state.is_legal(CountKeywords(team, 0, number)):
                moves += [CountKeywords(team, right, number) for right in range(KEYWORDS + 1)]
    return moves
