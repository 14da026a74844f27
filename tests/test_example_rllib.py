"""examples/rllib_ppo.py: RLlib's multi-agent PPO trains the shared masked policy and never plays an illegal card.

Runs only in the RLlib environment (``scripts/setup_extra_env.sh rllib rllib``, then
``.venv-rllib/bin/python -m pytest -m rllib``); elsewhere it is skipped, saying so.
"""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys

import pytest

try:
    import ray
    from ray import cloudpickle
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
except ImportError:
    pytest.skip("Ray RLlib is not installed here; it runs in .venv-rllib (scripts/setup_extra_env.sh rllib rllib)",
                allow_module_level=True)

from bm_env.agents.checkpoint import load_checkpoint
from bm_env.engine.rules import make_rules

from kit import EXAMPLES

pytestmark = pytest.mark.rllib
EXAMPLE = EXAMPLES / "rllib_ppo.py"


def test_example_trains_with_two_env_runners_and_writes_a_play_checkpoint(tmp_path):
    results, policy = tmp_path / "results.json", tmp_path / "policy.pt"
    proc = subprocess.run([sys.executable, str(EXAMPLE), "--iterations", "2", "--env-runners", "2",
                           "--batch-size", "512", "--hidden", "64", "--save", str(policy), "--results", str(results)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    numbers = json.loads(results.read_text())
    assert numbers["iteration"] == 2 and numbers["env_runners"] == 2
    assert numbers["env_steps_sampled"] >= 2 * 512 and numbers["episodes"] > 0
    assert numbers["env_step_failures"] == 0  # the env raises on an illegal card: none was played
    assert all(math.isfinite(numbers[k]) for k in ("policy_loss", "vf_loss", "entropy"))
    assert 0 < numbers["entropy"] < math.log(52)  # masked: far below a uniform draw over all 52 cards
    net, meta = load_checkpoint(policy, make_rules("black_maria"))  # the play checkpoint black-maria loads
    assert net.arch["hidden"] == [64] and meta["step"] == numbers["env_steps_sampled"]


def test_an_unmasked_policy_stops_the_run_with_the_illegal_card():
    """The negative control: without the mask the env raises and training fails instead of going on.

    RLlib ends an env runner whose env raised (``sys.exit``), so the driver sees the actor
    die; the cause (``IllegalActionError``) is only in the worker's log. The only
    difference from the passing run above is the mask.
    """
    spec = importlib.util.spec_from_file_location("rllib_ppo", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    sys.modules["rllib_ppo"] = example
    spec.loader.exec_module(example)
    cloudpickle.register_pickle_by_value(example)  # the env runners cannot import it by name

    class Unmasked(example.MaskedPolicyModule):
        def _forward(self, batch, **kwargs):
            return {"action_dist_inputs": self.policy(batch["obs"]["observation"].float())}

    args = example.parse_args(["--env-runners", "2", "--batch-size", "256", "--hidden", "32"])
    config = example.build_config(args).rl_module(rl_module_spec=example.MultiRLModuleSpec(rl_module_specs={
        example.POLICY: RLModuleSpec(module_class=Unmasked, model_config={"hidden": [32]})}))
    ray.init(num_cpus=3, include_dashboard=False)
    try:
        algo = config.build_algo()
        with pytest.raises(ray.exceptions.RayActorError):
            algo.train()
    finally:
        ray.shutdown()
        del sys.modules["rllib_ppo"]
