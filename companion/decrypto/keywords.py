"""The site's keyword lists, and dealing eight keywords so that a table meets each word once per pass.

Lists live in companion/decrypto/words/<language>.txt: UTF-8, one keyword per line, blank lines and lines
starting with # ignored. Two lines that compare equal (normalize_text: NFKC, case folded, whitespace made
single) are an error, since the tiebreak could not tell them apart. They are read through importlib.resources,
so an installed wheel reads them too.

A table keeps the set of keywords it has seen (`used`). Each deal takes eight unseen words while eight remain;
then the pass is over: the deal takes the last unseen words and fills up from the rest of the list, never with
a word already in this deal nor one of `recent` (the game just played) while the list has others.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Sequence
from importlib import resources
from importlib.abc import Traversable

from .rng import SecretStream
from .rules import KEYWORDS, normalize_text

WORDS = resources.files(__package__) / "words"
DEAL = 2 * KEYWORDS
_LANGUAGE = re.compile(r"[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")


class WordListError(ValueError):
    """A word list that cannot be used: missing, or holding the same keyword twice."""


def available_languages(directory: Traversable = WORDS) -> tuple[str, ...]:
    """The languages that have a word list, sorted."""
    if not directory.is_dir():
        return ()
    return tuple(sorted(entry.name[: -len(".txt")] for entry in directory.iterdir() if entry.name.endswith(".txt")))


@functools.lru_cache(maxsize=32)
def load_words(language: str, directory: Traversable = WORDS) -> tuple[str, ...]:
    """The keywords of a language's list, in file order; raises WordListError."""
    if not _LANGUAGE.fullmatch(language):
        raise WordListError(f"{language!r} is not a language code")
    path = directory / f"{language}.txt"
    if not path.is_file():
        raise WordListError(f"there is no word list for {language!r}")
    return parse_words(path.read_text(encoding="utf-8-sig"), f"{language}.txt")


def parse_words(text: str, source: str) -> tuple[str, ...]:
    """The keywords of a list's text; `source` names the list in errors."""
    words: list[str] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        word = " ".join(line.split())
        if not word or word.startswith("#"):
            continue
        key = normalize_text(word)
        if key in first_line:
            raise WordListError(f"{source} line {number}: {word!r} repeats line {first_line[key]}")
        first_line[key] = number
        words.append(word)
    return tuple(words)


def deal_keywords(
    words: Sequence[str],
    used: Collection[str],
    stream: SecretStream,
    *,
    recent: Collection[str] = (),
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Four keywords for White and four for Black (positions 1-4), unseen by the table while the list allows."""
    if len(set(words)) != len(words):
        raise WordListError("a word list holds each word once")
    if len(words) < DEAL:
        raise WordListError(f"a word list needs at least {DEAL} words")
    used = frozenset(used)
    fresh = [word for word in words if word not in used]
    if len(fresh) >= DEAL:
        dealt = stream.sample(fresh, DEAL)
    else:
        recent = frozenset(recent)
        # Words of the game just played come last, so they are dealt again only when nothing else is left.
        refill = stream.shuffled([w for w in words if w in used and w not in recent])
        refill += stream.shuffled([w for w in words if w in used and w in recent])
        dealt = stream.shuffled(fresh + refill[: DEAL - len(fresh)])
    return tuple(dealt[:KEYWORDS]), tuple(dealt[KEYWORDS:])


def used_after(words: Sequence[str], used: Collection[str], dealt: Collection[str]) -> frozenset[str]:
    """The table's `used` set after a deal: grown by the dealt words, or only them when the deal began a new pass."""
    fresh = frozenset(words) - frozenset(used)
    if len(fresh) >= DEAL:
        return frozenset(used) | frozenset(dealt)
    return frozenset(dealt)
