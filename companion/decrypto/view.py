"""What each screen may show of a game (docs/decrypto-rules.md section 11): the only place that decides it.

A viewer is a Seat (a player's phone, or the shared screen showing one seat after a confirm step), TABLE (the
host screen everyone sees) or None (a phone that has not joined a team). Secrets never leave the state except
to those entitled to them: a team's keywords reach its own seats once the game has started and everyone once
it is over; a code reaches its team's encryptor seat once they asked to see it, and everyone at its reveal;
guesses stay sealed until the code they guess is revealed, and keyword guesses until the game ends. Player
ids are never shown: a seat only says whether a phone sits in it. The pages and any JSON are drawn from a View,
whose parts are JSON-ready already.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .game import Round, State, Transmission, legal_moves
from .rules import KEYWORDS, LOBBY, OVER, PLAYING, REVEAL, ROUNDS, TABLE, TEAMS, TIEBREAK, Seat, other_team
from .text import (
    Translate,
    encrypting_both_text,
    encrypting_text,
    guessing_text,
    lobby_text,
    revealed_text,
    team_name,
    tiebreak_text,
    transmission_texts,
    untranslated,
    waiting_text,
)


@dataclass(frozen=True)
class View:
    """A game as one screen sees it; each part is JSON-ready, and to_json() is the object of section 11."""

    table: str
    game: int
    phase: str
    round: int
    rounds: int
    keywords_from: str  # "site" or "box"
    language: str | None
    viewer: dict | str | None  # the seat looking, TABLE, or None for a phone with no team
    status: str
    turn: str | None
    teams: dict[str, dict]
    history: list[dict]
    my_code: list[int] | None  # for the encryptor seat only, between asking to see it and the reveal
    sent: list[dict]  # the viewer's team's guesses this round that are still sealed: {"target", "code"}
    waiting: list[str]  # whom the table waits for now ("White's guess"), in the viewer's language
    decoding: dict | None  # the code being decoded now: {"team", "clues"} once its clues are given
    reveal: dict | None  # the last round once both its codes are revealed (section 6): codes, guesses, tokens
    tiebreak: dict | None
    outcome: dict | None
    can: list[dict]  # the moves this viewer may make now, without what people type

    def to_json(self) -> dict:
        return {item.name: getattr(self, item.name) for item in fields(self)}


def view(state: State, viewer: Seat | str | None = None, gettext: Translate = untranslated) -> View:
    """The whole picture for one viewer: a Seat, TABLE, or None (a phone not in a team); see the module
    docstring for who sees what. ValueError for a viewer that is none of these."""
    seat = viewer if isinstance(viewer, Seat) else None
    tiebreak = state.tiebreak
    return View(
        table=state.setup.table,
        game=state.setup.game,
        phase=state.phase,
        round=state.round,
        rounds=ROUNDS,
        keywords_from="box" if state.setup.keywords is None else "site",
        language=state.setup.language,
        viewer=_viewer(state, viewer),
        status=status_text(state, gettext, viewer == TABLE),
        turn=state.turn,
        teams={team: _team(state, team, seat, gettext) for team in TEAMS},
        history=[_round(r, gettext) for r in state.rounds],
        my_code=_my_code(state, seat),
        sent=_sent(state, seat),
        waiting=_waiting(state, gettext),
        decoding=_decoding(state),
        reveal=_reveal(state, gettext),
        tiebreak=None if tiebreak is None else _tiebreak(state, gettext),
        outcome=None if state.outcome is None else _outcome(state, gettext),
        can=_can(state, viewer),
    )


def status_text(state: State, gettext: Translate, host: bool = True) -> str:
    """One sentence for what the table is doing now (in the lobby, the host screen's differs from a phone's)."""
    phase = state.phase
    if phase == LOBBY:
        return lobby_text(gettext, host)
    if phase == TIEBREAK:
        return tiebreak_text(state.tiebreak.cause, gettext)
    if phase == OVER:
        return state.outcome.text(gettext)
    if phase == REVEAL:
        return revealed_text(state.round, gettext)
    if not any(t.given for t in state.current.transmissions):
        return encrypting_both_text(gettext)
    transmission = state.current.of(state.turn)
    if not transmission.given:
        return encrypting_text(transmission.team, gettext)
    return guessing_text(transmission.team, transmission.interceptable, gettext)


def _viewer(state: State, viewer: Seat | str | None) -> dict | str | None:
    if isinstance(viewer, Seat):
        if viewer.team not in TEAMS or not 1 <= viewer.number <= len(state.roster(viewer.team)):
            raise ValueError(f"{viewer} is not a seat of this game")
        return {"team": viewer.team, "seat": viewer.number, "encryptor": state.encryptor(viewer.team) == viewer.number}
    if viewer not in (TABLE, None):
        raise ValueError(f"{viewer!r} is not a viewer: a Seat, TABLE or None")
    return viewer


def _team(state: State, team: str, seat: Seat | None, gettext: Translate) -> dict:
    keywords = state.setup.keywords_of(team)
    visible = state.phase == OVER or (seat is not None and seat.team == team and state.phase != LOBBY)
    encryptor = state.encryptor(team)
    return {
        "name": team_name(team, gettext),
        "seats": [
            {"seat": number, "name": member.name, "phone": member.player is not None, "encryptor": number == encryptor}
            for number, member in enumerate(state.roster(team), start=1)
        ],
        "keywords": list(keywords) if keywords is not None and visible else None,
        "interceptions": state.interceptions(team),
        "miscommunications": state.miscommunications(team),
        "sheet": _sheet(state.rounds, team),
    }


def _sheet(rounds: tuple[Round, ...], team: str) -> list[list[dict]]:
    """A team's clues under their keyword numbers (index 0 is keyword 1), round by round, once revealed."""
    columns: list[list[dict]] = [[] for _ in range(KEYWORDS)]
    for r in rounds:
        transmission = r.of(team)
        if transmission.revealed and transmission.clues is not None:
            for digit, clue in zip(transmission.code, transmission.clues):
                columns[digit - 1].append({"round": r.number, "clue": clue})
    return columns


