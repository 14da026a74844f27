"""The queen when safe (Pagat): the Q♠ must be played as soon as it is safe, void in the led suit
or after the A♠ or K♠ has fallen to the trick."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...engine.cards import ACE_SPADES, KING_SPADES, QUEEN_SPADES, SPADES, mask_of
from ..component import Option, RuleSystem

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...engine.rules import Rules

# --- in the observation


def _parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    return (("queen_when_safe", 1, "rule: Q♠ must be played as soon as it is safe"),) if "queen_when_safe" in feats else ()


def _encode_rules(vec: np.ndarray, o: dict[str, slice], rules: Rules, feats: tuple[str, ...]) -> None:
    if "queen_when_safe" in feats:
        vec[o["queen_when_safe"].start] = 1



# --- in the reference Deal: part of its implementation, these functions change the deal's state, its
# private lists included (declared in bm_env.engine.deal); nothing else does.

_QS_BIT = 1 << QUEEN_SPADES
_HIGH_SPADES = (1 << ACE_SPADES) | (1 << KING_SPADES)


def compel_queen(deal: Deal, p: int, legal_cards: int, follow: int) -> int:
    """Q♠ must go as soon as it is safe: when discarding, or on a spade trick once A♠ or K♠ has been played to it."""
    if legal_cards & _QS_BIT and (not follow or (deal.led_suit == SPADES and mask_of(deal.trick) & _HIGH_SPADES)):
        return _QS_BIT
    return legal_cards


SYSTEM = RuleSystem(
    name="queen_when_safe",
    options={
        "queen_when_safe": Option(bool, False, "Pagat: Q♠ must be played once safe (void in the led suit, or after "
                                               "A♠ or K♠)"),
    },
    features=lambda r: ("queen_when_safe",) if r.queen_when_safe else (),
    parts=_parts,
    encode_rules=_encode_rules,
    deal_hooks={"follow_compel": compel_queen},
    explain=lambda deal, p, hand, action, name: (f"{name(QUEEN_SPADES)} must be played now that it is safe"
                                                 if deal.trick and deal.legal == _QS_BIT else None),
)
