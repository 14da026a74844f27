"""Deal scores and rewards of many finished games at once.

The same arithmetic as :func:`bm_env.scoring.deal_scores` and
:func:`bm_env.rewards.deal_rewards`, over arrays ``[n, games]``. The engine plays single
deals, so the ``others_plus_unless_win`` moon is judged as in the first deal of a fresh
match: totals zero and no deal played before.
"""

from __future__ import annotations

import numpy as np

from ..rewards import REWARD_MODES, deal_scale
from ..rules import Rules
from ..scoring import match_would_end


def deal_scores(rules: Rules, captured: np.ndarray, penalty_taken: np.ndarray, clean_tricks: np.ndarray,
                penalty_total: int) -> np.ndarray:
    """Scores ``[n, games]`` (int32) from what each seat captured; see :func:`bm_env.scoring.deal_scores`."""
    scores = captured.astype(np.int32) + rules.clean_trick_bonus * clean_tricks.astype(np.int32)
    if rules.moon == "off" or penalty_total <= 0:
        return scores
    shooter = penalty_taken == penalty_total  # [n, games], at most one seat per game
    if not shooter.any():
        return scores
    bonus = scores - penalty_taken
    minus = bonus - penalty_total * shooter
    plus = bonus + penalty_total * ~shooter
    moon = shooter.any(axis=0)
    if rules.moon == "shooter_minus":
        chosen = minus
    elif rules.moon == "others_plus":
        chosen = plus
    else:  # others_plus_unless_win, with zero totals before this first deal
        chosen = plus.copy()
        for g in np.flatnonzero(moon):
            after = [int(x) for x in plus[:, g]]
            s = int(np.argmax(shooter[:, g]))
            if match_would_end(rules, after, 1) and after[s] != min(after):
                chosen[:, g] = minus[:, g]
    return np.where(moon, chosen, scores)


def deal_rewards(rules: Rules, scores: np.ndarray, mode: str, normalise: bool) -> np.ndarray:
    """Rewards ``[n, games]`` (float64) as :func:`bm_env.rewards.deal_rewards` gives them."""
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
