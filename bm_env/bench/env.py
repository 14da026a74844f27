"""Benchmark of the PettingZoo environment against OpenSpiel's C++ ``hearts``, same loop, same chooser.

Both loops read the observation and the action mask at every decision and pick an action
with the same cheap seeded chooser: a pre-drawn random integer modulo the number of legal
actions (``mask.nonzero()[0]``), far cheaper than ``rng.choice``. A
decision is a pass pick or a card played; OpenSpiel's chance steps (the deal, the pass
direction) are played in its loop but not counted. :func:`run` returns rows for ``bm-bench``:
every preset at its default player count (one-deal episodes), black_maria's whole matches,
and American Hearts with a kitty (:data:`~bm_env.bench.KITTY_TABLES`).
"""

from __future__ import annotations

import time

import numpy as np

from ..black_maria_v0 import env as make_env
from ..engine.rules import PRESETS
from . import KITTY_TABLES, rounds_row


def _draws(count: int, seed: int) -> list[int]:
    return np.random.default_rng(seed).integers(1 << 30, size=count).tolist()


def time_env(decisions: int, seed: int = 0, **env_kwargs) -> tuple[float, float]:
    """(wall, CPU) seconds of ``decisions`` random decisions through ``env(**env_kwargs)``, observation and mask read each time."""
    e = make_env(**env_kwargs)
    e.reset(seed=seed)
    draws = _draws(decisions, seed)
    done = 0
    start, cpu = time.perf_counter(), time.process_time()
    while done < decisions:
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            e.step(int(legal[draws[done] % len(legal)]))
            done += 1
            if done == decisions:
                break
        e.reset()
    return time.perf_counter() - start, time.process_time() - cpu


def time_openspiel(decisions: int, seed: int = 0) -> tuple[float, float] | None:
    """The same loop over ``pyspiel`` ``hearts`` with its observer (zero-copy tensor); None without pyspiel."""
    try:
        import pyspiel
        from open_spiel.python.observation import make_observation
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")
    # hearts provides only the information-state tensor (5,088 floats), so that is what the observer fills.
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    draws = _draws(decisions, seed)
    chance = np.random.default_rng(seed)
    done = 0
    start, cpu = time.perf_counter(), time.process_time()
    while done < decisions:
        state = game.new_initial_state()
        while not state.is_terminal() and done < decisions:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(chance.integers(len(outcomes)))][0])
                continue
            player = state.current_player()
            observer.set_from(state, player)
            _ = observer.tensor
            mask = np.asarray(state.legal_actions_mask(player), dtype=np.int8)
            legal = mask.nonzero()[0]
            state.apply_action(int(legal[draws[done] % len(legal)]))
            done += 1
    return time.perf_counter() - start, time.process_time() - cpu


def run(quick: bool) -> list[dict]:
    """Rows for ``bm-bench``: decisions/s of each contender per CPU-second (``wall``: per wall-clock second).

    The contenders are measured in alternating rounds, so a busy spell of the machine slows
    every contender alike rather than whichever ran then, and each rate is the median of its
    rounds (every round's rate is kept in the JSON as ``rounds``), so one disturbed round
    does not move it; the CPU-time rate (``time.process_time``) is less sensitive to other
    processes than the wall clock.
    """
    rounds = 3 if quick else 7
    decisions = 7_000 if quick else 30_000
    chooser = "pre-drawn int mod len(mask.nonzero()[0]), obs+mask read every decision"

    def deals_of(preset: str, n: int, **options):
        return lambda d, r: time_env(d, r, rules=preset, num_players=n, **options)

    # Every preset at its default player count, black_maria's match episodes, the kitties, OpenSpiel.
    contenders = [(f"env {name} {preset.default_players}p (deal episodes)", deals_of(name, preset.default_players))
                  for name, preset in PRESETS.items()]
    contenders.insert(1, ("env black_maria 3p (match episodes)", deals_of("black_maria", 3, episode="match")))
    contenders += [(f"env american_hearts {n}p kitty={kw['kitty']} (deal episodes)",
                    deals_of("american_hearts", n, **kw)) for n, kw in KITTY_TABLES]
    contenders += [("openspiel hearts 4p (pyspiel, observer)", time_openspiel)]
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in contenders}
    for r in range(rounds):
        for name, measure in contenders:
            times = measure(decisions, r)
            if times is not None:
                rates[name].append((decisions / times[0], decisions / times[1]))
    rows = []
    for name, _ in contenders:
        if rates[name]:
            measured = rounds_row(rates[name])
            note = f"{chooser}; {decisions:,} decisions a round, {measured.pop('spread')}"
        else:
            measured = {"value": None, "wall": None}
            note = f"{chooser}; pyspiel not installed"
        rows.append({
            "name": name, **measured, "unit": "decisions/s", "note": note,
            **({"ref": "openspiel_observer"} if name.startswith("openspiel") else {"vs": "openspiel_observer"}),
        })
    return rows


if __name__ == "__main__":
    for row in run(quick=False):
        print(f"{row['name']:45s} {row['value']:>10} {row['unit']}  ({row['note']})")
