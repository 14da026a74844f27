"""Charging in the incremental observation: each charged card, public as soon as it is charged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engine.actions import CHARGE_CARD, CHARGE_DONE, CHARGEABLE
from ...engine.phases import CHARGE
from ...env.faces import TrackerFace

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...env.feature_tracker import FeatureTracker
    from ..component import RuleSystem


class ChargingFace(TrackerFace):
    """The charged cells, one decision at a time."""

    decided_in = (CHARGE,)

    def __init__(self, tracker: FeatureTracker, system: RuleSystem) -> None:
        k = len(CHARGEABLE)
        # charge action -> per seat, that card's cell in every row
        self._charged = {a: [tuple(i + CHARGEABLE.index(c) for i in tracker.about("charged", s, k))
                             for s in range(tracker.n)]
                         for a, c in CHARGE_CARD.items()}

    def decided(self, tracker: FeatureTracker, deal: Deal, p: int, phase: str, action: int) -> None:
        """Position ``p`` charged a card, or ended its charging."""
        if action != CHARGE_DONE:
            cells = tracker.cells
            for i in self._charged[action][deal.seats[p]]:
                cells[i] = 1


FACE = ChargingFace
