"""Shooting the moon (the British rules' optional slam, Pagat's three variants) and the sun.

With ``moon="shooter_choice"`` the shooter (or shooting team) chooses, with an action, whether to
subtract the total from their own score or add it to everyone else's. ``sun_points`` scores one
player taking every trick like the moon, with this total (Pagat: 52).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.actions import MOON_ADD
from .component import RuleSystem

if TYPE_CHECKING:
    from ..engine.rules import Rules

MOONS = ("off", "shooter_minus", "others_plus", "others_plus_unless_win", "shooter_choice")


def _problem(r: Rules) -> str | None:
    if r.moon != "off" and not any(v > 0 for v in r.card_values):
        return "a moon rule needs penalty cards (cards of positive value) to capture"
    if r.sun_points is not None:
        if r.moon == "off":
            return "sun_points scores shooting the sun like the moon; it needs a moon rule (moon != 'off')"
        if r.sun_points <= 0:
            return f"sun_points={r.sun_points} must be positive (Pagat scores the sun as 52)"
    return None


def _features(r: Rules) -> tuple[str, ...]:
    return (("moon_choice",) if r.moon == "shooter_choice" else ()) + (("sun",) if r.sun_points is not None else ())


SYSTEM = RuleSystem(
    name="moon",
    options={"moon": str, "sun_points": (int, type(None))},
    choices={"moon": MOONS},
    problem=_problem,
    features=_features,
    decisions={"moon_choice": MOON_ADD},
)
