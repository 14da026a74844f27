"""The typed config of a training run: every field, its type, its default and what it does.

A YAML file (``configs/*.yaml``, e.g. ``configs/train_quick.yaml``) holds any subset of these keys; ``--set key=value``
on the command line overrides single keys (the value read as YAML, so ``--set lr=1e-4``
and ``--set hidden=[512,256]`` work). Unknown keys, wrong types and values out of range
are refused with the key named (:class:`~bm_env.config.ConfigError`), through the same
checker as every other config of the project (:mod:`bm_env.config`): one flat dataclass
keeps every setting visible in one place, as CleanRL's ``Args`` does.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from bm_env.agents.network_size import widths_problem
from bm_env.agents.shipped import checkpoint_path
from bm_env.config import MAX_WORKERS, ConfigError, NumberError, from_mapping, load_config, number, read_yaml
from bm_env.engine.rules import Rules, RulesError, make_rules

from .rule_opponent import rule_mix


@dataclass
class TrainConfig:
    """Settings of one ``bm-train`` run (see the module docstring for how they are read)."""

    # --- the game
    preset: str = "black_maria"  # rules preset (bm_env.engine.rules.PRESETS)
    players: int | None = None  # player count; None: the preset's default
    rules: dict = field(default_factory=dict)  # rules option overrides, e.g. {moon: shooter_minus}

    # --- self-play
    num_envs: int = 512  # games stepped together in the vector engine
    rollout_steps: int = 64  # steps of every game per update (decisions per update = num_envs * rollout_steps)
    total_decisions: int = 50_000_000  # stop after this many decisions (all seats together)
    max_minutes: float | None = None  # also stop after this much wall time (a resumed run counts its earlier time)
    pool_size: int = 8  # earlier snapshots kept as opponents
    pool_share: float = 0.3  # share of deals in which snapshots play every seat but one
    snapshot_every: int = 25  # updates between snapshots added to the pool
    rule_opponent: str | dict | None = None  # heuristic, heuristic_v1 or random, or a mapping of them to their shares of the rule deals (bm_env.training.rule_opponent)
    rule_share: float = 0.0  # share of deals in which a rule_opponent player plays every seat but one (the pool's deals are others)
    init_from: str | None = None  # a run folder: start from its newest state's networks, optimiser and pool (a new stage); policy:PATH: from a play checkpoint's policy (critic, optimiser, pool fresh)

    # --- networks
    hidden: list[int] = field(default_factory=lambda: [256, 256])  # policy MLP widths (also the play checkpoint's)
    critic: str = "separate"  # separate: the value MLP reads the observation; shared: the policy's last hidden layer
    critic_hidden: list[int] = field(default_factory=lambda: [256, 256])  # value MLP widths
    critic_state: bool = True  # the critic also sees every hand (perfect information); the policy never does

    # --- PPO
    lr: float = 3e-4  # Adam learning rate
    anneal_lr: bool = False  # decay the learning rate linearly to 0 over total_decisions
    epochs: int = 2  # passes over each rollout
    minibatch_size: int = 1024  # decisions per gradient step
    gamma: float = 1.0  # discount between one seat's decisions within a deal
    gae_lambda: float = 0.95  # GAE lambda
    clip: float = 0.2  # PPO ratio clip
    ent_coef: float = 0.01  # entropy bonus
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # gradient clipping
    target_kl: float | None = None  # stop an update's epochs early past this approximate KL

    # --- expert iteration: the batched search labels some decisions (bm_env.training.exit)
    exit_share: float = 0.0  # share of each rollout's trainable play decisions searched (0: off)
    exit_worlds: int = 4  # worlds per searched decision
    exit_targets: str = "soft"  # soft: softmax of the search's card values at exit_temperature; choice: its card, one-hot
    exit_temperature: float = 1.0  # of the soft targets, in deal points
    exit_coef: float = 1.0  # weight of the cross-entropy to the targets in the loss

    # --- evaluation, checkpoints, logging
    eval_every: int = 20  # updates between evaluations (0: none)
    eval_boards: int = 100  # duplicate boards per evaluation (every rotation)
    eval_opponent: str = "heuristic"  # agent spec of the other seats at evaluation
    eval_seed: int = 12345  # board set of every evaluation (fixed, so scores compare over training)
    eval_workers: int = 2  # evaluation processes
    final_eval_boards: int = 200  # boards of the closing table against random and the opponent (0: none)
    checkpoint_every: int = 20  # updates between training-state checkpoints
    keep_checkpoints: int = 3  # training states kept (the best play checkpoint is kept apart)
    seed: int = 0  # seeds the engine, torch and the opponent draws
    torch_threads: int = 2  # intra-op threads for torch on CPU
    device: str = "cpu"  # cpu or cuda
    precision: str = "auto"  # fp32, bf16 (products under autocast), or auto: bf16 where the CPU or GPU has bf16 units (bm_env.training.precision)
    ray_actors: int = 2  # with --ray: rollout actors, each playing num_envs / ray_actors games (ignored without --ray)

    # --- best response: train against a frozen policy (exploitability)
    frozen_opponent: str | None = None  # policy:PATH; when set, every other seat is this policy and no pool is used

    def validate(self, source: str = "config") -> None:
        """Refuse values out of range, naming the key and what is allowed (numbers by :func:`bm_env.config.number`:
        NaN and infinities are refused wherever a number is taken)."""
        for key, (kind, low, high, above) in _NUMBERS.items():
            value = getattr(self, key)
            if value is None and key in _OPTIONAL:
                continue
            try:
                number(value, kind, low, high, above)
            except NumberError as e:
                said = str(e).replace(", got", " or null, got", 1) if key in _OPTIONAL else str(e)
                raise ConfigError(f"{source}: key {key!r} {said}") from None
        if self.rule_opponent is not None:
            try:
                rule_mix(self.rule_opponent)
            except ConfigError as e:
                raise ConfigError(f"{source}: {e}") from None
        if self.rule_share > 0 and self.rule_opponent is None:
            raise ConfigError(f"{source}: key 'rule_share' is {self.rule_share}, but no 'rule_opponent' is set")
        if self.frozen_opponent and self.rule_share > 0:
            raise ConfigError(f"{source}: with 'frozen_opponent' every deal is against it; 'rule_share' must be 0")
        if not self.frozen_opponent and self.rule_share + self.pool_share > 1:
            raise ConfigError(f"{source}: keys 'rule_share' and 'pool_share' divide the deals between them: together "
                              f"at most 1, got {self.rule_share} + {self.pool_share}")
        if self.eval_every > 0 and self.eval_boards < 1:
            raise ConfigError(f"{source}: key 'eval_boards' must be at least 1 while 'eval_every' is "
                              f"{self.eval_every} (0 turns the evaluations off), got {self.eval_boards}")
        for key in ("hidden", "critic_hidden"):
            problem = widths_problem(getattr(self, key))
            if problem:
                raise ConfigError(f"{source}: key {key!r} {problem}")
        if self.critic not in ("separate", "shared"):
            raise ConfigError(f"{source}: key 'critic' must be 'separate' or 'shared', got {self.critic!r}")
        if self.precision not in ("auto", "fp32", "bf16"):
            raise ConfigError(f"{source}: key 'precision' must be 'auto', 'fp32' or 'bf16', got {self.precision!r}")
        if self.exit_targets not in EXIT_TARGETS:
            raise ConfigError(f"{source}: key 'exit_targets' must be 'soft' or 'choice', got {self.exit_targets!r}")
        if self.device not in ("cpu", "cuda"):
            raise ConfigError(f"{source}: key 'device' must be 'cpu' or 'cuda', got {self.device!r}")
        if self.frozen_opponent is not None and not self.frozen_opponent.startswith("policy:"):
            raise ConfigError(f"{source}: key 'frozen_opponent' must be an agent spec 'policy:PATH', "
                              f"got {self.frozen_opponent!r}")
        for key in ("frozen_opponent", "init_from"):
            value = getattr(self, key)
            if value is not None and value.startswith("policy:"):
                try:
                    checkpoint_path(value.split(":", 1)[1])
                except ValueError as e:
                    raise ConfigError(f"{source}: key {key!r}: {e}") from None

    def make_rules(self) -> Rules:
        """The rules the run plays: ``preset`` at ``players`` with the ``rules`` overrides; ConfigError with
        the rules' reason where they cannot be built."""
        try:
            return make_rules(self.preset, self.players, **self.rules)
        except RulesError as e:
            raise ConfigError(f"rules of the config: {e}") from None

    def to_dict(self) -> dict[str, Any]:
        """Every setting as plain values: what a checkpoint carries as its resolved config, and what
        ``--set`` overrides are merged into."""
        return dataclasses.asdict(self)


