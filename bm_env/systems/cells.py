"""How a number is written into the int8 observation: two cells, ``coarse = v >> 5`` and
``fine = v & 31``, so ``v = 32 * coarse + fine`` exactly for any ``|v| < 4096``.

The observation (:mod:`bm_env.env.observation`) and the rule systems' observation parts write
their numbers this way; it sits here, beside the systems, so that they can.
"""

from __future__ import annotations

import numpy as np

NUMBER_SHIFT = 5


def split_number(v: int) -> tuple[int, int]:
    """The two cells of a number that can exceed the int8 range: ``(v >> 5, v & 31)``."""
    return v >> NUMBER_SHIFT, v & ((1 << NUMBER_SHIFT) - 1)


def join_number(coarse: int, fine: int) -> int:
    """The number two cells hold: the inverse of :func:`split_number`."""
    return (int(coarse) << NUMBER_SHIFT) + int(fine)


def put_number(vec: np.ndarray, part: slice, index: int, v: int) -> None:
    """Write ``v`` as the ``index``-th number (two cells) of the part at ``part``."""
    coarse, fine = split_number(v)
    vec[part.start + 2 * index] = coarse
    vec[part.start + 2 * index + 1] = fine


#: What the int8 observation can hold: a rule value in one cell (card values, the clean-trick bonus),
#: points and totals in two cells (at most 4095 either way).
CELL_RANGE = (-128, 127)
NUMBER_LIMIT = 4095
