"""scripts/model_card.py: a stage's line says where the stage started from."""

import importlib.util

import pytest

from training.config import config_from_dict

from kit import ROOT


@pytest.fixture(scope="module")
def model_card():
    spec = importlib.util.spec_from_file_location("model_card", ROOT / "scripts" / "model_card.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stage(**config):
    return {"dir": "runs/stage2", "config": config_from_dict(config, "test").to_dict(), "decisions": 1_200_000,
            "minutes": 2.0, "updates": 10}


def test_a_stage_line_names_its_start(model_card):
    assert "started from" not in model_card.stage_line(1, stage(), "bf16")
    after_run = model_card.stage_line(2, stage(init_from="runs/stage1"), "bf16")
    assert "started from stage 1's newest training state" in after_run
    after_policy = model_card.stage_line(2, stage(init_from="policy:checkpoints/black_maria_3p.pt"), "bf16")
    assert "started from the policy of `checkpoints/black_maria_3p.pt` (critic and optimiser fresh)" in after_policy
    assert "training state" not in after_policy
    assert "10,000 decisions/s on average" in after_policy and "precision auto (bf16 here)" in after_policy
