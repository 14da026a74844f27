"""Fixtures shared by the tests; the helpers they share are in ``kit.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

try:
    import bm_env  # noqa: F401
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


@pytest.fixture
def policy_checkpoint(tmp_path):
    """``(path, network)``: a small policy checkpoint of black_maria (3 players) at step 7."""
    import torch

    from bm_env.env import observation
    from bm_env.agents.checkpoint import PolicyNet, save_checkpoint
    from bm_env.engine.rules import make_rules

    rules = make_rules("black_maria")
    torch.manual_seed(0)
    net = PolicyNet(observation.size(3), rules.num_actions, hidden=(32,))
    path = tmp_path / "p.pt"
    save_checkpoint(path, net, rules, step=7)
    return path, net
