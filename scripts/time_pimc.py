"""Time one search decision: ``python scripts/time_pimc.py --preset black_maria --spec pimc --deals 5``.

Seat 0 plays the given spec against heuristic players on the first deals of board set 0; every
play decision of seat 0 with more than one legal card is timed (its passes are the heuristic's;
:func:`bm_env.bench.agents.search_times`, which ``bm-bench --only agents`` reports for two
searches). Prints mean, median, 95th percentile and maximum seconds of CPU time per decision.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from bm_env.bench.agents import search_times  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="black_maria")
    p.add_argument("--spec", default="pimc")
    p.add_argument("--deals", type=int, default=5)
    args = p.parse_args()
    t = search_times(args.spec, args.preset, args.deals)
    print(f"{args.spec} on {args.preset}: {len(t)} decisions, mean {t.mean():.3f} s, median {np.median(t):.3f} s, "
          f"p95 {np.percentile(t, 95):.3f} s, max {t.max():.3f} s")


if __name__ == "__main__":
    main()
