"""Finding clue sets that pin down one habitat: the combinatorial core of the generator.

A clue set for habitat h is valid (docs/cryptid-rules.md section 5) when every clue allows h, together they allow no other
hex, none is redundant (dropping any one leaves at least two hexes) and some hint category stays open.

Seen from the other hexes this is a small hitting-set problem: for every hex g other than h, let D(g) be the
candidate clues that rule g out; a valid set must contain a clue of every D(g) (so only h is left), and each
chosen clue must be the only chosen one in some D(g) (so it is not redundant). The search branches on the
smallest D(g) not yet hit, which proves "no such set" after a few dozen steps instead of trying every
combination, and tries a set's clues in candidate order, so callers steer which valid set comes first.
"""

from __future__ import annotations

from typing import Iterator

from .clues import CLUES
from .hexgrid import ALL_HEXES, HEX_COUNT
from .hints import HINT_CATEGORIES, mentions

# MENTIONS[i]: bit k set when CLUES[i] mentions HINT_CATEGORIES[k].
MENTIONS = tuple(
    sum(1 << k for k, category in enumerate(HINT_CATEGORIES) if mentions(clue, category)) for clue in CLUES
)
ALL_CATEGORIES = (1 << len(HINT_CATEGORIES)) - 1
_WIDTH = f"0{HEX_COUNT}b"


class ClueSetSearch:
    """The hitting sets D(g) of one habitat over an ordered list of candidate clues that allow it."""

    __slots__ = ("indices", "hittable", "_sets", "_mentions", "_negated", "_ruled")

    def __init__(self, indices: list[int], sets: list[int]) -> None:
        """indices: clue index of each bit position; sets: D(g) for every hex g but the habitat."""
        self.indices = indices
        sets = sorted(set(sets))
        # A hex that no candidate rules out (set 0) can never be excluded: the habitat is not unique.
        self.hittable = not sets or sets[0] != 0
        sets.sort(key=int.bit_count)
        self._sets = sets
        self._mentions = [MENTIONS[index] for index in indices]
        self._negated = [CLUES[index].negated for index in indices]
        self._ruled: list[int] | None = None  # per bit position, the sets its clue hits (see _sole_hitters)

    @classmethod
    def for_candidates(cls, candidates: list[tuple[int, int]], habitat: int) -> "ClueSetSearch":
        """Search over (clue index, area) pairs that all allow the habitat, preferring earlier ones."""
        rows = [ALL_HEXES ^ area for _, area in candidates]
        sets = transpose(rows)
        del sets[habitat]
        return cls([index for index, _ in candidates], sets)

    @classmethod
    def for_habitat(cls, indices: list[int], membership: list[int], habitat: int) -> "ClueSetSearch":
        """Search over all clues of a map, given each hex's membership vector (see transpose)."""
        allowing = membership[habitat]
        sets = [allowing & ~member for member in membership]
        del sets[habitat]
        return cls(indices, sets)

    def find(self, size: int, negated: int | None = None) -> tuple[int, ...] | None:
        """Clue indices of the first valid set of `size` clues (with exactly `negated` negations if given)."""
        return next(self.each(size, negated), None)

    def each(
        self, size: int, negated: int | None = None, required: int = 0, unmentioned: int = 0
    ) -> Iterator[tuple[int, ...]]:
        """Clue indices of every valid set of `size` clues, in the order `find` meets them.

        required: bit positions (into `indices`) every set must contain; unmentioned: hint categories (bits of
        MENTIONS) no clue of the set may mention, e.g. a hint the table has already been shown.
        """
        if not self.hittable:
            return
        sets = self._sets
        total = len(sets)
        mention_of = self._mentions
        negated_of = self._negated
        indices = self.indices

        valid_leaf = self._sole_hitters

        def walk(
            position: int, picked: int, depth: int, negatives: int, mentioned: int, banned: int
        ) -> Iterator[int]:
            # banned: clues an earlier sibling branch already took; sets holding them were met there, once.
            while position < total and sets[position] & picked:
                position += 1
            if position == total:
                # Everything else is ruled out: a set of exactly `size` clues, or a smaller one that any
                # further clue would make redundant.
                if depth == size and valid_leaf(picked):
                    yield picked
                return
            if depth == size:
                return
            if depth + 1 == size:
                # The last clue must rule out every hex still open.
                options = sets[position]
                for later in range(position + 1, total):
                    if not sets[later] & picked:
                        options &= sets[later]
                        if not options:
                            return
            else:
                options = sets[position]
            options &= ~banned
            while options:
                bit = options & -options
                options ^= bit
                j = bit.bit_length() - 1
                now_negative = negatives + negated_of[j]
                if negated is not None and not (now_negative <= negated <= now_negative + size - depth - 1):
                    continue
                now_mentioned = mentioned | mention_of[j]
                if now_mentioned == ALL_CATEGORIES or now_mentioned & unmentioned:
                    continue
                yield from walk(position + 1, picked | bit, depth + 1, now_negative, now_mentioned, banned)
                banned |= bit

        negatives = mentioned = 0
        for j in range(len(indices)):
            if required >> j & 1:
                negatives += negated_of[j]
                mentioned |= mention_of[j]
        if mentioned == ALL_CATEGORIES or mentioned & unmentioned:
            return
        for picked in walk(0, required, required.bit_count(), negatives, mentioned, 0):
            yield tuple(index for j, index in enumerate(indices) if picked >> j & 1)


    def _sole_hitters(self, picked: int) -> bool:
        """Whether each clue of `picked` is the only one of them in some set D(g), so none is redundant."""
        if self._ruled is None:
            self._ruled = transpose(self._sets, len(self.indices))
        ruled = self._ruled
        hits = []
        while picked:
            bit = picked & -picked
            picked ^= bit
            hits.append(ruled[bit.bit_length() - 1])
        for position, own in enumerate(hits):
            others = 0
            for other, hit in enumerate(hits):
                if other != position:
                    others |= hit
            if not own & ~others:
                return False
        return True


def transpose(masks: list[int], width: int = HEX_COUNT) -> list[int]:
    """For each bit g below `width` (a hex, by default), the int whose bit j says whether g is in masks[j]."""
    if not masks:
        return [0] * width
    # String operations are fast in CPython: row j (last mask first) of `width` digits, read down each column.
    digits = _WIDTH if width == HEX_COUNT else f"0{width}b"
    rows = [format(mask, digits) for mask in reversed(masks)]
    columns = [int("".join(column), 2) for column in zip(*rows)]
    columns.reverse()
    return columns

