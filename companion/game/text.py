"""Every English sentence and name the engine gives to people, in one place so the site can translate it."""

from __future__ import annotations

from .board import ABANDONED_SHACK, STANDING_STONE

TERRAIN_NAMES = {"forest": "forest", "desert": "desert", "swamp": "swamp", "mountain": "mountain", "water": "water"}
ANIMAL_NAMES = {"bear": "bear territory", "cougar": "cougar territory", "animal": "either animal territory"}
COLOR_NAMES = {"white": "white", "green": "green", "blue": "blue", "black": "black"}
KIND_NAMES = {STANDING_STONE: "standing stone", ABANDONED_SHACK: "abandoned shack"}
MODE_NAMES = {"normal": "normal", "advanced": "advanced"}
NUMBER_WORDS = {1: "one space", 2: "two spaces", 3: "three spaces"}

WITHIN_TARGET_PHRASES = {
    "animal": "either animal territory",
    "bear": "bear territory",
    "cougar": "cougar territory",
    STANDING_STONE: "a standing stone",
    ABANDONED_SHACK: "an abandoned shack",
    "white": "a white structure",
    "green": "a green structure",
    "blue": "a blue structure",
    "black": "a black structure",
} | TERRAIN_NAMES

HINT_TEXTS = {
    "no_within_1": "No clue says “within one space”.",
    "no_within_2": "No clue says “within two spaces”.",
    "no_within_3": "No clue says “within three spaces”.",
    "no_terrain_pair": "No clue says “on one of two terrains”.",
    "no_terrain": "No clue mentions a terrain.",
    "no_animal": "No clue mentions animal territory.",
    "no_forest": "No clue mentions forest.",
    "no_desert": "No clue mentions desert.",
    "no_swamp": "No clue mentions swamp.",
    "no_mountain": "No clue mentions mountain.",
    "no_water": "No clue mentions water.",
}

# Game-code problems, keyed by GameCodeError.reason; the named fields come from GameCodeError.params.
CODE_ERRORS = {
    "empty": "Type a game code: 10 letters and digits, like {example}.",
    "too_short": "A game code has 10 characters; this one has only {length}. Check for a missing character.",
    "too_long": "A game code has 10 characters; this one has {length}. Check for an extra character.",
    "bad_characters": (
        "{characters} cannot appear in a game code: codes use the digits 2-9 and the letters A-Z except I, L and O."
    ),
    "typo": "This code has a typo: one character is wrong or two are swapped. Check it against the setup screen.",
    "unknown_version": (
        "This code comes from a newer version of the companion (generator {version}). Update the app to load it."
    ),
    "bad_players": "This code names {players} players; Cryptid is played by 2 to 5.",
    "no_such_game": "This map has only {available} games, so game {number} does not exist. Start a new map.",
}

NO_HABITAT_LEFT = (
    "Every habitat this map offers has been used ({used} games). Start a new map to keep playing without repeats."
)


def clue_text(clue) -> str:
    """The sentence a player reads: 'The habitat is (not) ...'."""
    verb = "is not" if clue.negated else "is"
    if clue.kind == "terrain_pair":
        first, second = (TERRAIN_NAMES[t] for t in clue.terrains)
        return f"The habitat {verb} on {first} or {second}."
    return f"The habitat {verb} within {NUMBER_WORDS[clue.distance]} of {WITHIN_TARGET_PHRASES[clue.target]}."


def hint_text(category: str) -> str:
    return HINT_TEXTS[category]


def structure_name(kind: str, color: str) -> str:
    return f"{COLOR_NAMES[color]} {KIND_NAMES[kind]}"

SLOT_NAMES = ("top left", "top right", "middle left", "middle right", "bottom left", "bottom right")


def tile_step_text(slot: int, tile: int, rotated: bool) -> str:
    """How to lay one tile, e.g. 'Top left: tile 3, upright (its number at the top left).'"""
    turn = "turned around (its number at the bottom right)" if rotated else "upright (its number at the top left)"
    return f"{SLOT_NAMES[slot].capitalize()}: tile {tile}, {turn}."


def structure_step_text(kind: str, color: str, slot: int, tile: int, row: int, col: int) -> str:
    """Where one structure stands, counted on the tile as it lies (row and hex 1-based from its top left)."""
    return (
        f"{structure_name(kind, color).capitalize()}: {SLOT_NAMES[slot]} tile ({tile}), "
        f"row {row}, hex {col} from the left."
    )


def hex_label(row: int, col: int, terrain: str) -> str:
    """A hex as a player reads it: 1-based board row and column, and its terrain."""
    return f"Row {row + 1}, column {col + 1}: {TERRAIN_NAMES[terrain]}"


def seat_name(seat: int) -> str:
    return f"Player {seat}"


def tile_hint_text(tile: int, slot: int) -> str:
    """The stronger hint: which physical tile the habitat is on."""
    return f"The habitat is on tile {tile}, the {SLOT_NAMES[slot]} tile."
