"""The 10♣ multiplier on the vector engine: who took the 10♣ (per game), and the score multiplier it gives,
×4 where charging is in use and the 10♣ was charged."""

from __future__ import annotations

import numpy as np

from ...engine.cards import TEN_CLUBS
from ...vector.kernel import Kernel
from . import SYSTEM

_TEN_CLUBS = np.uint64(TEN_CLUBS)
_ONE = np.uint64(1)


class TenClubsKernel(Kernel):
    """The 10♣ multiplier for many games."""

    name = SYSTEM.name
    state_arrays = ("tc_taker",)

    def __init__(self) -> None:
        super().__init__()
        self.hooks = {"allocate": self.allocate, "start_deals": self.start_deals, "collected": self.note_taker,
                      "multipliers": self.multipliers}

    def allocate(self, e) -> None:
        self.tc_taker = np.full(e.num_envs, -1, dtype=np.int64)

    def start_deals(self, e, games, leftover, directions) -> None:
        self.tc_taker[games] = -1

    def note_taker(self, e, games, seats, idx, cards, points, tricks, face_down) -> None:
        has = (cards >> _TEN_CLUBS) & _ONE != 0
        self.tc_taker[games] = np.where(has, seats, self.tc_taker[games])

    def multipliers(self, e, games) -> np.ndarray:
        """×2 for the 10♣'s taker, ×4 if it was charged; ×1 for everyone else."""
        out = np.ones((e.n, games.size), dtype=np.int32)
        taker = self.tc_taker[games]
        has = taker >= 0
        charging = e.kernel("charging")
        if charging is None:
            charged = np.zeros(games.size, dtype=bool)
        else:
            charged = (charging.charged_cards(games) >> _TEN_CLUBS) & _ONE != 0
        out[taker[has], np.flatnonzero(has)] = np.where(charged[has], 4, 2)
        return out


def kernel(rules) -> TenClubsKernel:
    """The 10♣ kernel: the rule, once in use, has nothing more to read off ``rules``."""
    return TenClubsKernel()
