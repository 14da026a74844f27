"""Turning what each player captured in a deal into that deal's scores.

Kept apart from the trick engine because one scoring rule needs the match: under
``moon="others_plus_unless_win"`` the shooter's choice depends on whether adding the moon
to the others would end the match with one of them winning (seed 003).
"""

from __future__ import annotations

from typing import Sequence

from .rules import Rules


def match_would_end(rules: Rules, totals: Sequence[int], deals_played: int) -> bool:
    """Whether the match-end rule fires for these totals after ``deals_played`` deals."""
    if rules.match_floor is not None and min(totals) <= rules.match_floor:
        return True
    if rules.match_end == "deals":
        return deals_played >= rules.match_deals
    # Either sign convention ends on the highest total: the loser's in the Hearts family,
    # the leader's in Petrone's game.
    if rules.match_end == "threshold_reached":
        return max(totals) >= rules.match_threshold
    return max(totals) > rules.match_threshold  # threshold_passed


def deal_scores(
    rules: Rules,
    captured: Sequence[int],
    penalty_taken: Sequence[int],
    penalty_total: int,
    clean_tricks: Sequence[int],
    totals_before: Sequence[int] | None = None,
    deals_before: int = 0,
) -> tuple[int, ...]:
    """Scores of one deal.

    ``captured[p]`` is the sum of card values player ``p`` took; ``penalty_taken[p]`` the
    part of it from penalty cards (positive values) and ``penalty_total`` the sum over the
    deck; ``clean_tricks[p]`` how many tricks without a valued card ``p`` won.
    A moon is shot by the player who took every penalty card; bonus cards (negative
    values, e.g. J♦ −10) still count for whoever took them, the shooter included (seed 003).
    """
    n = len(captured)
    scores = [captured[p] + rules.clean_trick_bonus * clean_tricks[p] for p in range(n)]
    if rules.moon == "off" or penalty_total <= 0:
        return tuple(scores)
    shooters = [p for p in range(n) if penalty_taken[p] == penalty_total]
    if not shooters:
        return tuple(scores)
    s = shooters[0]
    bonus = [scores[p] - penalty_taken[p] for p in range(n)]  # what is left once penalty cards are removed
    minus = [bonus[p] - (penalty_total if p == s else 0) for p in range(n)]
    plus = [bonus[p] + (penalty_total if p != s else 0) for p in range(n)]
    if rules.moon == "shooter_minus":
        return tuple(minus)
    if rules.moon == "others_plus":
        return tuple(plus)
    # others_plus_unless_win: adding to the others must not end the match with one of them winning.
    before = totals_before if totals_before is not None else (0,) * n
    after = [before[p] + plus[p] for p in range(n)]
    if match_would_end(rules, after, deals_before + 1):
        best = min(after)
        if after[s] != best:
            return tuple(minus)
    return tuple(plus)
