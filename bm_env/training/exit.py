"""Expert iteration: the batched search labels some of a rollout's decisions, and the update pulls the policy to it.

With ``exit_share > 0`` the trainer draws, after each rollout, that share of the rollout's trainable
play decisions (passes and single legal cards are never drawn), rebuilds their information states
(:mod:`bm_env.training.play_order`) and searches them with :class:`~bm_env.agents.search.SearchAgent`,
``exit_worlds`` worlds each, the *current* policy playing every seat of the playouts (a CPU copy of
it, its weights loaded before each labelling). The targets (:func:`search_targets`) are the softmax
of the search's per-card values at ``exit_temperature`` (``soft``), or the one-hot of the card it
chose (``choice``: the best mean unless the policy's own card is within ``override_z`` standard
errors). :func:`~bm_env.training.ppo.update` adds ``exit_coef`` times their cross-entropy with the
policy's masked softmax to the PPO loss; the value head learns from PPO's returns alone.

Every random draw (which decisions, the search's worlds) comes from the trainer's numpy generator,
so a stopped and resumed run labels as an uninterrupted one does. With ``bm-train --ray`` each
rollout actor labels its own games' decisions, with its own generator and its copy of the
broadcast policy, and returns the labels with its rollout (:func:`join_labels`); the driver only
trains.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass

import numpy as np
import torch

from bm_env.agents.checkpoint import PolicyNet
from bm_env.agents.search import Searched, SearchAgent
from bm_env.engine.rules import Rules

from .config import EXIT_TARGETS
from .play_order import info_states
from .rollout import Rollout


def search_targets(found: Searched, kind: str, temperature: float) -> np.ndarray:
    """``[B, A]`` float32 targets, each row summing to 1 over the decision's legal actions and 0 elsewhere.

    ``soft``: ``softmax(values / temperature)`` over the legal actions (those with a value); ``choice``: 1 on
    the search's chosen action. Every row must have been searched (no NaN row: not a pass or a single card).
    """
    values = found.values
    if kind == "choice":
        out = np.zeros(values.shape, dtype=np.float32)
        out[np.arange(len(values)), found.choices] = 1.0
        return out
    if kind != "soft":
        raise ValueError(f"search targets are {list(EXIT_TARGETS)}, got {kind!r}")
    legal = ~np.isnan(values)
    if not legal.any(axis=1).all():
        raise ValueError(f"decision {int(np.flatnonzero(~legal.any(axis=1))[0])} was not searched: no target")
    z = np.where(legal, values / temperature, -np.inf)
    weights = np.exp(z - z.max(axis=1, keepdims=True))  # 0 where illegal
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


@dataclass
class Labels:
    """One rollout's labelled decisions."""

    rows: np.ndarray  # [K] rows of the rollout's batch, ascending
    targets: np.ndarray  # [K, A] float32 (search_targets)
    agreement: float  # share of the rows where the policy's greedy card is the search's choice (nan: none)
    seconds: float = 0.0  # the search's wall time (of the slowest labeller, where several labelled side by side)


def join_labels(parts: list[Labels], rows_per_part: list[int]) -> Labels:
    """Several rollout actors' labels as the labels of their joined rollout (batches joined in this order)."""
    offsets = np.cumsum([0] + rows_per_part[:-1])
    rows = np.concatenate([p.rows + offset for p, offset in zip(parts, offsets)])
    counts = np.array([len(p.rows) for p in parts])
    agree = [p.agreement * n for p, n in zip(parts, counts) if n]
    return Labels(rows, np.concatenate([p.targets for p in parts]),
                  float(sum(agree) / counts.sum()) if counts.sum() else float("nan"), max(p.seconds for p in parts))


class Labeller:
    """Searches a share of each rollout's play decisions with the current policy as the guide."""

    def __init__(self, rules: Rules, actor: PolicyNet, share: float, worlds: int, kind: str,
                 temperature: float) -> None:
        """Refuses rules the search does not play (ValueError, with the reason)."""
        self.rules, self.share, self.kind, self.temperature = rules, share, kind, temperature
        self.guide = copy.deepcopy(actor).cpu().eval()  # the search runs on the CPU, whatever the actor's device
        self.search = SearchAgent(self.guide, rules, worlds=worlds)

    def candidates(self, rollout: Rollout) -> np.ndarray:
        """Rows of the rollout's batch that may be labelled: play decisions with more than one legal card."""
        several = rollout.batch.mask.sum(dim=1).cpu().numpy() > 1
        return np.flatnonzero(rollout.deals["playing"] & several)

    def label(self, rollout: Rollout, actor: PolicyNet, rng: np.random.Generator) -> Labels:
        """Draw ``share`` of the candidate rows (at least one, where there is one) and search them."""
        started = time.perf_counter()
        pool = self.candidates(rollout)
        A = rollout.batch.mask.shape[1]
        k = min(pool.size, max(1, round(self.share * pool.size)))
        if k == 0:
            return Labels(np.zeros(0, dtype=np.int64), np.zeros((0, A), dtype=np.float32), float("nan"))
        rows = np.sort(rng.choice(pool, size=k, replace=False))
        self.guide.load_state_dict(actor.state_dict())
        self.search.reset(int(rng.integers(2**63)))
        infos = info_states(self.rules, {key: value[rows] for key, value in rollout.deals.items()})
        at = torch.from_numpy(rows).to(rollout.batch.obs.device)
        found = self.search.search(infos, rollout.batch.obs[at].cpu().numpy(), rollout.batch.mask[at].cpu().numpy())
        targets = search_targets(found, self.kind, self.temperature)
        return Labels(rows, targets, float(np.mean(found.guide == found.choices)), time.perf_counter() - started)
