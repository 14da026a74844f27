"""Per-seat trajectories in a turn-based batch, and their GAE advantages.

The vector engine steps every game once per step, but the seat that acts changes from step
to step, so one row of the rollout is not one trajectory. A trajectory is the decisions of
one seat of one game within one deal, in time order; its reward is that seat's deal-end
reward, put on the seat's *own last decision* of the deal (not on the step where the deal
happened to end, which is usually another seat's), and nothing is bootstrapped across a
deal boundary (the pitfalls DouZero and RLCard's DMC avoid by keeping one buffer per seat).

A seat's latest decision of a deal still on when the rollout ends has no successor yet:
it is *carried* into the next rollout (its data kept by the caller) and trained there,
once the seat has acted again or the deal has ended. The decisions before it bootstrap
from its value, as PPO does at the end of any rollout.

Entries live in one flat index space: the ``N * n`` carried entries first (game-major,
``g * n + seat``), then the ``T * N`` steps (step-major, ``t * N + g``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class SeatTargets:
    """Advantages and returns over the flat entry space (see the module docstring)."""

    advantages: np.ndarray  # [N*n + T*N] float32 (0 where not trainable)
    returns: np.ndarray  # [N*n + T*N] float32
    trainable: np.ndarray  # [N*n + T*N] bool: a learner decision whose targets are known now
    carry: np.ndarray  # [N, n] entry index of the decision to carry into the next rollout, -1 for none


def _deal_end_steps(done: np.ndarray) -> np.ndarray:
    """``[N, K]``: the step at which each game's k-th deal of the rollout ended (``done [T, N]``)."""
    N = done.shape[1]
    done_game, done_step = np.nonzero(done.T)  # sorted by game, then step
    first = np.searchsorted(done_game, np.arange(N))
    k = np.arange(done_game.size) - first[done_game]
    end_step = np.zeros((N, max(int(k.max()) + 1, 1) if k.size else 1), dtype=np.int64)
    end_step[done_game, k] = done_step
    return end_step


def _gae(delta: np.ndarray, same: np.ndarray, decay: float) -> np.ndarray:
    """GAE advantages of entries laid out trajectory by trajectory in time order.

    ``same[i]``: entry ``i + 1`` continues entry ``i``'s trajectory; ``decay``: gamma * lambda.
    The recursion runs backwards one rank (position from the trajectory's start) at a time,
    vectorised over every trajectory.
    """
    m = delta.size
    pos = np.arange(m)
    start = np.ones(m, dtype=bool)
    start[1:] = ~same[:-1]
    rank = pos - np.maximum.accumulate(np.where(start, pos, 0))
    adv = np.zeros(m)
    for r in range(int(rank.max()) if m else -1, -1, -1):
        at = pos[rank == r]
        follow = same[at]
        adv[at] = delta[at]
        adv[at[follow]] += decay * adv[at[follow] + 1]
    return adv


def seat_targets(seat: np.ndarray, learner: np.ndarray, done: np.ndarray, rewards: np.ndarray,
                 values: np.ndarray, carried: np.ndarray, carried_values: np.ndarray,
                 gamma: float, lam: float) -> SeatTargets:
    """Targets for one rollout of ``T`` steps of ``N`` games with ``n`` seats.

    ``seat [T, N]``: the seat that acted; ``learner [T, N]``: whether that decision is to be
    trained (the current policy made it); ``done [T, N]``: the game's deal ended with that
    step; ``rewards [T, N, n]``: deal-end rewards by seat, read only where ``done``;
    ``values [T, N]``: the critic's values of the decisions; ``carried [N, n]`` and
    ``carried_values [N, n]``: the carried decisions of the previous rollout (they belong
    to the deal each game was playing when this rollout began).
    """
    T, N = seat.shape
    n = rewards.shape[2]
    P = N * n
    game = np.concatenate([np.repeat(np.arange(N), n), np.tile(np.arange(N), T)])
    who = np.concatenate([np.tile(np.arange(n), N), seat.reshape(-1)])
    time = np.concatenate([np.full(P, -1), np.repeat(np.arange(T), N)])
    ended_before = np.cumsum(done, axis=0) - done  # deals of the game that ended before step t
    deal = np.concatenate([np.zeros(P, dtype=np.int64), ended_before.reshape(-1)])
    value = np.concatenate([carried_values.reshape(-1), values.reshape(-1)]).astype(np.float64)
    valid = np.concatenate([carried.reshape(-1), learner.reshape(-1)])

    idx = np.flatnonzero(valid)
    order = idx[np.lexsort((time[idx], who[idx], game[idx]))]  # trajectories together, in time order
    g, s, d, v = game[order], who[order], deal[order], value[order]
    m = order.size
    # same[i]: entry i+1 is the same seat's next decision in the same deal.
    same = np.zeros(m, dtype=bool)
    same[:-1] = (g[1:] == g[:-1]) & (s[1:] == s[:-1]) & (d[1:] == d[:-1])
    ended = d < done.sum(axis=0)[g]  # the entry's deal ended within this rollout
    terminal = ended & ~same  # the seat's last decision of a finished deal: it gets the reward
    open_ = ~ended & ~same  # the seat's latest decision of a deal still on: carried

    end_step = _deal_end_steps(done)
    reward = np.zeros(m)
    tg, ts, td = g[terminal], s[terminal], d[terminal]
    reward[terminal] = rewards[end_step[tg, td], tg, ts]
    next_value = np.zeros(m)
    next_value[:-1] = np.where(same[:-1], v[1:], 0.0)
    delta = reward + gamma * next_value - v
    delta[open_] = 0.0  # its own target waits for the next rollout; the decisions before bootstrap from v

    adv = _gae(delta, same, gamma * lam)
    size = P + T * N
    advantages = np.zeros(size, dtype=np.float32)
    returns = np.zeros(size, dtype=np.float32)
    trainable = np.zeros(size, dtype=bool)
    keep = order[~open_]
    advantages[keep] = adv[~open_]
    returns[keep] = adv[~open_] + v[~open_]
    trainable[keep] = True
    carry = np.full((N, n), -1, dtype=np.int64)
    carry[g[open_], s[open_]] = order[open_]
    return SeatTargets(advantages, returns, trainable, carry)
