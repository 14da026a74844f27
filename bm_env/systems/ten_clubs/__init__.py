"""The 10♣ multiplier (Pagat, Turbo Hearts): whoever takes the 10♣ doubles their deal score (x4 if
it was charged), applied after the moon."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...engine.cards import TEN_CLUBS
from ..charging import chargeable, charged
from ..component import Bounds, Option, RuleSystem

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...engine.rules import Rules

# --- in the observation


def _parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    return (("ten_clubs_multiplier", 1, "rule: the taker of 10♣ doubles their deal score (x4 if charged)"),) if "ten_clubs_multiplier" in feats else ()


def _encode_rules(vec: np.ndarray, o: dict[str, slice], rules: Rules, feats: tuple[str, ...]) -> None:
    if "ten_clubs_multiplier" in feats:
        vec[o["ten_clubs_multiplier"].start] = 1


def _bounds(r: Rules) -> Bounds | None:
    """The 10♣'s taker doubles their deal score, or quadruples it where the 10♣ can be charged."""
    return Bounds(score_factor=4 if TEN_CLUBS in chargeable(r) else 2) if r.ten_clubs_multiplier else None


SYSTEM = RuleSystem(
    name="ten_clubs",
    options={
        "ten_clubs_multiplier": Option(bool, False, "Pagat, Turbo Hearts: the taker of 10♣ doubles their deal score "
                                                    "(x4 if charged), applied after the moon"),
    },
    features=lambda r: ("ten_clubs_multiplier",) if r.ten_clubs_multiplier else (),
    bounds=_bounds,
    parts=_parts,
    encode_rules=_encode_rules,
)


# --- in the reference Deal: part of its implementation, these functions change the deal's state, its
# private lists included (declared in bm_env.engine.deal); nothing else does.


def multipliers(deal: Deal) -> list[int] | None:
    """Score multiplier of each position (``ten_clubs_multiplier``: the 10♣ taker's ×2, ×4 if it was
    charged), or None when no multiplier applies."""
    taker = deal.ten_clubs_taker
    if not deal.rules.ten_clubs_multiplier or taker is None:
        return None
    charged_tc = any(m >> TEN_CLUBS & 1 for m in charged(deal))
    out = [1] * deal.num_players
    out[taker] = 4 if charged_tc else 2
    return out
