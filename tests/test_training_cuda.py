"""bm-train on a CUDA device (`--device cuda`): a run that trains and evaluates there writes play
checkpoints and training states that load on a machine without a GPU. (Resuming on the device is
test_training.py's resume test, run on "cuda" too.) Skipped where torch sees no CUDA device (CI has
none; this ran on a lent GPU machine, docs/training.md#speed)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("torch sees no CUDA device", allow_module_level=True)

from bm_env import make_rules
from bm_env.agents.checkpoint import load_checkpoint
from bm_env.evaluation import evaluate
from bm_env.training.state import list_states, load_state
from bm_env.training.trainer import Trainer

from kit import DECISIONS_PER_UPDATE, tiny_config


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

