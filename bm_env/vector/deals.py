"""Random deals for the vector engine, dealt a block at a time from a seeded generator.

Shuffling one deal at a time would cost a numpy call per finished game; a block of
deals is dealt with a few calls over the whole block and handed out as games finish.
Each deal orders the deck by random keys (26 random bits above the 6-bit card id) drawn
from the caller's generator and sorted, which costs a fraction of ``Generator.permuted``'s
bounded draw per swap; deals whose keys tie (about 2 in 100,000) are dealt again, so every
order of the deck, and so every deal, is equally likely.
"""

from __future__ import annotations

import numpy as np

from ..engine.cards import cards_of
from ..engine.rules import Rules

_CARD_BITS = np.uint32(6)  # card ids are below 64
_CARD = np.uint32(63)


class DealSource:
    """Uniformly random deals of ``copies`` of each card of the rules' deck, one row ``[width]`` of uint64 card
    masks each.

    A row holds seat ``s``'s hand in column ``s``; with two copies (two decks) the cards each
    seat holds twice follow (columns ``n..2n-1``), and with ``leftover`` (a kitty) the cards
    left over after an even deal (and those it holds twice) come last. Classic rules have rows
    of just the ``n`` hands.
    """

    def __init__(self, rules: Rules, rng: np.random.Generator, block: int = 4096, copies: int = 1,
                 leftover: bool = False) -> None:
        self.rng = rng
        self.n = rules.num_players
        self.copies = copies
        self.deck = np.array(cards_of(rules.deck_mask()) * copies, dtype=np.uint32)
        self.dealt = self.deck.size - rules.kitty_size()
        self.width = self.n * copies + (copies if leftover else 0)
        self.block = block
        self._hands = np.empty((0, self.width), dtype=np.uint64)
        self._next = 0

    def _sorted_keys(self, count: int) -> np.ndarray:
        """``[count, deck]`` keys, each row the deck's cards (low 6 bits) in a uniformly random order."""
        raw = np.frombuffer(self.rng.bytes(4 * count * self.deck.size), dtype=np.uint32)
        keys = (raw.reshape(count, -1) & ~_CARD) | self.deck
        keys.sort(axis=1)
        high = (keys >> _CARD_BITS).reshape(-1)
        if (high[1:] == high[:-1]).any():  # a tie within a row (or, harmless, across two rows)
            high = high.reshape(count, -1)
            tied = np.flatnonzero((high[:, 1:] == high[:, :-1]).any(axis=1))
            if tied.size:
                keys[tied] = self._sorted_keys(tied.size)
        return keys

    def _refill(self, need: int) -> None:
        count = max(self.block, need)
        order = np.ascontiguousarray((self._sorted_keys(count) & _CARD).T)  # [position, deal]
        bits = np.left_shift(np.uint64(1), order.astype(np.uint64))  # uint32 shifts: numpy 1.x would keep uint32
        # Card i of a shuffled deck goes to seat i mod n: one card at a time round the table,
        # as far as the cards go; the rest is the kitty.
        dealt = bits[:self.dealt].reshape(-1, self.n, count)
        kitty = bits[self.dealt:, None, :]
        if self.copies == 1:
            parts = [np.bitwise_or.reduce(dealt, axis=0)]
            if self.width > self.n:
                parts.append(np.bitwise_or.reduce(kitty, axis=0))
        else:
            hands, kitty = _once_twice(dealt), _once_twice(kitty)
            parts = [hands[0], hands[1]] + ([kitty[0], kitty[1]] if self.width > 2 * self.n else [])
        fresh = np.concatenate(parts).T
        self._hands = np.concatenate([self._hands[self._next:], fresh])
        self._next = 0

    def take(self, count: int) -> np.ndarray:
        if self._next + count > len(self._hands):
            self._refill(count)
        out = self._hands[self._next:self._next + count]
        self._next += count
        return out

    def undealt(self) -> np.ndarray:
        """The deals dealt in the current block and not yet handed out ``[k, n]``."""
        return self._hands[self._next:]

    def set_undealt(self, hands: np.ndarray) -> None:
        """Hand out these deals before any new block (the other half of :meth:`undealt`)."""
        self._hands = np.ascontiguousarray(hands, dtype=np.uint64).reshape(-1, self.width)
        self._next = 0


def _once_twice(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``[rounds, k, count]`` one-card masks (two decks) as the masks of the cards each of ``k``
    receives at least once and twice."""
    once = np.zeros(bits.shape[1:], dtype=np.uint64)
    twice = np.zeros_like(once)
    for b in bits:
        twice |= once & b
        once |= b
    return once, twice
