"""Card masks read one suit at a time: a suit's 13 cards are a 13-bit chunk of the mask, which a table of
8192 entries answers in one lookup.

The extension engine sums card values this way (four lookups per mask, whatever the number of cards, where
a card id per card would need to know how many there are) and finds the highest card of a suit in a trick
to which a seat may have played several cards.
"""

from __future__ import annotations

import numpy as np

from ..engine.cards import NUM_RANKS

#: The 13 cards of a suit, shifted down to bits 0..12.
CHUNK = np.uint64((1 << NUM_RANKS) - 1)
#: By suit: the shift that brings its chunk down to bit 0.
SUIT_SHIFTS = [np.uint64(NUM_RANKS * s) for s in range(4)]
#: Highest rank present in a suit's 13-bit chunk (-1: none).
HIGHEST = np.array([x.bit_length() - 1 for x in range(1 << NUM_RANKS)], dtype=np.int64)


def chunk_table(values) -> np.ndarray:
    """``[4 * 8192]``: the sum of ``values`` (by card id) over the cards of each 13-bit chunk of each suit."""
    ranks = (np.arange(1 << NUM_RANKS)[:, None] >> np.arange(NUM_RANKS)) & 1
    return np.concatenate([ranks @ np.array(values[NUM_RANKS * s:NUM_RANKS * (s + 1)], dtype=np.int64)
                           for s in range(4)]).astype(np.int32)


def mask_sum(table: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The sum of a :func:`chunk_table` over the cards of each mask (four lookups, one per suit)."""
    out = table[(masks & CHUNK).astype(np.int64)]
    for s in range(1, 4):
        out = out + table[((masks >> SUIT_SHIFTS[s]) & CHUNK).astype(np.int64) + (s << NUM_RANKS)]
    return out


def highest_of_suit(masks: np.ndarray, suit) -> np.ndarray:
    """The highest rank of ``suit`` (a suit, or one per mask) in each mask, -1 where it has none."""
    shift = SUIT_SHIFTS[suit] if np.ndim(suit) == 0 else (NUM_RANKS * suit).astype(np.uint64)
    return HIGHEST[((masks >> shift) & CHUNK).astype(np.int64)]


def first_highest(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(row, key)`` of the first highest key of each column of ``key`` ``[rows, games]``, as argmax (a pass
    over the rows is cheaper)."""
    row = np.zeros(key.shape[1], dtype=np.int64)
    best = key[0]
    for r in range(1, key.shape[0]):
        row = np.where(key[r] > best, r, row)
        best = np.maximum(best, key[r])
    return row, best
