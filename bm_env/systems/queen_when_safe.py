"""The queen when safe (Pagat): the Q♠ must be played as soon as it is safe, void in the led suit
or after the A♠ or K♠ has fallen to the trick."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .component import RuleSystem

if TYPE_CHECKING:
    from ..engine.rules import Rules

# --- in the observation


def _parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    return (("queen_when_safe", 1, "rule: Q♠ must be played as soon as it is safe"),) if "queen_when_safe" in feats else ()


def _encode_rules(vec: np.ndarray, o: dict[str, slice], rules: Rules, feats: tuple[str, ...]) -> None:
    if "queen_when_safe" in feats:
        vec[o["queen_when_safe"].start] = 1


SYSTEM = RuleSystem(
    name="queen_when_safe",
    options={"queen_when_safe": bool},
    features=lambda r: ("queen_when_safe",) if r.queen_when_safe else (),
    parts=_parts,
    encode_rules=_encode_rules,
)
