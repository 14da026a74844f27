"""``bm-soak``: play many random deals of every preset and check the engines' invariants.

Examples::

    bm-soak --deals 20000                          # every preset and player count, 2% through env()
    bm-soak --deals 1000000 --seed 1 > soak.log    # the run docs/rules.md reports
    bm-soak --presets black_maria,turbo_hearts --deals 5000 --env-deals 500

What is checked and how the deals are split between the vector engine and ``env()`` is
described in :mod:`bm_env.soak`. Prints one line per preset, player count and engine, then
the totals, which name how many of the configurations got a deal (``--deals`` below their
number leaves some out); the exit status is 1 if any invariant failed.
"""

from __future__ import annotations

import argparse
import sys
import time

from ..engine.rules import PRESETS
from ..soak import SoakResult, soak
from .args import Parser, add_version, comma_list, int_range, non_negative_int, positive_int

#: The largest vector engine batch (games held at once, each with its arrays).
MAX_BATCH = 65_536


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="bm-soak", description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=positive_int, default=20000, help="deals to play in all (default 20000)")
    p.add_argument("--env-deals", type=non_negative_int, default=None,
                   help="how many of them go through env(), spread over every configuration, at most --deals "
                        "(default: 2%%, at least one per configuration)")
    p.add_argument("--presets", type=comma_list(PRESETS), default=None, metavar="PRESET[,PRESET]",
                   help="presets to play (default: all), each at every player count it allows")
    p.add_argument("--seed", type=non_negative_int, default=0, help="seed of the whole run (default 0)")
    p.add_argument("--batch", type=int_range(1, MAX_BATCH), default=4096,
                   help=f"vector engine batch size, 1 to {MAX_BATCH:,} (default 4096)")
    add_version(p)
    return p


def line(r: SoakResult) -> str:
    status = "ok" if not r.failures else f"{r.failures} FAILED"
    return (f"{r.preset:22s} {r.players:2d}p {r.engine:6s} {r.deals:9,d} deals {r.decisions:12,d} decisions "
            f"{r.illegal_tried:7,d} illegal tried {r.seconds:8.1f} s  {status}")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from ..soak import configurations

    if args.env_deals is not None and args.env_deals > args.deals:
        parser.error(f"--env-deals {args.env_deals} is more than --deals {args.deals}: the env() deals are some of "
                     f"the deals, so give at most {args.deals}")
    configs = len(configurations(args.presets))
    env_deals = args.env_deals if args.env_deals is not None else min(max(args.deals // 50, configs), args.deals)
    start = time.perf_counter()

    def report(r: SoakResult) -> None:
        print(line(r), flush=True)
        for m in r.messages:
            print(f"    {m}", flush=True)

    results = soak(args.presets, args.deals, env_deals, args.seed, args.batch, report)
    deals = sum(r.deals for r in results)
    failures = sum(r.failures for r in results)
    by_engine = {e: sum(r.deals for r in results if r.engine == e) for e in ("vector", "env")}
    played = len({(r.preset, r.players) for r in results if r.deals})
    print(f"bm-soak: {deals:,} deals ({by_engine['vector']:,} on the vector engine, {by_engine['env']:,} through "
          f"env()) over {played} of {configs} preset/player-count configurations, seed {args.seed}, "
          f"{time.perf_counter() - start:,.0f} s: {failures} failure(s)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
