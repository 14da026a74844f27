"""bm-train --ray: rollouts on two Ray actors of a local cluster, the update on the driver.

Runs only where Ray is installed (``.venv-rllib``, or ``pip install 'black-maria[ray]'``); elsewhere
it is skipped, saying so.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

try:
    import ray
except ImportError:
    pytest.skip("Ray is not installed here; it runs in .venv-rllib (scripts/setup_extra_env.sh rllib rllib) "
                "or after pip install 'black-maria[ray]'", allow_module_level=True)

from bm_env import make_rules
from bm_env.agents.checkpoint import load_checkpoint
from bm_env.training.state import TrainingStateError, list_states, load_state, to_arrays
from bm_env.training.trainer import Trainer

from kit import DECISIONS_PER_UPDATE, tiny_config, trainer_weights

pytestmark = pytest.mark.rllib


@pytest.fixture(scope="module", autouse=True)
def cluster():
    """One local cluster for the module; each run's actors end with the run, the cluster with the module."""
    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()


def on_ray(**kw):
    return tiny_config(ray_actors=2, **kw)


def test_two_actors_play_their_own_games_and_the_driver_trains_and_checkpoints(tmp_path):
    trainer = Trainer(on_ray(total_decisions=3 * DECISIONS_PER_UPDATE), str(tmp_path), quiet=True, ray_address="local")
    assert trainer.selfplay is None and len(trainer.ray_rollouts.actors) == 2
    before = {k: v.clone() for k, v in trainer_weights(trainer).items()}
    result = trainer.run()
    assert result.stopped == "done"  # a NaN or infinite loss would have stopped it ("nan")
    # Every update holds both actors' decisions: 2 actors x 8 games x 30 steps.
    assert result.updates == 3 and result.decisions == 3 * DECISIONS_PER_UPDATE
    after = trainer_weights(trainer)
    assert all(torch.isfinite(v).all() for v in after.values())
    assert not torch.equal(before["actor.body.0.weight"], after["actor.body.0.weight"])
    assert trainer.ray_rollouts.actors == []  # ended with the run
    state = load_state(list_states(str(tmp_path))[-1])
    assert state["selfplay"] is None and len(state["ray_actors"]) == 2
    hands = [to_arrays(s["selfplay"]["engine"]["arrays"]["hands"]) for s in state["ray_actors"]]
    assert hands[0].shape == (3, 8) and not np.array_equal(hands[0], hands[1])  # own seed streams, own deals
    net, meta = load_checkpoint(tmp_path / "latest.pt", make_rules("black_maria"))
    assert meta["step"] == 3 * DECISIONS_PER_UPDATE


EXIT = {"exit_share": 0.05, "exit_worlds": 2}


def test_the_actors_label_for_expert_iteration_and_the_driver_only_trains(tmp_path, monkeypatch):
    trainer = Trainer(on_ray(total_decisions=2 * DECISIONS_PER_UPDATE, **EXIT), str(tmp_path), quiet=True,
                      ray_address="local")
    monkeypatch.setattr(trainer.labeller, "label", lambda *a: pytest.fail("the driver labelled a Ray rollout"))
    labelled = []
    label = trainer.label
    monkeypatch.setattr(trainer, "label", lambda rollout: labelled.append(label(rollout)) or labelled[-1])
    assert trainer.run().stopped == "done"
    assert len(labelled) == 2 and all(len(labels.rows) > 0 and labels.seconds > 0 for labels in labelled)
    assert all(labels.targets.sum(axis=1) == pytest.approx(np.ones(len(labels.rows))) for labels in labelled)


@pytest.mark.parametrize("extra", [{}, EXIT], ids=["ppo", "expert_iteration"])
def test_a_ray_run_resumes_on_ray_to_the_weights_of_an_uninterrupted_one(tmp_path, extra):
    Trainer(on_ray(total_decisions=3 * DECISIONS_PER_UPDATE, **extra), str(tmp_path / "a"), quiet=True,
            ray_address="local").run()
    whole = load_state(list_states(str(tmp_path / "a"))[-1])
    Trainer(on_ray(total_decisions=2 * DECISIONS_PER_UPDATE, **extra), str(tmp_path / "b"), quiet=True,
            ray_address="local").run()
    with pytest.raises(TrainingStateError, match=r"on Ray \(2 rollout actors\): resume it with --ray"):
        Trainer.resume(str(tmp_path / "b"), quiet=True)
    resumed = Trainer.resume(str(tmp_path / "b"), {"total_decisions": 3 * DECISIONS_PER_UPDATE}, quiet=True,
                             ray_address="local")
    assert resumed.update_index == 2
    resumed.run()
    b = trainer_weights(resumed)
    a = {**{f"actor.{k}": v for k, v in whole["actor"].items()}, **{f"critic.{k}": v for k, v in whole["critic"].items()}}
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    # The actors' games went on from the state: the engines agree with the uninterrupted run's.
    resumed_state = load_state(list_states(str(tmp_path / "b"))[-1])
    for mine, theirs in zip(resumed_state["ray_actors"], whole["ray_actors"]):
        assert np.array_equal(to_arrays(mine["selfplay"]["engine"]["arrays"]["hands"]),
                              to_arrays(theirs["selfplay"]["engine"]["arrays"]["hands"]))
