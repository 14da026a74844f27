"""Tianshou: a masked DQN learns one seat of Black Maria; Tianshou's random player takes the others.

Tianshou's ``PettingZooEnv`` turns the AEC environment into one stream of decisions; each
observation carries the acting seat (``agent_id``) and its legal actions (``mask``).
``MultiAgentOffPolicyAlgorithm`` hands every decision to the algorithm of the seat that
acts: a DQN, whose Q-values and exploration are both limited to the mask, for the learner,
and ``MARLRandomDiscreteMaskedOffPolicyAlgorithm`` (a legal card at random) for the
others. The environment raises on an illegal action, so a run that finishes took none.

All seats share one replay buffer in turn order and a deal's reward arrives on the step
that ends it, usually another seat's. An n-step return over one round of turns
(``n_step=players``) carries that reward back to the learner's last decision of the deal;
the bootstrap target is the decision ``players`` steps later, which in trick play is
usually, not always, the learner's own. This shows the plumbing, not a strong player.

    pip install 'black-maria[tianshou]'
    python examples/tianshou_dqn.py --epochs 10
"""

from __future__ import annotations

import argparse
import logging
from dataclasses import dataclass

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from bm_env import black_maria_v0

# Tianshou logs a warning at every collection that multi-agent returns (one column per
# seat) are not 1-D; this example reads them column by column itself.
logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)


@dataclass
class Result:
    """What a run did: environment and gradient steps, the learner's loss per epoch, its mean deal reward."""

    env_steps: int
    gradient_steps: int
    losses: list[float]
    learner_reward: float
    opponents_reward: float


def make_env(players: int) -> PettingZooEnv:
    """One table for Tianshou: rewards are minus the penalty points over the deal's scale (about -1..0),
    and ``illegal_action="raise"`` turns any illegal card into an error."""
    return PettingZooEnv(black_maria_v0.env(num_players=players, reward_normalise=True, illegal_action="raise"))


def make_algorithm(env: PettingZooEnv, learner: int, lr: float) -> MultiAgentOffPolicyAlgorithm:
    """A masked DQN in seat ``learner``, Tianshou's masked random player in every other seat."""
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=env.action_space.n, hidden_sizes=[256, 256])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0)
    dqn = DQN(policy=policy, optim=AdamOptimizerFactory(lr=lr), gamma=0.99,
              n_step_return_horizon=len(env.agents), target_update_freq=200)
    seats = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents]
    seats[learner] = dqn
    return MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)


def train(epochs: int = 10, steps_per_epoch: int = 2000, envs: int = 4, players: int = 3, learner: int = 0,
          eval_deals: int = 50, seed: int = 0, lr: float = 1e-4) -> Result:
    """Train for ``epochs`` epochs of ``steps_per_epoch`` decisions (all seats'), then play ``eval_deals`` greedily."""
    np.random.seed(seed)  # Tianshou's random player and exploration draw from numpy's global generator
    torch.manual_seed(seed)
    algorithm = make_algorithm(make_env(players), learner, lr)
    agent = f"player_{learner}"
    training_envs = DummyVectorEnv([lambda: make_env(players) for _ in range(envs)])
    training_envs.seed(seed)
    collector = Collector[CollectStats](algorithm, training_envs, VectorReplayBuffer(20_000, envs),
                                        exploration_noise=True)
    collector.reset()
    collector.collect(n_step=64 * envs)  # a first batch to sample from
    trainer = algorithm.create_trainer(OffPolicyTrainerParams(
        training_collector=collector, max_epochs=epochs, epoch_num_steps=steps_per_epoch,
        collection_step_num_env_steps=10 * envs, update_step_num_gradient_steps_per_sample=0.1,
        batch_size=64, test_collector=None, show_progress=False))
    trainer.reset()
    losses = []
    for _ in range(epochs):
        epoch = trainer.execute_epoch()
        losses.append(epoch.training_stat.get_loss_stats_dict()[f"{agent}/loss"])
        print(f"epoch {epoch.epoch}: {epoch.info_stat.train_step} decisions, loss {losses[-1]:.4f}")

    test_envs = DummyVectorEnv([lambda: make_env(players) for _ in range(envs)])
    test_envs.seed(seed + 1)
    stats = Collector[CollectStats](algorithm, test_envs).collect(n_episode=eval_deals, reset_before_collect=True)
    returns = stats.returns  # one row per deal, one column per seat
    others = [s for s in range(players) if s != learner]
    return Result(epoch.info_stat.train_step, epoch.info_stat.update_step, losses,
                  float(returns[:, learner].mean()), float(returns[:, others].mean()))


def main(argv: list[str] | None = None) -> Result:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--steps-per-epoch", type=int, default=2000, help="decisions of all seats per epoch")
    parser.add_argument("--envs", type=int, default=4, help="tables played side by side")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--learner", type=int, default=0, help="the DQN's seat")
    parser.add_argument("--eval-deals", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    result = train(args.epochs, args.steps_per_epoch, args.envs, args.players, args.learner, args.eval_deals,
                   args.seed)
    print(f"{args.eval_deals} greedy deals: learner's mean reward {result.learner_reward:.2f}, "
          f"random seats' {result.opponents_reward:.2f} (minus the penalty points over the deal's scale)")
    return result


if __name__ == "__main__":
    main()
