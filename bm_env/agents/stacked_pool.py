"""Several policy networks as one batched network, so that a step costs one forward pass for all of them.

The trainer's snapshot pool (:mod:`bm_env.training.rollout`) and a pool of checkpoints playing the
opponents of :func:`bm_env.learner.make_vector_env` both use it. In a pool deal every seat but one is a snapshot, so at each step of a rollout the acting
rows of the pool deals are split among up to ``pool_size`` snapshots, a few dozen rows
each. One small forward pass per snapshot and step cost more than the current policy's own
pass: with the default config's full pool of 8 they took the rollout's forward passes from
about a quarter of a training update's time to about a half (``bm-bench --only training``,
docs/training.md#speed). Here each layer's weights of the K snapshots are stacked into one
``[K, in, out]`` tensor, the step's rows are placed in a ``[K, rows, in]`` block padded to the
busiest snapshot's count (rounded up to a multiple of 8, so that few shapes occur), and each layer is one batched
matrix product.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from .checkpoint import PolicyNet


class StackedPool:
    """Snapshots of one architecture, evaluated together; built once per rollout (the pool is fixed during one)."""

    def __init__(self, pool: list[PolicyNet], precision: str) -> None:
        """``precision``: the precision of the forward passes, ``fp32`` or ``bf16`` (the trainer resolves its
        setting with :mod:`bm_env.training.precision`)."""
        archs = {repr(net.arch) for net in pool}
        if len(archs) > 1:
            raise ValueError("the snapshots of a pool must share one architecture, got " + ", ".join(sorted(archs)))
        self.size = len(pool)
        self.dtype = torch.bfloat16 if precision == "bf16" else torch.float32
        layers = [[m for m in net.body if isinstance(m, nn.Linear)] for net in pool]
        self.weights = [torch.stack([lin.weight.detach().T for lin in layer]).to(self.dtype) for layer in zip(*layers)]
        self.biases = [torch.stack([lin.bias.detach() for lin in layer])[:, None, :].to(self.dtype)
                       for layer in zip(*layers)]

    def logits(self, x: torch.Tensor, snapshot: np.ndarray) -> torch.Tensor:
        """float32 logits of observation rows ``x`` (``[R, L]``), row ``i`` by snapshot ``snapshot[i]``."""
        K, R = self.size, len(snapshot)
        order = np.argsort(snapshot, kind="stable")
        counts = np.bincount(snapshot, minlength=K)
        width = -(-int(counts.max()) // 8) * 8  # few distinct shapes (bm_env.training.precision.padded says why)
        # Row order[j] goes to slot (snapshot, its rank among that snapshot's rows) of the padded block.
        rank = np.arange(R) - np.repeat(np.cumsum(counts) - counts, counts)
        slot = torch.from_numpy(snapshot[order] * width + rank).to(x.device)
        rows = torch.from_numpy(order).to(x.device)
        h = x.new_zeros((K * width, x.shape[1]), dtype=self.dtype)
        h[slot] = x[rows].to(self.dtype)
        h = h.view(K, width, -1)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = torch.baddbmm(b, h, w)
            if i < last:
                h = torch.relu(h)
        out = torch.empty((R, h.shape[2]), dtype=torch.float32, device=x.device)
        out[rows] = h.reshape(K * width, -1)[slot].float()
        return out
