"""Booster Nines (Pagat): each nine of the led suit played to a trick (boost rounds included) adds a
round to it, unless the hands are empty after this round. Pagat defines it without trumps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .component import RuleSystem

if TYPE_CHECKING:
    from ..engine.rules import Rules


def _problem(r: Rules) -> str | None:
    if r.booster_nines and r.trumps != "none":
        return "booster_nines is defined without trumps (Pagat); use trumps='none'"
    return None


SYSTEM = RuleSystem(
    name="booster_nines",
    options={"booster_nines": bool},
    problem=_problem,
    features=lambda r: ("booster_nines",) if r.booster_nines else (),
)
