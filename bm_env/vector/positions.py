"""Deals in the middle of play, as arrays the vector engine starts from (:meth:`~bm_env.vector.VectorEngine.load_positions`).

A search plays many imagined deals on from the position where its seat must decide; the
engine otherwise starts every game at the deal's first decision. :class:`Positions` holds,
for ``N`` games of the classic rules (one deck, no kitty, charges, boosts or the other
extensions), everything that decides how a deal in play goes on and what its players
observe: each seat's hand, pass picks, cards received and cards played, the trick in
progress, the points, clean tricks and voids shown, the dealer and the pass direction.
:func:`positions_of` reads them from reference :class:`~bm_env.engine.deal.Deal` objects.
Seats are deal positions ``0..n-1``; per-seat arrays are ``[N, n]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..engine.cards import mask_of
from ..engine.deal import PLAY, Deal


@dataclass
class Positions:
    """``N`` deals in play; see the module docstring.

    ``trick``: by seat, the card it has put on the trick in progress, -1 where none (the trick
    is played from ``leader`` clockwise, so the seat to act is ``leader`` plus the cards on it).
    ``direction``: the index of the deal's pass direction in the rules' ``pass_cycle``.
    """

    hands: np.ndarray  # [N, n] uint64: cards held
    passed: np.ndarray  # [N, n] uint64: cards picked to pass
    received: np.ndarray  # [N, n] uint64: cards received in the pass
    played: np.ndarray  # [N, n] uint64: cards played this deal (the trick in progress included)
    trick: np.ndarray  # [N, n] int64: card on the trick in progress, -1 for none
    captured: np.ndarray  # [N, n] int64: sum of the card values taken
    penalty_taken: np.ndarray  # [N, n] int64: positive card values taken
    clean_tricks: np.ndarray  # [N, n] int64: tricks won without a valued card
    voids: np.ndarray  # [N, n] uint8: bit s set where the seat has shown void in suit s
    leader: np.ndarray  # [N] int64: the seat that led (or leads) the trick in progress
    tricks_played: np.ndarray  # [N] int64
    hearts_broken: np.ndarray  # [N] bool
    dealer: np.ndarray  # [N] int64
    direction: np.ndarray  # [N] int64

    def __len__(self) -> int:
        return len(self.leader)

    def take(self, rows: np.ndarray | Sequence[int]) -> "Positions":
        """The positions of ``rows`` (repeated where a row is named again), in that order."""
        rows = np.asarray(rows, dtype=np.int64)
        return Positions(**{name: value[rows] for name, value in vars(self).items()})


def positions_of(deals: Sequence[Deal]) -> Positions:
    """The positions of reference deals in play (each one-deck, without the extension rules)."""
    if not deals:
        raise ValueError("positions_of needs at least one deal")
    n = deals[0].num_players
    rows = []
    for i, d in enumerate(deals):
        if d.phase != PLAY:
            raise ValueError(f"deal {i} is in phase {d.phase!r}; positions are deals in play")
        if d.num_players != n or d.rules != deals[0].rules:
            raise ValueError(f"deal {i} has other rules or another player count than deal 0")
        cycle = list(d.rules.pass_cycle)
        if d.pass_direction not in cycle:
            raise ValueError(f"deal {i} passes {d.pass_direction!r}, outside the rules' cycle {cycle}")
        trick = [-1] * n
        for j, c in enumerate(d.trick):
            trick[(d.leader + j) % n] = c
        rows.append((d.hands, [mask_of(p) for p in d.pass_picks], d.received, d.played, trick, d.captured,
                     d.penalty_taken, d.clean_tricks, d.voids, d.leader, d.tricks_played, d.hearts_broken, d.dealer,
                     cycle.index(d.pass_direction)))
    col = list(zip(*rows))
    u64 = lambda k: np.array(col[k], dtype=np.uint64)  # noqa: E731
    i64 = lambda k: np.array(col[k], dtype=np.int64)  # noqa: E731
    return Positions(hands=u64(0), passed=u64(1), received=u64(2), played=u64(3), trick=i64(4), captured=i64(5),
                     penalty_taken=i64(6), clean_tricks=i64(7), voids=np.array(col[8], dtype=np.uint8),
                     leader=i64(9), tricks_played=i64(10), hearts_broken=np.array(col[11], dtype=bool),
                     dealer=i64(12), direction=i64(13))
