"""Benchmark of the agents that search: the rule-based players as playouts, and the searches.

The heuristic is the playout policy of ``pimc`` (every searched card plays deals out with
it), so its cost per decision bounds how much search fits in a second. Each deal is dealt, passed and played
to the end with every seat choosing through :func:`view_from_deal` and :func:`choose` of the
player's module, as :func:`bm_env.agents.playouts.heuristic_move` does; the engine's own
cost is included. Rates are per CPU-second of this process (see :mod:`.engine`).

A search's own cost, the time of one searched decision (:func:`search_times`), is what an
evaluation against ``pimc`` spends nearly all its time on: rows for ``pimc`` at its default
and, where the shipped agents are installed, for the shipped network's guided search (:data:`GUIDE`).
The batched search (``search``, :mod:`bm_env.agents.search`) is timed both ways: one decision
at a time as an evaluation asks it, and many at once as a trainer would
(:func:`batched_search_rate`).
"""

from __future__ import annotations

import importlib
import itertools
import sys
import time

import numpy as np

from ..agents import make_agent
from ..agents.shipped import shipped_agents
from ..engine.deal import DONE, PLAY, Deal, deal_cards, pass_direction_for
from ..engine.rules import make_rules
from ..evaluation.boards import make_boards
from ..evaluation.play import agent_action
from .engine import time_deals

TABLES = (("black_maria", 3), ("american_hearts", 4), ("petrone_black_mariah", 4))
#: The shipped network the guided search checks, by name (:mod:`bm_env.agents.shipped`).
GUIDE = "black_maria_3p"


def playout_rate(module: str, preset: str, num_players: int, seconds: float, seed: int = 0) -> dict[str, float]:
    """Deals of ``preset`` played by ``bm_env.agents.<module>`` at every seat, for about ``seconds``."""
    h = importlib.import_module(f"bm_env.agents.{module}")
    view, choose = h.view_from_deal, h.choose
    rules = make_rules(preset, num_players)
    rng = np.random.default_rng(seed)
    numbers = itertools.count()

    def play_deal() -> int:
        i = next(numbers)
        hands, kitty = deal_cards(rules, num_players, i % num_players, rng)
        deal = Deal(rules, hands, i % num_players, pass_direction_for(rules, i, rng), kitty=kitty)
        decisions = 0
        while deal.phase != DONE:
            deal.step(choose(view(deal)))
            decisions += 1
        return decisions

    return time_deals(play_deal, seconds, min_deals=5)


def search_times(spec: str, preset: str = "black_maria", deals: int = 5, seed: int = 0) -> np.ndarray:
    """Seconds of CPU time of each searched decision of ``spec`` in seat 0 against heuristic players.

    The deals are board set ``seed``'s first ``deals`` (the same for every spec); seat 0's play
    decisions with more than one legal card are timed (the seat's view built, then the choice),
    its passes and the other seats' cards are the heuristic's. One core: the process's CPU time, with a network's torch on one thread
    as in each worker of an evaluation.
    """
    rules = make_rules(preset)
    searcher, others = make_agent(spec, rules, 0), make_agent("heuristic", rules, 0)
    torch = sys.modules.get("torch")  # imported by a guided search's network
    threads = torch.get_num_threads() if torch else 0
    if torch:
        torch.set_num_threads(1)
    try:
        return _timed_decisions(searcher, others, rules, deals, seed)
    finally:
        if torch:
            torch.set_num_threads(threads)


def batched_search_rate(spec: str, preset: str = "black_maria", deals: int = 5, batch: int = 64,
                        seed: int = 0) -> dict[str, float]:
    """Searched decisions per CPU-second of ``spec``'s :meth:`~bm_env.agents.search.SearchAgent.search` on
    batches of ``batch`` decisions: seat 0's play decisions with a choice in board set ``seed``'s first
    ``deals`` boards, every seat played by the heuristic. One core (torch on one thread)."""
    from ..engine.infostate import information_state
    from ..env.observation import encode

    rules = make_rules(preset)
    searcher, player = make_agent(spec, rules, 0), make_agent("heuristic", rules, 0)
    positions = []
    for board in make_boards(rules, deals, seed):
        deal = Deal(rules, board.hands, board.dealer, board.pass_direction, kitty=board.kitty)
        while deal.phase != DONE:
            if deal.to_act == 0 and deal.phase == PLAY and deal.legal.bit_count() > 1:
                info = information_state(deal, 0)
                positions.append((info, encode(info), deal.legal_mask()))
            deal.step(agent_action(player, deal))
    torch = sys.modules["torch"]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        start, wall = time.process_time(), time.perf_counter()
        for at in range(0, len(positions), batch):
            infos, obs, masks = zip(*positions[at:at + batch])
            searcher.search(list(infos), np.stack(obs), np.stack(masks))
        cpu, wall = time.process_time() - start, time.perf_counter() - wall
    finally:
        torch.set_num_threads(threads)
    return {"decisions": len(positions), "decisions_per_s": len(positions) / cpu, "wall_per_s": len(positions) / wall}


