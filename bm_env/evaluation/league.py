"""League: every pair of a pool of agents meets on the same boards; ratings from the results.

Each pair (A, B) plays two seatings, A against n-1 copies of B and B against n-1 copies
of A, each at every rotation (:func:`~bm_env.evaluation.harness.evaluate`). Every
board of a seating is one comparison: the agent whose mean score on that board is better
wins it (a tie counts half). A Bradley-Terry fit of all comparisons gives the ratings,
shown on the Elo scale (anchored at a mean of 1500).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Sequence

import numpy as np

from ..agents import AgentSpecError, fixed_spec
from ..engine.rules import Rules
from .harness import check_agents, evaluate
from .statistics import bradley_terry, elo_ratings, signed


@dataclass
class LeagueResult:
    """The result of :func:`league`: every pair's wins and advantages, the ratings, the evaluations played."""

    specs: list[str]
    ratings: list[float]
    wins: list[list[float]]  # wins[i][j]: boards on which i did better than j (ties as halves)
    advantage: list[list[float]]  # advantage[i][j]: i's mean points/deal better than fair share against j
    num_boards: int
    seed: int
    evaluations: list[dict] = field(default_factory=list)
    fixed_specs: list[str] = field(default_factory=list)  # each spec by fixed names (agents.fixed_spec)

    def to_markdown(self) -> str:
        """The league table, best rating first: rating, board win rate and the advantage against each other
        agent, then the fixed names and how the ratings were fitted."""
        order = np.argsort(self.ratings)[::-1]
        k = len(self.specs)
        lines = ["| rank | agent | rating | board win rate | " + " | ".join(f"vs {self.specs[j]}" for j in range(k)) + " |",
                 "|" + "---|" * (4 + k)]
        for rank, i in enumerate(order, 1):
            w = sum(self.wins[i])
            g = sum(self.wins[i][j] + self.wins[j][i] for j in range(k))
            cells = ["" if i == j else signed(self.advantage[i][j]) for j in range(k)]
            lines.append(f"| {rank} | {self.specs[i]} | {self.ratings[i]:.0f} | {w / g:.1%} | " + " | ".join(cells) + " |")
        lines.append("")
        resolved = [f"{s} is {f}" for s, f in zip(self.specs, self.fixed_specs) if s.split("#", 1)[0] != f]
        lines.append((f"Agents by fixed name: {'; '.join(resolved)}. " if resolved else "") + f"Bradley-Terry fit over per-board comparisons ({self.num_boards} boards per seating, seed {self.seed}); "
                     "'vs X' = points/deal better than the fair share when seated against copies of X.")
        return "\n".join(lines)


def league(rules: Rules, specs: Sequence[str], num_boards: int = 200, seed: int = 0, workers: int | None = None,
           progress: bool = True) -> LeagueResult:
    """Play every pair of ``specs`` on the same ``num_boards`` boards (module docstring); their ratings."""
    specs = list(specs)
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise ValueError(f"a league needs at least two different agent specs, got {specs}")
    check_agents(rules, specs)  # before the first pairing, not when a bad agent's turn comes
    fixed = [fixed_spec(s) for s in specs]
    for a, b in combinations(range(len(specs)), 2):
        if fixed[a] == fixed[b] and specs[a].partition("#")[2] == specs[b].partition("#")[2]:
            raise AgentSpecError(f"a league needs different agents: {specs[a]!r} and {specs[b]!r} are both {fixed[a]}")
    n = rules.num_players
    k = len(specs)
    wins = np.zeros((k, k))
    adv = np.zeros((k, k))
    sign = -1.0 if rules.lower_wins else 1.0
    evaluations = []
    for i, j in combinations(range(k), 2):
        for a, b in ((i, j), (j, i)):
            res = evaluate(rules, [specs[a]] + [specs[b]] * (n - 1), num_boards, seed, workers, progress=progress)
            evaluations.append(res.to_dict())
            xa = np.array(res.per_board[specs[a]])
            xb = np.array(res.per_board[specs[b]])
            better = sign * (xa - xb)
            wins[a, b] += (better > 0).sum() + 0.5 * (better == 0).sum()
            wins[b, a] += (better < 0).sum() + 0.5 * (better == 0).sum()
            adv[a, b] = next(r.advantage for r in res.agents if r.label == specs[a])
    ratings = elo_ratings(bradley_terry(wins))
    return LeagueResult(specs, ratings.tolist(), wins.tolist(), adv.tolist(), num_boards, seed, evaluations, fixed)
