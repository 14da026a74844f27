"""Benchmark of :func:`bm_env.learner.make_vector_env`: learner steps per second, against the engine and SingleAgentEnv.

A learner step is one decision of the learning seat in one game; each ``step`` of the
vector env also plays every other seat's decisions up to the learner's next turn, so with 3
players it is about 3 of the engine's decisions. The learner's actions are drawn by
:meth:`~bm_env.vector.VectorEngine.random_actions` on the engine's legal sets (at the
learner's turn those are the learner's), timed too. Rows, all in one run so that the ratios
compare rates taken under the same conditions:

- black_maria 3p, 4,096 games, random opponents, one core (CPU time); the raw engine's
  decisions/s at the same batch divided by the seats (the opponents' decisions are the engine's
  work too); ``SingleAgentEnv`` stepped in a loop with random opponents;
- the shipped agent as both opponents, the wall clock with torch on 2 threads
  and per CPU-second of both threads' time together (``cpu`` in the JSON), and the CPU time on 1 thread;
- the shipped agent's forward pass alone on 4,096 rows of games in play, as the policy
  opponents run it (:mod:`bm_env.agents.sparse_forward`), on the same 2 threads: its rows/s
  over the opponents' decisions per learner step (one per other seat) is the learner steps/s
  the network allows, and the row after it says how near the env comes to that ceiling.
"""

from __future__ import annotations

import time

import numpy as np

from ..engine.rules import Rules, make_rules
from ..learner import make_vector_env
from ..learner.single import SingleAgentEnv
from .vector import decisions_per_second

BATCH = 4096


def learner_steps_per_second(env, steps: int, seed: int = 0) -> tuple[float, float]:
    """Learner steps/s of ``env`` (a vector env) by the wall clock and by CPU time, after a short warm-up."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(5):
        env.step(env.engine.random_actions(rng))
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        env.step(env.engine.random_actions(rng))
    n = steps * env.num_envs
    return n / (time.perf_counter() - start), n / (time.process_time() - cpu)


def single_env_steps_per_second(steps: int, seed: int = 0) -> float:
    """Learner steps/s (CPU time) of ``SingleAgentEnv`` with random opponents, a uniform legal action a step."""
    env = SingleAgentEnv(learner=0, illegal_action="raise")
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    cpu = time.process_time()
    for _ in range(steps):
        _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if done:
            env.reset()
    return steps / (time.process_time() - cpu)


def forward_rows_per_second(spec: str, rules: Rules, passes: int, seed: int = 0) -> float:
    """Rows/s (wall clock) of the network of agent ``spec`` alone on ``BATCH`` observations of games in play."""
    from ..agents import make_agent
    from ..agents.sparse_forward import SparseForward

    env = make_vector_env(rules, num_envs=BATCH, seed=seed)  # random players: the rows need only be games in play
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    for _ in range(10):
        obs, *_ = env.step(env.engine.random_actions(rng))
    forward = SparseForward(make_agent(spec, rules).net)
    forward(obs)
    start = time.perf_counter()
    for _ in range(passes):
        forward(obs)
    return passes * BATCH / (time.perf_counter() - start)


def run(quick: bool) -> list[dict]:
    """Rows (name, value, unit, note) for ``bm-bench``; the ratios come from rates of this one run."""
    rules = make_rules("black_maria")
    seats = rules.num_players
    steps = 30 if quick else 150
    env = make_vector_env(rules, num_envs=BATCH, opponents="random", seed=0)
    _, vec_cpu = learner_steps_per_second(env, steps)
    _, raw_cpu = decisions_per_second("black_maria", 3, BATCH, steps * BATCH * seats)
    single = single_env_steps_per_second(1000 if quick else 5000)
    rows = [
        {"name": "vector_env black_maria 3p 4096 games, random opponents", "value": round(vec_cpu),
         "unit": "learner steps/s", "note": "one core (CPU time); the learner's actions by random_actions"},
        {"name": "vector_env / (raw engine decisions/s / seats)", "value": round(vec_cpu / (raw_cpu / seats), 2),
         "unit": "ratio", "note": f"engine {raw_cpu:,.0f} decisions/s at batch {BATCH} in this run"},
        {"name": "SingleAgentEnv black_maria 3p, random opponents", "value": round(single),
         "unit": "learner steps/s", "note": "one game stepped in a loop (CPU time)"},
        {"name": "vector_env / SingleAgentEnv", "value": round(vec_cpu / single, 1), "unit": "ratio",
         "note": "same opponents, same run"},
    ]
    from ..agents.shipped import shipped_spec

    spec = shipped_spec("black_maria", 3)
    if spec is None:
        rows.append({"name": "vector_env black_maria 3p 4096 games, shipped agent opponents", "value": None,
                     "unit": "learner steps/s", "note": "checkpoints/black_maria_3p.pt is not in this installation"})
        return rows
    import torch

    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        env = make_vector_env(rules, num_envs=BATCH, opponents=spec, seed=0)
        _, one_thread_cpu = learner_steps_per_second(env, 5 if quick else 30)
        torch.set_num_threads(2)
        wall, cpu = learner_steps_per_second(env, 5 if quick else 30)
        rows_per_second = forward_rows_per_second(spec, rules, 10 if quick else 100)
    finally:
        torch.set_num_threads(threads)
    ceiling = rows_per_second / (seats - 1)
    rows += [
        {"name": "vector_env black_maria 3p 4096 games, shipped agent opponents", "value": round(wall),
         "unit": "learner steps/s", "cpu": round(cpu),
         "note": f"wall clock, torch on 2 threads, one batched pass per opponents' turn "
                 f"({cpu:,.0f} per CPU-second of both)"},
        {"name": "the same, torch on 1 thread", "value": round(one_thread_cpu), "unit": "learner steps/s",
         "note": "one core (CPU time): the cost of a learner step, which other work on the machine distorts less"},
        {"name": f"shipped agent's forward pass alone, {BATCH} rows", "value": round(rows_per_second),
         "unit": "rows/s", "note": f"wall clock, torch on 2 threads, first layer over the set cells; at {seats - 1} "
                                   f"opponent decisions per learner step it allows {ceiling:,.0f} learner steps/s"},
        {"name": "vector_env shipped agent opponents / the forward pass's ceiling", "value": round(wall / ceiling, 2),
         "unit": "ratio",
         "note": "what the engine, the encoding, the masking and the passes' smaller row counts leave of it"},
    ]
    return rows


if __name__ == "__main__":
    import sys

    for row in run(quick="--quick" in sys.argv):
        print(f"{row['name']:60s} {row['value']!s:>12} {row['unit']}  ({row['note']})")
