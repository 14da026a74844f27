"""Booster Nines in the incremental observation: the rounds the trick in progress still owes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engine.phases import PLAY
from ...env.faces import TrackerFace

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...env.feature_tracker import FeatureTracker
    from ..component import RuleSystem


class BoosterNinesFace(TrackerFace):
    """The boosts-owed cell, after each card (a nine adds one, a round taken or a trick's end clears)."""

    decided_in = (PLAY,)

    def __init__(self, tracker: FeatureTracker, system: RuleSystem) -> None:
        self._boosts = tuple(tracker.at(me, "boosts_owed") for me in range(tracker.n))

    def decided(self, tracker: FeatureTracker, deal: Deal, p: int, phase: str, action: int) -> None:
        cells = tracker.cells
        boosts = deal.boosts
        if cells[self._boosts[0]] != boosts:
            for i in self._boosts:
                cells[i] = boosts


FACE = BoosterNinesFace
