"""Stable-Baselines3 contrib: MaskablePPO learns one seat of Black Maria against the heuristic players.

:class:`~bm_env.env.gym_wrapper.SingleAgentEnv` shows one seat as a Gymnasium environment
whose other seats are played by agents named as in every tool (``opponents="heuristic"``,
``"policy:checkpoints/black_maria_3p.pt"``). MaskablePPO finds the wrapper's
``action_masks()`` by itself while it learns; at evaluation the mask is passed to
``model.predict(obs, action_masks=env.action_masks())``. The environment raises on an
illegal action (``illegal_action="raise"``), so a run that finishes took none.

    pip install -e '.[sb3]'
    python examples/sb3_maskable_ppo.py --iterations 20
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from sb3_contrib import MaskablePPO

from bm_env.env.gym_wrapper import SingleAgentEnv


@dataclass
class Result:
    """What a run did: the learner's decisions, PPO's loss per iteration, its mean deal reward after training."""

    timesteps: int
    losses: list[float]
    eval_reward: float


def make_env(opponents: str = "heuristic", players: int = 3) -> SingleAgentEnv:
    """Seat 0 for the learner; rewards are minus the penalty points over the deal's scale (about -1..0)."""
    return SingleAgentEnv(learner=0, opponents=opponents, num_players=players, reward_normalise=True,
                          illegal_action="raise")


def evaluate(model: MaskablePPO, env: SingleAgentEnv, deals: int, seed: int) -> float:
    """The learner's mean reward over ``deals`` deals, always playing its most likely legal card."""
    total = 0.0
    obs, _ = env.reset(seed=seed)
    for _ in range(deals):
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, done, _, _ = env.step(int(action))
            total += reward
        obs, _ = env.reset()
    return total / deals


def train(iterations: int = 20, steps_per_iteration: int = 1024, opponents: str = "heuristic", players: int = 3,
          eval_deals: int = 50, seed: int = 0) -> Result:
    """``iterations`` PPO updates of ``steps_per_iteration`` learner decisions each, then ``eval_deals`` deals."""
    model = MaskablePPO("MlpPolicy", make_env(opponents, players), n_steps=steps_per_iteration,
                        batch_size=min(256, steps_per_iteration), gamma=1.0, seed=seed)
    losses = []
    for i in range(iterations):
        model.learn(steps_per_iteration, reset_num_timesteps=False)
        losses.append(float(model.logger.name_to_value["train/loss"]))  # what the last update recorded
        print(f"iteration {i + 1}: {model.num_timesteps} decisions, loss {losses[-1]:.4f}")
    reward = evaluate(model, make_env(opponents, players), eval_deals, seed + 1)
    return Result(model.num_timesteps, losses, reward)


def main(argv: list[str] | None = None) -> Result:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--steps-per-iteration", type=int, default=1024, help="learner decisions per PPO update")
    parser.add_argument("--opponents", default="heuristic", help="agent spec of the other seats, as in bm-eval")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--eval-deals", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    result = train(args.iterations, args.steps_per_iteration, args.opponents, args.players, args.eval_deals,
                   args.seed)
    print(f"{args.eval_deals} deals against {args.opponents}: learner's mean reward {result.eval_reward:.3f} "
          f"(minus the penalty points over the deal's scale)")
    return result


if __name__ == "__main__":
    main()
