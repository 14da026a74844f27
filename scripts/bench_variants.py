"""Random-play speed of the reference engine (bm_env.deal) for the classic and the issue-6 presets.

Prints deals per second and decisions per second for each preset: every decision picks a
uniform legal action with a seeded generator (``cards_of`` + ``rng.integers``). Run:
``.venv/bin/python scripts/bench_variants.py [deals]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from bm_env.cards import cards_of
from bm_env.deal import Deal, deal_cards, pass_direction_for
from bm_env.rules import make_rules

TABLES = [("black_maria", 3), ("american_hearts", 4), ("cancellation", 6), ("cancellation", 10),
          ("turbo_hearts", 4), ("booster_nines", 4), ("partnership_hearts", 4)]


def bench(preset: str, n: int, deals: int) -> tuple[float, float]:
    rules = make_rules(preset, n)
    rng = np.random.default_rng(0)
    setups = []
    for d in range(deals):
        hands, kitty = deal_cards(rules, n, d % n, rng)
        setups.append((hands, d % n, pass_direction_for(rules, d, rng), kitty))
    decisions = 0
    t = time.perf_counter()
    for hands, dealer, direction, kitty in setups:
        deal = Deal(rules, hands, dealer, direction, kitty=kitty)
        while deal.phase != "done":
            legal = cards_of(deal.legal)
            deal.step(legal[int(rng.integers(len(legal)))])
            decisions += 1
    dt = time.perf_counter() - t
    return deals / dt, decisions / dt


def main() -> None:
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    print(f"{'preset':<20} {'n':>2} {'deals/s':>9} {'decisions/s':>12}")
    for preset, n in TABLES:
        dps, steps = bench(preset, n, deals)
        print(f"{preset:<20} {n:>2} {dps:>9.0f} {steps:>12.0f}")


if __name__ == "__main__":
    main()
