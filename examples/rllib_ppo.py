"""Multi-agent PPO in RLlib on Black Maria: one masked policy shared by every seat.

RLlib's new API stack (RLModule, Learner, EnvRunner) trains one policy, ``shared``, that
plays every seat of ``bm_env.black_maria_v0`` through RLlib's ``PettingZooEnv`` adapter,
on a local Ray cluster (or an existing one) with ``--env-runners`` sampling processes.
The environment raises on an illegal action, and a failed env runner is not restarted,
so a masking bug stops the run instead of being trained around.

The policy network is black-maria's own play network (``PolicyNet``), so ``--save PATH``
writes a play checkpoint that ``bm-eval``, ``bm-play`` and ``env()`` load as
``policy:PATH``. Rewards are zero-sum and normalised, as in ``bm-train``.

RLlib pins gymnasium, so it has its own virtual environment::

    scripts/setup_extra_env.sh rllib rllib
    .venv-rllib/bin/python examples/rllib_ppo.py --iterations 20 --env-runners 2 --save runs/rllib.pt
    .venv-rllib/bin/bm-eval --agents policy:runs/rllib.pt random random --boards 200
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.tune.registry import register_env

from bm_env import black_maria_v0, make_rules
from bm_env.agents.checkpoint import PolicyNet, masked_logits, mlp, save_checkpoint

ENV_NAME = "black_maria_aec"
POLICY = "shared"


class MaskedPolicyModule(TorchRLModule, ValueFunctionAPI):
    """The play network with illegal actions masked, and a value MLP beside it for PPO.

    The env's observation is ``{"observation": int8 vector, "action_mask": int8 vector}``;
    the policy reads the vector and its illegal logits are set to the lowest float (not
    ``-inf``, which would make the entropy NaN), in every phase: sampling, inference and
    the loss, so PPO's ratios and entropy are those of the masked distribution.
    """

    def setup(self) -> None:
        size = self.observation_space["observation"].shape[0]
        hidden = self.model_config.get("hidden", [256, 256])
        self.policy = PolicyNet(size, self.action_space.n, hidden)
        self.value = mlp(size, hidden, 1)

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        logits = self.policy(obs["observation"].float())
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, obs["action_mask"] != 0)}

    def compute_values(self, batch, embeddings=None):
        return self.value(batch[Columns.OBS]["observation"].float()).squeeze(-1)


def make_env(env_config: dict) -> PettingZooEnv:
    """The AEC env behind RLlib's adapter; ``illegal_action="raise"`` so no illegal card is ever played silently."""
    return PettingZooEnv(black_maria_v0.env(rules=env_config["preset"], illegal_action="raise",
                                            reward="zero_sum", reward_normalise=True))


def build_config(args: argparse.Namespace) -> PPOConfig:
    """PPO with every seat mapped to the one ``shared`` module."""
    register_env(ENV_NAME, make_env)
    return (
        PPOConfig()
        # RLlib's env check steps with an unmasked random action, which this env rightly refuses.
        .environment(ENV_NAME, env_config={"preset": args.preset}, disable_env_checking=True)
        .env_runners(num_env_runners=args.env_runners)
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, episode, **kw: POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            POLICY: RLModuleSpec(module_class=MaskedPolicyModule, model_config={"hidden": args.hidden})}))
        .training(train_batch_size_per_learner=args.batch_size, minibatch_size=min(args.batch_size, 512),
                  num_epochs=2, lr=3e-4, gamma=1.0, lambda_=0.95, entropy_coeff=0.01)
        .fault_tolerance(restart_failed_env_runners=False)  # an env error (an illegal action) must stop the run
        .debugging(seed=args.seed)
    )


def summary(algo, result: dict) -> dict:
    """The numbers worth printing from one ``train()`` result."""
    learner = result["learners"][POLICY]
    runners = result["env_runners"]
    return {
        "iteration": result["training_iteration"],
        "env_runners": algo.env_runner_group.num_healthy_remote_workers(),
        "env_steps_sampled": runners["num_env_steps_sampled_lifetime"],
        "episodes": runners.get("num_episodes_lifetime", 0),
        "env_step_failures": runners.get("num_env_step_failures_lifetime", 0),
        "policy_loss": learner["policy_loss"],
        "vf_loss": learner["vf_loss"],
        "entropy": learner["entropy"],
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--iterations", type=int, default=20, help="training iterations (default 20)")
    p.add_argument("--env-runners", type=int, default=2, help="sampling processes (default 2)")
    p.add_argument("--batch-size", type=int, default=4000, help="env steps per iteration (default 4000)")
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="policy and value MLP widths")
    p.add_argument("--preset", default="black_maria", help="rules preset (default black_maria)")
    p.add_argument("--seed", type=int, default=0, help="RLlib's seed (default 0)")
    p.add_argument("--address", default="local",
                   help="Ray cluster: 'local' starts one in this process (default), else an address or 'auto'")
    p.add_argument("--save", metavar="PATH", help="write the trained policy as a black-maria play checkpoint")
    p.add_argument("--results", metavar="PATH", help="write the last iteration's numbers as JSON")
    args = p.parse_args(argv)
    for name in ("iterations", "env_runners", "batch_size"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    make_rules(args.preset)  # an unknown preset fails here, naming the presets, not inside an env runner
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.address == "local":
        ray.init(num_cpus=args.env_runners + 1, include_dashboard=False)
    else:
        ray.init(address=args.address)
    try:
        algo = build_config(args).build_algo()
        for _ in range(args.iterations):
            numbers = summary(algo, algo.train())
            print(json.dumps(numbers), flush=True)
        if not all(math.isfinite(numbers[k]) for k in ("policy_loss", "vf_loss", "entropy")):
            print("rllib_ppo: a loss is not finite", file=sys.stderr)
            return 1
        if args.save:
            policy = algo.get_module(POLICY).policy
            save_checkpoint(args.save, policy, make_rules(args.preset), int(numbers["env_steps_sampled"]),
                            {"trainer": "rllib", **vars(args)})
            print(f"play checkpoint: policy:{args.save}")
        if args.results:
            with open(args.results, "w") as f:
                json.dump(numbers, f)
        algo.stop()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
