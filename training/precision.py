"""Mixed precision: bf16 matrix products where the hardware has units for them.

On a CPU with AMX tiles (Intel Sapphire Rapids and later) or a CUDA device, running the
networks' forward passes under ``torch.autocast`` with bfloat16 makes the PPO update, most
of a training run's time, about twice as fast; weights, optimiser state, losses and
gradients stay float32. Elsewhere (no AMX) bf16 on a CPU is emulated and slower, so
``auto`` keeps float32 there. The play checkpoint is float32 either way.
"""

from __future__ import annotations

import contextlib

import torch

PRECISIONS = ("auto", "fp32", "bf16")


def resolve(precision: str, device: torch.device) -> str:
    """``fp32`` or ``bf16`` for ``precision`` on ``device`` (``auto``: bf16 where it is fast)."""
    if precision != "auto":
        return precision
    if device.type == "cuda":
        return "bf16" if torch.cuda.is_bf16_supported() else "fp32"
    amx = getattr(torch.cpu, "_is_amx_tile_supported", None)  # torch >= 2.3; older: no way to tell, fp32
    return "bf16" if amx is not None and amx() else "fp32"


def autocast(precision: str, device: torch.device):
    """The context the forward passes run in for a resolved ``precision``."""
    if precision == "bf16":
        return torch.autocast(device.type, dtype=torch.bfloat16)
    return contextlib.nullcontext()
