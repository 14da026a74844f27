"""Deal scores and rewards of many finished games at once.

The same arithmetic as :func:`bm_env.engine.scoring.deal_scores` and
:func:`bm_env.env.rewards.deal_rewards`, over arrays ``[n, games]``. The engine plays single
deals, so the ``others_plus_unless_win`` moon is judged as in the first deal of a fresh
match: totals zero and no deal played before. :func:`deal_scores` serves the classic
rules, whose moon is read from the points alone; :func:`unit_scores` the extension ones,
where the engine has found the shooter (a partnership's, or the sun's) and the shooter
may have chosen, and where the systems in use have made the points of the units that
score together (partners) and their multipliers (the 10♣).
"""

from __future__ import annotations

import numpy as np

from ..engine.rules import Rules
from ..env.rewards import REWARD_MODES, deal_scale
from ..systems.moon.vector import moon_scores


def deal_scores(rules: Rules, captured: np.ndarray, penalty_taken: np.ndarray, clean_tricks: np.ndarray,
                penalty_total: int) -> np.ndarray:
    """Scores ``[n, games]`` (int32) from what each seat captured; see :func:`bm_env.engine.scoring.deal_scores`."""
    scores = captured.astype(np.int32) + rules.clean_trick_bonus * clean_tricks.astype(np.int32)
    if rules.moon == "off" or penalty_total <= 0:
        return scores
    shooter = penalty_taken == penalty_total  # [n, games], at most one seat per game
    if not shooter.any():
        return scores
    moon = shooter.any(axis=0)
    return np.where(moon, moon_scores(rules, scores, penalty_taken, shooter, penalty_total, None), scores)


def unit_scores(rules: Rules, scores: np.ndarray, penalty: np.ndarray, shooter: np.ndarray, shooters: np.ndarray,
                total: np.ndarray, subtract: np.ndarray, multipliers: np.ndarray | None) -> np.ndarray:
    """Scores ``[n, games]`` (int32) of the extension rules; see :func:`bm_env.engine.scoring.deal_scores`.

    ``scores`` and ``penalty`` ``[n, games]`` are the points (clean-trick bonus included) and penalty
    points of each seat's scoring unit (its own, or its partnership's), ``shooter`` ``[games]`` the
    position of the moon (or sun) shooter, -1 where none, ``shooters`` ``[n, games]`` the seats of the
    shooting unit, ``total`` what the shot is worth and ``subtract`` the shooter's choice
    (``shooter_choice``). ``multipliers`` ``[n, games]`` (the 10♣) multiply each unit's final score.
    """
    if (shooter >= 0).any():
        scores = np.where(shooter >= 0, moon_scores(rules, scores, penalty, shooters, total, subtract), scores)
    if multipliers is not None:
        scores = scores * multipliers
    return scores


def deal_rewards(rules: Rules, scores: np.ndarray, mode: str, normalise: bool) -> np.ndarray:
    """Rewards ``[n, games]`` (float64) as :func:`bm_env.env.rewards.deal_rewards` gives them, from the scores each
    seat is rewarded for (partners scored apart share their summed score: the teams kernel sums them first)."""
    if mode not in REWARD_MODES:
        raise ValueError(f"reward mode {mode!r} is not allowed; allowed: {list(REWARD_MODES)}")
    own = ((-1 if rules.lower_wins else 1) * scores).astype(np.float64)
    if mode == "zero_sum":
        k = own.shape[0]
        total = own.sum(axis=0)
        own = own - (total - own) / (k - 1)
    if normalise:
        own = own / deal_scale(rules)
    return own
