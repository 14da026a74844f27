"""The policy agent (bm_env/agents/policy.py): legal play through a deal, seeded sampling, masks in a batch,
the dense network's logits.

Its checkpoints are those of conftest.policy_checkpoint; their format is tested in test_agents_checkpoint.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bm_env.env import observation
from bm_env.agents import make_agent
from bm_env.agents.sparse_forward import SparseForward
from bm_env.engine.cards import cards_of
from bm_env.engine.deal import DONE, Deal, deal_hands
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import make_rules

BM = make_rules("black_maria")


def play_deal_with_policy(path, greedy: bool, net=None) -> tuple[Deal, list[int]]:
    """One black_maria deal with the policy of ``path`` at every seat; checks each action as it is chosen
    (legal; for a greedy player, the network's best legal action when ``net`` is given)."""
    agents = [make_agent(f"policy:{path},greedy={str(greedy).lower()}", BM, s) for s in range(3)]
    deal = Deal(BM, deal_hands(BM, 3, 0, np.random.default_rng(0)), 0, "right")
    actions = []
    while deal.phase != DONE:
        info = information_state(deal, deal.to_act)
        obs, mask = observation.encode(info), deal.legal_mask()
        a = agents[deal.to_act].act(obs, mask, info)
        assert mask[a] == 1, f"decision {len(actions)}: {a} is not legal ({np.flatnonzero(mask)})"
        if greedy and net is not None:
            with torch.no_grad():
                logits = net(torch.as_tensor(obs[None], dtype=torch.float32))[0].numpy()
            assert a == np.flatnonzero(mask)[np.argmax(logits[mask == 1])]
        deal.step(a)
        actions.append(a)
    return deal, actions


@pytest.mark.parametrize("greedy", [True, False])
def test_policy_plays_legal_cards_through_a_deal(policy_checkpoint, greedy):
    path, net = policy_checkpoint
    deal, actions = play_deal_with_policy(path, greedy, net)
    # The whole deal: 3 x 3 cards passed, then 17 tricks of 3 cards, every point taken by someone.
    assert len(actions) == 9 + 51 and len(deal.tricks) == 17 and deal.is_over
    assert sorted(c for _, trick, _ in deal.tricks for c in trick) == cards_of(BM.deck_mask(3))
    assert sum(deal.captured) == 43
    # The same checkpoint and seeds play the same deal again (the sampling player draws from its seed).
    assert play_deal_with_policy(path, greedy)[1] == actions


def test_sampled_policy_is_seeded_and_batch_respects_masks(policy_checkpoint):
    path, _ = policy_checkpoint
    obs = np.random.default_rng(1).integers(0, 2, (200, observation.size(3))).astype(np.int8)
    masks = np.zeros((200, 52), dtype=np.int8)
    masks[:, [4, 30, 49]] = 1
    a = make_agent(f"policy:{path},greedy=false", BM, 3).act_batch(obs, masks)
    b = make_agent(f"policy:{path},greedy=false", BM, 3).act_batch(obs, masks)
    assert np.array_equal(a, b) and set(a.tolist()) <= {4, 30, 49} and len(set(a.tolist())) > 1
    g = make_agent(f"policy:{path}", BM, 0).act_batch(obs, masks)
    assert set(g.tolist()) <= {4, 30, 49}


def test_batched_logits_are_the_dense_networks(policy_checkpoint):
    """The first layer is summed over the set cells (bm_env/agents/sparse_forward.py): every cell's value counts,
    negative ones too, a row of zeros is the bias alone, and float observations give the int8 ones' logits."""
    path, net = policy_checkpoint
    rng = np.random.default_rng(2)
    obs = (rng.integers(-128, 128, (64, observation.size(3))) * (rng.random((64, observation.size(3))) < 0.1))
    obs = obs.astype(np.int8)
    obs[5] = 0
    masks = (rng.random((64, 52)) < 0.3).astype(np.int8)
    masks[:, 7] = 1
    with torch.no_grad():
        dense = net(torch.as_tensor(obs, dtype=torch.float32))
    sparse = SparseForward(net)
    for given in (obs, obs.astype(np.float32)):
        np.testing.assert_allclose(sparse(given).numpy(), dense.numpy(), rtol=1e-4, atol=1e-4)
    agent = make_agent(f"policy:{path}", BM, 0)
    expected = dense.masked_fill(torch.as_tensor(masks == 0), -1e30).argmax(dim=1).numpy()
    assert np.array_equal(agent.act_batch(obs, masks), expected)
