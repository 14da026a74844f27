"""Saved evaluations read back and combined: two runs paired board by board, or several pooled.

:func:`compare` answers "did the change help?". Two agents measured against the same
opponents on the same boards share each board's luck: a board that deals one of them the
spade queen deals it to the other too. Their results' intervals hold that luck twice, so two
results whose intervals overlap can still differ clearly. Taking each board's difference
first removes it: the first agent of two ``bm-eval --agents`` runs (``bm-eval --compare NEW
OLD``) is paired on every board, giving the mean difference with its 95% interval over boards.

:func:`pool` answers "what do all the boards say?", when a seating was played on more than
one board set (a first run, then more boards of another seed to narrow the interval):
``bm-eval --pool A B ...`` gives every agent's figures over the boards of all of them.

Each refuses runs that its arithmetic would make meaningless, saying what differs: pairing
needs the same boards and opponents, pooling the same seating and no board counted twice.
A policy agent is told by its checkpoint file's SHA-256, which ``bm-eval`` records, not by
its path: one file under two paths is one agent, a file retrained in place is two (runs
saved before the hashes were recorded fall back to the specs as written). Runs made by
different code are combined, with a warning (:mod:`.provenance`): the same spec may then be
another player.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

from .harness import EvalResult
from .provenance import different_code
from .statistics import mean_ci, signed


def same_agent(a: EvalResult, a_label: str, b: EvalResult, b_label: str) -> bool:
    """Whether two runs' agents are the same: the same checkpoint file where both runs
    recorded one (whatever its path), else the same spec."""
    if a_label in a.agent_files and b_label in b.agent_files:
        return a.agent_files[a_label] == b.agent_files[b_label]
    return a_label == b_label


def _differing_seats(a: EvalResult, b: EvalResult, seats: range) -> list[str]:
    return [f"seat {i}: {a.seating[i]} against {b.seating[i]}" for i in seats
            if not same_agent(a, a.seating[i], b, b.seating[i])]


@dataclass
class Comparison:
    """The first agent of two runs on the same boards; advantages are points/deal better than the fair share."""

    new: str  # the first agent's spec in each run
    old: str
    new_advantage: float
    new_ci: float
    old_advantage: float
    old_ci: float
    difference: float  # new minus old, paired per board: positive = the new agent did better
    difference_ci: float
    boards: int
    warning: str | None = None  # where the runs came from different code (provenance.different_code)

    def to_markdown(self) -> str:
        rows = [(f"new: {self.new}", self.new_advantage, self.new_ci),
                (f"old: {self.old}", self.old_advantage, self.old_ci),
                ("new minus old, paired per board", self.difference, self.difference_ci)]
        lines = ["| agent | better than the fair share | 95% CI |", "|---|---:|---:|"]
        lines += [f"| {name} | {signed(value)} | ±{ci:.2f} |" for name, value, ci in rows]
        lines += ["", f"{self.boards} boards; positive differences mean the new agent did better."]
        return "\n".join(lines + ([self.warning] if self.warning else []))


def load_result(path: str) -> EvalResult:
    """The evaluation in ``path``: a ``bm-eval --out`` folder or its ``evaluation.json``."""
    file = os.path.join(path, "evaluation.json") if os.path.isdir(path) else path
    try:
        with open(file) as f:
            data = json.load(f)
        result = EvalResult.from_dict(data)
    except FileNotFoundError:
        raise ValueError(f"{path}: no evaluation here; give a bm-eval --out folder or its evaluation.json") from None
    except OSError as e:
        raise ValueError(f"{file}: cannot be read ({e})") from None
    except (json.JSONDecodeError, TypeError, KeyError, AttributeError) as e:
        raise ValueError(f"{file}: not an evaluation.json written by bm-eval --out ({e})") from None
    if not result.per_board:
        raise ValueError(f"{file}: holds no per-board means, so its boards cannot be paired")
    return result


def compare(new: EvalResult, old: EvalResult) -> Comparison:
    """The first agent of ``new`` against the first agent of ``old``, board by board.

    Both runs must have played the same boards (rules, board set, seed and count) with the
    same opponents in the other seats; otherwise a ``ValueError`` says what differs.
    """
    for what, a, b in (("rules", new.preset_rules, old.preset_rules),
                       ("board set version", new.board_set_version, old.board_set_version),
                       ("board seed", new.seed, old.seed), ("number of boards", new.num_boards, old.num_boards)):
        if a != b:
            raise ValueError(f"the two evaluations differ in their {what}: {a} against {b}; "
                             f"only runs of the same boards against the same opponents can be paired")
    differing = _differing_seats(new, old, range(1, len(new.seating)))
    if differing:
        raise ValueError(f"the two evaluations differ in their opponents ({'; '.join(differing)}); "
                         f"only runs of the same boards against the same opponents can be paired")
    a = new.board_advantages(new.agents[0].label)
    b = old.board_advantages(old.agents[0].label)
    difference, difference_ci = mean_ci(a - b)
    return Comparison(
        new=new.seating[0], old=old.seating[0], new_advantage=new.agents[0].advantage, new_ci=new.agents[0].diff_ci,
        old_advantage=old.agents[0].advantage, old_ci=old.agents[0].diff_ci, difference=difference,
        difference_ci=difference_ci, boards=new.num_boards, warning=different_code([new.code, old.code]),
    )


@dataclass
class PooledAgent:
    """One agent's figures over the boards of every pooled run."""

    label: str
    mean: float  # mean deal score
    ci: float
    advantage: float  # points/deal better than the fair share
    advantage_ci: float


