"""Mixed precision: bf16 matrix products where the hardware has units for them.

On a CPU with bf16 units (AMX tiles: Intel Sapphire Rapids and later; AVX-512 BF16: AMD
Zen 4 and later, Intel Cooper Lake) or a CUDA device, running the networks' forward passes
under ``torch.autocast`` with bfloat16 makes training faster end to end (measured with
``bm-bench --only training``: 1.6 times on a Sapphire Rapids machine, 1.6 to 2.2 times on
an AMD EPYC with AVX-512 BF16); weights, optimiser state, losses and gradients stay float32.
Elsewhere ``auto`` keeps float32: without those units bf16 products are converted in
software. The play checkpoint is float32 either way.
"""

from __future__ import annotations

import contextlib

import torch

PRECISIONS = ("auto", "fp32", "bf16")
# torch.cpu's probes of the CPU's bf16 units; a torch without one cannot tell, and gets fp32.
BF16_UNITS = ("_is_amx_tile_supported", "_is_avx512_bf16_supported")


def resolve(precision: str, device: torch.device) -> str:
    """``fp32`` or ``bf16`` for ``precision`` on ``device`` (``auto``: bf16 where it is fast)."""
    if precision != "auto":
        return precision
    if device.type == "cuda":
        return "bf16" if torch.cuda.is_bf16_supported() else "fp32"
    return "bf16" if any(_cpu_has(unit) for unit in BF16_UNITS) else "fp32"


def _cpu_has(unit: str) -> bool:
    probe = getattr(torch.cpu, unit, None)
    return probe is not None and bool(probe())


def autocast(precision: str, device: torch.device):
    """The context the forward passes run in for a resolved ``precision``."""
    if precision == "bf16":
        return torch.autocast(device.type, dtype=torch.bfloat16)
    return contextlib.nullcontext()


#: Row counts of the rollout's forward passes are rounded up to a multiple of this (:func:`padded`).
ROW_QUANTUM = 64


def padded(rows: int, quantum: int = ROW_QUANTUM) -> int:
    """``rows`` rounded up to a multiple of ``quantum``: the row count a forward pass of ``rows`` rows is run with.

    oneDNN builds a bf16 kernel for every new input shape (about 2.5 ms per layer on a
    Sapphire Rapids core pair, where a pass of a few hundred rows takes 0.5 ms for the whole
    network) and keeps a bounded cache of them, while the rows of the current policy and of
    each snapshot change from step to step. Rounded up, the shapes are few and stay cached:
    docs/training.md#speed. fp32 kernels show no such cost; the padding is kept for them
    too, so that both precisions take one path.
    """
    return -(-rows // quantum) * quantum


def flush_subnormals() -> None:
    """Flush float32 subnormals to zero in this process, as ``bm-train`` and ``bm-bench`` do first.

    Adam's moments of rarely active inputs decay into the subnormal range over a long run, and
    x86 arithmetic on subnormals is slow: by update 3,786 of the shipped config 305,388 of the
    moments were subnormal and the update took 1.2 s against 0.9-1.0 s with them flushed
    (docs/training.md#speed). Flushed values are below 1.2e-38. It is a setting of the process,
    so the library's classes leave it alone and the commands that own their process make it:
    call this before the first torch operation (torch's worker threads take the setting from
    the thread that starts them) to train as fast from Python.
    """
    torch.set_flush_denormal(True)

