"""Benchmark of the rule-based players: decisions per second as a playout policy.

The heuristic is the playout policy of ``pimc`` (every searched card plays deals out with
it), so its cost per decision bounds how much search fits in a second; it must manage at
least :data:`TARGET_HEURISTIC` decisions/s per core. Each deal is dealt, passed and played
to the end with every seat choosing through :func:`view_from_deal` and :func:`choose` of the
player's module, as :func:`bm_env.agents.playouts.heuristic_move` does; the engine's own
cost is included. Rates are per CPU-second of this process (see :mod:`.engine`).
"""

from __future__ import annotations

import importlib
import itertools

import numpy as np

from ..engine.deal import DONE, Deal, deal_cards, pass_direction_for
from ..engine.rules import make_rules
from .engine import time_deals

TARGET_HEURISTIC = 5_000
TABLES = (("black_maria", 3), ("american_hearts", 4), ("petrone_black_mariah", 4))


def playout_rate(module: str, preset: str, num_players: int, seconds: float, seed: int = 0) -> dict[str, float]:
    """Deals of ``preset`` played by ``bm_env.agents.<module>`` at every seat, for about ``seconds``."""
    h = importlib.import_module(f"bm_env.agents.{module}")
    view, choose = h.view_from_deal, h.choose
    rules = make_rules(preset, num_players)
    rng = np.random.default_rng(seed)
    numbers = itertools.count()

    def play_deal() -> int:
        i = next(numbers)
        hands, kitty = deal_cards(rules, num_players, i % num_players, rng)
        deal = Deal(rules, hands, i % num_players, pass_direction_for(rules, i, rng), kitty=kitty)
        decisions = 0
        while deal.phase != DONE:
            deal.step(choose(view(deal)))
            decisions += 1
        return decisions

    return time_deals(play_deal, seconds, min_deals=5)


def run(quick: bool) -> list[dict]:
    """Rows for ``bm-bench``: decisions/s of ``heuristic`` and ``heuristic_v1`` as playouts."""
    seconds = 0.5 if quick else 3.0
    playout_rate("heuristic", "black_maria", 3, 0.1)  # warm-up (imports, rule tables)
    rows = []
    for preset, n in TABLES:
        for module in ("heuristic", "heuristic_v1"):
            r = playout_rate(module, preset, n, seconds)
            note = (f"{r['us_per_decision']:.0f} µs/decision, {r['deals_per_s']:,.0f} deals/s; view_from_deal + "
                    f"choose at every seat, passing and engine included; one core, per CPU-second")
            if module == "heuristic" and preset == "black_maria":
                note += f"; target ≥ {TARGET_HEURISTIC:,} decisions/s"
            rows.append({"name": f"{module} playout {preset} {n}p", "value": round(r["decisions_per_s"]),
                         "unit": "decisions/s", "note": note, "deals": r["deals"],
                         "wall": round(r["decisions_per_s"] * r["wall_deals_per_s"] / r["deals_per_s"])})
    return rows
