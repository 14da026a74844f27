"""Cancellation's two decks in the incremental observation: the cards of tricks left on the table.

A hand may hold a card twice, and every card plane counts the copies of each card (0, 1 or 2);
the tracker's own writes count them for every system, so this face adds the pending plane, and
says that hands hold copies (a hand plane is then no legal-action mask, and a hand given to the
environment is read as card ids).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engine.cards import NUM_CARDS
from ...env.faces import TrackerFace
from ...env.feature_tracker import count_plane

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...env.feature_tracker import FeatureTracker
    from ..component import RuleSystem


class TwoDecksFace(TrackerFace):
    """The cards of cancelled tricks, in every row, as the tricks leave the table."""

    holds_copies = True

    def __init__(self, tracker: FeatureTracker, system: RuleSystem) -> None:
        self._pending = tuple(tracker.at(me, "pending_trick_cards") for me in range(tracker.n))

    def trick_over(self, tracker: FeatureTracker, deal: Deal) -> None:
        """A trick with no winner joins those on the table; a won one takes them all."""
        plane = count_plane(c for cards in deal.pending for c in cards)
        first = self._pending[0]
        if tracker.cells[first:first + NUM_CARDS] != plane:
            view = tracker.view
            for i in self._pending:
                view[i:i + NUM_CARDS] = plane


FACE = TwoDecksFace
