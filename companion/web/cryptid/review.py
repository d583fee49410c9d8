"""The after-game review on every screen and the Solver in a finished game's replay (docs/cryptid-play.md
section 9.2): what the engine's review.py says, as plain sentences in the reader's language.

The review reads every clue, so it is drawn only once the game is over; it is remembered per game position,
since every phone of a table asks for it at once.
"""

from __future__ import annotations

from babel.lists import format_list
from flask_babel import get_locale

from companion.cryptid import Game
from companion.cryptid.deduction import Evidence
from companion.cryptid.hexgrid import hex_name, hex_row_col
from companion.cryptid.play import OVER, State, log_turns
from companion.cryptid.review import CubeReview, SearchReview, SeatReview, SolverView, review, solver_view
from companion.cryptid.view import View
from companion.web.core.i18n import gettext, left_to_right, ngettext

from .notebook import _Remembered, percent

_REVIEWS = _Remembered(64)
_SOLVER_VIEWS = _Remembered(256)
# The Solver in the replay names this many of the likeliest hexes.
SOLVER_HEXES = 3


def game_review(game: Game, state: State) -> tuple[SeatReview, ...] | None:
    """Per seat, what its play showed; None until the game is over."""
    if state.phase != OVER:
        return None
    return _REVIEWS.get((game.code, state.version), lambda: review(state))


def place(hex: int) -> str:
    """A hex's name inside a sentence (kept left to right in a right-to-left one)."""
    return left_to_right(hex_name(hex))


def review_rows(game: Game, state: State, names: dict[int, str]) -> dict[int, dict]:
    """Per seat, the after-game review: a one-sentence summary, and the sentences behind it (when its clue and
    the pieces settled the habitat, what the Solver could tell, its searches and those it stopped, the cubes that
    gave away more than they had to)."""
    reviews = game_review(game, state)
    if reviews is None:
        return {}
    # Moves are numbered as the log on the page numbers them: one per move with its answers (log_turns).
    moves = {entry.n: number for number, turn in enumerate(log_turns(state.log), 1) for entry in turn}
    stopped = {seat: [(search, r.seat) for r in reviews for search in r.searches if search.stopped_by == seat]
               for seat in state.seats}
    return {seat_review.seat: {"summary": _summary(seat_review, state, moves),
                               "lines": _lines(seat_review, game, names, moves, stopped[seat_review.seat])}
            for seat_review in reviews}


def _summary(seat_review: SeatReview, state: State, moves: dict[int, int]) -> str:
    if seat_review.in_opening:
        return gettext("Could have known after the opening cubes.")
    if seat_review.known_at is not None:
        return gettext("Could have known from move %(n)s.", n=moves[seat_review.known_at])
    if state.winner == seat_review.seat:
        return gettext("Won with a search before the pieces left one hex.")
    return gettext("The pieces never left them one hex before the end.")


def _lines(seat_review: SeatReview, game: Game, names: dict[int, str], moves: dict[int, int],
           stopped: list[tuple[SearchReview, int]]) -> list[str]:
    name, habitat = names[seat_review.seat], place(game.habitat)
    lines = []
    if seat_review.in_opening:
        lines.append(gettext("After the opening cubes, the clue of %(name)s and the pieces on the board already left "
                             "one hex only: %(hex)s.", name=name, hex=habitat))
    elif seat_review.known_at is not None:
        lines.append(gettext("From move %(n)s, the clue of %(name)s and the pieces on the board left one hex only: "
                             "%(hex)s.", n=moves[seat_review.known_at], name=name, hex=habitat))
    if seat_review.solver_at is None:
        lines.append(gettext("The Solver, counting every possible setup, was not sure before the end either."))
    else:
        lines.append(gettext("The Solver, counting every possible setup, was sure from move %(n)s.",
                             n=moves[seat_review.solver_at]))
    lines.extend(_search_text(search, names, moves[search.entry]) for search in seat_review.searches)
    lines.extend(gettext("Stopped the search of %(name)s on %(hex)s at move %(n)s with a cube.", name=names[searcher],
                         hex=place(search.hex), n=moves[search.entry]) for search, searcher in stopped)
    lines.extend(_cube_lines(seat_review.cubes, moves))
    return lines


