"""What a deal scores: each card's value, the bonus for a trick with no valued card (Petrone's
rules), and whether the lowest or the highest total wins."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.cards import NUM_CARDS, card_str
from ..engine.checks import shown
from .component import RuleSystem

if TYPE_CHECKING:
    from ..engine.rules import Rules


def _problem(r: Rules) -> str | None:
    if len(r.card_values) != NUM_CARDS:
        return f"card_values must be 52 ints, one per card id; got {len(r.card_values)} values"
    not_ints = [f"{card_str(c)}={shown(x)}" for c, x in enumerate(r.card_values)
                if not isinstance(x, int) or isinstance(x, bool)]
    if not_ints:
        return f"card_values must be whole numbers; got {', '.join(not_ints[:4])}"
    return None


SYSTEM = RuleSystem(
    name="scoring",
    options={"card_values": tuple, "clean_trick_bonus": int, "lower_wins": bool},
    problem=_problem,
)
