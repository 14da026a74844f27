"""The one constructor of the vector engine: the engine class the rules need, built.

:class:`~bm_env.vector.engine.VectorEngine` plays the classic rules on the fastest path;
:class:`~bm_env.vector.extended.ExtendedEngine`, its subclass, plays the rules with extension
systems in use (charging, kitties, two decks and the rest), calling their kernels, with their
decision ids. Callers that may be given any rules build through :func:`make_engine` rather than choosing.
"""

from __future__ import annotations

from ..engine.rules import Rules
from .engine import VectorEngine
from .extended import ExtendedEngine
from .kernel import systems_with_kernels
from .support import check_supported


def make_engine(rules: Rules, batch_size: int, reward: str = "score", normalise: bool = False,
                seed: int | None = None, final_observations: bool = False) -> VectorEngine:
    """``batch_size`` games of ``rules`` on the vector engine: an :class:`~bm_env.vector.extended.ExtendedEngine`
    where a rule system with a vector kernel is in use, else a :class:`~bm_env.vector.engine.VectorEngine`; the
    arguments are :class:`~bm_env.vector.engine.VectorEngine`'s. Raises :class:`~bm_env.vector.UnsupportedRulesError`
    for rules it does not play."""
    check_supported(rules)  # first: rules that are not a Rules at all are refused here
    engine = ExtendedEngine if systems_with_kernels(rules) else VectorEngine
    return engine(rules, batch_size, reward, normalise, seed, final_observations)
