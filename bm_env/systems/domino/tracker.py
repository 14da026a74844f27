"""Domino Hearts in the incremental observation: the stock, the draws and the hands' sizes.

After each card played: the player's count of cards held; where the stock has shrunk, the next
player drew, so its hand plane, what it drew (in its own row) and its count of cards drawn are
rewritten with the stock's size; once the tricks are over, the last player's hand, which it kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engine.cards import cards_of
from ...engine.phases import PLAY
from ...env.faces import TrackerFace
from . import drew

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...env.feature_tracker import FeatureTracker
    from ..component import RuleSystem


class DominoFace(TrackerFace):
    """The stock's size, each seat's cards drawn and held, and the cards each seat drew (its own row)."""

    decided_in = (PLAY,)

    def __init__(self, tracker: FeatureTracker, system: RuleSystem) -> None:
        n = tracker.n
        self._stock = tuple(tracker.at(me, "stock_size") for me in range(n))
        self._drawn = tuple(tracker.about("drawn", s) for s in range(n))  # per seat: its cell in every row
        self._held = tuple(tracker.about("cards_held", s) for s in range(n))
        self._drew = tuple(tracker.at(me, "drew") for me in range(n))  # per seat: the plane in its own row

    def decided(self, tracker: FeatureTracker, deal: Deal, p: int, phase: str, action: int) -> None:
        cells = tracker.cells
        seats = deal.seats
        self._count(cells, self._held[seats[p]], deal.hand_count(p))
        stock = len(deal.kitty) - deal.stock_drawn
        if cells[self._stock[0]] != stock:
            for i in self._stock:
                cells[i] = stock
            if deal.phase == PLAY:  # the player to follow drew
                self._drawer(tracker, deal, deal.to_act)
        if deal.phase != PLAY:  # the tricks are over: the last player kept its hand
            for q in range(deal.num_players):
                tracker.write_hand(deal, q)
                self._count(cells, self._held[seats[q]], deal.hand_count(q))

    def _drawer(self, tracker: FeatureTracker, deal: Deal, q: int) -> None:
        seat = deal.seats[q]
        cards = drew(deal, q)
        tracker.write_hand(deal, q)
        tracker.write_plane(self._drew[seat], cards_of(cards))
        self._count(tracker.cells, self._drawn[seat], cards.bit_count())
        self._count(tracker.cells, self._held[seat], deal.hand_count(q))

    @staticmethod
    def _count(cells: bytearray, where: tuple[int, ...], value: int) -> None:
        for i in where:
            cells[i] = value


FACE = DominoFace
