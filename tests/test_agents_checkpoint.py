"""The policy checkpoint format (bm_env/agents/checkpoint.py): a round trip, refusals of other rules and
layouts, our own message for a damaged, foreign or pickled file, a directory named as such, umask permissions.

Most tests start from conftest.policy_checkpoint."""

from __future__ import annotations

import os
import pickle
import stat

import pytest
import torch

from bm_env.env import observation
from bm_env.agents import make_agent
from bm_env.agents.checkpoint import CheckpointError, PolicyNet, load_checkpoint, save_checkpoint
from bm_env.engine.rules import make_rules

BM = make_rules("black_maria")


def test_round_trip_keeps_weights_rules_and_step(policy_checkpoint):
    path, net = policy_checkpoint
    loaded, meta = load_checkpoint(path, BM)
    x = torch.randn(4, observation.size(3))
    assert torch.equal(loaded(x), net(x))
    assert meta["step"] == 7 and meta["rules"] == BM and meta["layout_version"] == observation.LAYOUT_VERSION
    assert not list(path.parent.glob(".tmp-*"))  # the atomic write left no temp file


def test_checkpoint_for_other_rules_is_refused(policy_checkpoint):
    path, _ = policy_checkpoint
    with pytest.raises(CheckpointError, match="other rules.*moon"):
        load_checkpoint(path, make_rules("black_maria", moon="shooter_minus"))


def test_checkpoint_for_another_layout_is_refused(policy_checkpoint, monkeypatch):
    path, _ = policy_checkpoint
    monkeypatch.setattr(observation, "LAYOUT_VERSION", observation.LAYOUT_VERSION + 1)
    with pytest.raises(CheckpointError, match="observation layout"):
        load_checkpoint(path, BM)


def test_damaged_and_foreign_files_are_refused(policy_checkpoint, tmp_path):
    path, _ = policy_checkpoint
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


class NotPlainData:
    """Any class: torch's weights_only loader refuses to unpickle it and advises weights_only=False."""


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_a_pickled_object_is_refused_without_torchs_advice_to_unpickle_it(tmp_path):
    path = tmp_path / "evil.pt"
    torch.save({"format": "black-maria-policy", "payload": NotPlainData()}, path)
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(path, BM)
    msg = str(e.value)
    assert msg.startswith(f"checkpoint {str(path)!r} is damaged or not a black-maria-policy checkpoint (")
    assert "weights_only" not in msg and "never loaded as pickled code" in msg
    path.write_bytes(pickle.dumps([1, 2, 3])[:5])
    with pytest.raises(CheckpointError, match="damaged or not a black-maria-policy checkpoint"):
        load_checkpoint(path, BM)


def test_a_directory_is_named_as_one(tmp_path):
    with pytest.raises(CheckpointError, match=r"is a directory; give the checkpoint file \(a .pt file\) in it"):
        load_checkpoint(tmp_path, BM)
    with pytest.raises(CheckpointError, match="is a directory"):
        make_agent(f"policy:{tmp_path}", rules=BM)


def test_checkpoints_get_the_ordinary_umask_permissions_and_leave_no_temporary_file(tmp_path):
    net = PolicyNet(observation.size(3), BM.num_actions, hidden=(8,))
    old = os.umask(0o022)
    try:
        save_checkpoint(tmp_path / "p.pt", net, BM)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "p.pt").stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["p.pt"]
    with pytest.raises(IsADirectoryError):
        save_checkpoint(tmp_path, net, BM)
    assert [p.name for p in tmp_path.iterdir()] == ["p.pt"]
