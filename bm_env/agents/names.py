"""Agent names that keep their meaning: each rule-based player has a fixed, versioned name.

``heuristic_v1`` and ``heuristic_v2`` name one player each, for good: a better rule-based
player gets the next number, so a result recorded under a fixed name stays comparable with
one recorded today (PettingZoo's ``_vN`` names do the same for environments). ``heuristic``
is an alias that follows the newest; specs may use it, and reports record the fixed name it
resolved to (:func:`bm_env.agents.fixed_spec`).
"""

from __future__ import annotations

#: Each alias and the fixed name it stands for now.
ALIASES = {"heuristic": "heuristic_v2"}


def fixed_name(name: str) -> str:
    """The fixed name ``name`` stands for: an alias's current player, any other name itself."""
    return ALIASES.get(name, name)
