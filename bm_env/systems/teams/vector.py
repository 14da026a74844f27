"""Partnerships on the vector engine: under ``teams="joint"`` a partnership shoots the moon (the partner with more
of the points is the shooter) and partners score as one unit, multipliers included; under ``"individual"``
partners are scored apart and rewarded for their summed score."""

from __future__ import annotations

import numpy as np

from ...vector.kernel import Kernel
from . import SYSTEM, partner_of


class TeamsKernel(Kernel):
    """Partnerships for many games (see the module docstring)."""

    name = SYSTEM.name

    def __init__(self, rules) -> None:
        super().__init__()
        self.partner = partner_of(np.arange(rules.num_players))
        if rules.teams == "joint":
            self.hooks = {"moon_hits": self.team_hits, "scoring_units": self.partnerships}
        else:
            self.hooks = {"reward_scores": self.share}

    def team_hits(self, e, taken, total, hit) -> np.ndarray:
        """A partnership shoots; the partner with more points is the shooter (a tie: the earlier partner)."""
        partner = self.partner
        hit = (taken + taken[partner] == total) & (taken >= taken[partner])
        return hit & (~np.roll(hit, 2, axis=0) | (np.arange(len(partner))[:, None] < 2))

    def partnerships(self, e, scores, penalty, shooters, multipliers):
        """Both partners score their partnership's points, shot and multipliers."""
        p = self.partner
        if multipliers is not None:
            multipliers = multipliers * multipliers[p]
        return scores + scores[p], penalty + penalty[p], shooters | shooters[p], multipliers

    def share(self, e, scores) -> np.ndarray:
        """Partners scored apart share their summed score (Pagat)."""
        return scores + scores[self.partner]


def kernel(rules) -> TeamsKernel:
    """The partnerships' kernel under ``rules``."""
    return TeamsKernel(rules)