@dataclass
class Pooled:
    seating: list[str]
    seeds: list[int]
    boards: int
    fair_share: float  # the mean total per deal over the players, over every board
    agents: list[PooledAgent]
    warning: str | None = None  # where the runs came from different code (provenance.different_code)

    def to_markdown(self) -> str:
        lines = ["| agent | better than fair share | 95% CI |", "|---|---:|---:|"]
        lines += [f"| {a.label} | {signed(a.advantage)} | ±{a.advantage_ci:.2f} |" for a in self.agents]
        lines += ["", f"{self.boards} boards of the board sets of seeds {', '.join(map(str, self.seeds))}, "
                      f"pooled; points/deal better than the fair share ({self.fair_share:.2f} points/deal), "
                      "positive = better; intervals over boards (95%, t)."]
        return "\n".join(lines + ([self.warning] if self.warning else []))


def pool(results: list[EvalResult]) -> Pooled:
    """Every agent of one seating over the boards of all ``results`` (runs of other board seeds).

    The runs must share their rules, board set version and seating; two runs of the same
    seed are refused, since their boards overlap (a seed's boards are the same from the first).
    """
    if len(results) < 2:
        raise ValueError(f"pooling needs at least two evaluations, got {len(results)}")
    first = results[0]
    for r in results[1:]:
        for what, a, b in (("rules", r.preset_rules, first.preset_rules),
                           ("board set version", r.board_set_version, first.board_set_version),
                           ("number of seats", len(r.seating), len(first.seating))):
            if a != b:
                raise ValueError(f"the evaluations differ in their {what}: {b} against {a}; only runs of the same "
                                 f"seating and rules can be pooled")
        differing = _differing_seats(first, r, range(len(first.seating)))
        if differing:
            raise ValueError(f"the evaluations differ in their seating ({'; '.join(differing)}); only runs of the "
                             f"same seating and rules can be pooled")
    seeds = [r.seed for r in results]
    repeated = sorted({s for s in seeds if seeds.count(s) > 1})
    if repeated:
        raise ValueError(f"two evaluations share the board seed {repeated[0]}: their boards overlap, so pooling "
                         f"would count them twice; give runs of different --seed")
    agents = []
    for report in first.agents:
        seat = first.seating.index(report.label)
        labels = [r.seating[seat] for r in results]  # the same agent, perhaps under another path
        mean, ci = mean_ci(np.concatenate([r.per_board[label] for r, label in zip(results, labels)]))
        advantage, advantage_ci = mean_ci(np.concatenate([r.board_advantages(label)
                                                          for r, label in zip(results, labels)]))
        agents.append(PooledAgent(report.label, mean, ci, advantage, advantage_ci))
    boards = sum(r.num_boards for r in results)
    fair_share = sum(r.fair_share * r.num_boards for r in results) / boards
    return Pooled(seating=list(first.seating), seeds=seeds, boards=boards, fair_share=fair_share, agents=agents,
                  warning=different_code([r.code for r in results]))
