"""Masked PPO in one file, CleanRL style, on make_vector_env: one seat learns against the shipped agent.

``make_vector_env`` gives ``--num-envs`` games of Black Maria as a ``gymnasium.vector.VectorEnv``:
one step is one decision of the learning seat in every game, the two other seats played by
the shipped agent inside the step (one batched forward pass for all games). The legal
actions come in ``info["action_mask"]`` (and ``env.action_masks()``); illegal actions get
the lowest logit, so the policy never samples one (the env would raise). A deal that ends
is dealt again in the same step (Gymnasium's ``AutoresetMode.SAME_STEP``): the reward of that
step closes the deal and the next observation opens a new one, which is the convention
CleanRL's ``ppo.py`` is written for. This is the face to fork; ``bm-train`` is the trainer
(self-play, snapshot pools, a critic with the hidden cards).

    python examples/ppo_vector_env.py --updates 50
    python examples/ppo_vector_env.py --opponents heuristic --num-envs 512
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from bm_env.agents.shipped import shipped_spec
from bm_env.learner import make_vector_env


@dataclass
class Args:
    rules: str = "black_maria"
    opponents: str | None = None  # an agent spec; default: the shipped agent of the rules
    num_envs: int = 256
    num_steps: int = 32  # learner decisions per game per update
    updates: int = 50
    learning_rate: float = 3e-4
    gamma: float = 1.0  # a deal is short and its reward comes at the end
    gae_lambda: float = 0.95
    minibatches: int = 4
    epochs: int = 4
    clip: float = 0.2
    entropy_coef: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    seed: int = 0


@dataclass
class Result:
    """What a run did: learner decisions, each update's losses, the mean reward of the deals finished during it."""

    steps: int
    losses: list[float] = field(default_factory=list)
    deal_rewards: list[float] = field(default_factory=list)


def layer(i: int, o: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(layer(obs_size, 256), nn.ReLU(), layer(256, 256), nn.ReLU(), layer(256, 1, 1.0))
        self.actor = nn.Sequential(layer(obs_size, 256), nn.ReLU(), layer(256, 256), nn.ReLU(),
                                   layer(256, num_actions, 0.01))

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def act(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        """Sampled (or given) actions, their log-probabilities, the entropy and the value, illegal actions masked."""
        logits = self.actor(x).masked_fill(~mask, torch.finfo(torch.float32).min)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(x)


def train(args: Args) -> Result:
    torch.manual_seed(args.seed)
    opponents = args.opponents or shipped_spec(args.rules, 3)  # None where no agent is shipped: random opponents
    env = make_vector_env(args.rules, num_envs=args.num_envs, opponents=opponents, seed=args.seed,
                          reward_normalise=True)
    N, T = args.num_envs, args.num_steps
    L, A = env.single_observation_space.shape[0], env.single_action_space.n
    agent = Agent(L, A)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((T, N, L))
    masks = torch.zeros((T, N, A), dtype=torch.bool)
    actions = torch.zeros((T, N), dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros((T, N)) for _ in range(4))

    next_obs, info = env.reset(seed=args.seed)
    next_obs, next_mask = torch.tensor(next_obs, dtype=torch.float32), torch.tensor(info["action_mask"] != 0)
    next_done = torch.zeros(N)
    result = Result(0)
    for update in range(args.updates):
        start = time.perf_counter()
        ended: list[float] = []
        for t in range(T):
            obs[t], masks[t], dones[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs, next_mask)
            actions[t], logprobs[t], values[t] = action, logprob, value
            o, reward, terminated, truncated, info = env.step(action.numpy())
            rewards[t] = torch.from_numpy(reward)
            ended += reward[terminated].tolist()
            next_obs, next_mask = torch.tensor(o, dtype=torch.float32), torch.tensor(info["action_mask"] != 0)
            next_done = torch.from_numpy(terminated | truncated).float()

        # Generalised advantage estimation, bootstrapped from the value of the observation after the rollout.
        with torch.no_grad():
            next_value = agent.value(next_obs)
            advantages = torch.zeros((T, N))
            last = torch.zeros(N)
            for t in reversed(range(T)):
                nonterminal = 1.0 - (next_done if t == T - 1 else dones[t + 1])
                following = next_value if t == T - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * nonterminal - values[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                advantages[t] = last
            returns = advantages + values

        b_obs, b_masks, b_actions = obs.reshape(T * N, L), masks.reshape(T * N, A), actions.reshape(-1)
        b_logprobs, b_adv, b_returns = logprobs.reshape(-1), advantages.reshape(-1), returns.reshape(-1)
        size = T * N // args.minibatches
        for _ in range(args.epochs):
            order = torch.randperm(T * N)
            for i in range(0, T * N, size):
                mb = order[i:i + size]
                _, newlogprob, entropy, newvalue = agent.act(b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.entropy_coef * entropy.mean() + args.value_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        result.steps += T * N
        result.losses.append(loss.item())
        result.deal_rewards.append(float(np.mean(ended)) if ended else float("nan"))
        print(f"update {update + 1}: {result.steps} learner steps, loss {result.losses[-1]:.4f}, "
              f"{len(ended)} deals, mean reward {result.deal_rewards[-1]:.3f}, "
              f"{T * N / (time.perf_counter() - start):,.0f} learner steps/s")
    return result


def main(argv: list[str] | None = None) -> Result:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name, default in vars(Args()).items():
        flag = "--" + name.replace("_", "-")
        parser.add_argument(flag, type=type(default) if default is not None else str, default=default)
    return train(Args(**vars(parser.parse_args(argv))))


if __name__ == "__main__":
    main()
