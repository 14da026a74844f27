"""Leading and following: who leads the first trick and with what, when hearts may be led, and trumps.

The British rules let the eldest lead any non-heart; Pagat has the holder of the 2♣ lead it,
hearts led only once broken (some play that the Q♠ breaks them), and no penalty cards on the
first trick; Petrone's rules make hearts trumps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.cards import CLUBS, SUIT_MASKS
from .component import RuleSystem

if TYPE_CHECKING:
    from ..engine.rules import Rules

FIRST_LEADS = ("eldest_any", "eldest_non_heart", "lowest_club", "lowest_club_any_club")
HEARTS_LEADS = ("any_time", "when_broken")
TRUMPS = ("none", "hearts")


def _problem(r: Rules) -> str | None:
    if r.first_lead.startswith("lowest_club") and not r.deck_mask() & SUIT_MASKS[CLUBS]:
        return "first_lead lowest_club needs clubs in the deck"
    return None


SYSTEM = RuleSystem(
    name="play",
    options={"first_lead": str, "hearts_lead": str, "queen_breaks_hearts": bool, "lead_hearts_with_queen_only": bool,
             "first_trick_no_points": bool, "trumps": str},
    choices={"first_lead": FIRST_LEADS, "hearts_lead": HEARTS_LEADS, "trumps": TRUMPS},
    problem=_problem,
)
