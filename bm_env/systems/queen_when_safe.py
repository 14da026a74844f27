"""The queen when safe (Pagat): the Q♠ must be played as soon as it is safe, void in the led suit
or after the A♠ or K♠ has fallen to the trick."""

from __future__ import annotations

from .component import RuleSystem

SYSTEM = RuleSystem(
    name="queen_when_safe",
    options={"queen_when_safe": bool},
    features=lambda r: ("queen_when_safe",) if r.queen_when_safe else (),
)