def _round(r: Round, gettext: Translate) -> dict:
    return {"round": r.number} | {t.team: _transmission(t, gettext) for t in r.transmissions}


def _transmission(transmission: Transmission, gettext: Translate) -> dict:
    data = {
        "encryptor": transmission.encryptor,
        "code_shown": transmission.shown,
        "clues_given": transmission.given,
        "clues": None if transmission.clues is None else list(transmission.clues),
        "interceptable": transmission.interceptable,
        "own_guessed": transmission.own_guess is not None,
        "interception_guessed": transmission.interception_guess is not None,
        "revealed": transmission.revealed,
    }
    if transmission.revealed:
        interception = transmission.interception_guess
        data |= {
            "code": list(transmission.code),
            "own_guess": list(transmission.own_guess),
            "interception_guess": None if interception is None else list(interception),
            "intercepted": transmission.intercepted,
            "miscommunicated": transmission.miscommunicated,
            "texts": transmission_texts(
                transmission.team, transmission.intercepted, transmission.miscommunicated, gettext
            ),
        }
    return data


def _my_code(state: State, seat: Seat | None) -> list[int] | None:
    """The code, for the seat encrypting it, between asking to see it and its reveal."""
    if seat is None or state.phase != PLAYING:
        return None
    transmission = state.current.of(seat.team)
    if seat.number != transmission.encryptor or not transmission.shown or transmission.revealed:
        return None
    return list(transmission.code)


def _sent(state: State, seat: Seat | None) -> list[dict]:
    """The guesses the seat's team sent this round that are not revealed yet: its teammates see what was sent."""
    if seat is None or state.phase != PLAYING:
        return []
    sent = []
    for transmission in state.current.transmissions:
        guess = transmission.own_guess if transmission.team == seat.team else transmission.interception_guess
        if guess is not None and not transmission.revealed:
            sent.append({"target": transmission.team, "code": list(guess)})
    return sent


