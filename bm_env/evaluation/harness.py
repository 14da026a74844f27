"""The evaluation harness: agents play every board at every rotation of a seating.

``evaluate(rules, ["heuristic", "random", "random"], num_boards=2000)`` plays each board
``n`` times, rotating the seating so each agent sits in each seat on the same cards, and
reports per agent the mean deal score with a 95% interval over boards, the difference
from the fair share (the mean total per deal divided by ``n``, paired per board), figures
per seat relative to the dealer, and optionally match win rates. Boards are split across
worker processes; every agent is reseeded per board, rotation and seat, so results do not
depend on the number of workers.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing as mp
import os
import pickle
import signal
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np

from ..agents import fixed_spec, make_agent, parse_spec, register_agent, registered_agents
from ..engine.match import Match
from ..engine.rules import Rules
from .boards import BOARD_SET_VERSION, make_board
from .play import agent_action, play_deal, rotation_seating
from .provenance import code_identity
from .statistics import mean_ci


def seat_names(n: int) -> list[str]:
    """Seat labels relative to the dealer: dealer, eldest (leads first in most presets), then 2nd, 3rd..."""
    return ["dealer", "eldest"] + [f"dealer+{k}" for k in range(2, n)]


@dataclass
class AgentReport:
    """One agent's line of an evaluation: its mean score, its advantage over the fair share, by seat."""

    label: str  # the spec as given, ``#tag`` included
    spec: str  # the agent it resolved to, by fixed names (agents.fixed_spec): "heuristic" is recorded "heuristic_v2"
    seats_in_seating: int
    mean: float  # mean deal score in the rules' unit and sign
    ci: float  # half-width of the 95% interval over boards
    diff: float  # mean minus the fair share, paired per board
    diff_ci: float
    advantage: float  # diff with the sign that makes positive = better than the fair share
    by_seat: dict[str, float]  # mean score by seat relative to the dealer
    match_win_rate: float | None = None
    match_fair_rate: float | None = None


@dataclass
class EvalResult:
    """The result of :func:`evaluate`: the rules, the seating, the boards played and each agent's report."""

    preset_rules: dict[str, Any]
    lower_wins: bool
    seating: list[str]
    num_boards: int
    games: int
    seed: int
    board_set_version: int
    fair_share: float
    agents: list[AgentReport]
    matches: int = 0
    seconds: float = 0.0
    workers: int = 1
    per_board: dict[str, list[float]] = field(default_factory=dict)  # label -> mean score per board
    agent_files: dict[str, str] = field(default_factory=dict)  # label -> SHA-256 of a policy agent's checkpoint
    code: dict[str, str] = field(default_factory=dict)  # the code that played the games (provenance.code_identity)

    def to_dict(self, with_boards: bool = False) -> dict[str, Any]:
        """The result as plain JSON-able data (``evaluation.json``); the per-board means only ``with_boards``."""
        d = asdict(self)
        if not with_boards:
            d.pop("per_board")
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "EvalResult":
        """The result :meth:`EvalResult.to_dict` wrote (``evaluation.json``), read back; its rules as this code writes
        them (an option added since it was written takes its place, at the default it was played with)."""
        rules = Rules.from_dict(d["preset_rules"]).to_dict()
        return cls(**{**d, "preset_rules": rules, "agents": [AgentReport(**a) for a in d["agents"]]})

    def board_advantages(self, label: str) -> np.ndarray:
        """Agent ``label``'s mean on each board minus that board's fair share, signed so that
        positive is better (needs the per-board means, which ``evaluation.json`` keeps)."""
        n = len(self.seating)
        fair = sum(a.seats_in_seating * np.asarray(self.per_board[a.label]) for a in self.agents) / n
        sign = -1.0 if self.lower_wins else 1.0
        return sign * (np.asarray(self.per_board[label]) - fair)


# ---------------------------------------------------------------------- worker side

_W: dict[str, Any] = {}


def _seed(seed: int, *parts: int) -> int:
    return int(np.random.SeedSequence([BOARD_SET_VERSION, seed, *parts]).generate_state(1)[0])


def _init(rules: Rules, seating: Sequence[str], seed: int, threads: int | None = None,
          custom: dict[str, Any] | None = None) -> None:
    """Build the agents of a worker; ``threads`` caps torch's intra-op threads (one per worker
    process); ``custom`` holds the parent's :func:`~bm_env.agents.register_agent` factories."""
    for name, factory in (custom or {}).items():
        if name not in registered_agents():
            register_agent(name, factory)
    _W["rules"] = rules
    _W["seed"] = seed
    _W["agents"] = [make_agent(spec, rules, None) for spec in seating]
    # After the agents: a policy agent is what imports torch in a spawned worker.
    if threads is not None and "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


