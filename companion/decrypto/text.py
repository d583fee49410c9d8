"""Every sentence and name the Decrypto engine gives to people, in English, in one place.

Each text is a whole sentence with named {placeholders}, marked with N_ so that pybabel extracts it; the
functions take an optional `gettext` (the web passes Flask-Babel's, so each phone reads its own language).
Team names can change the grammar around them in many languages, so every sentence that names a team exists
once per team instead of taking the name as a placeholder.
"""

from __future__ import annotations

from typing import Callable, Mapping

Translate = Callable[[str], str]


def N_(text: str) -> str:
    """Mark a text for extraction; it is translated where it is shown."""
    return text


def untranslated(text: str) -> str:
    """The English text itself: the default `gettext` of every function here."""
    return text


TEAM_NAMES = {"white": N_("White"), "black": N_("Black")}

# Why a move was refused, keyed by IllegalMove.reason; the named fields come from IllegalMove.params.
ILLEGAL_MOVES = {
    "game_over": N_("The game is over: nothing more can be played in it."),
    "not_started": N_("The game has not started yet: start it once both teams have their players."),
    "already_started": N_("The game has already started."),
    "team_too_small": N_("Each team needs at least {minimum} players before the game starts."),
    "team_full": N_("This team is full: a team has at most {maximum} players."),
    "no_such_seat": N_("This team has no seat {seat}."),
    "seat_taken": N_("Seat {seat} of this team already belongs to another phone."),
    "already_in_team": N_("You are already in the other team, and nobody changes teams once the game has started."),
    "not_joined": N_("This phone has not joined a team."),
    "name_too_long": N_("A name has at most {limit} characters."),
    "not_the_encryptor": N_("Only this round's encryptor can do this."),
    "seat_has_phone": N_("This round's encryptor has joined with a phone: they do this on their own phone."),
    "code_already_shown": N_("The encryptor has already seen this round's code."),
    "code_not_shown": N_("Look at the code before giving the clues."),
    "clues_already_given": N_("This round's clues have already been given."),
    "malformed_clues": N_("Give exactly three clues, each from 1 to {limit} characters long."),
    "clues_not_given": N_("The encryptor has not given the clues for this code yet."),
    "out_of_turn": N_("White's code is decoded first: guess it before Black's."),
    "malformed_code": N_("A code is three different digits from 1 to 4, like 4-2-1."),
    "no_interception_in_round_one": N_(
        "Nobody intercepts in round 1: only the encryptor's own team guesses the code."
    ),
    "already_guessed": N_("Your team has already guessed this code."),
    "encryptor_cannot_guess": N_("The encryptor knows the code, so their teammates guess it without them."),
    "no_tiebreak": N_("The keyword tiebreak has not started: it comes only when the rounds end without a winner."),
    "tiebreak_under_way": N_("The rounds are over: the keyword tiebreak decides the game."),
    "keywords_already_guessed": N_("Your team has already given its keyword guesses."),
    "malformed_keyword_guesses": N_(
        "Give one guess for each of the four keywords, at most {limit} characters each; "
        "leave a guess empty if you have no idea."
    ),
    "box_keywords": N_(
        "This table uses the keyword cards from the box: enter how many keywords your team guessed right."
    ),
    "site_keywords": N_("The site dealt the keywords: type your guesses and the site counts the right ones."),
    "malformed_count": N_("The number of keywords guessed right is from 0 to 4."),
    "control_characters": N_(
        "This text holds invisible or control characters (such as direction overrides or zero-width spaces): "
        "type it again without them."
    ),
    "no_free_seat": N_("The game has started and this team has no free seat: ask the host to free one."),
    "table_only": N_("Only the shared screen can count a keyword guess, so that everyone sees it."),
    "keyword_guesses_sealed": N_("The keyword guesses are counted once both teams have sent theirs."),
    "no_guess_to_count": N_("There is no typed guess of that keyword to count."),
    "guess_already_counted": N_("That keyword guess already counts."),
    "not_revealed": N_("This round is still being played: the next one starts after both codes are revealed."),
    "round_revealed": N_("Both codes of this round are revealed: press Next round when your team is ready."),
    "already_ready": N_("Your team is ready already: the next round starts when the other team is ready too."),
}

LOBBY = N_("Players are choosing their teams. Start the game once each team has two to four players.")
# What a phone reads in the lobby: the host's screen starts the game, not the phone.
LOBBY_PHONE = N_("Players are choosing their teams. The host starts the game once each team has two to four players.")
# At the start of a round, before either team's clues are in: both encryptors are at work at once.
ENCRYPTING_BOTH = N_("Both encryptors are looking at their codes and writing three clues.")
ENCRYPTING = {
    "white": N_("White's encryptor is looking at the code and writing three clues."),
    "black": N_("Black's encryptor is looking at the code and writing three clues."),
}
GUESSING_OWN = {
    "white": N_("White is guessing its own code."),
    "black": N_("Black is guessing its own code."),
}
GUESSING_BOTH = {
    "white": N_("Both teams are guessing White's code."),
    "black": N_("Both teams are guessing Black's code."),
}
TIEBREAK = {
    "rounds": N_("Eight rounds without a winner: each team now guesses the other team's four keywords."),
    "score": N_(
        "Both teams met an end condition with the same score: each team now guesses the other team's four keywords."
    ),
    "rounds_score": N_(
        "Eight rounds are over with equal points: each team now guesses the other team's four keywords."
    ),
}

