"""Rollouts on Ray actors (``bm-train --ray``): the same self-play, collected by several processes or machines.

Each of the ``ray_actors`` actors plays its share of the run's ``num_envs`` games in its own
:class:`~bm_env.training.rollout.SelfPlay`: its own vector engine, seatings and carried decisions,
from its own seed stream derived from the run seed, with its own copy of the policy, the
critic and the snapshot pool. Before every rollout the driver puts the current weights into
Ray's object store once and every actor loads them (the broadcast); the actors' trainable
decisions are joined into one batch and the PPO update runs on the driver. An update is
therefore the one ``bm-train`` makes without Ray: the same batch size, the same per-seat
bookkeeping (:mod:`bm_env.training.trajectories`), evaluation and checkpoints on the driver.
With expert iteration (``exit_share > 0``) each actor also labels its own games' decisions with
the batched search (:class:`~bm_env.training.exit.Labeller`, the broadcast policy as its guide)
before it returns them, so the search, the costly part, runs on every actor side by side.

Ray is imported only here, and this module only when ``--ray`` is given, so the core
package does not depend on it.
"""

from __future__ import annotations

import copy
import os

import numpy as np
import torch

from bm_env.agents.checkpoint import PolicyNet
from bm_env.config import ConfigError
from bm_env.engine.rules import Rules

from .config import TrainConfig
from .exit import Labeller, join_labels
from .ppo import Batch, ValueNet
from .rollout import Rollout, SelfPlay
from .precision import resolve as resolve_precision
from .rule_opponent import check_rule_opponent
from .state import to_arrays, to_tensors

INSTALL_HINT = "pip install 'black-maria[ray]' (or scripts/setup_extra_env.sh rllib rllib, then use .venv-rllib)"


def import_ray():
    """The ``ray`` module, or a ConfigError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(f"--ray needs Ray, which is not installed here: {INSTALL_HINT}") from None
    return ray


def actor_seed(run_seed: int, index: int) -> int:
    """Actor ``index``'s seed: child ``index`` of the run seed's ``SeedSequence``.

    Not ``run_seed + index``, which would make actor 1 of seed 0 replay actor 0 of seed 1.
    """
    return int(np.random.SeedSequence(run_seed).spawn(index + 1)[index].generate_state(1)[0])


def cpu_state(net: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().cpu() for k, v in net.state_dict().items()}


class RolloutActor:
    """One Ray actor's self-play (made remote by :class:`RayRollouts`; a plain class, so it imports without Ray)."""

    def __init__(self, rules: Rules, num_envs: int, rollout_steps: int, critic_state: bool, seed: int,
                 actor: PolicyNet, critic: ValueNet, pool_size: int, pool_share: float, rule_opponent: str | dict | None,
                 rule_share: float, precision: str, labelling: dict | None = None) -> None:
        """``labelling``: the :class:`~bm_env.training.exit.Labeller`'s keywords (``share``, ``worlds``,
        ``kind``, ``temperature``) where the run does expert iteration; each rollout then comes labelled."""
        torch.set_num_threads(1)  # Ray schedules an actor on one CPU
        players = check_rule_opponent(rule_opponent, rules) if rule_opponent else None
        self.selfplay = SelfPlay(rules, num_envs, rollout_steps, critic_state, seed=seed, rule_players=players,
                                 rule_share=rule_share, precision=resolve_precision(precision, torch.device("cpu")),
                                 keep_deals=labelling is not None)
        self.actor, self.critic = actor.eval(), critic.eval()
        self.labeller = None if labelling is None else Labeller(rules, self.actor, **labelling)
        self.generator = torch.Generator().manual_seed(seed)
        self.rng = np.random.default_rng([seed, 1])
        self.selfplay.draw_seatings(np.arange(num_envs), self.rng, pool_size, pool_share)

    def collect(self, weights: dict, pool_share: float, gamma: float, lam: float) -> Rollout:
        """Load the broadcast weights, then one rollout of this actor's games (labelled, with expert iteration).

        A labelled rollout comes without its deal records: only the labeller reads them.
        """
        self.actor.load_state_dict(weights["actor"])
        self.critic.load_state_dict(weights["critic"])
        pool = []
        for arch, state in weights["pool"]:
            net = PolicyNet.from_arch(arch)
            net.load_state_dict(state)
            pool.append(net.eval())
        rollout = self.selfplay.collect(self.actor, self.critic, pool, self.generator, self.rng, pool_share, gamma,
                                        lam, torch.device("cpu"))
        if self.labeller is not None:
            rollout.labels = self.labeller.label(rollout, self.actor, self.rng)
            rollout.deals = None
        return rollout

    def node(self) -> str:
        """The id of the Ray node this actor runs on."""
        import ray

        return ray.get_runtime_context().get_node_id()

    def get_state(self) -> dict:
        return {"selfplay": self.selfplay.get_state(), "torch_generator": self.generator.get_state(),
                "numpy_generator": self.rng.bit_generator.state}

    def set_state(self, state: dict) -> None:
        self.selfplay.set_state(state["selfplay"])
        self.generator.set_state(state["torch_generator"])
        self.rng.bit_generator.state = state["numpy_generator"]


