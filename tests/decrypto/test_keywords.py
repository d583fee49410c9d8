"""Word lists: the loader, the shipped lists, and dealing keywords so a table meets each word once per pass."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.decrypto import (
    WordListError,
    available_languages,
    deal_keywords,
    load_words,
    used_after,
)
from companion.decrypto.rng import SecretStream
from tests.helpers import REPO

ROOT = REPO


def stream(*labels) -> SecretStream:
    return SecretStream(b"k" * 32, "keyword tests", *labels)


def test_a_list_skips_blank_lines_and_comments_and_tidies_words(tmp_path):
    text = "\ufeff# Test words\n\n  apple \nice  cream\n#not a word\nzèbre\n"
    (tmp_path / "xx.txt").write_text(text, encoding="utf-8")
    assert load_words("xx", tmp_path) == ("apple", "ice cream", "zèbre")
    assert available_languages(tmp_path) == ("xx",)


@pytest.mark.parametrize("second", ["apple", "APPLE", " Apple ", "ａｐｐｌｅ"])
def test_a_list_may_not_hold_a_word_twice(tmp_path, second):
    (tmp_path / "xx.txt").write_text(f"apple\npear\n{second}\n", encoding="utf-8")
    with pytest.raises(WordListError, match="line 3.*repeats line 1"):
        load_words("xx", tmp_path)


@pytest.mark.parametrize("language", ["zz", "../secrets", "en/../en", "", "EN"])
def test_only_existing_lists_with_plain_language_codes_load(tmp_path, language):
    (tmp_path / "en.txt").write_text("a\n", encoding="utf-8")
    with pytest.raises(WordListError):
        load_words(language, tmp_path)


def test_no_word_list_folder_means_no_languages(tmp_path):
    assert available_languages(tmp_path / "missing") == ()


def test_the_word_lists_ship_in_the_wheel():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "words/*.txt" in config["tool"]["setuptools"]["package-data"]["companion.decrypto"]


@pytest.mark.parametrize("language", available_languages())
def test_each_shipped_list_loads_and_can_deal_a_game(language):
    words = load_words(language)
    assert len(words) >= 8
    white, black = deal_keywords(words, frozenset(), stream(language))
    assert len(set(white + black)) == 8


def test_a_deal_gives_eight_different_unseen_words():
    words = [f"w{i}" for i in range(20)]
    used = {f"w{i}" for i in range(10)}
    white, black = deal_keywords(words, used, stream("unseen"))
    assert len(white) == len(black) == 4
    assert len(set(white + black)) == 8 and not used & set(white + black)


def test_a_deal_is_reproducible_from_its_stream():
    words = [f"w{i}" for i in range(30)]
    assert deal_keywords(words, set(), stream("same")) == deal_keywords(words, set(), stream("same"))
    assert deal_keywords(words, set(), stream("same")) != deal_keywords(words, set(), stream("other"))


def test_a_list_needs_eight_different_words():
    with pytest.raises(WordListError):
        deal_keywords([f"w{i}" for i in range(7)], set(), stream("small"))
    with pytest.raises(WordListError):
        deal_keywords(["a", "a"] + [f"w{i}" for i in range(8)], set(), stream("twice"))


def test_when_the_list_runs_out_the_last_unseen_words_come_first_and_the_last_game_last():
    words = [f"w{i}" for i in range(20)]
    used = set(words[:17])  # three unseen words left
    recent = words[9:17]
    white, black = deal_keywords(words, used, stream("restart"), recent=recent)
    dealt = set(white + black)
    assert {"w17", "w18", "w19"} <= dealt and not dealt & set(recent)
    assert used_after(words, used, dealt) == frozenset(dealt)


@settings(max_examples=60, deadline=None)
@given(size=st.integers(8, 40), games=st.integers(1, 12), seed=st.integers(0, 10**6))
def test_a_table_meets_every_word_once_before_any_comes_back(size, games, seed):
    words = [f"w{i}" for i in range(size)]
    used: frozenset[str] = frozenset()
    seen_this_pass: set[str] = set()
    previous: tuple[str, ...] = ()
    for game in range(games):
        white, black = deal_keywords(words, used, stream(seed, game), recent=previous)
        dealt = white + black
        assert len(set(dealt)) == 8
        fresh = set(words) - used
        if len(fresh) >= 8:
            assert not seen_this_pass & set(dealt)
            seen_this_pass |= set(dealt)
        else:  # a new pass: every unseen word first, then nothing from the last game while others remain
            assert fresh <= set(dealt)
            others = len(words) - len(fresh) - len(previous)
            if others >= 8 - len(fresh):
                assert not set(previous) & set(dealt)
            seen_this_pass = set(dealt)
        used = used_after(words, used, dealt)
        assert used == frozenset(seen_this_pass)
        previous = dealt
