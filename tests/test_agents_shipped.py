"""The shipped agents in checkpoints/: they load, match their model card's rules, and play only legal moves."""

from __future__ import annotations


import numpy as np
import pytest

from bm_env import black_maria_v0
from bm_env.agents import make_agent
from bm_env.agents.checkpoint import load_checkpoint
from bm_env.vector import make_engine

from kit import ROOT

SHIPPED = sorted((ROOT / "checkpoints").glob("*.pt"))


def test_the_black_maria_agent_is_shipped_with_its_model_card_and_config():
    assert (ROOT / "checkpoints" / "black_maria_3p.pt") in SHIPPED
    for path in SHIPPED:
        assert path.with_suffix(".md").exists(), f"{path.name} has no model card"
        assert (ROOT / "configs" / f"{path.stem}.yaml").exists(), f"{path.name} has no committed config"


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_agent_plays_legal_moves_in_the_environment(path):
    _, meta = load_checkpoint(path)
    rules = meta["rules"]
    agent = make_agent(f"policy:{path}", rules, seed=0)
    env = black_maria_v0.env(rules=rules)
    for seed in range(3):
        env.reset(seed=seed)
        for name in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = agent.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_agent_plays_legal_moves_in_the_vector_engine(path):
    _, meta = load_checkpoint(path)
    agent = make_agent(f"policy:{path},greedy=false", meta["rules"], seed=0)
    engine = make_engine(meta["rules"], 64, seed=1)
    obs, mask, _ = engine.reset()
    deals = 0
    for _ in range(300):  # the engine raises on any illegal action
        actions = agent.act_batch(obs, mask)
        assert (mask[np.arange(64), actions] == 1).all()
        obs, mask, _, _, done, _ = engine.step(actions)
        deals += int(done.sum())
    assert deals >= 64
