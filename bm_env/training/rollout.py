"""Self-play rollouts on the vector engine, with earlier snapshots as opponents.

Each game has a seating, drawn again whenever its deal ends so that a deal is played by
one cast: in a self-play deal the current policy plays every seat; in a pool deal one
seat (drawn) is the current policy and every other seat one snapshot of the pool (drawn),
with share ``pool_share``; in a rule deal, with share ``rule_share``, every other seat is
a rule-based player (:mod:`bm_env.training.rule_opponent`; where a run has several, one drawn by
its share for the whole deal). With a frozen opponent (best response) every deal is a pool
deal against it. Only the current policy's decisions are trained; a seat's decision whose
deal is still on when the rollout ends is carried into the next one
(:mod:`bm_env.training.trajectories`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from bm_env.agents.checkpoint import PolicyNet, masked_logits
from bm_env.agents.stacked_pool import StackedPool
from bm_env.engine.rules import Rules
from bm_env.vector import VectorEngine, make_engine

from .play_order import RECORD_KEYS, PlayOrder
from .ppo import Batch, ValueNet, policy_and_value, sample
from .precision import padded
from bm_env.learner.rule_players import player_actions
from .trajectories import SeatTargets, seat_targets

if TYPE_CHECKING:  # exit imports this module
    from .exit import Labels

LEARNER = -1  # seating code of the current policy; k >= 0 is snapshot k of the pool
RULE = -2  # seating code of the first rule-based player; RULE - k is the k-th of the run's mix


def hidden_cards(engine: VectorEngine) -> np.ndarray:
    """``[N, 2n * 52]`` int8: every seat's hand, then every seat's pending pass picks, from the acting seat round."""
    n, N = engine.n, engine.num_envs
    seats = (engine.to_act[None, :] + np.arange(n)[:, None]) % n  # [n, N]: the acting seat, then leftwards
    words = np.concatenate([np.take_along_axis(engine.hands, seats, axis=0),
                            np.take_along_axis(engine.moved[0], seats, axis=0)])  # [2n, N] uint64
    bits = np.unpackbits(np.ascontiguousarray(words.T).view(np.uint8).reshape(N, 2 * n, 8), axis=2,
                         bitorder="little")[:, :, :52]
    return bits.reshape(N, 2 * n * 52).view(np.int8)


def hidden_size(rules: Rules) -> int:
    return 2 * rules.num_players * 52


@dataclass
class Rollout:
    """One rollout's trainable decisions and what was seen while collecting them."""

    batch: Batch
    decisions: int  # every decision stepped, the snapshots' included
    deals_ended: int
    learner_reward: float  # mean deal-end reward of the current policy's seats in pool deals (nan: none)
    rule_rewards: dict[str, float]  # the same in rule deals, by rule-based player (nan: none)
    engine_seconds: float
    forward_seconds: float
    #: By row of ``batch``, what rebuilds the decision's information state (:mod:`bm_env.training.play_order`);
    #: None unless the self-play keeps it.
    deals: dict[str, np.ndarray] | None = None
    #: Expert iteration's labels, where the rollout's collector labelled it (a Ray actor); else None.
    labels: Labels | None = None


