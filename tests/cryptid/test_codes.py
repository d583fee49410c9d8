import pytest

from companion.cryptid import GameCodeError, GameId
from companion.cryptid.codes import ALPHABET, GAME_LIMIT, SEED_LIMIT, normalize_code
from companion.cryptid.generator import KNOWN_VERSIONS

ANCHORS = [
    GameId(1, "normal", 2, 0, 0),
    GameId(1, "normal", 3, 1, 1),
    GameId(1, "advanced", 5, SEED_LIMIT - 1, GAME_LIMIT - 1),
    GameId(15, "advanced", 4, 123_456_789, 7),
    GameId(1, "normal", 4, 2_000_000_000, 33),
]


def test_alphabet_avoids_look_alikes_and_is_prime_sized():
    assert len(ALPHABET) == 31
    assert not set("01OIL") & set(ALPHABET)


@pytest.mark.parametrize("game_id", ANCHORS)
def test_round_trip_at_anchor_values(game_id):
    code = game_id.to_code()
    assert len(code) == 11 and code[5] == "-"
    assert set(code.replace("-", "")) <= set(ALPHABET)
    assert GameId.from_code(code) == game_id


def test_pinned_code():
    # Changing the code layout would orphan every code ever printed.
    assert GameId(1, "normal", 4, 12345, 0).to_code() == "ZKM5C-QFEVD"


def test_input_ignores_case_spaces_and_dashes():
    assert GameId.from_code(" zkm5c qfevd ") == GameId.from_code("ZKM5C-QFEVD") == GameId.from_code("zk-m5c–qfe vd")
    assert normalize_code("ab-c d") == "ABCD"


@pytest.mark.parametrize("game_id", ANCHORS[:3])
def test_every_single_wrong_character_is_a_typo(game_id):
    text = game_id.to_code().replace("-", "")
    for position in range(len(text)):
        for symbol in ALPHABET:
            if symbol != text[position]:
                with pytest.raises(GameCodeError) as caught:
                    GameId.from_code(text[:position] + symbol + text[position + 1 :])
                assert caught.value.reason == "typo"


@pytest.mark.parametrize("game_id", ANCHORS)
def test_every_swap_of_neighbours_is_a_typo(game_id):
    text = game_id.to_code().replace("-", "")
    for position in range(len(text) - 1):
        if text[position] != text[position + 1]:
            swapped = text[:position] + text[position + 1] + text[position] + text[position + 2 :]
            with pytest.raises(GameCodeError, match="typo"):
                GameId.from_code(swapped)


@pytest.mark.parametrize(
    "code, reason, words",
    [
        ("", "empty", "Type a game code"),
        ("   - ", "empty", "Type a game code"),
        ("ZKM5C-QFEV", "too_short", "has only 9"),
        ("ZKM5C-QFEVDD", "too_long", "this one has 11"),
        ("ZKM5C-QFE0D", "bad_characters", "“0” cannot appear"),
        ("ZKM5C-OFEID", "bad_characters", "“O”, “I” cannot appear"),
        ("ZKM5C-QFEVE", "typo", "typo"),
        ("12345625037B0B3472", "map_code", "map code from the official Cryptid app"),
        ("8c19ba73 105a8812 26813b", "map_code", "Type the 10-character game code"),
        ("12345625037B0B34", "bad_characters", "“1”, “0” cannot appear"),
    ],
)
def test_bad_codes_say_what_is_wrong(code, reason, words):
    with pytest.raises(GameCodeError) as caught:
        GameId.from_code(code, known_versions=KNOWN_VERSIONS)
    assert caught.value.reason == reason
    assert words in str(caught.value)


def test_unknown_version_is_reported():
    code = GameId(9, "normal", 3, 42, 0).to_code()
    with pytest.raises(GameCodeError, match="newer version") as caught:
        GameId.from_code(code, known_versions=KNOWN_VERSIONS)
    assert caught.value.params == {"version": 9}


@pytest.mark.parametrize(
    "fields",
    [(0, "normal", 3, 0, 0), (1, "expert", 3, 0, 0), (1, "normal", 6, 0, 0), (1, "normal", 3, SEED_LIMIT, 0),
     (1, "normal", 3, 0, GAME_LIMIT)],
)
def test_game_id_range_checks(fields):
    with pytest.raises(ValueError):
        GameId(*fields)
