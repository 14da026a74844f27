"""Benchmark of the vector engine: decisions per second at several batch sizes, and its memory.

A decision is a pass pick or a card played in one game; every step produces the
observation and the mask of every game and chooses each game's action with
:meth:`~bm_env.vector.VectorEngine.random_actions` (the k-th set bit of the legal set, k
drawn from a seeded generator), which is timed too. Games re-deal themselves as they end,
so dealing is timed as well. Peak memory is the ``tracemalloc`` peak of building the
engine and playing, measured in a separate run (tracing slows numpy down).
:func:`run` returns rows for ``bm-bench``: black_maria at several batch sizes, every other
preset at its default player count (batch 4,096), a few other player counts, American
Hearts with a kitty.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np

from ..engine.rules import PRESETS, make_rules
from ..vector import make_engine, plays
from . import KITTY_TABLES, rounds_row

CHOOSER = "random_actions (k-th set bit of the legal set), obs + mask produced every step, one core"


def decisions_per_second(preset: str, num_players: int | None, batch: int, decisions: int,
                         seed: int = 0, **options) -> tuple[float, float]:
    """Decisions/s of random play in ``batch`` games of ``preset`` (with rules ``options``) after a short
    warm-up: by the wall clock, and by the process's CPU time (the figure to trust on a shared, busy machine)."""
    engine = make_engine(make_rules(preset, num_players, **options), batch, seed=seed)
    rng = np.random.default_rng(seed)
    engine.reset()
    for _ in range(20):
        engine.step(engine.random_actions(rng))
    steps = max(decisions // batch, 50)
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        engine.step(engine.random_actions(rng))
    return steps * batch / (time.perf_counter() - start), steps * batch / (time.process_time() - cpu)


def peak_memory_mb(preset: str, num_players: int | None, batch: int, steps: int = 100) -> float:
    """``tracemalloc`` peak (MB) of building ``batch`` games and playing ``steps`` steps."""
    tracemalloc.start()
    try:
        engine = make_engine(make_rules(preset, num_players), batch, seed=0)
        rng = np.random.default_rng(0)
        engine.reset()
        for _ in range(steps):
            engine.step(engine.random_actions(rng))
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def run(quick: bool) -> list[dict]:
    """Rows (name, value, unit, note) for ``bm-bench``.

    Each rate is the median of a few rounds (each round's rate is kept in the JSON as
    ``rounds``): one round disturbed by other work on the machine does not move it.
    """
    rounds = 1 if quick else 5
    decisions = 1_000_000 if quick else 2_000_000  # per round
    rows = []

    def row(name: str, preset: str, n: int, batch: int, budget: int, **options) -> dict:
        measured = rounds_row([decisions_per_second(preset, n, batch, budget, seed=r, **options)
                               for r in range(rounds)])
        spread = measured.pop("spread")
        return {"name": name, **measured, "unit": "decisions/s",
                "note": f"{CHOOSER}; {spread}" if spread else CHOOSER, "vs": "openspiel_observer"}

    for batch in (1, 64, 1024, 4096, 16384):
        budget = decisions if batch >= 1024 else decisions // (400 if batch == 1 else 40)
        rows.append(row(f"vector black_maria 3p batch {batch}", "black_maria", 3, batch, budget))
    # Every preset the engine plays at its default player count (black_maria's is above), a few other counts, the
    # kitties.
    tables = [(name, preset.default_players) for name, preset in PRESETS.items()
              if name != "black_maria" and plays(make_rules(name))]
    tables += [("black_maria", 4), ("black_maria", 7), ("dirty_lady", 4), ("spot_hearts", 5), ("cancellation", 7)]
    for preset, n in tables:
        rows.append(row(f"vector {preset} {n}p batch 4096", preset, n, 4096, decisions))
    for n, kw in KITTY_TABLES:
        rows.append(row(f"vector american_hearts {n}p kitty={kw['kitty']} batch 4096", "american_hearts", n, 4096,
                        decisions, **kw))
    for batch in (4096, 65536):
        rows.append({"name": f"vector black_maria 3p batch {batch} peak memory",
                     "value": round(peak_memory_mb("black_maria", 3, batch, 20 if quick else 100), 1),
                     "unit": "MB", "note": "tracemalloc peak: engine, buffers, dealing and play"})
    return rows


if __name__ == "__main__":
    import sys

    for row in run(quick="--quick" in sys.argv):
        print(f"{row['name']:48s} {row['value']:>12} {row['unit']}  ({row['note']})")
