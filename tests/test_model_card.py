"""scripts/model_card.py: a stage's line says where the stage started from."""

import pytest

from bm_env.training.config import config_from_dict

from kit import load_script


@pytest.fixture(scope="module")
def model_card():
    return load_script("model_card")


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


def test_a_card_follows_the_template_and_its_rows_are_the_evaluations(model_card, tmp_path):
    """Every section of the template, in order; each evaluation row is that run's figure; no
    commit, date or target words."""
    import re

    from bm_env import make_rules
    from bm_env.evaluation import evaluate, write_report

    rules = make_rules("black_maria")
    folders = []
    for opponent in ("heuristic_v1", "random"):
        res = evaluate(rules, ["heuristic", opponent, opponent], 3, seed=0, workers=1, progress=False)
        write_report(res, str(tmp_path / opponent))
        folders.append((str(tmp_path / opponent), res.agents[0].advantage))
    stages = [{**stage(preset="black_maria"), "dir": "runs/black_maria_3p"},
              {**stage(preset="black_maria", init_from="runs/black_maria_3p"), "dir": "runs/black_maria_3p_stage2"}]
    lines = model_card.card_lines("black_maria_3p", stages, [f for f, _ in folders], "a 2-vCPU test machine", "fp32",
                                  "It shoots the moon rarely.", "Measured on Black Maria only.")
    text = "\n".join(lines)
    heads = [line[3:] for line in lines if line.startswith("## ")]
    assert heads == list(model_card.SECTIONS)
    for folder, advantage in folders:
        assert f"**{advantage:+.2f} ± " in text
    assert "It shoots the moon rarely." in text.split("## Behaviour worth knowing")[1].split("## Limitations")[0]
    assert not re.search(r"\btarget|\bcommit\b|\b20\d\d-\d\d-\d\d\b", text, re.IGNORECASE)
