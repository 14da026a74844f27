"""``bitwise_count``: the set bits of each element, numpy's ufunc where it has one (2.0+), a byte table before.

The vector engine counts cards in uint64 bit masks on every step. numpy 1.x has no
``bitwise_count``, and pyproject.toml still admits numpy 1.24 because torch before 2.3 runs
only with numpy 1.x. There :func:`table_bitwise_count` gives the same counts (uint8, same
shape) from a 256-entry table over each element's bytes: slower, for unsigned integers
only, which is all the engine and the soak checks count.
"""

from __future__ import annotations

import numpy as np

_BYTE_BITS = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)


def table_bitwise_count(x):
    """``np.bitwise_count`` for unsigned integers without the ufunc: the set bits of each element, as uint8."""
    a = np.asarray(x)
    if a.dtype.kind != "u":
        raise TypeError(f"table_bitwise_count counts unsigned integers, got {a.dtype}")
    octets = np.ascontiguousarray(a).view(np.uint8).reshape(a.shape + (a.itemsize,))
    return _BYTE_BITS[octets].sum(axis=-1, dtype=np.uint8)[()]  # [()]: a scalar for a scalar, as the ufunc


bitwise_count = getattr(np, "bitwise_count", table_bitwise_count)