# Whom the table waits for, keyed by team; the screens list them after "Waiting for:".
WAITING_ENCRYPTOR = {"white": N_("White's encryptor"), "black": N_("Black's encryptor")}
WAITING_GUESS = {"white": N_("White's guess"), "black": N_("Black's guess")}
WAITING_INTERCEPTION = {"white": N_("White's interception"), "black": N_("Black's interception")}
WAITING_KEYWORDS = {"white": N_("White's keyword guesses"), "black": N_("Black's keyword guesses")}
WAITING_READY = {"white": N_("White to press Next round"), "black": N_("Black to press Next round")}
REVEALED = N_("Round {round} is over: both codes are revealed. The next round starts when both teams are ready.")

# What happened to a revealed code; keyed by the team that scored the token (or whose code got through).
INTERCEPTED = {
    "white": N_("White intercepted Black's code."),
    "black": N_("Black intercepted White's code."),
}
MISCOMMUNICATED = {
    "white": N_("White missed its own code and takes a miscommunication token."),
    "black": N_("Black missed its own code and takes a miscommunication token."),
}
GOT_THROUGH = {
    "white": N_("White's code got through."),
    "black": N_("Black's code got through."),
}

# How the game ended, keyed by (reason, winner); a draw has no winner.
OUTCOMES = {
    ("interceptions", "white"): N_("White wins: two interceptions."),
    ("interceptions", "black"): N_("Black wins: two interceptions."),
    ("miscommunications", "white"): N_("Black loses: two miscommunications. White wins."),
    ("miscommunications", "black"): N_("White loses: two miscommunications. Black wins."),
    ("interceptions_and_miscommunications", "white"): N_(
        "White wins: two interceptions, and Black made two miscommunications."
    ),
    ("interceptions_and_miscommunications", "black"): N_(
        "Black wins: two interceptions, and White made two miscommunications."
    ),
    ("score", "white"): N_("White wins on points (interceptions minus miscommunications): {white} to {black}."),
    ("score", "black"): N_("Black wins on points (interceptions minus miscommunications): {black} to {white}."),
    ("keywords", "white"): N_("White wins the keyword tiebreak: {white} to {black}."),
    ("keywords", "black"): N_("Black wins the keyword tiebreak: {black} to {white}."),
    ("keywords", None): N_("Draw: the keyword tiebreak ends {white} to {black}."),
}

REPEATED_CLUE = N_("Clue {position}, “{clue}”, was already given by your team in round {round}.")
REPEATED_WITHIN = N_("Clue {position}, “{clue}”, repeats clue {other} of this round.")
KEYWORD_CLUE = N_("Clue {position}, “{clue}”, is one of your own keywords: the other team will hear it.")


def team_name(team: str, gettext: Translate = untranslated) -> str:
    return gettext(TEAM_NAMES[team])


def illegal_move_text(reason: str, params: Mapping[str, object], gettext: Translate = untranslated) -> str:
    """Why a move was refused, as a whole sentence."""
    return gettext(ILLEGAL_MOVES[reason]).format(**params)


def lobby_text(gettext: Translate = untranslated, host: bool = True) -> str:
    """The lobby's sentence: the host screen is told to start the game, a phone that the host will."""
    return gettext(LOBBY if host else LOBBY_PHONE)


def revealed_text(round: int, gettext: Translate = untranslated) -> str:
    """The sentence of a round's reveal, while the table waits for the teams to be ready."""
    return gettext(REVEALED).format(round=round)


def encrypting_both_text(gettext: Translate = untranslated) -> str:
    return gettext(ENCRYPTING_BOTH)


def encrypting_text(team: str, gettext: Translate = untranslated) -> str:
    return gettext(ENCRYPTING[team])


def guessing_text(team: str, interception: bool, gettext: Translate = untranslated) -> str:
    """Who is guessing a team's code: the team alone in round 1, both teams afterwards."""
    return gettext((GUESSING_BOTH if interception else GUESSING_OWN)[team])


def tiebreak_text(cause: str, gettext: Translate = untranslated) -> str:
    return gettext(TIEBREAK[cause])


def transmission_texts(
    team: str, intercepted: bool, miscommunicated: bool, gettext: Translate = untranslated
) -> list[str]:
    """What happened to a team's revealed code: the tokens it gave, or that it got through."""
    texts = []
    if intercepted:
        texts.append(gettext(INTERCEPTED["black" if team == "white" else "white"]))
    if miscommunicated:
        texts.append(gettext(MISCOMMUNICATED[team]))
    return texts or [gettext(GOT_THROUGH[team])]


def outcome_text(reason: str, winner: str | None, white: int, black: int, gettext: Translate = untranslated) -> str:
    """How the game ended; `white` and `black` are the points or keyword counts the reason compares."""
    return gettext(OUTCOMES[(reason, winner)]).format(white=white, black=black)


def repeated_clue_text(
    position: int, clue: str, round: int, other: int | None, gettext: Translate = untranslated
) -> str:
    """A warning for a clue the team already gave: in an earlier round, or as clue `other` of this round."""
    if other is None:
        return gettext(REPEATED_CLUE).format(position=position, clue=clue, round=round)
    return gettext(REPEATED_WITHIN).format(position=position, clue=clue, other=other)


def keyword_clue_text(position: int, clue: str, gettext: Translate = untranslated) -> str:
    """A warning for a clue that is one of the team's own keywords."""
    return gettext(KEYWORD_CLUE).format(position=position, clue=clue)


def waiting_text(kind: str, team: str, gettext: Translate = untranslated) -> str:
    """Whom the table waits for: "encryptor", "guess", "interception", "keywords" or "ready" of a team."""
    table = {"encryptor": WAITING_ENCRYPTOR, "guess": WAITING_GUESS, "interception": WAITING_INTERCEPTION,
             "keywords": WAITING_KEYWORDS, "ready": WAITING_READY}[kind]
    return gettext(table[team])
