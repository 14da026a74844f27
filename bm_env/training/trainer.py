"""The training loop: rollouts, PPO updates, the snapshot pool, evaluation, checkpoints, logs.

A run lives in one folder::

    RUN_DIR/config.yaml          the resolved config
    RUN_DIR/states/state_*.pt    training states, the last ``keep_checkpoints`` (see bm_env.training.state)
    RUN_DIR/latest.pt            the play checkpoint of the latest evaluation and of the end (policy:PATH)
    RUN_DIR/best.pt              the play checkpoint that scored best at evaluation
    RUN_DIR/evaluations.jsonl    every evaluation: update, decisions, score and interval
    RUN_DIR/curve.png            those scores against decisions trained
    RUN_DIR/tb/                  TensorBoard logs
    RUN_DIR/owner.lock           held by the process training in it (bm_env.training.run_lock)

Evaluation plays the duplicate harness on the same board set every time (``eval_seed``), so
scores compare across training; the best one's weights are kept as ``best.pt``. Ctrl-C (or
SIGTERM) lets the current update finish, saves the training state and stops; a second
Ctrl-C stops at once, keeping the last saved state. A NaN loss stops the run with the last
good state kept.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import os
import signal
import time
from dataclasses import dataclass, field

import numpy as np
import torch
import yaml

from bm_env.agents import AgentSpecError
from bm_env.agents.checkpoint import CheckpointError, PolicyNet, load_checkpoint, save_checkpoint
from bm_env.agents.shipped import checkpoint_path
from bm_env.config import ConfigError
from bm_env.env import observation
from bm_env.evaluation.harness import check_agents
from bm_env.vector import check_supported

from .config import TrainConfig, config_from_dict
from .curve import plot_curve
from .exit import Labeller, Labels
from .ppo import NonFiniteLossError, ValueNet, fused_adam_available, update
from .rollout import Rollout, SelfPlay, hidden_size
from .precision import resolve as resolve_precision
from .rule_opponent import check_rule_opponent
from .run_lock import claim_run_dir
from .state import TrainingStateError, intact_states, latest_state, load_state, save_state, to_arrays, to_tensors

#: Keys that ``--resume`` may change with ``--set``: how long and how often, never what is learned.
RESUME_KEYS = ("total_decisions", "max_minutes", "eval_every", "eval_boards", "eval_workers", "final_eval_boards",
               "checkpoint_every", "keep_checkpoints", "torch_threads")


@dataclass
class TrainResult:
    run_dir: str
    updates: int
    decisions: int
    seconds: float  # wall time of the run, evaluations and checkpoints included
    stopped: str  # "done", "interrupted" or "nan"
    evaluations: list[dict] = field(default_factory=list)
    final_table: str = ""


class _StopFlag:
    """Ctrl-C and SIGTERM ask the loop to stop at the end of the update; a second Ctrl-C stops at once."""

    def __init__(self) -> None:
        self.requested = False
        self._old: dict[int, object] = {}

    def __enter__(self) -> "_StopFlag":
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self._old[sig] = signal.signal(sig, self._handle)
            except ValueError:  # not the main thread: no signal handling
                pass
        return self

    def _handle(self, signum, frame) -> None:
        if self.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = True

    def __exit__(self, *exc) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)


class Trainer:
    """One training run; :meth:`run` trains until the config's budget or a stop."""

    def __init__(self, config: TrainConfig, run_dir: str, quiet: bool = False, log=print,
                 ray_address: str | None = None, fresh: bool = True) -> None:
        """``ray_address``: collect rollouts on Ray actors (see :mod:`bm_env.training.ray_rollouts`); None: in this process.

        ``fresh=False`` (a resume) leaves the networks for the caller to load, ``init_from`` unread.
        """
        claim_run_dir(run_dir)  # before anything is read from it or written to it: one owner at a time
        self.config = config
        self.run_dir = run_dir
        self.quiet = quiet
        self.log = log
        self.rules = config.make_rules()
        check_supported(self.rules)
        if config.eval_every or config.final_eval_boards:
            try:  # refused now, with its reason, rather than at the first evaluation
                check_agents(self.rules, [config.eval_opponent])
            except AgentSpecError as e:
                raise ConfigError(f"key 'eval_opponent': {e}") from None
        if config.device == "cuda" and not torch.cuda.is_available():
            raise ConfigError("device 'cuda' was asked for, but torch sees no CUDA device; use --device cpu")
        self.device = torch.device(config.device)
        self.precision = resolve_precision(config.precision, self.device)
        torch.set_num_threads(config.torch_threads)
        c = config
        obs_size = observation.size_for(self.rules)
        num_actions = self.rules.num_actions
        with torch.random.fork_rng(devices=[]):  # initial weights from the run's seed, global state untouched
            torch.manual_seed(c.seed)
            self.actor = PolicyNet(obs_size, num_actions, c.hidden).to(self.device)
            critic_in = (obs_size if c.critic == "separate" else c.hidden[-1]) + (
                hidden_size(self.rules) if c.critic_state else 0)
            self.critic = ValueNet(c.critic, critic_in, c.critic_hidden).to(self.device)
        self.fused_adam = fused_adam_available(self.device)
        self.optimizer = torch.optim.Adam([*self.actor.parameters(), *self.critic.parameters()], lr=c.lr, eps=1e-5,
                                          fused=self.fused_adam or None)
        self.generator = torch.Generator(self.device).manual_seed(c.seed)
        self.rng = np.random.default_rng([c.seed, 1])
        self.labeller: Labeller | None = None
        if c.exit_share > 0:
            try:
                self.labeller = Labeller(self.rules, self.actor, c.exit_share, c.exit_worlds, c.exit_targets,
                                         c.exit_temperature)
            except ValueError as e:
                raise ConfigError(f"key 'exit_share': {e}") from None
        self.pool: list[PolicyNet] = []
        self.pool_next = 0  # ring position of the next snapshot
        if c.frozen_opponent:
            frozen, _ = load_checkpoint(checkpoint_path(c.frozen_opponent.split(":", 1)[1]), self.rules)
            self.pool = [frozen.to(self.device)]
        if c.init_from and fresh:
            self._start_from(c.init_from)
        self.update_index = 0
        self.decisions = 0
        self.seconds = 0.0  # wall time of the run (evaluations included), over every resume of it
        self.best: dict | None = None
        self.evaluations: list[dict] = []
        self.selfplay: SelfPlay | None = None
        self.ray_rollouts = None
        if ray_address is None:
            players = check_rule_opponent(c.rule_opponent, self.rules) if c.rule_opponent else None
            self.selfplay = SelfPlay(self.rules, c.num_envs, c.rollout_steps, c.critic_state, seed=c.seed,
                                     rule_players=players, rule_share=c.rule_share, precision=self.precision,
                                     keep_deals=self.labeller is not None)
            self.selfplay.draw_seatings(np.arange(c.num_envs), self.rng, len(self.pool), self._pool_share())
        else:
            from .ray_rollouts import RayRollouts

            self.ray_rollouts = RayRollouts(ray_address, c, self.rules, self.actor, self.critic, len(self.pool),
                                            self._pool_share())
        self._writer = None

    # ------------------------------------------------------------------ state

    def _start_from(self, source: str) -> None:
        """Networks, optimiser and pool of another run's newest state: this run is its next stage.

        Counters, generators and games start afresh, and the optimiser takes this config's
        learning rate; the earlier stage's decisions and time are logged, and a model card adds them.
        A play checkpoint (``policy:PATH``) holds the policy alone: the critic, optimiser and pool
        start fresh, so that a shipped agent can be trained on (or probed by a best response
        that starts from it) without its training state.
        """
        if source.startswith("policy:"):
            self._start_from_policy(checkpoint_path(source.split(":", 1)[1]))
            return
        path = latest_state(source)
        data = load_state(path)
        if not self.rules.same_as(data.get("rules")):
            raise TrainingStateError(f"init_from: training state {path!r} was trained on other rules than this config's")
        try:
            self._load_learned(data)
        except (KeyError, RuntimeError, ValueError, TypeError) as e:
            raise TrainingStateError(f"init_from: training state {path!r} does not fit this config's networks "
                                     f"({type(e).__name__}: {e})") from None
        for group in self.optimizer.param_groups:
            group["lr"] = self.config.lr
        self.log(f"bm-train: starting from {path} ({int(data['decisions']):,} decisions, "
                 f"{float(data['seconds']) / 60:.1f} min of training)")

    def _start_from_policy(self, path: str) -> None:
        try:
            net, _ = load_checkpoint(path, self.rules)  # refuses other rules or layouts, naming them
        except CheckpointError as e:
            raise CheckpointError(f"init_from: {e}") from None
        if net.arch["hidden"] != list(self.config.hidden):
            raise TrainingStateError(f"init_from: policy {path!r} does not fit this config's policy network: its widths "
                                     f"are {net.arch['hidden']}, key 'hidden' is {self.config.hidden}")
        self.actor.load_state_dict(net.state_dict())
        self.log(f"bm-train: starting from the policy of {path} (critic, optimiser and pool fresh)")

    def _load_learned(self, data: dict) -> None:
        """What a training state has learned: the networks, the optimiser and the snapshot pool
        (a frozen opponent keeps its own pool); at most this config's ``pool_size`` snapshots."""
        self.actor.load_state_dict(data["actor"])
        self.critic.load_state_dict(data["critic"])
        self.optimizer.load_state_dict(data["optimizer"])
        for group in self.optimizer.param_groups:  # the saved kernel choice may not exist in this torch or device
            group["fused"] = self.fused_adam or None
        if not self.config.frozen_opponent:
            self.pool = []
            for sd in data["pool"]:
                net = copy.deepcopy(self.actor)
                net.load_state_dict(sd)
                self.pool.append(net.eval())
            del self.pool[self.config.pool_size:]
        self.pool_next = int(data["pool_next"]) % max(self.config.pool_size, 1)

    def _pool_share(self) -> float:
        return 1.0 if self.config.frozen_opponent else self.config.pool_share

    def state_payload(self) -> dict:
        return {
            "config": self.config.to_dict(), "rules": self.rules.to_dict(),
            "update": self.update_index, "decisions": self.decisions, "seconds": self.seconds,
            "best": self.best, "evaluations": self.evaluations,
            "actor": self.actor.state_dict(), "critic": self.critic.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "pool": [] if self.config.frozen_opponent else [p.state_dict() for p in self.pool],
            "pool_next": self.pool_next,
            "torch_generator": self.generator.get_state(), "numpy_generator": self.rng.bit_generator.state,
            "selfplay": None if self.selfplay is None else to_tensors(self.selfplay.get_state()),
            "ray_actors": None if self.ray_rollouts is None else self.ray_rollouts.get_state(),
        }

    def save(self) -> str:
        return save_state(self.run_dir, self.update_index, self.state_payload(), self.config.keep_checkpoints)

    @classmethod
    def resume(cls, run_dir: str, overrides: dict | None = None, quiet: bool = False, log=print,
               ray_address: str | None = None) -> "Trainer":
        """The trainer of the run's newest state; ``overrides`` may change only :data:`RESUME_KEYS`.

        A run made with ``--ray`` resumes only with ``--ray`` (each actor's games are in the
        state), one made without it only without: the games in the state are played on.
        """
        latest_state(run_dir)  # a folder without a run is refused before anything is written in it
        claim_run_dir(run_dir)  # then only the folder's owner reads its newest state
        path = latest_state(run_dir)
        try:
            data = load_state(path)
        except TrainingStateError as e:
            older = intact_states(run_dir, but=path)
            hint = (f"; the intact older state(s) {', '.join(map(repr, older))} can be resumed from: move {path!r} "
                    f"out of {os.path.dirname(path)!r} and resume again") if older else "; no older state is intact"
            raise TrainingStateError(f"{e}{hint}") from None
        overrides = dict(overrides or {})
        bad = sorted(set(overrides) - set(RESUME_KEYS))
        if bad:
            raise ConfigError(f"--resume keeps what the run learns; --set may change only {list(RESUME_KEYS)}, "
                              f"not {bad}")
        try:
            config = config_from_dict({**data["config"], **overrides}, f"{path} (resolved config)")
        except (KeyError, TypeError) as e:
            raise TrainingStateError(f"training state {path!r} has no readable config ({e})") from None
        on_ray = data.get("ray_actors") is not None
        if on_ray != (ray_address is not None):
            raise TrainingStateError(
                f"training state {path!r} was saved by a run " + (
                    f"on Ray ({len(data['ray_actors'])} rollout actors): resume it with --ray ADDRESS" if on_ray
                    else "without Ray: resume it without --ray"))
        trainer = cls(config, run_dir, quiet, log, ray_address, fresh=False)
        if not trainer.rules.same_as(data.get("rules")):
            raise TrainingStateError(f"training state {path!r} was saved for other rules than its config makes")
        try:
            trainer._load_learned(data)
            trainer.generator.set_state(data["torch_generator"])
            trainer.rng.bit_generator.state = data["numpy_generator"]
            if on_ray:
                trainer.ray_rollouts.set_state(data["ray_actors"])
            else:
                trainer.selfplay.set_state(to_arrays(data["selfplay"]))
            trainer.update_index, trainer.decisions = int(data["update"]), int(data["decisions"])
            trainer.seconds, trainer.best = float(data["seconds"]), data["best"]
            trainer.evaluations = list(data["evaluations"])
        except (KeyError, RuntimeError, ValueError, TypeError) as e:
            raise TrainingStateError(f"training state {path!r} does not fit its config ({type(e).__name__}: {e})") from None
        return trainer

    # ------------------------------------------------------------------ logging

    @property
    def writer(self):
        if self._writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(os.path.join(self.run_dir, "tb"))
        return self._writer

    def _scalars(self, values: dict[str, float]) -> None:
        for key, value in values.items():
            if value is not None and not (isinstance(value, float) and math.isnan(value)):
                self.writer.add_scalar(key, value, self.decisions)

    # ------------------------------------------------------------------ evaluation

    def play_checkpoint(self, name: str) -> str:
        path = os.path.join(self.run_dir, name)
        save_checkpoint(path, self.actor, self.rules, self.decisions, self.config.to_dict())
        return path

    def evaluate(self) -> dict:
        """The current policy against ``eval_opponent`` in every other seat, on the fixed board set."""
        from bm_env.evaluation import evaluate

        c = self.config
        path = self.play_checkpoint("latest.pt")
        seating = [f"policy:{path}"] + [c.eval_opponent] * (self.rules.num_players - 1)
        res = evaluate(self.rules, seating, c.eval_boards, c.eval_seed, c.eval_workers, progress=False)
        me = res.agents[0]
        record = {"update": self.update_index, "decisions": self.decisions, "opponent": c.eval_opponent,
                  "boards": c.eval_boards, "score": me.advantage, "ci": me.diff_ci}
        self.evaluations.append(record)
        with open(os.path.join(self.run_dir, "evaluations.jsonl"), "a") as f:
            f.write(json.dumps(record) + "\n")
        self._scalars({"eval/score_vs_opponent": me.advantage, "eval/score_ci": me.diff_ci,
                       "eval/score_lower": me.advantage - me.diff_ci})
        if self.best is None or me.advantage > self.best["score"]:
            self.best = dict(record)
            self.play_checkpoint("best.pt")
        return record

    def final_table(self) -> str:
        """The best (else the latest) policy against random players and against the evaluation opponent."""
        from bm_env.evaluation import evaluate

        c = self.config
        best = self.best is not None and os.path.exists(os.path.join(self.run_dir, "best.pt"))
        name = "best.pt" if best else "latest.pt"
        path = os.path.join(self.run_dir, name)
        n = self.rules.num_players
        trained = self.best["decisions"] if best else self.decisions
        lines = [f"{name} ({trained:,} decisions), {c.final_eval_boards} duplicate boards, every rotation; "
                 "points/deal better than the fair share (95% interval):", "",
                 "| opponents | score |", "|---|---|"]
        for opponent in dict.fromkeys(["random", c.eval_opponent]):
            res = evaluate(self.rules, [f"policy:{path}"] + [opponent] * (n - 1), c.final_eval_boards, c.eval_seed + 1,
                           c.eval_workers, progress=False)
            me = res.agents[0]
            lines.append(f"| {n - 1} x {opponent} | {me.advantage:+.2f} ± {me.diff_ci:.2f} |")
        return "\n".join(lines)

    # ------------------------------------------------------------------ the loop

    def _budget_left(self) -> bool:
        c = self.config
        if self.decisions >= c.total_decisions:
            return False
        return c.max_minutes is None or self.seconds < c.max_minutes * 60

    def run(self) -> TrainResult:
        c = self.config
        os.makedirs(self.run_dir, exist_ok=True)
        with open(os.path.join(self.run_dir, "config.yaml"), "w") as f:
            yaml.safe_dump(c.to_dict(), f, sort_keys=False)
        bar = None
        if not self.quiet:
            from tqdm import tqdm

            # A run that a time limit ends has no known total of decisions: the bar counts them.
            bar = tqdm(total=None if c.max_minutes else c.total_decisions, initial=self.decisions, unit="dec",
                       unit_scale=True, desc="bm-train")
        say = self.log if bar is None else bar.write
        stopped = "done"
        # The rollout actors end with the loop, however it ends (after the last save, which reads their games).
        with _StopFlag() as stop, self.ray_rollouts or contextlib.nullcontext():
            while self._budget_left():
                started = time.perf_counter()
                try:
                    speed = self._one_update(bar)
                except NonFiniteLossError as e:
                    kept = latest_state(self.run_dir) if os.path.isdir(os.path.join(self.run_dir, "states")) else None
                    say(f"bm-train: stopped at update {self.update_index + 1}: {e}. "
                             + (f"The last good training state is {kept}." if kept else "No training state was saved yet."))
                    stopped = "nan"
                    break
                status = (f"update {self.update_index}: {self.decisions:,} decisions, {speed:,.0f} decisions/s, "
                          f"{self.seconds / 60:.1f} min")
                if c.eval_every and self.update_index % c.eval_every == 0:
                    record = self.evaluate()
                    if bar is not None:
                        bar.set_postfix_str(f"eval {record['score']:+.2f}±{record['ci']:.2f}")
                    say(f"{status}, vs {c.eval_opponent} {record['score']:+.2f} ± {record['ci']:.2f}")
                if self.update_index % c.checkpoint_every == 0:
                    self.save()
                    if bar is None:
                        say(f"{status}, state saved")
                self.seconds += time.perf_counter() - started
                if stop.requested:
                    stopped = "interrupted"
                    break
            if stopped != "nan":
                self.save()
        if bar is not None:
            bar.close()
        result = TrainResult(self.run_dir, self.update_index, self.decisions, self.seconds, stopped, self.evaluations)
        if self.evaluations:
            plot_curve(self.evaluations, os.path.join(self.run_dir, "curve.png"),
                       f"{self.config.preset} {self.rules.num_players}p: {os.path.basename(self.run_dir)}")
        if stopped == "done":
            self.play_checkpoint("latest.pt")
            if c.final_eval_boards:
                result.final_table = self.final_table()
        if self._writer is not None:
            self._writer.close()
        return result

    def collect(self) -> Rollout:
        """One rollout of the current policy: in this process, or on the Ray actors with ``--ray``."""
        c = self.config
        self.actor.eval()
        if self.ray_rollouts is None:
            return self.selfplay.collect(self.actor, self.critic, self.pool, self.generator, self.rng,
                                         self._pool_share(), c.gamma, c.gae_lambda, self.device)
        return self.ray_rollouts.collect(self.actor, self.critic, self.pool, self._pool_share(), c.gamma,
                                         c.gae_lambda, self.device)

    def label(self, rollout: Rollout) -> Labels:
        """Expert iteration's targets on a share of the rollout's play decisions, put in its batch
        (:mod:`bm_env.training.exit`); returns the :class:`~bm_env.training.exit.Labels`. Rollouts of
        Ray actors come labelled by the actors; the driver labels the others."""
        labels = rollout.labels if rollout.labels is not None else self.labeller.label(rollout, self.actor, self.rng)
        batch = rollout.batch
        targets = torch.zeros(batch.mask.shape, dtype=torch.float32, device=self.device)
        targets[torch.from_numpy(labels.rows).to(self.device)] = torch.from_numpy(labels.targets).to(self.device)
        batch.exit_targets = targets
        return labels

    def add_snapshot(self) -> None:
        """The current policy joins the pool, in place of the oldest snapshot once the pool is full."""
        snap = copy.deepcopy(self.actor).eval()
        if len(self.pool) < self.config.pool_size:
            self.pool.append(snap)
        else:
            self.pool[self.pool_next] = snap
        self.pool_next = (self.pool_next + 1) % self.config.pool_size

    def _one_update(self, bar) -> float:
        """One rollout and one PPO update; returns the decisions per second of both together."""
        c = self.config
        started = time.perf_counter()
        if c.anneal_lr:
            for group in self.optimizer.param_groups:
                group["lr"] = c.lr * max(1.0 - self.decisions / c.total_decisions, 0.0)
        rollout = self.collect()
        collected = time.perf_counter()
        labels = self.label(rollout) if self.labeller is not None else None
        labelled = time.perf_counter()
        self.actor.train()
        stats = update(self.actor, self.critic, self.optimizer, rollout.batch, c.epochs, c.minibatch_size, c.clip,
                       c.ent_coef, c.vf_coef, c.max_grad_norm, c.target_kl, self.generator, self.precision,
                       c.exit_coef)
        finished = time.perf_counter()
        self.update_index += 1
        self.decisions += rollout.decisions
        elapsed = finished - started
        if not c.frozen_opponent and c.pool_size and self.update_index % c.snapshot_every == 0:
            self.add_snapshot()
        self._scalars({
            **{f"loss/{k}": v for k, v in stats.items() if k != "gradient_steps"},
            "speed/decisions_per_s": rollout.decisions / elapsed,
            "speed/engine_share": rollout.engine_seconds / elapsed,
            "speed/rollout_forward_share": rollout.forward_seconds / elapsed,
            "speed/update_share": (finished - labelled) / elapsed,
            "play/pool_deal_reward": rollout.learner_reward,
            **{f"play/rule_deal_reward/{name}": v for name, v in rollout.rule_rewards.items()},
            "play/trained_decisions": float(len(rollout.batch)),
            "play/pool_size": float(len(self.pool)),
        })
        if labels is not None:
            self._scalars({"exit/agreement": labels.agreement, "exit/labelled": float(len(labels.rows)),
                           "speed/exit_share": (labelled - collected) / elapsed,
                           "speed/exit_positions_per_s": len(labels.rows) / max(labels.seconds, 1e-9)})
        if bar is not None:
            bar.update(rollout.decisions)
        return rollout.decisions / elapsed
