"""The pass's options in the incremental observation: who passed on, and where a passed-on stack went.

The tracker puts each pick in the plane of the receiver the direction gives that pick (a scatter
pass has one per pick) and rewrites the hands and received cards once the cards move; the
opening rows (the reference encoding of the deal's start) hold the receivers and whether the
deal scatters. What is left is passing on: it is public, and a stack passed on goes further than
its passer's first receiver, which the passer learns when the cards move.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ...engine.actions import PASS_ON
from ...engine.phases import PASS
from ...env.faces import TrackerFace

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...env.feature_tracker import FeatureTracker
    from ..component import RuleSystem


class PassingFace(TrackerFace):
    """The passed-on cells, and the passed-to planes of the stacks that travelled on."""

    def __init__(self, tracker: FeatureTracker, system: RuleSystem) -> None:
        n = tracker.n
        self._passed = [[tracker.plane("passed_to_seat", me, s) if s != me else -1 for s in range(n)]
                        for me in range(n)]
        if "passed_on" in tracker.offsets:  # passing on is offered (a scatter-only cycle never offers it)
            self._passed_on = [tracker.about("passed_on", s) for s in range(n)]
            self.decided_in = (PASS,)

    def decided(self, tracker: FeatureTracker, deal: Deal, p: int, phase: str, action: int) -> None:
        """Position ``p`` passed on, in the open, instead of picking cards."""
        if action == PASS_ON:
            cells = tracker.cells
            for i in self._passed_on[deal.seats[p]]:
                cells[i] = 1

    def passes_moved(self, tracker: FeatureTracker, deal: Deal) -> None:
        """Each stack that went past its passer's first receiver moves, in the passer's row, to the one
        that took it (or, a chain that brought it back, out of the planes: the cards are in the hand)."""
        if not any(deal.passed_on):
            return
        seats = deal.seats
        cells = tracker.cells
        for pos, seat in enumerate(seats):
            sent = deal.passed_to(pos)
            if not sent:
                continue
            first, final = seats[deal.pass_target(pos)], seats[sent[0][1]]
            if final == first:
                continue
            planes = self._passed[seat]
            for c, m in Counter(c for c, _ in sent).items():
                cells[planes[first] + c] = 0
                if final != seat:
                    cells[planes[final] + c] = m


FACE = PassingFace
