"""Cancellation's two decks (the British rules, Pagat): two full decks shuffled together.

Identical cards in a trick cancel for winning it; a trick whose led-suit cards all cancel waits
on the table for the next trick's winner. The two decks are dealt as far as they go, so the rule
needs a kitty for the rest; no source combines them with charging, Booster Nines or partnerships.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .component import RuleSystem
from .kitty import KITTIES

if TYPE_CHECKING:
    from ..engine.rules import Rules


def _problem(r: Rules) -> str | None:
    if r.decks not in (1, 2):
        return f"decks={r.decks} is not allowed; allowed: 1, or 2 (Cancellation, two decks shuffled together)"
    if r.decks == 1:
        return None
    if r.kitty == "none":
        return ("decks=2 deals the two decks as far as they go; it needs a kitty rule for the rest "
                f"(kitty one of {[k for k in KITTIES if k != 'none']})")
    for name in ("charging", "booster_nines"):
        if getattr(r, name):
            return f"{name} is not supported with two decks (no source combines them)"
    if r.teams != "none":
        return "teams are not supported with two decks (partnerships are a 4-player, one-deck game)"
    return None


SYSTEM = RuleSystem(
    name="two_decks",
    options={"decks": int},
    problem=_problem,
    features=lambda r: ("two_decks",) if r.decks != 1 else (),
)
