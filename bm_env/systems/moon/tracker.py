"""Shooting the moon (or the sun) in the incremental observation: the shooter, public once the tricks are over."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...env.faces import TrackerFace

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...env.feature_tracker import FeatureTracker
    from ..component import RuleSystem


class MoonFace(TrackerFace):
    """The shooter's cell, set when the deal leaves the play (for the shooter's choice, or the scoring)."""

    def __init__(self, tracker: FeatureTracker, system: RuleSystem) -> None:
        self._shooter = [tracker.about("moon_shooter", s) for s in range(tracker.n)]

    def phase_changed(self, tracker: FeatureTracker, deal: Deal) -> None:
        if deal.moon_shot is not None:
            cells = tracker.cells
            for i in self._shooter[deal.seats[deal.moon_shot[0]]]:
                cells[i] = 1


FACE = MoonFace
