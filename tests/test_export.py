"""bm-export: the ONNX and TorchScript files pick the same actions as the checkpoint they came from."""

import json

import numpy as np
import pytest
import torch

from bm_env import black_maria_v0
from bm_env.agents.checkpoint import load_checkpoint
from bm_env.agents.export import TORCHSCRIPT_METADATA
from bm_env.agents.policy import PolicyAgent
from bm_env.cli import export as export_cli
from bm_env.engine.rules import make_rules

from kit import SHIPPED_AGENT

ort = pytest.importorskip("onnxruntime", reason="onnxruntime is in the export extras (pip install 'black-maria[export]')")


def _observed_batch(deals: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every decision of a few random deals, passing included."""
    env = black_maria_v0.env()
    rng = np.random.default_rng(5)
    observations, masks = [], []
    for seed in range(deals):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            observations.append(obs["observation"])
            masks.append(obs["action_mask"])
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return np.stack(observations), np.stack(masks)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("export")
    code = export_cli.main([str(SHIPPED_AGENT), "--onnx", str(out / "p.onnx"), "--torchscript", str(out / "p.ts.pt")])
    assert code == 0
    return out


def test_exported_models_choose_the_checkpoints_actions(exported):
    observations, masks = _observed_batch()
    assert len(observations) == 3 * (3 * 3 + 51)  # three deals: 3 passes of 3 cards, 51 cards played
    agent = PolicyAgent(str(SHIPPED_AGENT), make_rules("black_maria"))
    expected = agent.act_batch(observations, masks)

    session = ort.InferenceSession(str(exported / "p.onnx"))
    logits, actions = session.run(None, {"observation": observations, "action_mask": masks})
    np.testing.assert_array_equal(actions, expected)
    assert masks[np.arange(len(actions)), actions].all()

    module = torch.jit.load(str(exported / "p.ts.pt"))
    ts_logits, ts_actions = module(torch.as_tensor(observations), torch.as_tensor(masks))
    np.testing.assert_array_equal(ts_actions.numpy(), expected)
    legal = masks != 0
    np.testing.assert_allclose(ts_logits.numpy()[legal], logits[legal], rtol=1e-4, atol=1e-4)
    assert (logits[~legal] == np.finfo(np.float32).min).all()


def test_exported_models_take_any_batch_size(exported):
    observations, masks = _observed_batch(deals=1)
    session = ort.InferenceSession(str(exported / "p.onnx"))
    module = torch.jit.load(str(exported / "p.ts.pt"))
    whole = session.run(["action"], {"observation": observations, "action_mask": masks})[0]
    for i in (0, 7):
        one = session.run(["action"], {"observation": observations[i:i + 1], "action_mask": masks[i:i + 1]})[0]
        assert one.shape == (1,) and one[0] == whole[i]
        assert module(torch.as_tensor(observations[i:i + 1]), torch.as_tensor(masks[i:i + 1]))[1].item() == whole[i]


def test_exported_models_carry_what_they_were_made_for(exported):
    _, meta = load_checkpoint(SHIPPED_AGENT)
    onnx_meta = ort.InferenceSession(str(exported / "p.onnx")).get_modelmeta().custom_metadata_map
    files = {TORCHSCRIPT_METADATA: ""}
    torch.jit.load(str(exported / "p.ts.pt"), _extra_files=files)
    ts_meta = json.loads(files[TORCHSCRIPT_METADATA])
    for m in (onnx_meta, ts_meta):
        assert json.loads(m["rules"]) == meta["rules"].to_dict()
        assert int(m["layout_version"]) == meta["layout_version"]
        assert int(m["obs_size"]) == meta["obs_size"]
        assert int(m["num_actions"]) == meta["arch"]["num_actions"]


def test_export_refuses_what_it_cannot_do(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        export_cli.main([str(SHIPPED_AGENT)])
    assert e.value.code == 2 and "nothing to write" in capsys.readouterr().err

    damaged = tmp_path / "damaged.pt"
    damaged.write_bytes(SHIPPED_AGENT.read_bytes()[:1000])
    assert export_cli.main([str(damaged), "--onnx", str(tmp_path / "x.onnx")]) == 2
    assert "damaged or not a black-maria-policy checkpoint" in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()


def test_onnx_export_without_its_extras_says_what_to_install(tmp_path, capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "onnxscript", None)  # an import of it now fails
    assert export_cli.main([str(SHIPPED_AGENT), "--onnx", str(tmp_path / "x.onnx")]) == 2
    assert "pip install 'black-maria[export]'" in capsys.readouterr().err
