"""Secret, reproducible randomness: BLAKE2b keyed with a game's secret, in counter mode.

Block i is BLAKE2b(key=secret, data=labels || i) with a 64-byte digest, labels joined by U+001F and i as 8
little-endian bytes; its eight 64-bit little-endian words are used in order. `below(n)` rejects words at or
above the largest multiple of n under 2**64, so it is exactly uniform. Integers only: no platform or Python
version can change a draw, and without the secret nobody can predict one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
_SPAN = 1 << 64
_WORD_BYTES = 8


class SecretStream:
    """Uniform integers drawn from a secret and a purpose (the labels), the same every time."""

    __slots__ = ("_secret", "_labels", "_block", "_words")

    def __init__(self, secret: bytes, *labels: str | int) -> None:
        if not 16 <= len(secret) <= hashlib.blake2b.MAX_KEY_SIZE:
            raise ValueError("a secret is 16-64 bytes")
        self._secret = secret
        self._labels = "\x1f".join(map(str, labels)).encode()
        self._block = 0
        self._words: list[int] = []

    def _next_word(self) -> int:
        if not self._words:
            data = self._labels + self._block.to_bytes(8, "little")
            digest = hashlib.blake2b(data, key=self._secret).digest()
            self._block += 1
            # Reversed, so pop() hands the words out in digest order.
            self._words = [
                int.from_bytes(digest[start : start + _WORD_BYTES], "little")
                for start in reversed(range(0, len(digest), _WORD_BYTES))
            ]
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        if n < 1:
            raise ValueError("below() needs a positive bound")
        accepted = _SPAN - _SPAN % n
        word = self._next_word()
        while word >= accepted:
            word = self._next_word()
        return word % n

    def sample(self, items: Sequence[T], count: int) -> list[T]:
        """`count` different items in a uniformly random order: each a uniform pick among those left."""
        left = list(items)
        if not 0 <= count <= len(left):
            raise ValueError(f"cannot pick {count} of {len(left)} items")
        return [left.pop(self.below(len(left))) for _ in range(count)]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A uniformly shuffled copy."""
        return self.sample(items, len(items))
