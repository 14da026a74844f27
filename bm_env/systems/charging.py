"""Charging (Pagat, Turbo Hearts): after the pass, each player from eldest in turn charges
(exposes) any of A♥ Q♠ J♦ 10♣ they hold, doubling its value, then ends.

docs/rules.md reads Pagat's "one of" as "any of". A charged card may not lead, nor follow in, the
first trick of its suit unless nothing else is legal; discarding it on another suit is allowed.
"""

from __future__ import annotations

from ..engine.actions import CHARGE_DONE
from .component import RuleSystem

SYSTEM = RuleSystem(
    name="charging",
    options={"charging": bool},
    features=lambda r: ("charging",) if r.charging else (),
    decisions={"charging": CHARGE_DONE},
)