def join(parts: list[Rollout], device: torch.device) -> Rollout:
    """The actors' rollouts as one: batches concatenated in actor order, times of the slowest actor.

    The pool-deal and rule-deal rewards are the means of the actors' means (each actor plays as many games);
    the labels, where the actors labelled, are joined as the batches are (the actors keep the deal records).
    """
    fields = {}
    for name in ("obs", "hidden", "mask", "actions", "logp", "values", "advantages", "returns"):
        tensors = [getattr(p.batch, name) for p in parts]
        fields[name] = None if tensors[0] is None else torch.cat(tensors).to(device)
    def mean(values: list[float]) -> float:
        kept = [v for v in values if not np.isnan(v)]
        return float(np.mean(kept)) if kept else float("nan")

    labels = None if parts[0].labels is None else join_labels([p.labels for p in parts],
                                                              [len(p.batch.actions) for p in parts])
    return Rollout(Batch(**fields), sum(p.decisions for p in parts), sum(p.deals_ended for p in parts),
                   mean([p.learner_reward for p in parts]),
                   {name: mean([p.rule_rewards[name] for p in parts]) for name in parts[0].rule_rewards},
                   max(p.engine_seconds for p in parts), max(p.forward_seconds for p in parts), labels=labels)


class RayRollouts:
    """The run's rollout actors on a Ray cluster: ``local`` (started here), ``auto`` or an address.

    A Ray this process has already initialised (a notebook, a test) is used as it is and left
    running at :meth:`close`; one initialised here is shut down there.
    """

    def __init__(self, address: str, config: TrainConfig, rules: Rules, actor: PolicyNet, critic: ValueNet,
                 pool_size: int, pool_share: float) -> None:
        c = config
        if c.num_envs % c.ray_actors:
            raise ConfigError(f"num_envs ({c.num_envs}) must be a multiple of ray_actors ({c.ray_actors}): "
                              "every actor plays the same number of games")
        ray = self.ray = import_ray()
        self.owns_ray = not ray.is_initialized()
        if self.owns_ray:
            if address == "local":  # room for every actor even where there are fewer cores
                ray.init(num_cpus=max(os.cpu_count() or 1, c.ray_actors), include_dashboard=False)
            else:
                ray.init(address=address)
        remote = ray.remote(num_cpus=1, scheduling_strategy="SPREAD")(RolloutActor)
        share = c.num_envs // c.ray_actors
        actor, critic = copy.deepcopy(actor).cpu(), copy.deepcopy(critic).cpu()  # the actors run on CPU
        labelling = None if c.exit_share == 0 else {"share": c.exit_share, "worlds": c.exit_worlds,
                                                    "kind": c.exit_targets, "temperature": c.exit_temperature}
        self.actors = [remote.remote(rules, share, c.rollout_steps, c.critic_state, actor_seed(c.seed, k),
                                     actor, critic, pool_size, pool_share, c.rule_opponent, c.rule_share,
                                     c.precision, labelling)
                       for k in range(c.ray_actors)]

    def nodes(self) -> list[str]:
        """The Ray node of each actor, in actor order."""
        return self.ray.get([a.node.remote() for a in self.actors])

    def collect(self, actor: PolicyNet, critic: ValueNet, pool: list[PolicyNet], pool_share: float, gamma: float,
                lam: float, device: torch.device) -> Rollout:
        weights = self.ray.put({"actor": cpu_state(actor), "critic": cpu_state(critic),
                                "pool": [(p.arch, cpu_state(p)) for p in pool]})
        parts = self.ray.get([a.collect.remote(weights, pool_share, gamma, lam) for a in self.actors])
        return join(parts, device)

    def get_state(self) -> list[dict]:
        """Every actor's games, carried decisions and generators, with tensors for arrays (as a training state holds them).

        Arrays travel as numpy arrays (torch cannot unpickle its uint64 tensors); those out of
        the object store are read-only, so they are copied before becoming tensors.
        """
        return [to_tensors(copy.deepcopy(s)) for s in self.ray.get([a.get_state.remote() for a in self.actors])]

    def set_state(self, states: list[dict]) -> None:
        if len(states) != len(self.actors):
            raise ValueError(f"the state holds {len(states)} rollout actors, this run has {len(self.actors)}")
        self.ray.get([a.set_state.remote({**s, "selfplay": to_arrays(s["selfplay"])})
                      for a, s in zip(self.actors, states)])

    def __enter__(self) -> "RayRollouts":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """End the actors; shut Ray down if this run started or joined it."""
        for a in self.actors:
            self.ray.kill(a)
        self.actors = []
        if self.owns_ray:
            self.ray.shutdown()
