"""Shooting the moon (the British rules' optional slam, Pagat's three variants) and the sun.

With ``moon="shooter_choice"`` the shooter (or shooting team) chooses, with an action, whether to
subtract the total from their own score or add it to everyone else's. ``sun_points`` scores one
player taking every trick like the moon, with this total (Pagat: 52).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from ...engine.actions import MOON_ADD, MOON_SUBTRACT
from ...engine.phases import MOON
from ..cells import NUMBER_LIMIT, put_number
from ..component import Bounds, Option, RuleSystem
from ..match import match_would_end
from ..teams import scoring_units, side_totals, sides

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...engine.infostate import InfoState
    from ...engine.rules import Rules

MOON_CHOICES = ("subtract", "add")
MOONS = ("off", "shooter_minus", "others_plus", "others_plus_unless_win", "shooter_choice")


def _problem(r: Rules) -> str | None:
    if r.moon != "off" and not any(v > 0 for v in r.card_values):
        return "a moon rule needs penalty cards (cards of positive value) to capture"
    if r.sun_points is not None:
        if r.moon == "off":
            return "sun_points scores shooting the sun like the moon; it needs a moon rule (moon != 'off')"
        if r.sun_points <= 0:
            return f"sun_points={r.sun_points} must be positive (Pagat scores the sun as 52)"
        if r.sun_points > NUMBER_LIMIT:
            return (f"sun_points={r.sun_points}: the observation holds points and totals from -{NUMBER_LIMIT} to "
                    f"{NUMBER_LIMIT}")
    return None


def _features(r: Rules) -> tuple[str, ...]:
    return (("moon_choice",) if r.moon == "shooter_choice" else ()) + (("sun",) if r.sun_points is not None else ())


def moon_shooter(
    rules: Rules,
    penalty_taken: Sequence[int],
    penalty_total: int,
    tricks_won: Sequence[int] | None = None,
) -> tuple[int, int] | None:
    """``(position, total)`` of a moon (or sun) shot this deal, or None.

    A moon is taking every penalty card (by a player, or by a partnership under joint
    teams: then the position is the partner who took more of the points, the earlier
    position on a tie, and that player makes the team's choice). A sun is one player
    taking every trick (Pagat, option ``sun_points``): it scores like the moon with the
    sun's total and takes precedence.
    """
    if rules.moon == "off" or penalty_total <= 0:
        return None
    n = len(penalty_taken)
    if rules.sun_points is not None and tricks_won is not None:
        total_tricks = sum(tricks_won)
        for p in range(n):
            if total_tricks and tricks_won[p] == total_tricks:
                return p, rules.sun_points
    for unit in scoring_units(rules, n):
        if sum(penalty_taken[p] for p in unit) == penalty_total:
            best = max(unit, key=lambda p: (penalty_taken[p], -p))
            return best, penalty_total
    return None


def shooter_would_lead(rules: Rules, totals: Sequence[int], shooter: int) -> bool:
    """Whether ``shooter`` holds the best total (alone or tied) in ``totals``: the lowest, or the
    highest where the highest wins; its side's total, as the match's winner is decided
    (:class:`~bm_env.engine.match.Match`: with teams, its partnership's)."""
    better = min if rules.lower_wins else max
    totals_by_side = side_totals(rules, totals)
    side = next(i for i, seats in enumerate(sides(rules, len(totals))) if shooter in seats)
    return totals_by_side[side] == better(totals_by_side)


def shot_scores(
    rules: Rules,
    units: list[tuple[int, ...]],
    unit_scores: list[int],
    unit_pen: list[int],
    shot: tuple[int, int],
    totals_before: Sequence[int],
    deals_before: int,
    moon_choice: str | None,
) -> list[int]:
    """The scoring units' deal scores once ``shot`` (shooter, penalty total) is scored under ``rules.moon``
    (:func:`bm_env.engine.scoring.deal_scores` asks)."""
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


def total_moves(rules: Rules, penalty: int, num_players: int) -> set[int]:
    """How a shot moon can move the total of a deal's scores, ``penalty`` points in play among ``num_players``: not
    at all, the shooter's penalty points turned to minus them (-2 x penalty), or every other player adding them."""
    moves = {0}
    if rules.moon == "off" or penalty <= 0:
        return moves
    if rules.moon in ("shooter_minus", "others_plus_unless_win", "shooter_choice"):
        moves.add(-2 * penalty)
    if rules.moon in ("others_plus", "others_plus_unless_win", "shooter_choice"):
        moves.add((num_players - 2) * penalty)
    return moves


# --- in the observation


def _parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    if "moon_choice" not in feats and "sun" not in feats:
        return ()
    return (("moon_choice", 1, "rule: the shooter chooses how the moon scores"),
            ("sun_points", 2, "rule: total of shooting the sun (two cells; 0 = off)"),
            ("moon_shooter", n, "one-hot: seat that shot the moon (or sun) this deal"))


def _encode_rules(vec: np.ndarray, o: dict[str, slice], rules: Rules, feats: tuple[str, ...]) -> None:
    if "moon_choice" in feats or "sun" in feats:
        vec[o["moon_choice"].start] = rules.moon == "shooter_choice"
        put_number(vec, o["sun_points"], 0, rules.sun_points or 0)


def _encode_state(vec: np.ndarray, o: dict[str, slice], info: InfoState, feats: tuple[str, ...], rel) -> None:
    if ("moon_choice" in feats or "sun" in feats) and info.moon_shooter is not None:
        vec[o["moon_shooter"].start + rel(info.moon_shooter)] = 1



# --- in the reference Deal: part of its implementation, these functions change the deal's state, its
# private lists included (declared in bm_env.engine.deal); nothing else does.

_CHOICE_BITS = (1 << MOON_SUBTRACT) | (1 << MOON_ADD)


def offer_choice(deal: Deal) -> bool:
    """``moon="shooter_choice"``: a moon (or sun) was shot, and its shooter chooses how it scores."""
    if deal.rules.moon != "shooter_choice" or deal.moon_shot is None:
        return False
    deal.phase = MOON
    deal.to_act = deal.moon_shot[0]
    deal.legal = _CHOICE_BITS
    return True


def step_choice(deal: Deal, action: int, bit: int) -> None:
    """The shooter's choice; the deal is scored."""
    deal.moon_choice = "subtract" if action == MOON_SUBTRACT else "add"
    deal._score()


# --- in a game record


def _replay_choice(replay, record_ends: bool) -> None:
    """The shooter's recorded choice (a renege there, where the record holds one)."""
    if replay.renege_due(MOON):
        replay.apply(replay.extra[2], "renege")
        return
    choice = replay.rec.get("moon_choice")
    if choice not in ("subtract", "add"):
        raise replay.error(f"moon_choice: the deal needs the shooter's choice 'subtract' or 'add', got {choice!r}")
    replay.apply(MOON_SUBTRACT if choice == "subtract" else MOON_ADD, "moon_choice")


SYSTEM = RuleSystem(
    name="moon",
    options={
        "moon": Option(str, "off", "the British rules' optional slam (shooter_minus); Pagat the three variants and "
                                   "the shooter's choice", choices=MOONS),
        "sun_points": Option((int, type(None)), None, "Pagat: one player taking every trick scores like the moon "
                                                      "with this total"),
    },
    problem=_problem,
    features=_features,
    decisions={"moon_choice": MOON_ADD},
    bounds=lambda r: Bounds(shot_points=r.sun_points) if r.sun_points is not None else None,
    parts=_parts,
    encode_rules=_encode_rules,
    encode_state=_encode_state,
    deal_hooks={"before_scoring": offer_choice},
    phases={MOON: step_choice},
    explain=lambda deal, p, hand, action, name: "the moon shooter chooses to subtract or to add to the others",
    record_fields=("moon_choice",),
    record=lambda deal: {"moon_choice": deal.moon_choice} if "moon_choice" in deal.rules.uses_extensions else {},
    replay={MOON: _replay_choice},
)
