"""The uniform random player: the floor every other agent must beat.

It draws from its own seeded :class:`numpy.random.Generator`, so an evaluation that
reseeds it per game is reproducible whatever the number of workers.
"""

from __future__ import annotations

import numpy as np

from ..engine.infostate import InfoState


class RandomAgent:
    """Uniform over the legal actions."""

    needs_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random"
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the generator with ``seed`` (None: fresh entropy)."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray | None, mask: np.ndarray, info: InfoState | None = None) -> int:
        """A legal action drawn uniformly from ``mask``; ``observation`` and ``info`` are not read.

        Raises ValueError when the mask has no legal action.
        """
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("the mask has no legal action; an agent is only asked to act when one exists")
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, observations: np.ndarray | None, masks: np.ndarray) -> np.ndarray:
        """One uniform legal action per row of ``masks`` (shape ``[batch, actions]``)."""
        masks = np.asarray(masks)
        counts = masks.sum(axis=1)
        if (counts == 0).any():
            raise ValueError(f"rows {np.flatnonzero(counts == 0).tolist()} of the mask batch have no legal action")
        # The k-th legal action of each row, k uniform in 0..count-1.
        k = (self.rng.random(len(masks)) * counts).astype(np.int64)
        cum = np.cumsum(masks != 0, axis=1)
        return np.argmax(cum > k[:, None], axis=1)