def _waiting(state: State, gettext: Translate) -> list[str]:
    """Whom the table waits for: encryptors still writing, then the guesses of the code being decoded."""
    if state.phase == TIEBREAK:
        return [waiting_text("keywords", team, gettext) for team in TEAMS if state.tiebreak.of(team) is None]
    if state.phase == REVEAL:
        return [waiting_text("ready", team, gettext) for team in TEAMS if team not in state.rounds[-1].ready]
    if state.phase != PLAYING:
        return []
    waiting = [waiting_text("encryptor", t.team, gettext) for t in state.current.transmissions if not t.given]
    transmission = state.current.of(state.turn)
    if transmission.given:
        if transmission.own_guess is None:
            waiting.append(waiting_text("guess", transmission.team, gettext))
        if transmission.interceptable and transmission.interception_guess is None:
            rival = TEAMS[1] if transmission.team == TEAMS[0] else TEAMS[0]
            waiting.append(waiting_text("interception", rival, gettext))
    return waiting


def _decoding(state: State) -> dict | None:
    if state.phase != PLAYING:
        return None
    transmission = state.current.of(state.turn)
    if not transmission.given:
        return None
    return {"team": transmission.team, "clues": None if transmission.clues is None else list(transmission.clues)}


def _reveal(state: State, gettext: Translate) -> dict | None:
    """The round just ended, once both its codes are revealed: while the table waits for Next round, and beside
    the tiebreak or the outcome it led to. Nothing here is secret any more: every guess of it is in."""
    if state.phase not in (REVEAL, TIEBREAK, OVER) or not state.rounds or state.rounds[-1].turn is not None:
        return None
    last = state.rounds[-1]
    teams = {}
    for team in TEAMS:
        own, rival = last.of(team), last.of(other_team(team))
        teams[team] = _transmission(own, gettext) | {
            "interceptions_won": int(rival.intercepted),
            "miscommunications_taken": int(own.miscommunicated),
        }
    return {
        "round": last.number,
        "waiting": state.phase == REVEAL,
        "ready": {team: team in last.ready for team in TEAMS},
        "teams": teams,
    }


def _tiebreak(state: State, gettext: Translate) -> dict:
    data = {
        "cause": state.tiebreak.cause,
        "text": tiebreak_text(state.tiebreak.cause, gettext),
        "answered": {team: state.tiebreak.of(team) is not None for team in TEAMS},
    }
    if state.phase == OVER:
        data["answers"] = {}
        for team in TEAMS:
            answer = state.tiebreak.of(team)
            words = None if answer.words is None else list(answer.words)
            matched = None if answer.matched is None else list(answer.matched)
            data["answers"][team] = {"words": words, "right": answer.right, "matched": matched,
                                     "accepted": list(answer.accepted)}
    return data


def _outcome(state: State, gettext: Translate) -> dict:
    outcome = state.outcome
    return {
        "winner": outcome.winner,
        "reason": outcome.reason,
        "white": outcome.white,
        "black": outcome.black,
        "text": outcome.text(gettext),
    }


# What people type: the view offers the move, the phone fills these in.
_TYPED_FIELDS = {"clues", "code", "words", "right"}


def _can(state: State, viewer: Seat | str | None) -> list[dict]:
    """The moves this viewer may make now, as move JSON without what people type, each once."""
    if viewer is None:
        return [{"action": "join", "team": team} for team in state.joinable_teams()]
    offers = []
    for move in legal_moves(state, viewer):
        offer = {name: value for name, value in move.to_json().items() if name not in _TYPED_FIELDS}
        if offer not in offers:
            offers.append(offer)
    if isinstance(viewer, Seat) and state.phase == LOBBY:
        offers += [{"action": "join", "team": t} for t in state.joinable_teams() if t != viewer.team]
    return offers
