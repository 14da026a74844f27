"""examples/ppo_vector_env.py: a few masked PPO updates on make_vector_env against the shipped agent."""

import math

import pytest
import torch

from kit import SHIPPED_AGENT, load_example


def test_masked_ppo_trains_a_few_updates_against_the_shipped_agent():
    if not SHIPPED_AGENT.exists():
        pytest.skip("checkpoints/black_maria_3p.pt is not in this checkout")
    example = load_example("ppo_vector_env")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # batches of 16 rows
    try:
        result = example.train(example.Args(num_envs=16, num_steps=30, updates=2, epochs=2, minibatches=2))
    finally:
        torch.set_num_threads(threads)
    assert result.steps == 2 * 16 * 30  # an illegal action would have raised in the env
    assert len(result.losses) == 2 and all(math.isfinite(loss) for loss in result.losses)
    # 30 steps of 16 games: every game finished a deal (20 learner decisions) in each update
    finished = [r for r in result.deal_rewards if not math.isnan(r)]
    assert len(finished) == 2 and all(-1 <= r <= 0 for r in finished)


def test_the_policy_gives_illegal_actions_no_probability():
    example = load_example("ppo_vector_env")
    agent = example.Agent(10, 6)
    mask = torch.tensor([[True, False, False, True, False, False]] * 200)
    actions, logprob, entropy, _ = agent.act(torch.randn(200, 10), mask)
    assert set(actions.tolist()) <= {0, 3} and torch.isfinite(entropy).all()
