"""Turning what each player captured in a deal into that deal's scores.

Kept apart from the trick engine because scoring needs the match: under
``moon="others_plus_unless_win"`` the shooter's choice depends on whether adding the moon
to the others would end the match with one of them winning (Pagat). How a moon is found and
scored is the moon system's (:mod:`bm_env.systems.moon`), who scores together the teams'.

The scoring *unit* is a player, or a partnership under ``teams="joint"`` (Pagat: partners
keep their tricks together and score them jointly; both partners get the team's score).
"""

from __future__ import annotations

from typing import Sequence

from ..systems.moon import moon_shooter, shot_scores
from ..systems.teams import scoring_units
from .rules import Rules


def deal_scores(
    rules: Rules,
    captured: Sequence[int],
    penalty_taken: Sequence[int],
    penalty_total: int,
    clean_tricks: Sequence[int],
    totals_before: Sequence[int] | None = None,
    deals_before: int = 0,
    *,
    tricks_won: Sequence[int] | None = None,
    multipliers: Sequence[int] | None = None,
    moon_choice: str | None = None,
) -> tuple[int, ...]:
    """Scores of one deal, by position.

    ``captured[p]`` is the sum of card values player ``p`` took; ``penalty_taken[p]`` the
    part of it from penalty cards (positive values) and ``penalty_total`` the sum over the
    deal; ``clean_tricks[p]`` how many tricks without a valued card ``p`` won.
    A moon is shot by the player (or joint team) who took every penalty card; bonus cards
    (negative values, e.g. J♦ −10) still count for whoever took them, the shooter included
    (Pagat). ``multipliers[p]`` multiplies the final deal score of ``p``'s unit (Turbo
    Hearts: 2 for the taker of 10♣, 4 if it was charged) after the moon is scored.
    Under ``moon="shooter_choice"`` a shot needs ``moon_choice`` ("subtract" or "add").
    """
    n = len(captured)
    units = scoring_units(rules, n)
    own = [captured[p] + rules.clean_trick_bonus * clean_tricks[p] for p in range(n)]
    unit_scores = [sum(own[p] for p in u) for u in units]
    unit_pen = [sum(penalty_taken[p] for p in u) for u in units]
    shot = moon_shooter(rules, penalty_taken, penalty_total, tricks_won)
    if shot is not None:
        before = totals_before if totals_before is not None else (0,) * n
        unit_scores = shot_scores(rules, units, unit_scores, unit_pen, shot, before, deals_before, moon_choice)
    if multipliers is not None:
        unit_scores = [x * _prod(multipliers[p] for p in u) for x, u in zip(unit_scores, units)]
    scores = [0] * n
    for x, u in zip(unit_scores, units):
        for p in u:
            scores[p] = x
    return tuple(scores)


def _prod(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def match_goal(rules: Rules, whole_match: bool) -> str:
    """What the game is played to, and which totals win, in one sentence."""
    best = "lowest" if rules.lower_wins else "highest"
    if not whole_match:
        return f"One deal; the {best} score wins."
    if rules.match_end == "deals":
        end = f"{rules.match_deals} deals"
    else:
        reach = "reaches" if rules.match_end == "threshold_reached" else "passes"
        end = f"until someone {reach} {rules.match_threshold} points"
        if rules.match_floor is not None:
            end += f" or falls to {rules.match_floor}"
    return f"Match: {end}; the {best} total wins."
