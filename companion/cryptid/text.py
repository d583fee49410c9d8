"""Every sentence and name the engine gives to people, in English, in one place.

Each text is a whole sentence or name with named {placeholders}, marked with N_ so that translation tools
(pybabel) extract it. The functions take an optional `gettext`: the command line passes none and reads English;
the web site passes Flask-Babel's, so every phone reads its own language. Names inserted into a sentence are
always labels (after a colon or in parentheses), never glued into the grammar of the sentence around them.
"""

from __future__ import annotations

from typing import Callable

from .hexgrid import hex_index, hex_name

Translate = Callable[[str], str]


def N_(text: str) -> str:
    """Mark a text for extraction; it is translated where it is shown."""
    return text


def untranslated(text: str) -> str:
    """The English text itself: the default `gettext` of every function here."""
    return text


TERRAIN_NAMES = {
    "forest": N_("forest"),
    "desert": N_("desert"),
    "swamp": N_("swamp"),
    "mountain": N_("mountain"),
    "water": N_("water"),
}
# One letter (or character) per terrain on the map, for players who cannot tell the colours apart.
TERRAIN_LETTERS = {
    "forest": N_("F (letter for forest)"),
    "desert": N_("D (letter for desert)"),
    "swamp": N_("S (letter for swamp)"),
    "mountain": N_("M (letter for mountain)"),
    "water": N_("W (letter for water)"),
}
MODE_NAMES = {"normal": N_("normal mode"), "advanced": N_("advanced mode")}
SLOT_NAMES = (N_("top left"), N_("top right"), N_("middle left"), N_("middle right"), N_("bottom left"), N_("bottom right"))
STRUCTURE_NAMES = {
    ("standing_stone", "white"): N_("White standing stone"),
    ("standing_stone", "green"): N_("Green standing stone"),
    ("standing_stone", "blue"): N_("Blue standing stone"),
    ("standing_stone", "black"): N_("Black standing stone"),
    ("abandoned_shack", "white"): N_("White abandoned shack"),
    ("abandoned_shack", "green"): N_("Green abandoned shack"),
    ("abandoned_shack", "blue"): N_("Blue abandoned shack"),
    ("abandoned_shack", "black"): N_("Black abandoned shack"),
}

