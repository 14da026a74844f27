"""Processes beside the trainer's that decide a share of the rule-based player's games.

In a closing stage with the rule-based player in most deals, much of a rollout is that
player deciding game by game in Python on one core, while the other core waits for the
next update. With ``rule_workers: 1`` (:mod:`training.config`) the rollout sends the
positions of part of those games to a worker process at every step and decides the rest
itself meanwhile. The player draws no random numbers, so the cards are the same with any
number of workers, and so is the run (a test checks both).

A worker ignores Ctrl-C: the trainer handles it (it saves, then stops), and ends its workers
when its run ends; they are daemons, so they also end with the trainer's process.
"""

from __future__ import annotations

import multiprocessing
import signal
from types import ModuleType

import numpy as np

from bm_env.engine.rules import Rules
from bm_env.vector import VectorEngine

from .rule_opponent import PLAYERS, decide, positions


def _serve(conn, rules: dict, player: str) -> None:
    """A worker's loop: positions in, cards out, until ``None`` or the trainer's end of the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    rules_, module = Rules.from_dict(rules), PLAYERS[player]
    while True:
        try:
            seen = conn.recv()
        except EOFError:
            return
        if seen is None:
            return
        conn.send(decide(module, rules_, seen))


class RuleWorkers:
    """``count`` worker processes, started at the first decision they are given."""

    def __init__(self, rules: Rules, player: ModuleType, count: int) -> None:
        self.rules, self.player, self.count = rules, player, count
        self._name = next(name for name, module in PLAYERS.items() if module is player)
        self._workers: list[tuple[multiprocessing.Process, object]] = []

    def _start(self) -> None:
        # spawn, not fork: the trainer's process has started torch's thread pool (a forked child can hang on it).
        ctx = multiprocessing.get_context("spawn")
        for k in range(self.count):
            mine, theirs = ctx.Pipe()
            process = ctx.Process(target=_serve, args=(theirs, self.rules.to_dict(), self._name), daemon=True,
                                  name=f"bm-train rule player {k + 1}")
            process.start()
            theirs.close()
            self._workers.append((process, mine))

    def actions(self, engine: VectorEngine, games: np.ndarray) -> np.ndarray:
        """What :func:`~training.rule_opponent.rule_actions` returns, the first parts decided by the workers."""
        if not self._workers:
            self._start()
        parts = np.array_split(games, self.count + 1)
        for (process, conn), part in zip(self._workers, parts):
            try:
                conn.send(positions(engine, part))
            except OSError:
                self._ended(process)
        cards = decide(self.player, self.rules, positions(engine, parts[-1]))
        theirs = []
        for process, conn in self._workers:
            try:
                theirs += conn.recv()
            except (EOFError, OSError):
                self._ended(process)
        return np.array(theirs + cards, dtype=np.int64)

    @staticmethod
    def _ended(process: multiprocessing.Process) -> None:
        process.join(timeout=1)
        raise RuntimeError(f"{process.name} (a worker process of the rule-based player) ended, exit code "
                           f"{process.exitcode}; set rule_workers: 0 to decide in the trainer's process") from None

    def close(self) -> None:
        """End the workers (a later decision starts them again)."""
        for process, conn in self._workers:
            try:
                conn.send(None)
            except OSError:  # it has ended already
                pass
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
            conn.close()
        self._workers = []