class SelfPlay:
    """The engine, its games' seatings and the decisions carried between rollouts."""

    def __init__(self, rules: Rules, num_envs: int, rollout_steps: int, critic_state: bool, seed: int,
                 rule_players: dict[str, float] | None = None, rule_share: float = 0.0,
                 precision: str = "fp32", keep_deals: bool = False) -> None:
        """``rule_players``: names of :data:`bm_env.learner.rule_players.PLAYERS` and their shares of the rule deals
        (:func:`~bm_env.training.rule_opponent.check_rule_opponent`), seated in ``rule_share`` of the deals;
        ``precision``: the resolved precision of the forward passes (:mod:`bm_env.training.precision`);
        ``keep_deals``: every trainable decision comes with what rebuilds its information state
        (:attr:`Rollout.deals`), for a search to label it."""
        self.rules = rules
        self.precision = precision
        self.rule_names = list(rule_players or {})
        self.rule_shares = np.array(list((rule_players or {}).values()))
        self.rule_share = rule_share
        self.engine = make_engine(rules, num_envs, reward="zero_sum", normalise=True, seed=seed)
        self.N, self.n, self.T = num_envs, rules.num_players, rollout_steps
        self.obs, self.mask, _ = self.engine.reset()
        self.seating = np.full((num_envs, self.n), LEARNER, dtype=np.int64)
        L, A = self.obs.shape[1], self.mask.shape[1]
        H = hidden_size(rules) if critic_state else 0
        N, n = num_envs, self.n
        self.carried = {  # the decisions carried into the next rollout, by game and seat
            "valid": np.zeros((N, n), dtype=bool), "obs": np.zeros((N, n, L), dtype=np.int8),
            "hidden": np.zeros((N, n, H), dtype=np.int8), "mask": np.zeros((N, n, A), dtype=bool),
            "actions": np.zeros((N, n), dtype=np.int64), "logp": np.zeros((N, n), dtype=np.float32),
            "values": np.zeros((N, n), dtype=np.float32),
        }
        self.play_order = PlayOrder(N) if keep_deals else None
        if keep_deals:
            blank = self.play_order.records(self.engine)
            self.carried.update({key: np.zeros((N, n) + blank[key].shape[1:], dtype=blank[key].dtype)
                                 for key in RECORD_KEYS})

    # ------------------------------------------------------------------ seatings

    def draw_seatings(self, games: np.ndarray, rng: np.random.Generator, pool_size: int, pool_share: float) -> None:
        """New seatings for ``games`` (their deal has just ended, or training starts)."""
        if games.size == 0:
            return
        self.seating[games] = LEARNER
        if self.rule_share == 0 and (pool_size == 0 or pool_share == 0):
            return
        u = rng.random(games.size)  # below rule_share: a rule deal; then pool_share more: a pool deal
        if self.rule_share:
            ruled = games[u < self.rule_share]
            if len(self.rule_names) == 1:
                self.seating[ruled] = RULE
            else:  # one player of the mix for the whole deal
                self.seating[ruled] = RULE - rng.choice(len(self.rule_names), size=ruled.size, p=self.rule_shares)[:, None]
            self.seating[ruled, rng.integers(self.n, size=ruled.size)] = LEARNER
        if pool_size == 0 or pool_share == 0:
            return
        pooled = games[(u >= self.rule_share) & (u < self.rule_share + pool_share)]
        if pooled.size == 0:
            return
        snapshot = rng.integers(pool_size, size=pooled.size)
        learner_seat = rng.integers(self.n, size=pooled.size)
        self.seating[pooled] = snapshot[:, None]
        self.seating[pooled, learner_seat] = LEARNER

    # ------------------------------------------------------------------ collecting

    @torch.no_grad()
    def collect(self, actor: PolicyNet, critic: ValueNet, pool: list[PolicyNet], generator: torch.Generator,
                rng: np.random.Generator, pool_share: float, gamma: float, lam: float, device: torch.device) -> Rollout:
        """Play ``rollout_steps`` steps of every game; return the trainable decisions with their targets."""
        T, N, n = self.T, self.N, self.n
        L, A = self.obs.shape[1], self.mask.shape[1]
        H = self.carried["hidden"].shape[2]
        obs = np.empty((T, N, L), dtype=np.int8)
        hidden = np.empty((T, N, H), dtype=np.int8)
        mask = np.empty((T, N, A), dtype=bool)
        actions = np.empty((T, N), dtype=np.int64)
        logp = np.empty((T, N), dtype=np.float32)
        values = np.empty((T, N), dtype=np.float32)
        seat = np.empty((T, N), dtype=np.int64)
        learner = np.empty((T, N), dtype=bool)
        done = np.empty((T, N), dtype=bool)
        rewards = np.empty((T, N, n), dtype=np.float32)
        engine_s = forward_s = 0.0
        pool_rewards: list[np.ndarray] = []
        rule_rewards: dict[str, list[np.ndarray]] = {name: [] for name in self.rule_names}
        rows = np.arange(N)
        stacked = StackedPool(pool, self.precision) if pool else None
        deals: dict[str, np.ndarray] = {}
        for t in range(T):
            t0 = time.perf_counter()
            obs[t], mask[t] = self.obs, self.mask != 0
            if self.play_order is not None:
                for key, value in self.play_order.records(self.engine).items():
                    deals.setdefault(key, np.empty((T,) + value.shape, dtype=value.dtype))[t] = value
            seat[t] = to_act = self.engine.to_act
            if H:
                hidden[t] = hidden_cards(self.engine)
            who = self.seating[rows, to_act]
            learner[t] = who == LEARNER
            x = torch.from_numpy(obs[t]).to(device).float()
            legal = torch.from_numpy(mask[t]).to(device)
            act = torch.zeros(N, dtype=torch.int64, device=device)
            # The policy and critic run on the current policy's decisions alone: the others are never trained, and
            # in a closing stage with the rule-based player in most deals they are most of the games.
            mine = np.flatnonzero(learner[t])
            values[t], logp[t] = 0.0, 0.0
            if mine.size:
                run = np.resize(mine, padded(mine.size))  # the rows again from the start: few distinct shapes
                run_rows = torch.from_numpy(run).to(device)
                sel = run_rows[:mine.size]
                h = torch.from_numpy(hidden[t, run]).to(device).float() if H else None
                logits, value = policy_and_value(actor, critic, x[run_rows], h, self.precision)
                logits, value = logits[:mine.size], value[:mine.size]
                act[sel], lp = sample(masked_logits(logits, legal[sel]), generator)
                values[t, mine], logp[t, mine] = value.cpu().numpy(), lp.cpu().numpy()
            snap = np.flatnonzero(who >= 0)
            if snap.size:  # the pool's snapshots, all in one batched pass
                sel = torch.from_numpy(snap).to(device)
                act[sel], _ = sample(masked_logits(stacked.logits(x[sel], who[snap]), legal[sel]), generator)
            actions[t] = act.cpu().numpy()
            for k, name in enumerate(self.rule_names):
                ruled = np.flatnonzero(who == RULE - k)
                if ruled.size:
                    actions[t, ruled] = player_actions(self.engine, ruled, name, rng)
            if self.play_order is not None:
                self.play_order.step(self.engine, actions[t])
            t1 = time.perf_counter()
            self.obs, self.mask, _, rewards[t], done[t], _ = self.engine.step(actions[t])
            ended = np.flatnonzero(done[t])
            if ended.size:
                self._end_deals(ended, rewards[t], pool_rewards, rule_rewards)
                self.draw_seatings(ended, rng, len(pool), pool_share)
            t2 = time.perf_counter()
            forward_s += t1 - t0
            engine_s += t2 - t1

        c = self.carried
        targets = seat_targets(seat, learner, done, rewards, values, c["valid"], c["values"], gamma, lam)
        batch, kept = self._carry_and_batch(targets, device, {"obs": obs, "hidden": hidden, "mask": mask,
                                                              "actions": actions, "logp": logp, "values": values,
                                                              **deals})
        mean = lambda parts: float(np.concatenate(parts).mean()) if parts else float("nan")  # noqa: E731
        return Rollout(batch, T * N, int(done.sum()), mean(pool_rewards),
                       {name: mean(parts) for name, parts in rule_rewards.items()}, engine_s, forward_s,
                       kept if deals else None)

    def _end_deals(self, ended: np.ndarray, rewards: np.ndarray, pool_rewards: list[np.ndarray],
                   rule_rewards: dict[str, list[np.ndarray]]) -> None:
        """Collect the learner's deal-end rewards of the ``ended`` games that were pool or rule-based deals."""
        cast = self.seating[ended]
        kinds = [((cast >= 0).any(axis=1), pool_rewards)]
        kinds += [((cast == RULE - k).any(axis=1), rule_rewards[name]) for k, name in enumerate(self.rule_names)]
        for kind, into in kinds:
            if kind.any():
                into.append(rewards[ended[kind]][cast[kind] == LEARNER])

    def _carry_and_batch(self, targets: SeatTargets, device: torch.device,
                         steps: dict[str, np.ndarray]) -> tuple[Batch, dict[str, np.ndarray]]:
        """The trainable decisions of the carried ones and this rollout's ``steps`` (``[T, N, ...]`` arrays by name),
        as a batch, and their deal records (:data:`~bm_env.training.play_order.RECORD_KEYS` of ``steps``; empty
        without them); the seats' decisions whose deals are still on replace the carried ones."""
        c = self.carried
        # Entry order of seat_targets: the carried decisions game by game and seat by seat, then the rollout's step by step.
        flat = {key: np.concatenate([c[key].reshape((self.N * self.n,) + arr.shape[2:]),
                                     arr.reshape((arr.shape[0] * arr.shape[1],) + arr.shape[2:])])
                for key, arr in steps.items()}
        carry = targets.carry
        has = carry >= 0
        self.carried["valid"] = has
        for key, arr in flat.items():
            self.carried[key] = np.where(has.reshape(has.shape + (1,) * (arr.ndim - 1)), arr[np.maximum(carry, 0)],
                                         0).astype(arr.dtype)
        take = np.flatnonzero(targets.trainable)
        tensor = lambda a: torch.from_numpy(np.ascontiguousarray(a[take])).to(device)  # noqa: E731
        batch = Batch(obs=tensor(flat["obs"]), hidden=tensor(flat["hidden"]) if flat["hidden"].shape[1] else None,
                      mask=tensor(flat["mask"]), actions=tensor(flat["actions"]), logp=tensor(flat["logp"]),
                      values=tensor(flat["values"]), advantages=tensor(targets.advantages),
                      returns=tensor(targets.returns))
        return batch, {key: flat[key][take] for key in RECORD_KEYS if key in flat}

    # ------------------------------------------------------------------ checkpoints

    def get_state(self) -> dict:
        state = {"engine": self.engine.get_state(), "obs": self.obs.copy(), "mask": self.mask.copy(),
                 "seating": self.seating.copy(), "carried": {k: v.copy() for k, v in self.carried.items()}}
        if self.play_order is not None:
            state["play_order"] = self.play_order.order.copy()
        return state

    def set_state(self, state: dict) -> None:
        """Continue from :meth:`get_state`; the arrays are copied, so the state may be read-only or reused."""
        self.engine.set_state(state["engine"])
        self.obs, self.mask = np.array(state["obs"]), np.array(state["mask"])
        self.seating = np.array(state["seating"])
        for key, mine in self.carried.items():
            saved = np.asarray(state["carried"][key])
            if saved.shape != mine.shape:
                raise ValueError(f"carried {key!r} has shape {list(saved.shape)}, expected {list(mine.shape)}")
            self.carried[key] = saved.astype(mine.dtype)
        if self.play_order is not None:
            saved = np.asarray(state["play_order"])
            if saved.shape != self.play_order.order.shape:
                raise ValueError(f"play_order has shape {list(saved.shape)}, expected {list(self.play_order.order.shape)}")
            self.play_order.order = saved.astype(np.int8)