def seat_agents(agents: Sequence, seed: int, index: int, rotation: int) -> list:
    """The agents at each seat of board ``index`` in ``rotation``, reseeded as the evaluation
    does, so that playing the board again (to record it) plays the same game."""
    at_seat = rotation_seating(range(len(agents)), rotation)  # seating position sitting at each seat
    for s, pos in enumerate(at_seat):
        agents[pos].reset(_seed(seed, index, rotation, s, 1))
    return [agents[pos] for pos in at_seat]


def _play_board(index: int) -> tuple[int, list[list[int]]]:
    rules, seed, agents = _W["rules"], _W["seed"], _W["agents"]
    board = make_board(rules, seed, index)
    out = [list(play_deal(rules, board, seat_agents(agents, seed, index, r))) for r in range(rules.num_players)]
    return index, out


def _play_match(index: int) -> tuple[int, list[list[float]]]:
    """Match ``index`` once per rotation (same seed, so the same deals while play allows); win shares by seat."""
    rules, seed, agents = _W["rules"], _W["seed"], _W["agents"]
    n = rules.num_players
    out = []
    for r in range(n):
        at_seat = rotation_seating(range(n), r)
        for s, pos in enumerate(at_seat):
            agents[pos].reset(_seed(seed, index, r, s, 2))
        match = Match(rules, np.random.default_rng([BOARD_SET_VERSION, seed, index, 3]), first_dealer=index % n)
        while not match.is_over:
            deal = match.deal
            match.step(agent_action(agents[at_seat[deal.current_seat]], deal, match.totals, match.deals_played))
        share = [1.0 / len(match.winners) if s in match.winners else 0.0 for s in range(n)]
        out.append(share)
    return index, out


def _task(job: tuple[str, int]):
    kind, index = job
    return kind, _play_board(index) if kind == "board" else _play_match(index)


def _tasks(jobs: list[tuple[str, int]]) -> list:
    """A worker's chunk of jobs, in one round trip."""
    return [_task(job) for job in jobs]


# ---------------------------------------------------------------------- driver


def _custom_agents(seating: Sequence[str]) -> dict[str, Any]:
    """The registered factories the seating uses, checked to reach spawned workers (by pickling)."""
    registry = registered_agents()
    used = {parse_spec(spec)[0] for spec in seating} & set(registry)
    custom = {name: registry[name] for name in used}
    for name, factory in custom.items():
        try:
            pickle.dumps(factory)
        except Exception:
            raise ValueError(f"custom agent {name!r} cannot be sent to worker processes (its factory {factory!r} "
                             "cannot be pickled); register a module-level function or class, or use workers=1") from None
    return custom


def check_agents(rules: Rules, specs: Sequence[str]) -> None:
    """Build each agent once, so that a malformed spec or a missing, damaged or mismatched
    checkpoint is refused here, with its message, rather than inside a worker process."""
    for spec in dict.fromkeys(specs):
        make_agent(spec, rules, None)


