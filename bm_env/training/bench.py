"""Benchmark of self-play training: decisions per second end to end (rollout and PPO update).

The default config of :class:`~bm_env.training.config.TrainConfig` (its network, batch and
epochs), evaluation and checkpoints off, timed by the wall clock over whole updates after
one warm-up update, with torch on ``torch_threads`` threads, and its snapshot pool full, as
in a run from its ``pool_size`` x ``snapshot_every``-th update on: this is the rate a run's
log prints then. The shares of the engine, the rollout's forward passes and the update come
from the same updates; a second measure with the pool empty gives the rate of a run's first
updates. :func:`run` returns rows for ``bm-bench``.
"""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import time

from .config import TrainConfig
from .ppo import update
from .trainer import Trainer


def measure(updates: int, ray_address: str | None = None, full_pool: bool = True, **overrides) -> dict:
    """Rate and shares of ``updates`` timed updates of the default config (with ``overrides``).

    ``full_pool``: ``pool_size`` snapshots of the starting policy in the pool before the
    warm-up update; a black_maria deal is 60 decisions, so the warm-up's 64 steps end every
    game's deal and seat the pool in its share of the timed updates' deals. With
    ``ray_address`` the rollouts run on ``ray_actors`` Ray actors (``bm-train --ray``); the
    engine and forward shares are then the slowest actor's.
    """
    config = TrainConfig(eval_every=0, final_eval_boards=0, **overrides)
    config.validate("bench")
    with tempfile.TemporaryDirectory() as run_dir:
        trainer = Trainer(config, run_dir, quiet=True, ray_address=ray_address)
        for _ in range(config.pool_size if full_pool and not config.frozen_opponent else 0):
            trainer.add_snapshot()
        rates, engine, forward, learn = [], 0.0, 0.0, 0.0
        with trainer.ray_rollouts or contextlib.nullcontext():  # the actors end with the measurement
            for i in range(updates + 1):
                start = time.perf_counter()
                rollout = trainer.collect()
                collected = time.perf_counter()
                update(trainer.actor, trainer.critic, trainer.optimizer, rollout.batch, config.epochs,
                       config.minibatch_size, config.clip, config.ent_coef, config.vf_coef, config.max_grad_norm,
                       config.target_kl, trainer.generator, trainer.precision)
                done = time.perf_counter()
                if i == 0:
                    continue  # warm-up
                rates.append(rollout.decisions / (done - start))
                engine += rollout.engine_seconds
                forward += rollout.forward_seconds
                learn += done - collected
        total = sum(rollout.decisions / r for r in rates)
    return {"rate": statistics.median(rates), "rates": rates, "engine": engine / total, "forward": forward / total,
            "update": learn / total, "config": config, "precision": trainer.precision}


def run(quick: bool) -> list[dict]:
    m = measure(2 if quick else 6)
    c = m["config"]
    how = (f"black_maria 3p, {c.num_envs} games x {c.rollout_steps} steps per update, policy {c.hidden}, critic "
           f"{c.critic_hidden} (perfect information: {c.critic_state}), {c.epochs} epochs of {c.minibatch_size}; "
           f"{m['precision']} forward passes; wall clock, torch on {c.torch_threads} threads; median of {len(m['rates'])} updates "
           f"({min(m['rates']):,.0f}-{max(m['rates']):,.0f})")
    empty = measure(2 if quick else 4, full_pool=False)
    ruled = measure(2 if quick else 4, rule_opponent="heuristic_v1", rule_share=0.3)
    return [
        {"name": "training end to end (rollout + PPO update)", "value": round(m["rate"]), "unit": "decisions/s",
         "note": f"{how}; a full pool of {c.pool_size} snapshots in {c.pool_share:.0%} of the deals",
         "rounds": [round(r) for r in m["rates"]]},
        {"name": "training: share of time in the vector engine", "value": round(m["engine"], 3), "unit": "ratio",
         "note": "engine steps (observations and masks included)"},
        {"name": "training: share in the rollout's forward passes", "value": round(m["forward"], 3), "unit": "ratio",
         "note": "policy, critic and snapshot forward passes, sampling"},
        {"name": "training: share in the PPO update", "value": round(m["update"], 3), "unit": "ratio",
         "note": "minibatch forward, backward and Adam steps"},
        {"name": "training with the pool still empty (a run's first updates)", "value": round(empty["rate"]),
         "unit": "decisions/s", "note": f"else as above; median of {len(empty['rates'])} updates; "
                                        f"{empty['rate'] / m['rate']:.2f}x the rate above",
         "rounds": [round(r) for r in empty["rates"]]},
        {"name": "training with heuristic_v1 in 30% of the deals", "value": round(ruled["rate"]), "unit": "decisions/s",
         "note": f"rule_opponent heuristic_v1, rule_share 0.3, the full pool in 30% more, else as above; "
                 f"median of {len(ruled['rates'])} updates; {ruled['rate'] / m['rate']:.2f}x the rate above",
         "rounds": [round(r) for r in ruled["rates"]]},
    ]