def _timed_decisions(searcher, others, rules, deals: int, seed: int) -> np.ndarray:
    """:func:`search_times` once the agents are made; each decision asked as an evaluation asks it
    (:func:`~bm_env.evaluation.play.agent_action`: the seat's view built, then the agent's choice)."""
    times = []
    for board in make_boards(rules, deals, seed):
        deal = Deal(rules, board.hands, board.dealer, board.pass_direction, kitty=board.kitty)
        while deal.phase != DONE:
            if deal.to_act == 0 and deal.phase == PLAY and deal.legal.bit_count() > 1:
                start = time.process_time()
                action = agent_action(searcher, deal)
                times.append(time.process_time() - start)
            else:
                action = agent_action(others, deal)
            deal.step(action)
    return np.array(times)


def run(quick: bool) -> list[dict]:
    """Rows for ``bm-bench``: decisions/s of ``heuristic`` and ``heuristic_v1`` as playouts, and the time
    of a searched decision of ``pimc`` and of the guided search, and the batched search's decisions/s."""
    seconds = 0.5 if quick else 3.0
    playout_rate("heuristic", "black_maria", 3, 0.1)  # warm-up (imports, rule tables)
    rows = []
    for preset, n in TABLES:
        for module in ("heuristic", "heuristic_v1"):
            r = playout_rate(module, preset, n, seconds)
            note = (f"{r['us_per_decision']:.0f} µs/decision, {r['deals_per_s']:,.0f} deals/s; view_from_deal + "
                    f"choose at every seat, passing and engine included; one core, per CPU-second")
            rows.append({"name": f"{module} playout {preset} {n}p", "value": round(r["decisions_per_s"]),
                         "unit": "decisions/s", "note": note, "deals": r["deals"],
                         "wall": round(r["decisions_per_s"] * r["wall_deals_per_s"] / r["deals_per_s"])})
    searches = ["pimc"] + ([f"pimc:guide={GUIDE},guide_playouts=true"] if GUIDE in shipped_agents() else [])
    for spec in searches:
        t = search_times(spec, deals=1 if quick else 10)
        rows.append({"name": f"{spec} black_maria 3p", "value": round(1000 * t.mean(), 1), "unit": "ms/decision",
                     "note": (f"mean of {len(t)} searched decisions (median {1000 * np.median(t):.0f}, p95 "
                              f"{1000 * np.percentile(t, 95):.0f} ms) in seat 0 against heuristic players, board "
                              "set 0; one core, CPU time"),
                     "decisions": len(t)})
    if GUIDE in shipped_agents():
        rows += _batched_search_rows(quick)
    return rows


def _batched_search_rows(quick: bool) -> list[dict]:
    """The batched search at its default, guided by the shipped network: one decision at a time, and batched."""
    spec = f"search:guide={GUIDE}"
    name = "search:guide=black_maria_3p black_maria 3p"
    t = search_times(spec, deals=1 if quick else 5)
    r = batched_search_rate(spec, deals=1 if quick else 5)
    return [
        {"name": f"{name}, one at a time", "value": round(float(1 / t.mean()), 1), "unit": "decisions/s",
         "note": (f"{len(t)} searched decisions asked one by one as an evaluation asks them (mean "
                  f"{1000 * t.mean():.0f} ms); seat 0 against heuristic players, board set 0; one core, CPU time"),
         "decisions": len(t)},
        {"name": f"{name}, batches of 64", "value": round(r["decisions_per_s"], 1), "unit": "decisions/s",
         "note": (f"{r['decisions']} decisions of heuristic play (seat 0's, with a choice) searched 64 at a time; "
                  "one core, CPU time"),
         "decisions": r["decisions"], "wall": round(r["wall_per_s"], 1)},
    ]
