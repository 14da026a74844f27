"""The kitty (Pagat, for 3 or 5 players, and Cancellation): the cards left over after an even deal.

With a kitty no card is removed: the deal goes as far as the cards go, and the rest go to the
taker of the first trick (the first trick that has a winner, with two decks) or of the first
penalty point (if nobody takes one, the last trick's winner). Its cards are seen by its taker
only; with ``kitty_to_hand`` (Pagat's method 2) the taker adds them to their hand and discards as
many, face down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .component import RuleSystem

if TYPE_CHECKING:
    from ..engine.rules import Rules

KITTIES = ("none", "first_trick", "first_point")


def _problem(r: Rules) -> str | None:
    if r.kitty_to_hand and r.kitty == "none":
        return "kitty_to_hand needs a kitty rule (kitty='first_trick' or 'first_point')"
    return None


def _features(r: Rules) -> tuple[str, ...]:
    return (("kitty",) if r.kitty != "none" else ()) + (("kitty_to_hand",) if r.kitty_to_hand else ())


SYSTEM = RuleSystem(
    name="kitty",
    options={"kitty": str, "kitty_to_hand": bool},
    choices={"kitty": KITTIES},
    problem=_problem,
    features=_features,
)
