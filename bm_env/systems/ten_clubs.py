"""The 10♣ multiplier (Pagat, Turbo Hearts): whoever takes the 10♣ doubles their deal score (x4 if
it was charged), applied after the moon."""

from __future__ import annotations

from .component import RuleSystem

SYSTEM = RuleSystem(
    name="ten_clubs",
    options={"ten_clubs_multiplier": bool},
    features=lambda r: ("ten_clubs_multiplier",) if r.ten_clubs_multiplier else (),
)
