"""When a typed keyword guess counts as the keyword (docs/decrypto-rules.md section 10): lenient, as a person is.

Both texts are folded (NFKC; case folded, which also makes a Greek final sigma a plain one; accents and other
combining marks dropped, but not the kana voicing marks that make a different word; katakana read as hiragana;
Arabic yeh and kaf read as the Persian letters; zero-width joiners and spaces dropped). Then they match when they
are equal, or when one is the other with a plural ending the keyword's language forms plurals with, by a rule
that can be stated (SUFFIXES, VOWEL_SWAPS): "apple"/"apples", "Apfel"/"Äpfel", "gatto"/"gatti", "سیب"/"سیب‌ها".
"""

from __future__ import annotations

import unicodedata

# Plural endings added to the singular, per language: a guess one of these away from the keyword counts.
SUFFIXES = {
    "en": ("s", "es"),
    "fr": ("s", "x"),
    "es": ("s", "es"),
    "pt": ("s", "es"),
    "de": ("e", "n", "en", "er", "s"),
    "hu": ("k", "ok", "ek", "ak"),
    "fa": ("ها", "های", "ان"),
}
# Languages whose plural swaps the last vowel: Italian -o/-e to -i, -a to -e.
VOWEL_SWAPS = {"it": {("o", "i"), ("e", "i"), ("a", "e")}}
# Kana voicing marks are combining marks too, but が and か are different words.
_KEPT_MARKS = {"\u3099", "\u309a"}
_LETTERS = str.maketrans({"ي": "ی", "ى": "ی", "ك": "ک", "ة": "ه"})


def fold(text: str) -> str:
    """The form a keyword and a guess are compared in (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    kept = []
    for char in unicodedata.normalize("NFD", text):
        if unicodedata.category(char) == "Mn" and char not in _KEPT_MARKS:
            continue
        if unicodedata.category(char) in ("Cf", "Zs") or char.isspace():
            continue  # spaces and zero-width joiners: "ice cream" is "icecream", "سیب‌ها" is "سیبها"
        if "\u30a1" <= char <= "\u30f6":
            char = chr(ord(char) - 0x60)  # katakana to hiragana
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept)).translate(_LETTERS)


def is_plural_of(longer: str, shorter: str, language: str | None) -> bool:
    """Whether folded `longer` is folded `shorter` with one of the language's plural endings."""
    if any(longer == shorter + ending for ending in SUFFIXES.get(language or "", ())):
        return True
    swaps = VOWEL_SWAPS.get(language or "", ())
    return len(longer) == len(shorter) > 1 and longer[:-1] == shorter[:-1] and (shorter[-1], longer[-1]) in swaps


def keyword_matches(guess: str, keyword: str, language: str | None) -> bool:
    """Whether a typed guess names the keyword: equal once folded, or its plural (or the keyword's singular)."""
    guess, keyword = fold(guess), fold(keyword)
    if not guess:
        return False
    return guess == keyword or is_plural_of(guess, keyword, language) or is_plural_of(keyword, guess, language)
