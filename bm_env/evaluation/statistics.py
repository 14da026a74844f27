"""Confidence intervals over boards and a Bradley-Terry fit for league ratings.

Intervals are computed over boards, not games: the games of one board share its cards,
so they are not independent, while boards are. Student's t quantile comes from a table up
to 30 degrees of freedom and a series expansion beyond (error below 1e-4 there), to need
nothing beyond numpy.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

_Z975 = 1.959963984540054
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def signed(x: float) -> str:
    """``x`` to two decimals with its sign, a value that rounds to zero written ``+0.00`` (never ``-0.00``)."""
    text = f"{x:+.2f}"
    return "+0.00" if text == "-0.00" else text


def t975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (table, then Cornish-Fisher series)."""
    if df < 1:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (inf for fewer than two values)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan, math.inf
    if x.size < 2:
        return float(x.mean()), math.inf
    return float(x.mean()), float(t975(x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))


def bradley_terry(wins: np.ndarray, iterations: int = 2000, prior: float = 0.5) -> np.ndarray:
    """Strengths ``p`` with ``P(i beats j) = p_i / (p_i + p_j)`` fitted to ``wins[i, j]``.

    ``wins[i, j]`` counts i's wins over j (ties as halves). ``prior`` adds that many wins
    each way to every pair that met, so an agent that won every comparison still gets a
    finite strength. Hunter's MM algorithm; strengths are scaled to a geometric mean of 1.
    """
    w = np.asarray(wins, dtype=float).copy()
    k = len(w)
    games = w + w.T
    met = games > 0
    w = w + prior * met
    games = w + w.T
    p = np.ones(k)
    for _ in range(iterations):
        denom = np.array([sum(games[i, j] / (p[i] + p[j]) for j in range(k) if j != i and games[i, j]) for i in range(k)])
        total = w.sum(axis=1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1), p)
        new /= math.exp(np.log(new).mean())
        if np.allclose(new, p, rtol=1e-10, atol=0):
            p = new
            break
        p = new
    return p


def elo_ratings(strengths: np.ndarray, base: float = 1500.0) -> np.ndarray:
    """Bradley-Terry strengths on the Elo scale: 400 points = 10:1 odds."""
    return base + 400.0 * np.log10(strengths)
