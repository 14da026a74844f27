"""A fixed network's forward pass on int8 observation rows, its first layer summed over the cells that are set.

An observation is mostly zeros (about 70 of the 696 cells at three players), so the first
layer, two thirds of the shipped networks' arithmetic as a dense product, is here the sum of the weight
rows of the set cells, each times its cell's value (``embedding_bag``), and the int8 rows are
never converted to float as a whole. The result is the dense product's up to rounding. Both
the policy agent (one row in a game, thousands in ``make_vector_env``) and the search's
playouts take their logits from it.
"""

from __future__ import annotations

import numpy as np
import torch


class SparseForward:
    """The logits of a network (linear layer first) on int8 rows. The first layer's weights are copied, transposed,
    when this is built; a network that changes afterwards (one still training) needs :meth:`refresh` first."""

    def __init__(self, net: torch.nn.Module) -> None:
        body = net.body
        self.first, self.rest = body[0], body[1:]  # the first linear layer, then the others
        self.refresh()

    def refresh(self) -> None:
        """Copy the first layer's weights again, ``[observation cells, width]``, as the network has them now."""
        self.weight = self.first.weight.detach().T.contiguous()

    @torch.inference_mode()
    def __call__(self, observations: np.ndarray) -> torch.Tensor:
        """float32 logits ``[rows, actions]`` of ``observations`` ``[rows, cells]`` (int8, or any numbers)."""
        obs = np.ascontiguousarray(observations)
        rows, width = obs.shape
        flat = obs.reshape(-1)
        cells = np.flatnonzero(flat != 0)
        row = cells // width
        starts = np.searchsorted(row, np.arange(rows))
        h = torch.nn.functional.embedding_bag(torch.from_numpy(cells - row * width), self.weight,
                                              torch.from_numpy(starts), mode="sum",
                                              per_sample_weights=torch.from_numpy(flat[cells].astype(np.float32)))
        return self.rest(h.add_(self.first.bias))
