"""Two evaluations on the same boards, compared board by board: did the change help?

Two agents measured against the same opponents on the same boards share each board's luck:
a board that deals one of them the spade queen deals it to the other too. Their results'
intervals hold that luck twice, so two results whose intervals overlap can still differ
clearly. Taking each board's difference first removes it: :func:`compare` pairs the first
agent of two ``bm-eval --agents`` runs (``bm-eval --compare NEW OLD``) on every board and
gives the mean difference with its 95% interval over boards. It refuses runs that did not
play the same boards against the same opponents, since pairing those would mean nothing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from .harness import EvalResult
from .statistics import mean_ci


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

    def to_markdown(self) -> str:
        rows = [(f"new: {self.new}", self.new_advantage, self.new_ci),
                (f"old: {self.old}", self.old_advantage, self.old_ci),
                ("new minus old, paired per board", self.difference, self.difference_ci)]
        lines = ["| agent | better than the fair share | 95% CI |", "|---|---:|---:|"]
        lines += [f"| {name} | {value:+.2f} | ±{ci:.2f} |" for name, value, ci in rows]
        lines += ["", f"{self.boards} boards; positive differences mean the new agent did better."]
        return "\n".join(lines)


def load_result(path: str) -> EvalResult:
    """The evaluation in ``path``: a ``bm-eval --out`` folder or its ``evaluation.json``."""
    file = os.path.join(path, "evaluation.json") if os.path.isdir(path) else path
    try:
        with open(file) as f:
            data = json.load(f)
        result = EvalResult.from_dict(data)
    except FileNotFoundError:
        raise ValueError(f"{path}: no evaluation here; give a bm-eval --out folder or its evaluation.json") from None
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
                       ("board seed", new.seed, old.seed), ("number of boards", new.num_boards, old.num_boards),
                       ("opponents (the seats after the first)", new.seating[1:], old.seating[1:])):
        if a != b:
            raise ValueError(f"the two evaluations differ in their {what}: {a} against {b}; "
                             f"only runs of the same boards against the same opponents can be paired")
    a = new.board_advantages(new.agents[0].label)
    b = old.board_advantages(old.agents[0].label)
    difference, difference_ci = mean_ci(a - b)
    return Comparison(
        new=new.seating[0], old=old.seating[0], new_advantage=new.agents[0].advantage, new_ci=new.agents[0].diff_ci,
        old_advantage=old.agents[0].advantage, old_ci=old.agents[0].diff_ci, difference=difference,
        difference_ci=difference_ci, boards=new.num_boards,
    )