def _search_text(search: SearchReview, names: dict[int, str], move: int) -> str:
    """'Searched E4 at move 12, when 3 hexes still fit their clue and the pieces. Bo stopped the search with a cube.'"""
    if search.fits:
        when = ngettext("Searched %(hex)s at move %(n)s, when %(num)s hex still fit their clue and the pieces.",
                        "Searched %(hex)s at move %(n)s, when %(num)s hexes still fit their clue and the pieces.",
                        search.fitting, hex=place(search.hex), n=move)
    else:
        when = gettext("Searched %(hex)s at move %(n)s, a hex their clue and the pieces had already ruled out.",
                       hex=place(search.hex), n=move)
    if search.found:
        outcome = gettext("The search found the habitat.")
    elif search.stopped_by is not None:
        outcome = gettext("%(name)s stopped the search with a cube.", name=names[search.stopped_by])
    else:
        outcome = gettext("The game ended before every answer.")
    sentences = [when]
    if search.extra_disc is not None:
        sentences.append(gettext("Their disc was there already, so they placed an extra disc on %(hex)s.",
                                 hex=place(search.extra_disc)))
    elif search.no_room:
        sentences.append(gettext("Their disc was there already, and no hex could take an extra disc."))
    sentences.append(outcome)
    return " ".join(sentences)


def _cube_lines(cubes: tuple[CubeReview, ...], moves: dict[int, int]) -> list[str]:
    """The cubes that gave away more than the gentlest choice would have, one sentence each; the others counted."""
    lines = []
    for cube in cubes:
        if cube.gentlest is None:
            continue
        lines.append(ngettext(
            "The cube on %(hex)s at move %(n)s ruled out %(ruled)s of the %(num)s clue the others still thought "
            "possible for this player; a cube on %(other)s would have ruled out %(fewer)s.",
            "The cube on %(hex)s at move %(n)s ruled out %(ruled)s of the %(num)s clues the others still thought "
            "possible for this player; a cube on %(other)s would have ruled out %(fewer)s.",
            cube.possible, hex=place(cube.hex), n=moves[cube.entry], ruled=cube.ruled_out, other=place(cube.gentlest),
            fewer=cube.gentlest_ruled_out))
    rest = sum(1 for cube in cubes if cube.gentlest is None)
    if rest and lines:
        lines.append(ngettext("%(num)s other cube gave away no more than it had to.",
                              "%(num)s other cubes gave away no more than they had to.", rest))
    elif rest:
        lines.append(ngettext("%(num)s cube gave away no more than it had to.",
                              "%(num)s cubes gave away no more than they had to.", rest))
    return lines


def review_json(reviews: tuple[SeatReview, ...] | None) -> list[dict] | None:
    """The `review` array of docs/cryptid-play.md section 8.6: hexes as row and column, like the rest of it."""
    if reviews is None:
        return None
    out = []
    for seat_review in reviews:
        data = seat_review.to_json()
        for item, keys in [(cube, ("hex", "gentlest")) for cube in data["cubes"]] + \
                          [(search, ("hex", "extra_disc")) for search in data["searches"]]:
            for key in keys:
                if item[key] is not None:
                    row, col = hex_row_col(item[key])
                    item[key] = {"row": row, "col": col}
        out.append(data)
    return out


def replay_solver(game: Game, shown: View, replay: int, names: dict[int, str]) -> dict:
    """The Solver at one step of a finished game's replay, from the seat's view then: per other player how many
    clues were still possible, and the likeliest hexes with their chance."""
    counted: SolverView = _SOLVER_VIEWS.get((game.code, replay, shown.seat),
                                            lambda: solver_view(Evidence.from_view(shown)))
    players = [ngettext("%(name)s: %(num)s clue possible", "%(name)s: %(num)s clues possible", count, name=names[seat])
               for seat, count in enumerate(counted.clues, 1) if seat != shown.seat]
    likeliest = [f"{place(hex)} {percent(chance)}" for hex, chance in counted.chances[:SOLVER_HEXES]]
    return {"players": players,
            "hexes": ngettext("The habitat could be on %(num)s hex. Likeliest: %(hexes)s.",
                              "The habitat could be on %(num)s hexes. Likeliest: %(hexes)s.", len(counted.chances),
                              hexes=format_list(likeliest, locale=get_locale()))}
