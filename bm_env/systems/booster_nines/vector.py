"""Booster Nines on the vector engine: the rounds a trick owes (per game) and its length in cards, which a nine of
the led suit makes longer by a round while the next player still holds cards."""

from __future__ import annotations

import numpy as np

from ...engine.cards import NUM_CARDS, NUM_RANKS
from ...vector.kernel import Kernel
from . import SYSTEM

#: By action id: whether it is a nine.
_NINE = (np.arange(64) % NUM_RANKS == 7) & (np.arange(64) < NUM_CARDS)


class BoosterNinesKernel(Kernel):
    """Booster Nines for many games."""

    name = SYSTEM.name
    state_arrays = ("boosts", "trick_len")
    plays_again = True

    def __init__(self) -> None:
        super().__init__()
        self.hooks = {"allocate": self.allocate, "start_deals": self.start_deals, "trick_complete": self.add_round,
                      "trick_end": self.end_trick, "arrays": self.arrays, "encode": self.encode,
                      "state": self.state}

    def allocate(self, e) -> None:
        self.boosts = np.zeros(e.num_envs, dtype=np.int64)
        self.trick_len = np.full(e.num_envs, e.n, dtype=np.int64)

    def start_deals(self, e, games, leftover, directions) -> None:
        self.end_trick(e, games)

    def add_round(self, e, playing, c, suit, seat) -> np.ndarray:
        """A nine of the led suit owes a round; a trick of its length complete, with rounds owed and the next
        player still holding cards, goes round again instead."""
        complete = playing & (e.in_trick == self.trick_len)
        self.boosts += playing & _NINE[c] & (suit == e.led)
        nxt = e._next_seat[seat]
        more = complete & (self.boosts > 0) & (e.hands.reshape(-1)[nxt * e.num_envs + e._g] != 0)
        if more.any():
            self.boosts -= more
            self.trick_len += e.n * more
            complete &= ~more
        return complete

    def end_trick(self, e, games) -> None:
        """The next trick starts owing nothing."""
        self.boosts[games] = 0
        self.trick_len[games] = e.n

    def arrays(self, e) -> dict[str, np.ndarray]:
        return {"boosts": self.boosts}

    def encode(self, enc, tail, parts, s, me) -> None:
        tail[:, parts["boosts_owed"].start] = s["boosts"]

    def state(self, e) -> dict[str, np.ndarray]:
        return {"boosts": self.boosts.copy()}


def kernel(rules) -> BoosterNinesKernel:
    """The Booster Nines kernel: the rule, once in use, has nothing more to read off ``rules``."""
    return BoosterNinesKernel()
