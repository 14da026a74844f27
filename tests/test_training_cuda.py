"""bm-train on a CUDA device (`--device cuda`): a run that trains and evaluates there writes play
checkpoints and training states that load on a machine without a GPU, and a resumed run gives the
weights of an uninterrupted one. Skipped where torch sees no CUDA device (CI has none; these ran on
a lent GPU machine, docs/training.md#speed)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("torch sees no CUDA device", allow_module_level=True)

from bm_env import make_rules
from bm_env.agents.checkpoint import load_checkpoint
from bm_env.evaluation import evaluate
from training.state import list_states, load_state
from training.trainer import Trainer

from kit import DECISIONS_PER_UPDATE, tiny_config, trainer_weights


def test_a_cuda_run_trains_and_its_files_load_on_the_cpu(tmp_path):
    config = tiny_config(device="cuda", total_decisions=3 * DECISIONS_PER_UPDATE, eval_every=3, eval_boards=2,
                         final_eval_boards=2)
    trainer = Trainer(config, str(tmp_path), quiet=True, log=lambda s: None)
    assert next(trainer.actor.parameters()).is_cuda and trainer.precision == "bf16"
    result = trainer.run()
    assert result.stopped == "done" and result.updates == 3 and np.isfinite(result.evaluations[0]["score"])
    net, meta = load_checkpoint(tmp_path / "latest.pt", make_rules("black_maria"))
    assert all(p.device.type == "cpu" for p in net.parameters()) and meta["step"] > 0
    state = load_state(list_states(str(tmp_path))[-1])
    assert state["actor"]["body.0.weight"].device.type == "cpu"
    played = evaluate(make_rules("black_maria"), [f"policy:{tmp_path / 'latest.pt'}", "random", "random"],
                      num_boards=1, seed=0, workers=1, progress=False)
    assert played.games == 3


def test_a_resumed_cuda_run_gives_the_weights_of_an_uninterrupted_one(tmp_path):
    whole = Trainer(tiny_config(device="cuda", total_decisions=4 * DECISIONS_PER_UPDATE), str(tmp_path / "a"), quiet=True)
    whole.run()
    part = Trainer(tiny_config(device="cuda", total_decisions=2 * DECISIONS_PER_UPDATE), str(tmp_path / "b"), quiet=True)
    part.run()
    resumed = Trainer.resume(str(tmp_path / "b"), {"total_decisions": 4 * DECISIONS_PER_UPDATE}, quiet=True)
    assert resumed.device.type == "cuda" and resumed.update_index == 2
    resumed.run()
    a, b = trainer_weights(whole), trainer_weights(resumed)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    early = load_state(list_states(str(tmp_path / "b"))[0])
    assert not torch.equal(early["actor"]["body.0.weight"].cuda(), a["actor.body.0.weight"])
