"""Random deals for the vector engine, shuffled a block at a time from a seeded generator.

Shuffling one deal at a time would cost a numpy call per finished game; a block of
deals is shuffled with one ``Generator.permuted`` call and handed out as games finish.
"""

from __future__ import annotations

import numpy as np

from ..cards import cards_of
from ..rules import Rules


class DealSource:
    """Hands ``[count, n]`` (uint64 card masks, seat ``s`` in column ``s``) of uniformly random deals."""

    def __init__(self, rules: Rules, rng: np.random.Generator, block: int = 4096) -> None:
        self.rng = rng
        self.n = rules.num_players
        self.deck = np.array(cards_of(rules.deck_mask()), dtype=np.uint64)
        self.block = block
        self._hands = np.empty((0, self.n), dtype=np.uint64)
        self._next = 0

    def _refill(self, need: int) -> None:
        count = max(self.block, need)
        order = self.rng.permuted(np.broadcast_to(self.deck, (count, self.deck.size)), axis=1)
        bits = np.left_shift(np.uint64(1), order)
        # Card i of a shuffled deck goes to seat i mod n: one card at a time round the table.
        fresh = np.bitwise_or.reduce(bits.reshape(count, -1, self.n), axis=1)
        self._hands = np.concatenate([self._hands[self._next:], fresh])
        self._next = 0

    def take(self, count: int) -> np.ndarray:
        if self._next + count > len(self._hands):
            self._refill(count)
        out = self._hands[self._next:self._next + count]
        self._next += count
        return out
