"""The queen when safe on the vector engine: a filter of the legal plays, which reads the cards on the trick."""

from __future__ import annotations

import numpy as np

from ...engine.cards import ACE_SPADES, KING_SPADES, QUEEN_SPADES, SPADES
from ...vector.kernel import Kernel
from . import SYSTEM

_QS = np.uint64(1 << QUEEN_SPADES)
_HIGH_SPADES = np.uint64((1 << ACE_SPADES) | (1 << KING_SPADES))


class QueenWhenSafeKernel(Kernel):
    """The Q♠ compelled where it is safe, for many games."""

    name = SYSTEM.name

    def __init__(self) -> None:
        super().__init__()
        self.hooks = {"play_compel": self.compel_queen}

    def compel_queen(self, e, hand, legal, following) -> np.ndarray:
        """A follower holding a legal Q♠ must play it when void in the led suit, or on a spade trick once A♠ or K♠
        is on it."""
        void = (hand & e.suit_masks[e.led]) == 0
        safe = void | ((e.led == SPADES) & ((e.trick_all & _HIGH_SPADES) != 0))
        return np.where(following & safe & ((legal & _QS) != 0), _QS, legal)


def kernel(rules) -> QueenWhenSafeKernel:
    """The queen-when-safe kernel: the rule, once in use, has nothing more to read off ``rules``."""
    return QueenWhenSafeKernel()
