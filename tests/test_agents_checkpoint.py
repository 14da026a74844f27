"""The policy checkpoint format (bm_env/agents/checkpoint.py): a round trip, refusals of other rules and
layouts, our own message for a damaged, foreign or pickled file, a directory named as such, umask permissions.

Most tests start from conftest.policy_checkpoint."""

from __future__ import annotations

import os
import pickle
import shutil
import stat
import warnings

import pytest
import torch

from bm_env.env import observation
from bm_env.agents import make_agent
from bm_env.agents.checkpoint import CheckpointError, PolicyNet, digest, load_checkpoint, save_checkpoint
from bm_env.engine.rules import make_rules

from kit import ROOT, SHIPPED_AGENT

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


def _flip_weight_bytes(path, tensor, count=64):
    """Invert ``count`` bytes of ``tensor``'s stored bytes inside the file, as damage on disk would."""
    data = bytearray(path.read_bytes())
    at = data.find(tensor.detach().numpy().tobytes()[:256])
    assert at > 0, "the tensor's bytes are stored as they are"
    for i in range(at + 8, at + 8 + count):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("shipped", [False, True])
def test_flipped_bytes_in_the_weights_are_refused_by_the_digest(shipped, policy_checkpoint, tmp_path):
    path, net = policy_checkpoint
    rules = BM
    if shipped:
        path = tmp_path / "shipped.pt"
        shutil.copy(SHIPPED_AGENT, path)
        net, _ = load_checkpoint(SHIPPED_AGENT, rules)
    _flip_weight_bytes(path, net.body[0].weight)
    with pytest.raises(CheckpointError, match=r"is damaged: its weights do not match the digest they were saved with"):
        load_checkpoint(path, rules)


def test_nan_weights_are_refused(policy_checkpoint, tmp_path):
    path, net = policy_checkpoint
    with torch.no_grad():
        net.body[2].bias[3] = float("nan")
        net.body[0].weight[0, 0] = float("inf")
    save_checkpoint(path, net, BM)  # its digest is of these weights: only the values are wrong
    with pytest.raises(CheckpointError, match=r"weights that are NaN or infinite \(in body.0.weight, body.2.bias\)"):
        load_checkpoint(path, BM)


def _rewritten(path, change):
    data = torch.load(path, weights_only=True)
    change(data)
    torch.save(data, path)
    return path


def test_an_architecture_too_big_is_refused_before_any_network_is_built(policy_checkpoint, monkeypatch):
    path, _ = policy_checkpoint
    _rewritten(path, lambda d: d["arch"].update(hidden=[20000, 20000]))
    built = []
    monkeypatch.setattr(torch.nn.Linear, "__init__", lambda *a, **k: built.append(a))
    with pytest.raises(CheckpointError, match=r"hidden layers must be a list of 1 to 16 widths, each a whole number "
                                              r"from 1 to 8192, got \[20000, 20000\]"):
        load_checkpoint(path, BM)
    _rewritten(path, lambda d: d["arch"].update(hidden=[8000, 8000]))
    with pytest.raises(CheckpointError, match=r"hidden layers must give a network of at most 50,000,000 parameters; \[8000, 8000\] gives 70,000,052"):
        load_checkpoint(path, BM)
    assert built == []


def test_weights_of_other_shapes_than_the_architecture_are_refused_before_building(policy_checkpoint):
    path, _ = policy_checkpoint
    _rewritten(path, lambda d: d["arch"].update(hidden=[16]))
    with pytest.raises(CheckpointError, match=r"body.0.weight is torch.float32 \(32, 696\), the network needs "
                                              r"torch.float32 \(16, 696\)"):
        load_checkpoint(path, BM)
    _rewritten(path, lambda d: d["arch"].update(hidden=[32, 32]))
    with pytest.raises(CheckpointError, match="has weights that do not fit its network: tensors"):
        load_checkpoint(path, BM)


def test_a_checkpoint_without_a_digest_loads_with_a_warning(policy_checkpoint):
    path, net = policy_checkpoint
    _rewritten(path, lambda d: d.pop("digest"))
    with pytest.warns(UserWarning, match="has no digest .* damage to its weights cannot be detected"):
        loaded, _ = load_checkpoint(path, BM)
    assert all(torch.equal(a, b) for a, b in zip(loaded.state_dict().values(), net.state_dict().values()))


@pytest.mark.parametrize("path", sorted((ROOT / "checkpoints").glob("*.pt")), ids=lambda p: p.name)
def test_every_shipped_checkpoint_carries_a_digest_that_verifies(path):
    data = torch.load(path, weights_only=True)
    assert data["digest"] == digest(data["state_dict"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_checkpoint(path)


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
