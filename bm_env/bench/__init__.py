"""Benchmarks run by ``bm-bench``: a list of sections, each a module with ``run(quick) -> rows``.

A row is a dict with ``name`` (what was measured), ``value`` (a number, or None when it
could not be measured), ``unit`` (e.g. "deals/s", "decisions/s", "MB", "ratio") and ``note``
(how it was measured: the loop, the chooser); other keys are kept in the JSON output.
``quick=True`` must keep a section to a few seconds.

To add a section, write ``bm_env/bench/<name>.py`` with such a ``run`` and add a
:class:`Section` to :data:`SECTIONS`. Sections are imported only when run, so one whose
dependencies are missing does not stop the others.
"""

from __future__ import annotations

import importlib
import statistics
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Section:
    """One benchmark of ``bm-bench``: its name for ``--only``, the module that runs it, a line for ``--list``."""

    name: str  # what --only selects
    module: str  # module holding ``run(quick: bool) -> list[dict]``
    about: str  # one line for --list

    def runner(self) -> Callable[[bool], list[dict]]:
        """The section's ``run(quick)``, its module imported only now: a benchmark's dependencies load only
        when it runs."""
        return importlib.import_module(self.module).run


#: Every benchmark, in the order ``bm-bench`` runs them.
SECTIONS: tuple[Section, ...] = (
    Section("engine", "bm_env.bench.engine", "reference engine: random-play deals/s for every preset"),
    Section("openspiel", "bm_env.bench.openspiel", "OpenSpiel's C++ hearts via pyspiel: deals/s, and the engine's ratio to it"),
    Section("env", "bm_env.bench.env", "PettingZoo env: decisions/s with observation and mask, against OpenSpiel"),
    Section("agents", "bm_env.bench.agents", "rule-based players as pimc playouts (decisions/s), a pimc and a guided-search decision (ms), the batched search (decisions/s)"),
    Section("vector", "bm_env.bench.vector", "vector engine: decisions/s at batch sizes, peak memory"),
    Section("vector_env", "bm_env.bench.vector_env", "make_vector_env: learner steps/s against the engine and SingleAgentEnv, shipped-agent opponents"),
    Section("training", "bm_env.training.bench", "bm-train: decisions/s end to end (rollout and PPO update), time shares"),
)


#: Rules the presets do not show, timed beside every preset at its default player count:
#: American Hearts with Pagat's kitty for 3 and 5 players (to the first trick's taker).
KITTY_TABLES = ((3, {"kitty": "first_trick"}), (5, {"kitty": "first_trick"}))


def rounds_row(rates: list[tuple[float, float]]) -> dict:
    """The row keys of a rate measured in rounds, from each round's ``(wall, cpu)`` rate.

    ``value`` and ``wall`` are the medians, so one round disturbed by other work on the
    machine does not move them; ``rounds`` keeps every round's CPU rate for the JSON, and
    ``spread`` is a note fragment naming the count and the range (empty for one round).
    """
    cpu = sorted(c for _, c in rates)
    spread = f"median of {len(cpu)} rounds ({cpu[0]:,.0f}-{cpu[-1]:,.0f})" if len(cpu) > 1 else ""
    return {"value": round(statistics.median(cpu)), "wall": round(statistics.median(w for w, _ in rates)),
            "rounds": [round(c) for _, c in rates], "spread": spread}


def section(name: str) -> Section:
    """The section ``--only`` calls ``name``; KeyError naming every section for any other name."""
    for s in SECTIONS:
        if s.name == name:
            return s
    raise KeyError(f"unknown benchmark section {name!r}; sections: {[s.name for s in SECTIONS]}")


__all__ = ["Section", "SECTIONS", "KITTY_TABLES", "rounds_row", "section"]
