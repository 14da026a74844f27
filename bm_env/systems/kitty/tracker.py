"""The kitty in the incremental observation: its taker (public), its cards and the discards (the
taker's alone), and the face-down points, which only the taker's row counts until the deal is scored."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engine.phases import DISCARD
from ...env.faces import TrackerFace

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...env.feature_tracker import FeatureTracker
    from ..component import RuleSystem


class KittyFace(TrackerFace):
    """The kitty's cells as it is taken and its taker discards."""

    decided_in = (DISCARD,)

    def __init__(self, tracker: FeatureTracker, system: RuleSystem) -> None:
        n = tracker.n
        self._taker = [tracker.about("kitty_taker", s) for s in range(n)]
        self._cards = [tracker.at(me, "kitty_cards") for me in range(n)]
        self._discarded = [tracker.at(me, "kitty_discarded") for me in range(n)]
        self._hand = [tracker.at(me, "hand") for me in range(n)]

    def decided(self, tracker: FeatureTracker, deal: Deal, p: int, phase: str, action: int) -> None:
        """The taker discarded ``action`` face down: it leaves the hand and counts among its points."""
        seat = deal.seats[p]
        cells = tracker.cells
        cells[self._hand[seat] + action] -= 1
        cells[self._discarded[seat] + action] += 1
        tracker.sync_points(deal)

    def trick_over(self, tracker: FeatureTracker, deal: Deal) -> None:
        self._show_taker(tracker, deal)

    def phase_changed(self, tracker: FeatureTracker, deal: Deal) -> None:
        """The last trick's winner may have taken the kitty nobody took in play; the scoring shows the
        face-down points to everyone."""
        tracker.sync_points(deal)
        self._show_taker(tracker, deal)

    def deal_over(self, tracker: FeatureTracker, deal: Deal) -> None:
        """A renege ends the deal without a phase change: it is scored, its face-down points public."""
        tracker.sync_points(deal)

    def _show_taker(self, tracker: FeatureTracker, deal: Deal) -> None:
        """Once taken, the kitty's taker in every row, its cards and the taker's hand in the taker's own."""
        taker = deal.kitty_taker
        if taker is None:
            return
        seat = deal.seats[taker]
        cells = tracker.cells
        shown = self._taker[seat]
        if cells[shown[seat]]:  # the taker's own row shows it already
            return
        for i in shown:
            cells[i] = 1
        tracker.write_plane(self._cards[seat], deal.kitty)
        tracker.write_hand(deal, taker)  # the kitty's cards join it where the rules say so


FACE = KittyFace
