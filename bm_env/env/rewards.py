"""Rewards from deal scores, shared by the environment and the vector engine.

With partnerships (``teams``) every reward is the player's team's (Pagat's Partnership Hearts).

``score``: the deal score, sign flipped where lower totals win, so higher is better in every
preset. ``zero_sum``: one's ``score`` reward minus the mean of the others' (in the Hearts
family, the mean of the others' penalty points minus one's own), so rewards sum to zero. With ``normalise`` both are divided by the deal's scale
(:func:`deal_scale`), which bounds ``score`` to [-1, 1] and ``zero_sum`` to [-2, 2].
"""

from __future__ import annotations

from typing import Sequence

from ..engine.rules import Rules
from ..systems.teams import team_scores

REWARD_MODES = ("score", "zero_sum")


def deal_scale(rules: Rules, num_players: int | None = None) -> int:
    """Largest score magnitude one player can get in a deal: penalty and bonus cards plus clean-trick bonuses."""
    k = rules.num_players if num_players is None else num_players
    deck = rules.deck_mask(k)
    values = [v for c, v in enumerate(rules.card_values) if deck >> c & 1]
    positive = sum(v for v in values if v > 0)
    negative = -sum(v for v in values if v < 0)
    if rules.decks == 2:
        positive, negative = 2 * positive, 2 * negative
    if rules.charging:  # a charged A♥, Q♠ or J♦ doubles its value
        positive, negative = 2 * positive, 2 * negative
    if rules.sun_points is not None:
        positive = max(positive, rules.sun_points)
    if rules.ten_clubs_multiplier:
        positive, negative = positive * (4 if rules.charging else 2), negative * (4 if rules.charging else 2)
    scale = positive + negative + rules.clean_trick_bonus * rules.hand_size(k)
    if rules.teams == "individual":
        scale *= 2
    return max(scale, 1)


def deal_rewards(
    rules: Rules, scores: Sequence[int], mode: str = "score", normalise: bool = False
) -> tuple[float, ...]:
    """Reward of each player of a deal from its scores (by position in the deal)."""
    if mode not in REWARD_MODES:
        raise ValueError(f"reward mode {mode!r} is not allowed; allowed: {list(REWARD_MODES)}")
    sign = -1 if rules.lower_wins else 1
    own = [sign * s for s in team_scores(rules, scores)]
    if mode == "zero_sum":
        k = len(own)
        total = sum(own)
        own = [x - (total - x) / (k - 1) for x in own]
    scale = deal_scale(rules, len(scores)) if normalise else 1
    return tuple([float(x) / scale for x in own])
