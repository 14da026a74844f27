"""Stable-Baselines3 contrib: MaskablePPO learns one seat of Black Maria against the heuristic players.

:func:`bm_env.learner.make_vector_env` plays ``--envs`` games at once on the vector engine, one
learning seat in each and the other seats played inside the step by the agents named as in
every tool (``opponents="heuristic"``, ``"policy:black_maria_3p"``);
:class:`~bm_env.integrations.sb3.SB3VecEnv` shows it to SB3 as its own ``VecEnv``. MaskablePPO
finds the games' masks by itself while it learns (``env_method("action_masks")``); at
evaluation the masks are passed to ``model.predict(obs, action_masks=env.action_masks())``.
The vector env raises on an illegal action, so a run that finishes took none.

    pip install 'black-maria[sb3]'
    python examples/sb3_maskable_ppo.py --iterations 20
    python examples/sb3_maskable_ppo.py --compare   # learner steps/s: this env against SingleAgentEnv in DummyVecEnv
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np
from sb3_contrib import MaskablePPO

from bm_env.integrations.sb3 import SB3VecEnv
from bm_env.learner import make_vector_env


@dataclass
class Result:
    """What a run did: the learner's decisions, PPO's loss per iteration, its mean deal reward after training."""

    timesteps: int
    losses: list[float]
    eval_reward: float


def make_env(opponents: str = "heuristic", players: int = 3, envs: int = 16, seed: int = 0) -> SB3VecEnv:
    """Seat 0 learns in each of ``envs`` games; rewards are minus the penalty points over the deal's scale (about -1..0)."""
    return SB3VecEnv(make_vector_env("black_maria", num_envs=envs, learner=0, opponents=opponents, seed=seed,
                                     num_players=players, reward_normalise=True))


def evaluate(model: MaskablePPO, env: SB3VecEnv, deals: int) -> float:
    """The learner's mean reward over the first ``deals`` deals finished, always playing its most likely legal card."""
    rewards: list[float] = []
    obs = env.reset()
    while len(rewards) < deals:
        actions, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, reward, done, _ = env.step(actions)
        rewards += reward[done].tolist()
    return float(np.mean(rewards[:deals]))


def train(iterations: int = 20, steps_per_iteration: int = 1024, opponents: str = "heuristic", players: int = 3,
          eval_deals: int = 50, seed: int = 0, envs: int = 16) -> Result:
    """``iterations`` PPO updates of ``steps_per_iteration`` learner decisions each (over ``envs`` games), then
    ``eval_deals`` deals."""
    if steps_per_iteration % envs:
        raise ValueError(f"steps_per_iteration ({steps_per_iteration}) must be a multiple of envs ({envs})")
    env = make_env(opponents, players, envs, seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=steps_per_iteration // envs,
                        batch_size=min(256, steps_per_iteration), gamma=1.0, seed=seed)
    losses = []
    for i in range(iterations):
        model.learn(steps_per_iteration, reset_num_timesteps=False)
        losses.append(float(model.logger.name_to_value["train/loss"]))  # what the last update recorded
        print(f"iteration {i + 1}: {model.num_timesteps} decisions, loss {losses[-1]:.4f}")
    reward = evaluate(model, make_env(opponents, players, envs, seed + 1), eval_deals)
    return Result(model.num_timesteps, losses, reward)


def single_agent_envs(opponents: str = "heuristic", players: int = 3, envs: int = 16):
    """The same games one at a time: ``envs`` SingleAgentEnv under SB3's DummyVecEnv (what the vector env replaces)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from bm_env.learner import SingleAgentEnv

    return DummyVecEnv([lambda: SingleAgentEnv(learner=0, opponents=opponents, num_players=players,
                                               reward_normalise=True, illegal_action="raise")] * envs)


def steps_per_second(env, steps: int, envs: int, seed: int = 0) -> float:
    """Learner decisions/s of MaskablePPO learning ``steps`` decisions on ``env`` (rollouts and updates)."""
    model = MaskablePPO("MlpPolicy", env, n_steps=max(steps // envs // 2, 1), batch_size=256, gamma=1.0, seed=seed)
    model.learn(envs)  # builds what the first call builds
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return steps / (time.perf_counter() - start)


def compare(steps: int = 8192, opponents: str = "heuristic", players: int = 3, envs: int = 16) -> tuple[float, float]:
    """MaskablePPO's learner steps/s on this vector env and on SingleAgentEnv in DummyVecEnv, same config."""
    vector = steps_per_second(make_env(opponents, players, envs), steps, envs)
    single = steps_per_second(single_agent_envs(opponents, players, envs), steps, envs)
    print(f"MaskablePPO, {envs} games against {opponents}: {vector:,.0f} learner steps/s on make_vector_env, "
          f"{single:,.0f} on SingleAgentEnv in DummyVecEnv ({vector / single:.1f}x)")
    return vector, single


def main(argv: list[str] | None = None) -> Result | None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--steps-per-iteration", type=int, default=1024, help="learner decisions per PPO update")
    parser.add_argument("--envs", type=int, default=16, help="games played at once")
    parser.add_argument("--opponents", default="heuristic", help="agent spec of the other seats (random, heuristic, "
                        "heuristic_v1, policy:PATH)")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--eval-deals", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--compare", action="store_true", help="time learning here and on SingleAgentEnv instead")
    args = parser.parse_args(argv)
    if args.compare:
        compare(opponents=args.opponents, players=args.players, envs=args.envs)
        return None
    result = train(args.iterations, args.steps_per_iteration, args.opponents, args.players, args.eval_deals,
                   args.seed, args.envs)
    print(f"{args.eval_deals} deals against {args.opponents}: learner's mean reward {result.eval_reward:.3f} "
          f"(minus the penalty points over the deal's scale)")
    return result


if __name__ == "__main__":
    main()
