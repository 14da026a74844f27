"""The 10♣ multiplier (Pagat, Turbo Hearts): whoever takes the 10♣ doubles their deal score (x4 if
it was charged), applied after the moon."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.cards import TEN_CLUBS
from .component import RuleSystem

if TYPE_CHECKING:
    from ..engine.deal import Deal

SYSTEM = RuleSystem(
    name="ten_clubs",
    options={"ten_clubs_multiplier": bool},
    features=lambda r: ("ten_clubs_multiplier",) if r.ten_clubs_multiplier else (),
)


# --- in the reference Deal: part of its implementation, these functions change the deal's state, its
# private lists included (declared in bm_env.engine.deal); nothing else does.


def multipliers(deal: Deal) -> list[int] | None:
    """Score multiplier of each position (``ten_clubs_multiplier``: the 10♣ taker's ×2, ×4 if it was
    charged), or None when no multiplier applies."""
    taker = deal.ten_clubs_taker
    if not deal.rules.ten_clubs_multiplier or taker is None:
        return None
    charged_tc = any(m >> TEN_CLUBS & 1 for m in deal._charged)
    out = [1] * deal.num_players
    out[taker] = 4 if charged_tc else 2
    return out