CLUE_TEXTS = {
    "forest-or-desert": N_("The habitat is on forest or desert."),
    "forest-or-swamp": N_("The habitat is on forest or swamp."),
    "forest-or-mountain": N_("The habitat is on forest or mountain."),
    "forest-or-water": N_("The habitat is on forest or water."),
    "desert-or-swamp": N_("The habitat is on desert or swamp."),
    "desert-or-mountain": N_("The habitat is on desert or mountain."),
    "desert-or-water": N_("The habitat is on desert or water."),
    "swamp-or-mountain": N_("The habitat is on swamp or mountain."),
    "swamp-or-water": N_("The habitat is on swamp or water."),
    "mountain-or-water": N_("The habitat is on mountain or water."),
    "within-1-forest": N_("The habitat is within one space of forest."),
    "within-1-desert": N_("The habitat is within one space of desert."),
    "within-1-swamp": N_("The habitat is within one space of swamp."),
    "within-1-mountain": N_("The habitat is within one space of mountain."),
    "within-1-water": N_("The habitat is within one space of water."),
    "within-1-animal": N_("The habitat is within one space of either animal territory."),
    "within-2-standing-stone": N_("The habitat is within two spaces of a standing stone."),
    "within-2-abandoned-shack": N_("The habitat is within two spaces of an abandoned shack."),
    "within-2-bear": N_("The habitat is within two spaces of bear territory."),
    "within-2-cougar": N_("The habitat is within two spaces of cougar territory."),
    "within-3-white": N_("The habitat is within three spaces of a white structure."),
    "within-3-green": N_("The habitat is within three spaces of a green structure."),
    "within-3-blue": N_("The habitat is within three spaces of a blue structure."),
    "within-3-black": N_("The habitat is within three spaces of a black structure."),
    "not-forest-or-desert": N_("The habitat is on neither forest nor desert."),
    "not-forest-or-swamp": N_("The habitat is on neither forest nor swamp."),
    "not-forest-or-mountain": N_("The habitat is on neither forest nor mountain."),
    "not-forest-or-water": N_("The habitat is on neither forest nor water."),
    "not-desert-or-swamp": N_("The habitat is on neither desert nor swamp."),
    "not-desert-or-mountain": N_("The habitat is on neither desert nor mountain."),
    "not-desert-or-water": N_("The habitat is on neither desert nor water."),
    "not-swamp-or-mountain": N_("The habitat is on neither swamp nor mountain."),
    "not-swamp-or-water": N_("The habitat is on neither swamp nor water."),
    "not-mountain-or-water": N_("The habitat is on neither mountain nor water."),
    "not-within-1-forest": N_("The habitat is not within one space of forest."),
    "not-within-1-desert": N_("The habitat is not within one space of desert."),
    "not-within-1-swamp": N_("The habitat is not within one space of swamp."),
    "not-within-1-mountain": N_("The habitat is not within one space of mountain."),
    "not-within-1-water": N_("The habitat is not within one space of water."),
    "not-within-1-animal": N_("The habitat is not within one space of any animal territory."),
    "not-within-2-standing-stone": N_("The habitat is not within two spaces of a standing stone."),
    "not-within-2-abandoned-shack": N_("The habitat is not within two spaces of an abandoned shack."),
    "not-within-2-bear": N_("The habitat is not within two spaces of bear territory."),
    "not-within-2-cougar": N_("The habitat is not within two spaces of cougar territory."),
    "not-within-3-white": N_("The habitat is not within three spaces of a white structure."),
    "not-within-3-green": N_("The habitat is not within three spaces of a green structure."),
    "not-within-3-blue": N_("The habitat is not within three spaces of a blue structure."),
    "not-within-3-black": N_("The habitat is not within three spaces of a black structure."),
}

HINT_TEXTS = {
    "no_within_1": N_("No clue says “within one space”."),
    "no_within_2": N_("No clue says “within two spaces”."),
    "no_within_3": N_("No clue says “within three spaces”."),
    "no_terrain_pair": N_("No clue says “on one of two terrains”."),
    "no_terrain": N_("No clue mentions a terrain."),
    "no_animal": N_("No clue mentions animal territory."),
    "no_forest": N_("No clue mentions forest."),
    "no_desert": N_("No clue mentions desert."),
    "no_swamp": N_("No clue mentions swamp."),
    "no_mountain": N_("No clue mentions mountain."),
    "no_water": N_("No clue mentions water."),
}

# Game-code problems, keyed by GameCodeError.reason; the named fields come from GameCodeError.params.
CODE_ERRORS = {
    "empty": N_("Type a game code: 10 letters and digits, like {example}."),
    "too_short": N_("A game code has 10 characters; this one has only {length}. Check for a missing character."),
    "too_long": N_("A game code has 10 characters; this one has {length}. Check for an extra character."),
    "bad_characters": N_(
        "{characters} cannot appear in a game code: codes use the digits 2-9 and the letters A-Z except I, L and O."
    ),
    "typo": N_("This code has a typo: one character is wrong or two are swapped. Check it against the setup screen."),
    "unknown_version": N_(
        "This code comes from a newer version of the companion (generator {version}). Update the app to load it."
    ),
    "no_such_game": N_("This map has no game {number}: its last game is game {available}. Start a new map."),
    "map_code": N_(
        "This is a map code from the official Cryptid app, not a game code. Type the 10-character game code from a"
        " setup screen of this companion, like {example}, or start a new game."
    ),
}