def evaluate(
    rules: Rules,
    seating: Sequence[str],
    num_boards: int = 200,
    seed: int = 0,
    workers: int | None = None,
    matches: int = 0,
    progress: bool = True,
) -> EvalResult:
    """Play ``num_boards`` boards at every rotation of ``seating`` (one agent spec per seat)."""
    n = rules.num_players
    seating = list(seating)
    if len(seating) != n:
        raise ValueError(f"the seating needs one agent spec per seat: {n} for these rules, got {len(seating)}: {seating}")
    check_agents(rules, seating)
    files = checkpoint_fingerprints(seating)  # before play: the files the agents load
    if num_boards < 1:
        raise ValueError(f"num_boards must be at least 1, got {num_boards}")
    workers = (os.cpu_count() or 1) if workers is None else workers
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    jobs = [("board", i) for i in range(num_boards)] + [("match", m) for m in range(matches)]
    started = time.perf_counter()
    board_scores: dict[int, list[list[int]]] = {}
    match_shares: dict[int, list[list[float]]] = {}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(jobs), desc=f"{' '.join(seating)}", unit="board", leave=False)

    def collect(results):
        for kind, (index, out) in results:
            (board_scores if kind == "board" else match_shares)[index] = out
            if bar is not None:
                bar.update(1)

    if workers == 1:
        _init(rules, seating, seed)
        collect(map(_task, jobs))
    else:
        chunk = max(1, min(8, len(jobs) // (workers * 8)))
        # Spawned, not forked: a fork after torch has started its thread pool hangs the child.
        custom = _custom_agents(seating)
        # An executor, not multiprocessing.Pool: a worker that dies (say, while starting) breaks the executor,
        # which raises, where a Pool starts another worker and waits forever.
        with ProcessPoolExecutor(workers, mp.get_context("spawn"), _init, (rules, seating, seed, 1, custom)) as pool:
            try:
                with _workers_ignore_ctrl_c():
                    for _ in range(workers):  # a submission that finds no idle worker starts one: all start now
                        pool.submit(int)
                # Chunks submitted one by one, not Executor.map: on Ctrl-C map cancels its futures, and the
                # executor of Python 3.11 then fails in a thread (InvalidStateError) as the workers stop.
                chunks = [pool.submit(_tasks, jobs[i:i + chunk]) for i in range(0, len(jobs), chunk)]
                for done in chunks:
                    collect(done.result())
            except BrokenProcessPool as e:
                raise RuntimeError(
                    "an evaluation worker process died: it may have failed to build its agents (run with workers=1 "
                    "to see the error) or run out of memory; a script that calls evaluate() with workers > 1 needs "
                    "its top level under `if __name__ == \"__main__\":`, since each worker imports the main module"
                ) from e
            except BaseException:  # Ctrl-C included: stop the workers now, as Pool's exit did
                for process in list((getattr(pool, "_processes", None) or {}).values()):  # public from Python 3.14
                    process.terminate()
                raise
    if bar is not None:
        bar.close()
    result = summarise(rules, seating, seed, board_scores, match_shares, time.perf_counter() - started, workers)
    result.agent_files = files
    return result


@contextlib.contextmanager
def _workers_ignore_ctrl_c():
    """Ctrl-C ignored while the worker processes start, so that they are born ignoring it (an ignored
    signal stays ignored across exec, and Python then installs no KeyboardInterrupt handler): Ctrl-C in
    a terminal reaches every process of the group, and the workers would each print a traceback. This
    process alone handles it, stopping the workers. A Ctrl-C in the moment the workers start is lost."""
    try:
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are not ours to set
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def checkpoint_fingerprints(seating: Sequence[str]) -> dict[str, str]:
    """The SHA-256 of the checkpoint file behind each ``policy:PATH`` (and ``pimc:guide=PATH``) agent of
    ``seating``, by label: a saved evaluation keeps them, so that combining runs can tell one file under two
    paths, or two files under one (a checkpoint retrained in place)."""
    out = {}
    for label in dict.fromkeys(seating):
        name, params = parse_spec(label)
        path = params.get("path", params.get("guide"))
        if path is not None:
            with open(path, "rb") as f:
                out[label] = hashlib.sha256(f.read()).hexdigest()
    return out


def summarise(rules, seating, seed, board_scores, match_shares, seconds=0.0, workers=1) -> EvalResult:
    n = rules.num_players
    boards = sorted(board_scores)
    labels = list(dict.fromkeys(seating))
    names = seat_names(n)
    fair = np.array([np.mean([sum(row) for row in board_scores[b]]) / n for b in boards])
    sign = -1.0 if rules.lower_wins else 1.0
    reports = []
    per_board = {}
    for label in labels:
        mine = {i for i, lab in enumerate(seating) if lab == label}
        x = []
        seat_sum = np.zeros(n)
        seat_cnt = np.zeros(n)
        for b in boards:
            dealer = b % n
            vals = []
            for r, row in enumerate(board_scores[b]):
                for s, pos in enumerate(rotation_seating(range(n), r)):
                    if pos in mine:
                        vals.append(row[s])
                        seat_sum[(s - dealer) % n] += row[s]
                        seat_cnt[(s - dealer) % n] += 1
            x.append(float(np.mean(vals)))
        x = np.array(x)
        mean, ci = mean_ci(x)
        diff, diff_ci = mean_ci(x - fair)
        win = fair_rate = None
        if match_shares:
            total = 0.0
            for m in match_shares:
                for r, share in enumerate(match_shares[m]):
                    for s, pos in enumerate(rotation_seating(range(n), r)):
                        if pos in mine:
                            total += share[s]
            win = total / (len(match_shares) * n)
            fair_rate = len(mine) / n
        reports.append(AgentReport(
            label=label, spec=fixed_spec(label), seats_in_seating=len(mine), mean=mean, ci=ci,
            diff=diff, diff_ci=diff_ci, advantage=sign * diff,
            by_seat={names[k]: float(seat_sum[k] / seat_cnt[k]) for k in range(n)},
            match_win_rate=win, match_fair_rate=fair_rate,
        ))
        per_board[label] = x.tolist()
    return EvalResult(
        preset_rules=rules.to_dict(), lower_wins=rules.lower_wins, seating=list(seating), num_boards=len(boards),
        games=len(boards) * n, seed=seed, board_set_version=BOARD_SET_VERSION, fair_share=float(fair.mean()),
        agents=reports, matches=len(match_shares), seconds=seconds, workers=workers, per_board=per_board,
        code=code_identity(),
    )
