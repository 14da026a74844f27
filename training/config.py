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

import yaml

from bm_env.config import ConfigError, from_mapping, load_config
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
    rule_opponent: str | dict | None = None  # heuristic, heuristic_v1 or random, or a mapping of them to their shares of the rule deals (training.rule_opponent)
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
    precision: str = "auto"  # fp32, bf16 (products under autocast), or auto: bf16 where the CPU or GPU has bf16 units (training.precision)
    ray_actors: int = 2  # with --ray: rollout actors, each playing num_envs / ray_actors games (ignored without --ray)

    # --- best response: train against a frozen policy (exploitability)
    frozen_opponent: str | None = None  # policy:PATH; when set, every other seat is this policy and no pool is used

    def validate(self, source: str = "config") -> None:
        """Refuse values out of range, naming the key and what is allowed."""
        positive = ["num_envs", "rollout_steps", "total_decisions", "epochs", "minibatch_size", "snapshot_every",
                    "checkpoint_every", "keep_checkpoints", "torch_threads", "eval_workers", "ray_actors"]
        for key in positive:
            if getattr(self, key) < 1:
                raise ConfigError(f"{source}: key {key!r} must be at least 1, got {getattr(self, key)}")
        for key in ("pool_size", "eval_every", "eval_boards", "final_eval_boards", "seed", "eval_seed"):
            if getattr(self, key) < 0:
                raise ConfigError(f"{source}: key {key!r} must be 0 or more, got {getattr(self, key)}")
        for key, lo, hi in (("pool_share", 0.0, 1.0), ("rule_share", 0.0, 1.0), ("gamma", 0.0, 1.0), ("gae_lambda", 0.0, 1.0),
                            ("clip", 1e-6, 10.0)):
            if not lo <= getattr(self, key) <= hi:
                raise ConfigError(f"{source}: key {key!r} must be in [{lo}, {hi}], got {getattr(self, key)}")
        for key in ("lr", "ent_coef", "vf_coef", "max_grad_norm"):
            if getattr(self, key) < 0 or (key == "lr" and self.lr == 0):
                raise ConfigError(f"{source}: key {key!r} must be {'positive' if key == 'lr' else '0 or more'}, "
                                  f"got {getattr(self, key)}")
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
        if self.max_minutes is not None and self.max_minutes <= 0:
            raise ConfigError(f"{source}: key 'max_minutes' must be positive or null, got {self.max_minutes}")
        if self.target_kl is not None and self.target_kl <= 0:
            raise ConfigError(f"{source}: key 'target_kl' must be positive or null, got {self.target_kl}")
        for key in ("hidden", "critic_hidden"):
            widths = getattr(self, key)
            if not widths or any(w < 1 for w in widths):
                raise ConfigError(f"{source}: key {key!r} must be a non-empty list of positive widths, got {widths}")
        if self.critic not in ("separate", "shared"):
            raise ConfigError(f"{source}: key 'critic' must be 'separate' or 'shared', got {self.critic!r}")
        if self.precision not in ("auto", "fp32", "bf16"):
            raise ConfigError(f"{source}: key 'precision' must be 'auto', 'fp32' or 'bf16', got {self.precision!r}")
        if self.device not in ("cpu", "cuda"):
            raise ConfigError(f"{source}: key 'device' must be 'cpu' or 'cuda', got {self.device!r}")
        if self.frozen_opponent is not None and not self.frozen_opponent.startswith("policy:"):
            raise ConfigError(f"{source}: key 'frozen_opponent' must be an agent spec 'policy:PATH', "
                              f"got {self.frozen_opponent!r}")

    def make_rules(self) -> Rules:
        try:
            return make_rules(self.preset, self.players, **self.rules)
        except RulesError as e:
            raise ConfigError(f"rules of the config: {e}") from None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


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
        try:
            out[key.strip()] = yaml.safe_load(text) if text.strip() else None
        except yaml.YAMLError as e:
            raise ConfigError(f"--set {item!r}: the value is not valid YAML ({e})") from None
    return out


def load_train_config(path: str | None, overrides: list[str] = ()) -> TrainConfig:
    """The config file (or the defaults) with ``--set`` overrides applied, checked as a whole."""
    base = load_config(TrainConfig, path) if path else TrainConfig()
    merged = {**base.to_dict(), **parse_overrides(list(overrides))}
    return config_from_dict(merged, f"{path or 'defaults'} with --set" if overrides else (path or "defaults"))
