"""The snapshot pool's batched forward pass gives each row its own snapshot's logits."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from bm_env.agents.checkpoint import PolicyNet
from bm_env.training.precision import autocast
from bm_env.agents.stacked_pool import StackedPool

OBS, ACTIONS, HIDDEN = 40, 13, (16, 8)


def _pool(k: int, hidden=HIDDEN, seed: int = 0) -> list[PolicyNet]:
    torch.manual_seed(seed)
    return [PolicyNet(OBS, ACTIONS, hidden).eval() for _ in range(k)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=40), st.integers(0, 2**16))
def test_every_row_gets_its_own_snapshots_logits(snapshot, seed):
    pool = _pool(4)
    who = np.array(snapshot)
    x = torch.from_numpy(np.random.default_rng(seed).integers(0, 2, size=(len(who), OBS))).float()
    got = StackedPool(pool, "fp32").logits(x, who)
    with torch.no_grad():
        want = torch.stack([pool[k](x[i]) for i, k in enumerate(who)])
    assert got.dtype == torch.float32 and got.shape == (len(who), ACTIONS)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_bf16_logits_are_those_of_the_snapshots_under_autocast():
    pool = _pool(3, hidden=(256, 256))
    who = np.array([2, 0, 2, 2, 1, 0, 2])
    x = torch.from_numpy(np.random.default_rng(1).integers(0, 2, size=(len(who), OBS))).float()
    got = StackedPool(pool, "bf16").logits(x, who)
    with torch.no_grad(), autocast("bf16", x.device):
        want = torch.stack([pool[k](x[i:i + 1])[0].float() for i, k in enumerate(who)])
    assert got.dtype == torch.float32
    torch.testing.assert_close(got, want, rtol=0.05, atol=0.05)
    # bf16 is coarse, not wrong: each row is far nearer its own snapshot than another's.
    other = torch.stack([pool[(k + 1) % 3](x[i]) for i, k in enumerate(who)]).detach()
    assert ((got - want).abs().max(dim=1).values < (got - other).abs().max(dim=1).values).all()


def test_snapshots_of_different_architectures_are_refused():
    with pytest.raises(ValueError, match="share one architecture.*16, 8.*32"):
        StackedPool(_pool(1) + _pool(1, hidden=(32,)), "fp32")
