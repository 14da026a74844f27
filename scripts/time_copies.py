"""Time copying an environment mid-deal: ``python scripts/time_copies.py``.

For ``env()`` (Black Maria, 3 players, and Cancellation, 6), ``SingleAgentEnv`` and the vector
engine at batch 4096 (Black Maria, and Turbo Hearts' extension engine): µs per ``copy.deepcopy``,
per pickle round trip (``pickle.loads(pickle.dumps(x))``) and the pickle's size, each beside
what one step of a copy costs in this process (random legal decisions; for the vector engine a
step is one decision in each of the 4096 games), so that the ratio holds on a busy machine.
Each figure is the best of five rounds.
"""

import copy
import os
import pickle
import sys
import timeit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from bm_env import black_maria_v0  # noqa: E402
from bm_env.engine.rules import make_rules  # noqa: E402
from bm_env.learner import SingleAgentEnv  # noqa: E402
from bm_env.vector import make_engine  # noqa: E402


def best_us(f, number: int) -> float:
    """The best of five rounds of ``number`` calls of ``f``, in µs per call."""
    return min(timeit.repeat(f, number=number, repeat=5)) / number * 1e6


def mid_deal_env(preset: str, num_players: int):
    """``env()`` 20 decisions into a deal, and a function that plays ``k`` random decisions of a copy of it."""
    e = black_maria_v0.env(rules=preset, num_players=num_players)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))

    def play(x, k: int) -> None:
        for _ in range(k):
            if not x.agents:
                x.reset()
            elif x.terminations[x.agent_selection]:
                x.step(None)
            else:
                legal = x.observe(x.agent_selection)["action_mask"].nonzero()[0]
                x.step(int(legal[rng.integers(len(legal))]))
    return e, play


def mid_deal_single():
    """``SingleAgentEnv()`` at its learner's third decision, and the same for it."""
    e = SingleAgentEnv()
    e.reset(seed=0)
    for _ in range(3):
        e.step(int(np.flatnonzero(e.action_masks())[0]))
    rng = np.random.default_rng(0)

    def play(x, k: int) -> None:
        for _ in range(k):
            legal = x.action_masks().nonzero()[0]
            if not legal.size:
                x.reset()
                legal = x.action_masks().nonzero()[0]
            x.step(int(legal[rng.integers(len(legal))]))
    return e, play


def mid_deal_engine(preset: str, batch: int):
    """A vector engine 20 steps into its deals, and the same for it (one step: a decision in every game)."""
    eng = make_engine(make_rules(preset), batch, seed=0)
    eng.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        eng.step(eng.random_actions(rng))

    def play(x, k: int) -> None:
        for _ in range(k):
            x.step(x.random_actions(rng))
    return eng, play


def row(name: str, obj, play, number: int, steps: int) -> None:
    """One table row: the copies' costs, and one step's, timed over ``steps`` steps of a copy."""
    deep = best_us(lambda: copy.deepcopy(obj), number)
    trip = best_us(lambda: pickle.loads(pickle.dumps(obj)), number)
    size = len(pickle.dumps(obj))
    played = copy.deepcopy(obj)
    play(played, steps)  # warm: the copy's first steps rebuild what a copy leaves out
    step = best_us(lambda: play(played, steps), 1) / steps
    print(f"| {name} | {deep:,.0f} | {trip:,.0f} | {size:,} | {step:,.1f} | {deep / step:,.1f} |")


def main() -> None:
    print("| object | deepcopy µs | pickle round trip µs | pickle bytes | one step µs | deepcopy / step |")
    print("|---|---|---|---|---|---|")
    row("env() black_maria 3p, mid-deal", *mid_deal_env("black_maria", 3), number=200, steps=2000)
    row("env() cancellation 6p, mid-deal", *mid_deal_env("cancellation", 6), number=100, steps=2000)
    row("SingleAgentEnv() black_maria, mid-deal", *mid_deal_single(), number=200, steps=1000)
    row("VectorEngine black_maria, batch 4096", *mid_deal_engine("black_maria", 4096), number=10, steps=20)
    row("VectorEngine turbo_hearts (ExtendedEngine), batch 4096", *mid_deal_engine("turbo_hearts", 4096),
        number=10, steps=20)


if __name__ == "__main__":
    main()
