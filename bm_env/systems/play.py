"""Leading and following: who leads the first trick and with what, when hearts may be led, and trumps.

The British rules let the eldest lead any non-heart; Pagat has the holder of the 2♣ lead it,
hearts led only once broken (some play that the Q♠ breaks them), and no penalty cards on the
first trick; Petrone's rules make hearts trumps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.cards import CLUBS, SUIT_MASKS
from .component import Option, RuleSystem

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
    options={
        "first_lead": Option(str, "eldest_non_heart", "the British rules eldest any non-heart; Pagat the holder of "
                                                      "2♣ leads it", choices=FIRST_LEADS),
        "hearts_lead": Option(str, "when_broken", "the British rules, Pagat only once broken; the others any time",
                              choices=HEARTS_LEADS),
        "queen_breaks_hearts": Option(bool, False, "Pagat: 'Some play that the Queen of Spades breaks hearts'"),
        "lead_hearts_with_queen_only": Option(bool, False, "Pagat: holding only hearts and Q♠, a heart may be led"),
        "first_trick_no_points": Option(bool, False, "Pagat: no penalty cards on the first trick unless nothing else"),
        "trumps": Option(str, "none", "Petrone's rules: hearts are trumps; none elsewhere", choices=TRUMPS),
    },
    problem=_problem,
)
