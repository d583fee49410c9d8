"""A random stream that gives the same numbers forever, on every platform and Python version.

Every random choice the generator makes comes from here. The procedure is fixed and documented so that a game
code keeps naming the same game: BLAKE2b (64-byte digest) of ``key || counter`` (counter as 8 little-endian
bytes, starting at 0) yields eight 64-bit little-endian words per block; ``below(n)`` rejects words at or above
the largest multiple of n under 2**64, so it is exactly uniform. Only integer arithmetic is used (no floats,
no ``random`` module), so no platform's libm or Python's own algorithms can change a result.

A secret stream is the same with BLAKE2b in keyed mode: its key is ``secret_of(server_key)``, the 32-byte
BLAKE2b digest of the server's key (of any length, b"" included), so nobody without the server's key can
compute its numbers, while a stream without a secret is plain BLAKE2b as above.
"""

from __future__ import annotations

import hashlib
from typing import Sequence, TypeVar

T = TypeVar("T")
_WORD = 1 << 64


def secret_of(server_key: bytes) -> bytes:
    """The 32 bytes that key a server's secret streams: its key's BLAKE2b digest (also for the empty key)."""
    return hashlib.blake2b(server_key, digest_size=32, person=b"cryptid-key").digest()


class Stream:
    """Deterministic stream of integers keyed by a tuple of labels (strings and ints)."""

    __slots__ = ("_key", "_secret", "_counter", "_words")

    def __init__(self, *labels: str | int, secret: bytes = b"") -> None:
        """secret: empty, or a digest from secret_of() that keys BLAKE2b (at most 64 bytes)."""
        self._key = "\x1f".join(str(label) for label in labels).encode()
        self._secret = secret
        self._counter = 0
        self._words: list[int] = []

    def _word(self) -> int:
        if not self._words:
            data = self._key + self._counter.to_bytes(8, "little")
            block = hashlib.blake2b(data, digest_size=64, key=self._secret).digest()
            self._counter += 1
            self._words = [int.from_bytes(block[i : i + 8], "little") for i in range(56, -8, -8)]
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _WORD - _WORD % n
        while True:
            word = self._word()
            if word < limit:
                return word % n

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A uniformly shuffled copy (Fisher-Yates from the last position down)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def weighted_index(self, weights: Sequence[int]) -> int:
        """An index drawn with probability proportional to its (non-negative integer) weight."""
        total = sum(weights)
        if total <= 0:
            raise ValueError("weighted_index() needs a positive total weight")
        pick = self.below(total)
        for index, weight in enumerate(weights):
            if pick < weight:
                return index
            pick -= weight
        raise AssertionError("unreachable")

    def weighted_order(self, items: Sequence[T], weights: Sequence[int]) -> list[T]:
        """All items in a random order where heavier items tend to come first (draws without replacement)."""
        items, weights = list(items), list(weights)
        order = []
        while items:
            if sum(weights) == 0:
                order.extend(self.shuffled(items))
                break
            i = self.weighted_index(weights)
            order.append(items.pop(i))
            weights.pop(i)
        return order
