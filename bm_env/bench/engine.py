"""Benchmark of the reference engine: random-play deals per second for every preset.

Each deal is shuffled and dealt (:func:`~bm_env.engine.deal.deal_cards`), passed as the preset's
cycle says (so a quarter of American Hearts deals pass nothing), and played to the end.
Every decision is chosen by ``random.Random(seed).randrange`` over the legal cards
(``cards_of(deal.legal)``): a cheap seeded chooser, so the figure is the engine's cost and
not the chooser's. One process, one core. Rates are per second of this process's CPU time
(``time.process_time``), which other work on a shared machine disturbs far less than the
wall clock; the wall-clock rate is kept in the JSON as ``wall_deals_per_s``.
:func:`run` returns rows for ``bm-bench``.
"""

from __future__ import annotations

import itertools
import random
import time
from typing import Callable

import numpy as np

from ..engine.cards import cards_of
from ..engine.deal import DONE, Deal, deal_cards, pass_direction_for
from ..engine.rules import PRESETS, make_rules

CHOOSER = ("random.Random(seed).randrange over cards_of(legal); dealing and passing included; "
           "one core, per CPU-second")


def time_deals(play_deal: Callable[[], int], seconds: float, min_deals: int = 20) -> dict[str, float]:
    """Call ``play_deal`` (one deal played, its decisions returned) for about ``seconds`` of CPU time.

    Returns deals/s, decisions/s and µs per decision by CPU time, and the wall-clock deals/s.
    """
    deals = decisions = 0
    wall = time.perf_counter()
    start = time.process_time()
    deadline = start + seconds
    while deals < min_deals or time.process_time() < deadline:
        decisions += play_deal()
        deals += 1
    elapsed = time.process_time() - start
    wall = time.perf_counter() - wall
    return {
        "deals_per_s": deals / elapsed,
        "decisions_per_s": decisions / elapsed,
        "us_per_decision": 1e6 * elapsed / decisions,
        "deals": deals,
        "seconds": elapsed,
        "wall_deals_per_s": deals / wall,
    }


def deals_per_second(preset: str, num_players: int | None = None, seconds: float = 1.0, seed: int = 0,
                     min_deals: int = 20) -> dict[str, float]:
    """Random-play deals of ``preset`` for about ``seconds`` of CPU time (see :func:`time_deals`)."""
    rules = make_rules(preset, num_players)
    n = rules.num_players
    rng = np.random.default_rng(seed)
    randrange = random.Random(seed).randrange
    numbers = itertools.count()

    def play_deal() -> int:
        i = next(numbers)
        hands, kitty = deal_cards(rules, n, i % n, rng)
        deal = Deal(rules, hands, i % n, pass_direction_for(rules, i, rng), kitty=kitty)
        step = deal.step
        decisions = 0
        while deal.phase != DONE:
            legal = cards_of(deal.legal)
            step(legal[randrange(len(legal))])
            decisions += 1
        return decisions

    return time_deals(play_deal, seconds, min_deals)


def run(quick: bool) -> list[dict]:
    """Rows (name, value, unit, note) for ``bm-bench``: every preset at its default player count."""
    seconds = 0.25 if quick else 2.0
    deals_per_second("black_maria", seconds=0.1)  # warm-up
    rows = []
    for preset in PRESETS:
        n = PRESETS[preset].default_players
        r = deals_per_second(preset, n, seconds=seconds)
        note = f"{r['decisions_per_s']:,.0f} decisions/s, {r['us_per_decision']:.1f} µs/decision; {CHOOSER}"
        rows.append({"name": f"engine {preset} {n}p", "value": round(r["deals_per_s"]), "unit": "deals/s",
                     "note": note, "decisions_per_s": round(r["decisions_per_s"]), "deals": r["deals"],
                     "wall": round(r["wall_deals_per_s"]), "vs": "openspiel_deals"})
    return rows


if __name__ == "__main__":
    import sys

    for row in run(quick="--quick" in sys.argv):
        print(f"{row['name']:40s} {row['value']:>10} {row['unit']}  ({row['note']})")
