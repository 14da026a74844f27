"""How big a policy network may be, checked before any network is built.

A config's widths and a checkpoint's recorded architecture are read before torch allocates
anything: ``hidden: [10000000]`` or a checkpoint whose ``arch`` claims ``[20000, 20000]``
would otherwise take gigabytes before any other check could refuse them. The bounds are
far above any network this project trains (``[256, 256]``: about 250,000 parameters).
Torch-free, so that configs are checked without importing torch.
"""

from __future__ import annotations

from typing import Any, Sequence

MAX_WIDTH = 8192  # units in one hidden layer
MAX_LAYERS = 16  # hidden layers
MAX_PARAMETERS = 50_000_000  # weights and biases of one network: 200 MB in float32


def mlp_shapes(in_size: int, hidden: Sequence[int], out_size: int) -> dict[str, tuple[int, ...]]:
    """The state-dict shapes of :func:`bm_env.agents.checkpoint.mlp` (``body.0.weight`` ...), layer by layer."""
    shapes: dict[str, tuple[int, ...]] = {}
    width = in_size
    for i, h in enumerate([*hidden, out_size]):
        shapes[f"body.{2 * i}.weight"] = (h, width)
        shapes[f"body.{2 * i}.bias"] = (h,)
        width = h
    return shapes


def widths_problem(hidden: Any, in_size: int = 0, out_size: int = 0) -> str | None:
    """What is wrong with ``hidden`` as the widths of a network's hidden layers, or None.

    The parameters counted are those of ``in_size`` inputs, the hidden layers and
    ``out_size`` outputs (0 and 0: the hidden layers alone, for a config that does not yet
    know its observation size).
    """
    ok = isinstance(hidden, (list, tuple)) and 1 <= len(hidden) <= MAX_LAYERS and all(
        isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= MAX_WIDTH for h in hidden)
    if not ok:
        return (f"must be a list of 1 to {MAX_LAYERS} widths, each a whole number from 1 to {MAX_WIDTH}, "
                f"got {hidden!r}")
    shapes = mlp_shapes(in_size, hidden, out_size) if in_size else mlp_shapes(hidden[0], hidden[1:], 0)
    count = sum(_product(s) for s in shapes.values())
    if count > MAX_PARAMETERS:
        return f"must give a network of at most {MAX_PARAMETERS:,} parameters; {list(hidden)} gives {count:,}"
    return None


def _product(shape: tuple[int, ...]) -> int:
    out = 1
    for n in shape:
        out *= n
    return out