# What "within N spaces" counts, shown beside a clue that has a distance: the hex itself is at distance 0.
WITHIN_NOTES = {
    1: N_("“Within one space” counts the hex itself as well as its neighbours."),
    2: N_("“Within two spaces” counts the hex itself as well as every hex up to two spaces away."),
    3: N_("“Within three spaces” counts the hex itself as well as every hex up to three spaces away."),
}

NO_HABITAT_LEFT = N_(
    "Every habitat this map offers has been used: game {used} was the last one. Start a new map to keep playing."
)
TILE_UPRIGHT = N_("{slot}: tile {tile}, upright (its number at the top left).")
TILE_TURNED = N_("{slot}: tile {tile}, turned around (its number at the bottom right).")
STRUCTURE_STEP = N_("{structure}: tile {tile} ({slot}), row {row}, hex {col} from the left.")
HEX_LABEL = N_("{name}: {terrain}")
SEAT_NAME = N_("Player {seat}")
TILE_HINT = N_("The habitat is on tile {tile} ({slot}).")


def clue_text(clue, gettext: Translate = untranslated) -> str:
    """The sentence a player reads: 'The habitat is (not) ...'."""
    return gettext(CLUE_TEXTS[clue.id])


def within_note_text(clue, gettext: Translate = untranslated) -> str | None:
    """What "within N spaces" counts, for a clue with a distance (negated or not); None for a terrain pair."""
    return gettext(WITHIN_NOTES[clue.distance]) if clue.distance else None


def hint_text(category: str, gettext: Translate = untranslated) -> str:
    return gettext(HINT_TEXTS[category])


def code_error_text(reason: str, params: dict, gettext: Translate = untranslated) -> str:
    return gettext(CODE_ERRORS[reason]).format(**params)


def no_habitat_left_text(used: int, gettext: Translate = untranslated) -> str:
    return gettext(NO_HABITAT_LEFT).format(used=used)


def structure_name(kind: str, color: str, gettext: Translate = untranslated) -> str:
    return gettext(STRUCTURE_NAMES[(kind, color)])


def slot_name(slot: int, gettext: Translate = untranslated) -> str:
    return gettext(SLOT_NAMES[slot])


def tile_step_text(slot: int, tile: int, rotated: bool, gettext: Translate = untranslated) -> str:
    """How to lay one tile, e.g. 'top left: tile 3, upright (its number at the top left).'"""
    template = TILE_TURNED if rotated else TILE_UPRIGHT
    return _capitalized(gettext(template).format(slot=slot_name(slot, gettext), tile=tile))


def structure_step_text(kind: str, color: str, slot: int, tile: int, row: int, col: int, gettext: Translate = untranslated) -> str:
    """Where one structure stands, counted on the tile as it lies (row and hex 1-based from its top left)."""
    return gettext(STRUCTURE_STEP).format(
        structure=structure_name(kind, color, gettext), tile=tile, slot=slot_name(slot, gettext), row=row, col=col
    )


def hex_label(row: int, col: int, terrain: str, gettext: Translate = untranslated) -> str:
    """A hex as a player reads it: its name as the board's edges print it ("E5"), and its terrain."""
    return gettext(HEX_LABEL).format(name=hex_name(hex_index(row, col)), terrain=gettext(TERRAIN_NAMES[terrain]))


def terrain_letter(terrain: str, gettext: Translate = untranslated) -> str:
    return gettext(TERRAIN_LETTERS[terrain]).split(" ", 1)[0]


def seat_name(seat: int, gettext: Translate = untranslated) -> str:
    return gettext(SEAT_NAME).format(seat=seat)


def mode_name(mode: str, gettext: Translate = untranslated) -> str:
    return gettext(MODE_NAMES[mode])


