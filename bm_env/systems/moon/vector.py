"""The moon's extensions on the vector engine: shooting the sun (one player taking every trick: the tricks each
seat won, per game) and the shooter's choice of how the moon scores (a phase of its own, before the deal is
scored). The engine finds the moon's shooter itself and keeps it, with what the shot is worth; this kernel
shows the shooter in the observation. :func:`moon_scores` scores a shot moon for many games, the classic
engine's and the extension engine's, beside the reference's :func:`bm_env.systems.moon.shot_scores`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...engine.actions import MOON_ADD, MOON_SUBTRACT
from ...engine.phases import MOON
from ...vector.feature_encoder import PHASE_CODES
from ...vector.kernel import Kernel, Phase
from ..match import match_would_end
from . import SYSTEM, shooter_would_lead

if TYPE_CHECKING:
    from ...engine.rules import Rules

CHOOSING = PHASE_CODES.index(MOON)
_CHOICE_BITS = np.uint64((1 << MOON_SUBTRACT) | (1 << MOON_ADD))


def moon_scores(rules: Rules, scores: np.ndarray, penalty_taken: np.ndarray, shooters: np.ndarray, total,
                subtract: np.ndarray | None) -> np.ndarray:
    """Every game's scores ``[n, games]`` as if its moon was shot by the seats ``shooters`` (a
    partnership: both partners) for ``total`` points, under the rules' moon scoring;
    ``subtract`` is the shooter's choice under ``shooter_choice``: :func:`bm_env.systems.moon.shot_scores` for
    many games, the ``others_plus_unless_win`` moon judged as in a fresh match's first deal (the vector
    engine plays single deals)."""
    bonus = scores - penalty_taken
    minus = bonus - total * shooters
    plus = bonus + total * ~shooters
    if rules.moon == "shooter_minus":
        return minus
    if rules.moon == "others_plus":
        return plus
    if rules.moon == "shooter_choice":
        return np.where(subtract, minus, plus)
    # others_plus_unless_win, with zero totals before this first deal
    chosen = plus.copy()
    for g in np.flatnonzero(shooters.any(axis=0)):
        after = [int(x) for x in plus[:, g]]
        s = int(np.argmax(shooters[:, g]))
        if match_would_end(rules, after, 1) and not shooter_would_lead(rules, after, s):
            chosen[:, g] = minus[:, g]
    return chosen


class MoonKernel(Kernel):
    """The sun and the moon choice for many games (see the module docstring)."""

    name = SYSTEM.name

    def __init__(self, rules) -> None:
        super().__init__()
        self.sun_points = rules.sun_points
        self.hooks = {"arrays": self.arrays, "encode": self.encode}
        if self.sun_points is not None:
            self.state_arrays = ("tricks_won",)
            self.hooks.update(allocate=self.allocate, start_deals=self.start_deals, collected=self.count_tricks,
                              shot=self.sun)
        if rules.moon == "shooter_choice":
            self.phases = {MOON: Phase(self.choose, self.legal, "choose")}
            self.hooks["before_scoring"] = self.offer_choice

    def allocate(self, e) -> None:
        self.tricks_won = np.zeros((e.n, e.num_envs), dtype=np.int16)

    def start_deals(self, e, games, leftover, directions) -> None:
        self.tricks_won[:, games] = 0

    def count_tricks(self, e, games, seats, idx, cards, points, tricks, face_down) -> None:
        self.tricks_won.reshape(-1)[idx] += tricks

    def sun(self, e, games, shooter, total) -> tuple[np.ndarray, np.ndarray]:
        """A player who took every trick shot the sun, worth ``sun_points``."""
        won = self.tricks_won[:, games]
        sun = (won == won.sum(axis=0)) & (total > 0)
        shot = sun.any(axis=0)
        return np.where(shot, np.argmax(sun, axis=0), shooter), np.where(shot, self.sun_points, total)

    def offer_choice(self, e, games) -> np.ndarray:
        """Where a moon (or sun) was shot, its shooter chooses how it scores."""
        choose = e.shooter[games] >= 0
        if choose.any():
            g = games[choose]
            e._set_phase(g, CHOOSING)
            e._give_turn(g, e.shooter[g])
        return choose

    def legal(self, e, games, hand) -> np.uint64:
        return _CHOICE_BITS

    def choose(self, e, games, c, card, seat) -> tuple[np.ndarray, np.ndarray]:
        """The shooter's choice: the deal is scored."""
        return games, c == MOON_SUBTRACT

    def arrays(self, e) -> dict[str, np.ndarray]:
        return {"shooter": e.shooter}

    def encode(self, enc, tail, parts, s, me) -> None:
        tail[:, parts["moon_shooter"]] = enc.seat_cells(s["shooter"], me)


def kernel(rules) -> MoonKernel:
    """The kernel of the moon's extensions under ``rules``."""
    return MoonKernel(rules)
