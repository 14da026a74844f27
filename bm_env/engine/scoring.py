"""Turning what each player captured in a deal into that deal's scores.

Kept apart from the trick engine because one scoring rule needs the match: under
``moon="others_plus_unless_win"`` the shooter's choice depends on whether adding the moon
to the others would end the match with one of them winning (Pagat).

The scoring *unit* is a player, or a partnership under ``teams="joint"`` (Pagat: partners
keep their tricks together and score them jointly; both partners get the team's score).
"""

from __future__ import annotations

from typing import Sequence

from ..systems.moon import moon_shooter
from ..systems.teams import scoring_units, side_totals, sides
from .rules import Rules

MOON_CHOICES = ("subtract", "add")


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


def shooter_would_lead(rules: Rules, totals: Sequence[int], shooter: int) -> bool:
    """Whether ``shooter`` holds the best total (alone or tied) in ``totals``: the lowest, or the
    highest where the highest wins; its side's total, as the match's winner is decided
    (:class:`~bm_env.engine.match.Match`: with teams, its partnership's)."""
    better = min if rules.lower_wins else max
    totals_by_side = side_totals(rules, totals)
    side = next(i for i, seats in enumerate(sides(rules, len(totals))) if shooter in seats)
    return totals_by_side[side] == better(totals_by_side)


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
        unit_scores = _moon_unit_scores(rules, units, unit_scores, unit_pen, shot, before, deals_before, moon_choice)
    if multipliers is not None:
        unit_scores = [x * _prod(multipliers[p] for p in u) for x, u in zip(unit_scores, units)]
    scores = [0] * n
    for x, u in zip(unit_scores, units):
        for p in u:
            scores[p] = x
    return tuple(scores)


def _moon_unit_scores(
    rules: Rules,
    units: list[tuple[int, ...]],
    unit_scores: list[int],
    unit_pen: list[int],
    shot: tuple[int, int],
    totals_before: Sequence[int],
    deals_before: int,
    moon_choice: str | None,
) -> list[int]:
    """The units' deal scores once ``shot`` (shooter, penalty total) is scored under ``rules.moon``."""
    shooter, total = shot
    s = next(i for i, u in enumerate(units) if shooter in u)
    m = len(units)
    bonus = [unit_scores[i] - unit_pen[i] for i in range(m)]  # what is left once penalty cards are removed
    minus = [bonus[i] - (total if i == s else 0) for i in range(m)]
    plus = [bonus[i] + (total if i != s else 0) for i in range(m)]
    if rules.moon == "shooter_minus":
        return minus
    if rules.moon == "others_plus":
        return plus
    if rules.moon == "shooter_choice":
        if moon_choice not in MOON_CHOICES:
            raise ValueError(
                f"player at position {shooter} shot the moon; moon_choice must be one of {list(MOON_CHOICES)}, "
                f"got {moon_choice!r}"
            )
        return minus if moon_choice == "subtract" else plus
    # others_plus_unless_win: adding to the others must not end the match with one of them winning.
    unit_of = {p: i for i, u in enumerate(units) for p in u}
    after = [totals_before[p] + plus[unit_of[p]] for p in range(len(totals_before))]
    if match_would_end(rules, after, deals_before + 1) and not shooter_would_lead(rules, after, shooter):
        return minus
    return plus


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