def tile_hint_text(tile: int, slot: int, gettext: Translate = untranslated) -> str:
    """The stronger hint: which physical tile the habitat is on."""
    return gettext(TILE_HINT).format(tile=tile, slot=slot_name(slot, gettext))


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------------------------------------------------------
# Refereed play (docs/cryptid-play.md): log lines, where to mirror a piece on the real tiles, what is pending,
# illegal moves. Rows and columns are shown 1-based. `names` maps each seat to the name people see (State.display_names).
# ---------------------------------------------------------------------------------------------------------------

# Keyed by (log action, piece): one whole sentence per outcome, never a piece word glued into a sentence.
LOG_TEXTS = {
    ("cube", None): N_("{name} placed a cube on {hex}."),
    ("ask", "disc"): N_("{name} asked {asked} about {hex}: disc."),
    ("ask", "cube"): N_("{name} asked {asked} about {hex}: cube."),
    ("search", None): N_("{name} searched {hex}."),
    ("disc", None): N_("{name} already had a disc there, so placed an extra disc on {hex}."),
    ("skip", "disc"): N_("{name} already had a disc on {hex}, and no other hex could take an extra disc."),
    ("answer", "disc"): N_("{name} answered: disc."),
    ("answer", "cube"): N_("{name} answered: cube."),
    ("skip", None): N_("{name} could not place a cube: no hex qualifies."),
    ("leave", None): N_("{name} left the game."),
    ("win", None): N_("{name} found the habitat and wins!"),
}
MIRROR_TEXTS = {
    "disc": N_("{name}: disc on tile {tile} ({slot}), row {row}, hex {col} from the left."),
    "cube": N_("{name}: cube on tile {tile} ({slot}), row {row}, hex {col} from the left."),
}
PENDING_TEXTS = {
    "cube": N_("{name}: place a cube."),
    "disc": N_("{name}: place the search's extra disc."),
    "move": N_("{name}: ask or search."),
}
WAITING_TO_START = N_("Waiting for the game to start.")
# Keyed by State.outcome.
GAME_OVER_TEXTS = {
    "win": N_("The game is over: {name} found the habitat."),
    "reveal": N_("The game is over: the table agreed to the reveal."),
    "all_left": N_("The game is over: every player left."),
}
# Moves the rules forbid, keyed by IllegalMove.reason; the named fields come from IllegalMove.params.
ILLEGAL_MOVES = {
    "not_started": N_("The game has not started yet."),
    "already_started": N_("The game has already started."),
    "game_over": N_("The game is over: no more moves can be made."),
    "not_your_turn": N_("It is not your turn."),
    "cube_expected": N_("You must place a cube now, on a hex your clue rules out."),
    "move_expected": N_("You cannot place a cube now: ask a player or search a hex."),
    "disc_expected": N_("You already have a disc on {hex}: first place an extra disc on another hex your clue allows."),
    "disc_clue_rules_out": N_("Your clue rules that hex out: the extra disc goes on a hex your clue allows."),
    "disc_already_there": N_("You already have a disc on that hex: put the extra disc on another hex your clue allows."),
    "off_board": N_("That hex is not on the board: rows go from 1 to 9 and columns from 1 to 12."),
    "hex_has_cube": N_("That hex already has a cube: nobody can ask about it, search it or put another cube on it."),
    "clue_allows_hex": N_("Your clue allows that hex: a cube goes only on a hex your clue rules out."),
    "clue_rules_out_hex": N_("Your clue rules that hex out: you can only search a hex your clue allows."),
    "ask_self": N_("You cannot ask yourself: ask another player."),
    "already_has_disc": N_("That player already has a disc on that hex: ask another player or about another hex."),
    "no_such_seat": N_("There is no seat {seat} in this game."),
    "you_left": N_("You have left the game: your clue still answers, but you no longer take turns or vote."),
    "seat_left": N_("That player has already left the game."),
    "vote_self": N_("You cannot mark yourself as gone: leave the game instead."),
    "already_voted": N_("You have already marked that player as gone."),
    "not_voted": N_("You have not marked that player as gone."),
    "stale_version": N_("The game has moved on since your screen was updated: look at it again and retry."),
    "name_empty": N_("Type a name."),
    "name_too_long": N_("A name can have at most {limit} characters."),
    "name_invalid": N_("A name cannot contain control characters."),
}


