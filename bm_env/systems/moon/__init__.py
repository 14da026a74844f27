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
from ..teams import scoring_units

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...engine.infostate import InfoState
    from ...engine.rules import Rules

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


# --- in the observation


def _parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    if "moon_choice" not in feats and "sun" not in feats:
        return ()
    return (("moon_choice", 1, "rule: the shooter chooses how the moon scores"),
            ("sun_points", 2, "rule: total of shooting the sun (two cells; 0 = off)"),
            ("moon_shooter", n, "one-hot: seat that shot the moon (or sun) this deal"))


def _encode_rules(vec: np.ndarray, o: dict[str, slice], rules: Rules, feats: tuple[str, ...]) -> None:
    if "moon_choice" in feats or "sun" in feats:
        vec[o["moon_choice"].start] = int(rules.moon_choice)
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