#: Every number of a config: (kind, lowest, highest, lowest excluded). A bound of None is open.
_NUMBERS = {
    **{key: (int, 1, None, False) for key in ("num_envs", "rollout_steps", "total_decisions", "epochs",
                                             "minibatch_size", "snapshot_every", "checkpoint_every",
                                             "keep_checkpoints", "ray_actors")},
    **{key: (int, 0, None, False) for key in ("pool_size", "eval_every", "eval_boards", "final_eval_boards", "seed",
                                             "eval_seed")},
    "torch_threads": (int, 1, 1024, False),
    "exit_worlds": (int, 1, 1024, False),  # the search's MAX_WORLDS
    "eval_workers": (int, 1, MAX_WORKERS, False),
    **{key: (float, 0.0, 1.0, False) for key in ("pool_share", "rule_share", "gamma", "gae_lambda", "exit_share")},
    "clip": (float, 1e-6, 10.0, False),
    "lr": (float, 0.0, 1.0, True),
    **{key: (float, 0.0, None, False) for key in ("ent_coef", "vf_coef", "max_grad_norm", "exit_coef")},
    "max_minutes": (float, 0.0, None, True),
    "target_kl": (float, 0.0, None, True),
    "exit_temperature": (float, 0.0, None, True),
}
#: The targets expert iteration can train to (bm_env.training.exit.search_targets).
EXIT_TARGETS = ("soft", "choice")
#: Numbers that may be null (no limit).
_OPTIONAL = ("max_minutes", "target_kl")


def _check(config: TrainConfig, source: str) -> TrainConfig:
    config.validate(source)
    return config


def config_from_dict(data: dict[str, Any], source: str = "config") -> TrainConfig:
    """A config from a plain mapping (a checkpoint's resolved config, a test), checked."""
    return _check(from_mapping(TrainConfig, data, source), source)


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """``["lr=1e-4", "hidden=[512,256]"]`` -> a mapping; values are read as YAML scalars or lists."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set {item!r} must be key=value, e.g. --set lr=1e-4")
        out[key.strip()] = read_yaml(text, f"--set {item!r}: the value") if text.strip() else None
    return out


def load_train_config(path: str | None, overrides: list[str] = ()) -> TrainConfig:
    """The config file (or the defaults) with ``--set`` overrides applied, checked as a whole."""
    base = load_config(TrainConfig, path) if path else TrainConfig()
    merged = {**base.to_dict(), **parse_overrides(list(overrides))}
    return config_from_dict(merged, f"{path or 'defaults'} with --set" if overrides else (path or "defaults"))
