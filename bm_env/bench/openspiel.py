"""Benchmark of OpenSpiel's C++ ``hearts`` through ``pyspiel``: random-play deals per second.

The loop is the engine benchmark's (:mod:`bm_env.bench.engine`): at every node, player or
chance, ``random.Random(seed).randrange`` picks an index into ``state.legal_actions()``.
OpenSpiel's chance outcomes in hearts (the pass direction, then each card dealt) are
uniform, so this samples them as the game does. A game of ``hearts`` is one deal. Rates
are per CPU-second of this process, as in the engine benchmark. The
reference engine's ``openspiel_hearts`` preset (the same rules) is timed right after, and
the ratio of the two is reported. Without ``pyspiel`` the rows say "not installed".
"""

from __future__ import annotations

import random

from .engine import deals_per_second, time_deals

CHOOSER = "random.Random(seed).randrange over legal_actions(), chance nodes included; one core, per CPU-second"


def openspiel_deals_per_second(seconds: float = 1.0, seed: int = 0, min_deals: int = 20) -> dict[str, float] | None:
    """Random-play games of pyspiel ``hearts`` for about ``seconds`` of CPU time; None without pyspiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")
    randrange = random.Random(seed).randrange

    def play_deal() -> int:
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if not state.is_chance_node():
                decisions += 1
            legal = state.legal_actions()
            state.apply_action(legal[randrange(len(legal))])
        return decisions

    return time_deals(play_deal, seconds, min_deals)


def run(quick: bool) -> list[dict]:
    """Rows for ``bm-bench``: OpenSpiel's deals/s, and the reference engine's openspiel_hearts against it."""
    seconds = 1.0 if quick else 5.0
    theirs = openspiel_deals_per_second(seconds=seconds)
    if theirs is None:
        return [{"name": "openspiel hearts 4p (pyspiel C++)", "value": None, "unit": "deals/s",
                 "note": "not installed (pip install 'black-maria[openspiel]')"}]
    ours = deals_per_second("openspiel_hearts", 4, seconds=seconds)
    return [
        {"name": "openspiel hearts 4p (pyspiel C++), plain", "value": round(theirs["deals_per_s"]), "unit": "deals/s",
         "note": f"{theirs['us_per_decision']:.1f} µs/decision; {CHOOSER}", "deals": theirs["deals"],
         "wall": round(theirs["wall_deals_per_s"]), "ref": "openspiel_deals"},
        {"name": "openspiel hearts 4p (pyspiel C++), plain", "value": round(theirs["decisions_per_s"]),
         "unit": "decisions/s", "note": f"the same run; {CHOOSER}",
         "wall": round(theirs["decisions_per_s"] * theirs["wall_deals_per_s"] / theirs["deals_per_s"]),
         "ref": "openspiel_plain"},
        {"name": "engine openspiel_hearts 4p, same loop", "value": round(ours["deals_per_s"]), "unit": "deals/s",
         "note": f"{ours['decisions_per_s']:,.0f} decisions/s; timed right after OpenSpiel", "deals": ours["deals"],
         "wall": round(ours["wall_deals_per_s"]), "vs": "openspiel_deals"},
    ]


if __name__ == "__main__":
    for row in run(quick=False):
        print(f"{row['name']:40s} {row['value']!s:>10} {row['unit']}  ({row['note']})")
