import pytest

from companion.cryptid import CLUES, Board, Clue, clue_areas
from companion.cryptid.clues import ClueError, clues_for_mode
from companion.cryptid.text import clue_text, within_note_text


def test_clue_counts_per_mode():
    assert len(CLUES) == 48
    assert len(clues_for_mode("normal")) == 23
    assert len(clues_for_mode("advanced")) == 48
    assert not any(c.negated or c.target == "black" for c in clues_for_mode("normal"))


def test_ids_are_unique_and_stable():
    assert len({c.id for c in CLUES}) == 48
    assert [CLUES[i].id for i in (0, 9, 10, 15, 16, 19, 20, 23, 24, 47)] == [
        "forest-or-desert", "mountain-or-water", "within-1-forest", "within-1-animal",
        "within-2-standing-stone", "within-2-cougar", "within-3-white", "within-3-black",
        "not-forest-or-desert", "not-within-3-black",
    ]
    for clue in CLUES:
        assert Clue.from_id(clue.id) is clue
        assert CLUES[clue.index] is clue
        assert clue.negation().negation() == clue


@pytest.mark.parametrize(
    "clue_id, text",
    [
        ("forest-or-swamp", "The habitat is on forest or swamp."),
        ("not-forest-or-swamp", "The habitat is on neither forest nor swamp."),
        ("not-within-1-animal", "The habitat is not within one space of any animal territory."),
        ("within-1-water", "The habitat is within one space of water."),
        ("within-1-animal", "The habitat is within one space of either animal territory."),
        ("within-2-standing-stone", "The habitat is within two spaces of a standing stone."),
        ("not-within-2-abandoned-shack", "The habitat is not within two spaces of an abandoned shack."),
        ("within-2-bear", "The habitat is within two spaces of bear territory."),
        ("within-3-blue", "The habitat is within three spaces of a blue structure."),
    ],
)
def test_clue_texts(clue_id, text):
    assert clue_text(Clue.from_id(clue_id)) == text


def test_negated_area_is_the_complement():
    areas = clue_areas(Board.from_map_code("12345625037B810B347256"))
    for i in range(24):
        assert areas[i] ^ areas[i + 24] == (1 << 108) - 1


def test_forest_is_within_one_space_of_forest():
    board = Board.from_map_code("12345625037B0B3472")
    areas = clue_areas(board)
    forest = board.regions["forest"]
    assert areas[Clue.from_id("within-1-forest").index] & forest == forest


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "within", "target": "bear", "distance": 3},
        {"kind": "terrain_pair", "terrains": ["forest", "forest"]},
        {"kind": "terrain_pair", "terrains": ["forest", "lava"]},
        {"kind": "near"},
        {"target": "bear"},
    ],
)
def test_bad_clue_json_is_rejected(data):
    with pytest.raises(ClueError):
        Clue.from_json(data)


def test_unknown_id_is_rejected():
    with pytest.raises(ClueError, match="no clue has the id"):
        Clue.from_id("within-4-bear")


@pytest.mark.parametrize(
    "clue_id, words",
    [
        ("forest-or-swamp", None),
        ("not-mountain-or-water", None),
        ("within-1-water", "“Within one space” counts the hex itself"),
        ("not-within-1-animal", "“Within one space” counts the hex itself"),
        ("within-2-bear", "every hex up to two spaces away"),
        ("not-within-3-black", "every hex up to three spaces away"),
    ],
)
def test_clues_with_a_distance_have_a_note_on_what_within_counts(clue_id, words):
    note = within_note_text(Clue.from_id(clue_id))
    assert note == words if words is None else words in note
