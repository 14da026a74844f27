"""A player driven by a trained network: observation vector in, masked logits out.

Illegal actions get the dtype's lowest logit (not ``-inf``, which turns a softmax into
NaN); the action is the best legal logit (``greedy``) or a draw from the masked softmax
with the agent's own seeded generator. ``act_batch`` serves the vector engine.
:meth:`PolicyAgent.explain` gives the masked softmax of the last ``act`` (game records
carry it for the replay; :mod:`bm_env.engine.thoughts`).
"""

from __future__ import annotations

import numpy as np
import torch

from ..engine.infostate import InfoState
from ..engine.rules import Rules
from ..engine.thoughts import Thought
from .checkpoint import load_checkpoint, masked_logits
from .sparse_forward import SparseForward


class PolicyAgent:
    """The agent ``policy:PATH``: the play checkpoint at ``path`` for ``rules``, greedy or sampling."""

    needs_observation = True

    def __init__(self, path: str, rules: Rules, greedy: bool = True, seed: int | None = None) -> None:
        self.net, self.meta = load_checkpoint(path, rules)
        self._forward = SparseForward(self.net)
        self.greedy = greedy
        self.path = path
        self.name = f"policy({path},{'greedy' if greedy else 'sampled'})"
        self.rng = np.random.default_rng(seed)
        self._last: Thought | None = None

    def reset(self, seed: int | None = None) -> None:
        """Reseed the sampling generator with ``seed`` and forget the last probabilities."""
        self.rng = np.random.default_rng(seed)
        self._last = None

    def act(self, observation: np.ndarray, mask: np.ndarray, info: InfoState | None = None) -> int:
        """The network's action for one observation: the likeliest legal one when greedy, else one drawn
        from the masked softmax; ``info`` is not read. Raises ValueError without an observation, or when
        ``mask`` has no legal action."""
        if observation is None:
            raise ValueError("the policy agent needs the observation vector (it declares needs_observation)")
        masks = np.asarray(mask)[None]
        logits = self._masked_logits(observation[None], masks)
        probs = torch.softmax(logits, dim=1)[0].numpy()
        self._last = Thought("probability", {int(a): float(probs[a]) for a in np.flatnonzero(masks[0])})
        return int(self._choose(logits, masks)[0])

    def explain(self) -> Thought | None:
        """The masked softmax probabilities of the legal actions at the last ``act``."""
        return self._last

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row: ``observations`` ``[batch, obs]``, ``masks`` ``[batch, actions]``."""
        masks = np.asarray(masks)
        return self._choose(self._masked_logits(observations, masks), masks)

    def _masked_logits(self, observations: np.ndarray, masks: np.ndarray) -> torch.Tensor:
        if (masks.sum(axis=1) == 0).any():
            raise ValueError("a row of the mask batch has no legal action")
        return masked_logits(self._forward(np.asarray(observations)), torch.as_tensor(masks != 0))

    def _choose(self, logits: torch.Tensor, masks: np.ndarray) -> np.ndarray:
        return choose_actions(logits, masks, self.greedy, self.rng)


def choose_actions(logits: torch.Tensor, masks: np.ndarray, greedy: bool, rng: np.random.Generator) -> np.ndarray:
    """The best legal logit (greedy) or a draw from the masked softmax with ``rng``, per row of masked ``logits``."""
    if greedy:
        return logits.argmax(dim=1).numpy()
    probs = torch.softmax(logits, dim=1).numpy().astype(np.float64)
    probs *= masks != 0
    probs /= probs.sum(axis=1, keepdims=True)
    u = rng.random(len(probs))[:, None]
    picks = (probs.cumsum(axis=1) < u).sum(axis=1)
    # Rounding can leave the cumulative sum just under u: fall back to the last legal action.
    last_legal = masks.shape[1] - 1 - np.argmax((masks != 0)[:, ::-1], axis=1)
    return np.minimum(picks, last_legal)
