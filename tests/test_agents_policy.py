"""The policy agent and its checkpoint format: round trip, legal play, refusals."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bm_env.agents import CheckpointError, make_agent
from bm_env.agents.checkpoint import PolicyNet, load_checkpoint, save_checkpoint
from bm_env.engine.deal import DONE, Deal, deal_hands
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import make_rules
from bm_env.env import observation

BM = make_rules("black_maria")


@pytest.fixture
def ckpt(tmp_path):
    torch.manual_seed(0)
    net = PolicyNet(observation.size(3), BM.num_actions, hidden=(32,))
    path = tmp_path / "p.pt"
    save_checkpoint(path, net, BM, step=7)
    return path, net


def test_round_trip_keeps_weights_rules_and_step(ckpt):
    path, net = ckpt
    loaded, meta = load_checkpoint(path, BM)
    x = torch.randn(4, observation.size(3))
    assert torch.equal(loaded(x), net(x))
    assert meta["step"] == 7 and meta["rules"] == BM and meta["layout_version"] == observation.LAYOUT_VERSION
    assert not list(path.parent.glob(".tmp-*"))  # the atomic write left no temp file


@pytest.mark.parametrize("greedy", [True, False])
def test_policy_plays_legal_cards_through_a_deal(ckpt, greedy):
    path, _ = ckpt
    agents = [make_agent(f"policy:{path},greedy={str(greedy).lower()}", BM, s) for s in range(3)]
    deal = Deal(BM, deal_hands(BM, 3, 0, np.random.default_rng(0)), 0, "right")
    while deal.phase != DONE:
        info = information_state(deal, deal.to_act)
        deal.step(agents[deal.to_act].act(observation.encode(info), deal.legal_mask(), info))


def test_sampled_policy_is_seeded_and_batch_respects_masks(ckpt):
    path, _ = ckpt
    obs = np.random.default_rng(1).integers(0, 2, (200, observation.size(3))).astype(np.int8)
    masks = np.zeros((200, 52), dtype=np.int8)
    masks[:, [4, 30, 49]] = 1
    a = make_agent(f"policy:{path},greedy=false", BM, 3).act_batch(obs, masks)
    b = make_agent(f"policy:{path},greedy=false", BM, 3).act_batch(obs, masks)
    assert np.array_equal(a, b) and set(a.tolist()) <= {4, 30, 49} and len(set(a.tolist())) > 1
    g = make_agent(f"policy:{path}", BM, 0).act_batch(obs, masks)
    assert set(g.tolist()) <= {4, 30, 49}


def test_checkpoint_for_other_rules_is_refused(ckpt):
    path, _ = ckpt
    with pytest.raises(CheckpointError, match="other rules.*moon"):
        load_checkpoint(path, make_rules("black_maria", moon="shooter_minus"))


def test_checkpoint_for_another_layout_is_refused(ckpt, monkeypatch):
    path, _ = ckpt
    monkeypatch.setattr(observation, "LAYOUT_VERSION", observation.LAYOUT_VERSION + 1)
    with pytest.raises(CheckpointError, match="observation layout"):
        load_checkpoint(path, BM)


def test_damaged_and_foreign_files_are_refused(ckpt, tmp_path):
    path, _ = ckpt
    data = path.read_bytes()
    broken = tmp_path / "broken.pt"
    broken.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="damaged"):
        load_checkpoint(broken, BM)
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, foreign)
    with pytest.raises(CheckpointError, match="not a black-maria-policy checkpoint"):
        load_checkpoint(foreign, BM)
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "missing.pt", BM)


def test_network_of_the_wrong_size_is_not_saved(tmp_path):
    with pytest.raises(CheckpointError, match="observation size"):
        save_checkpoint(tmp_path / "x.pt", PolicyNet(10, 52), BM)