def log_entry_text(entry, names: dict[int, str], gettext: Translate = untranslated) -> str:
    """One log entry as a sentence, e.g. 'Ben asked Chloe about G4: cube.' (hexes named as the board's edges
    print them)."""
    fields = {"name": names[entry.seat]}
    if entry.hex is not None:
        fields["hex"] = hex_name(entry.hex)
    if entry.seat_asked is not None:
        fields["asked"] = names[entry.seat_asked]
    return gettext(LOG_TEXTS[(entry.action, entry.piece)]).format(**fields)


def mirror_text(entry, board, names: dict[int, str], gettext: Translate = untranslated) -> str | None:
    """Which piece to put where on the real tiles for a log entry, counted like the structure steps; None when the
    entry put nothing on the board."""
    placement = entry.placement()
    if placement is None:
        return None
    owner, piece = placement
    tile, row, col = board.tile_position(entry.hex)
    return gettext(MIRROR_TEXTS[piece]).format(
        name=names[owner], tile=tile.tile, slot=slot_name(tile.slot, gettext), row=row, col=col
    )


def pending_text(state, names: dict[int, str], gettext: Translate = untranslated) -> str:
    """What the table waits for, e.g. 'Ana: place a cube.', or how the game ended."""
    if state.outcome is not None:
        return gettext(GAME_OVER_TEXTS[state.outcome]).format(name=names.get(state.winner))
    if state.pending is None:
        return gettext(WAITING_TO_START)
    return gettext(PENDING_TEXTS[state.pending]).format(name=names[state.turn])


# Why the seat to act must do what it must, said where it happens (docs/cryptid-play.md sections 2 to 4): to the
# seat itself ("you") and to everyone else.
WHY_OPENING_CUBE = (N_("The opening: every player places two cubes, each on a hex their own clue rules out."),) * 2
WHY_OWED_CUBE = (
    N_("{asked}'s clue rules out {hex}, so you must now place a cube on a hex your clue rules out."),
    N_("{asked}'s clue rules out {hex}, so {name} must now place a cube on a hex their clue rules out."),
)
WHY_EXTRA_DISC = (
    N_("You already have a disc on {hex}: place an extra disc on another hex your clue allows. Then the others answer your search."),
    N_("{name} already has a disc on {hex}: they place an extra disc on another hex their clue allows, then the others answer."),
)


def pending_reason(state, names: dict[int, str], viewer: int | None, gettext: Translate = untranslated) -> str | None:
    """Why the table waits for what it waits for, when a rule says so: an opening cube, the cube owed after a
    cube answer (naming the answer), a search's extra disc; None for an ordinary turn."""
    if state.turn is None:
        return None
    person = 0 if viewer == state.turn else 1
    fields = {"name": names[state.turn]}
    if state.pending == "disc":
        texts = WHY_EXTRA_DISC
        fields["hex"] = hex_name(state.search_hex)
    elif state.pending == "cube" and state.phase == "opening":
        texts = WHY_OPENING_CUBE
    elif state.pending == "cube":
        # The cube answer that made the mover owe a cube (another seat may have left since).
        answer = next(e for e in reversed(state.log) if e.action in ("ask", "answer") and e.piece == "cube")
        texts = WHY_OWED_CUBE
        fields["asked"] = names[answer.seat_asked if answer.action == "ask" else answer.seat]
        fields["hex"] = hex_name(answer.hex)
    else:
        return None
    return gettext(texts[person]).format(**fields)


def illegal_move_text(reason: str, params: dict, gettext: Translate = untranslated) -> str:
    return gettext(ILLEGAL_MOVES[reason]).format(**params)
