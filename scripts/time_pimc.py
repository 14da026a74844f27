"""Time one search decision: ``python scripts/time_pimc.py --preset black_maria --spec pimc --deals 5``.

Seat 0 plays the given spec against heuristic players on seeded deals; every play decision
of seat 0 with more than one legal card is timed (passing is the heuristic's). Prints mean,
median, 95th percentile and maximum seconds per decision on one core.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from bm_env.agents import make_agent  # noqa: E402
from bm_env.engine.deal import DONE, Deal  # noqa: E402
from bm_env.engine.infostate import information_state  # noqa: E402
from bm_env.engine.rules import make_rules  # noqa: E402
from bm_env.env.observation import encode  # noqa: E402
from bm_env.evaluation.boards import make_boards  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="black_maria")
    p.add_argument("--spec", default="pimc")
    p.add_argument("--deals", type=int, default=5)
    args = p.parse_args()
    rules = make_rules(args.preset)
    searcher, others = make_agent(args.spec, rules, 0), make_agent("heuristic", rules, 0)
    times = []
    for board in make_boards(rules, args.deals, 0):
        deal = Deal(rules, board.hands, board.dealer, board.pass_direction)
        while deal.phase != DONE:
            info = information_state(deal, deal.to_act)
            mask = deal.legal_mask()
            if deal.to_act == 0 and deal.phase == "play" and mask.sum() > 1:
                t = time.perf_counter()
                observation = encode(info) if searcher.needs_observation else None  # a guided search's network
                action = searcher.act(observation, mask, info)
                times.append(time.perf_counter() - t)
            else:
                action = others.act(None, mask, info)
            deal.step(action)
    t = np.array(times)
    print(f"{args.spec} on {args.preset}: {len(t)} decisions, mean {t.mean():.3f} s, median {np.median(t):.3f} s, "
          f"p95 {np.percentile(t, 95):.3f} s, max {t.max():.3f} s")


if __name__ == "__main__":
    main()
