"""The games of an evaluation worth watching: the boards with the largest swings, recorded.

A board's swing is how far the seating's first agent (the one under test in ``bm-eval
--agents A B B``) did from the board's fair share, averaged over the rotations: the boards
where it gained or lost the most. :func:`record_swings` plays those boards again, with the
agents reseeded exactly as the evaluation reseeded them (``harness.seat_agents``), so
each recorded game is the one that was scored, this time noting every decision and the
agents' thoughts; it writes each game's record (JSON) and a spectator's replay (HTML, every
hand shown: an evaluation looks at everything). Playing again costs one board per game
recorded, instead of keeping the records of every game of the run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..agents import make_agent
from ..engine.record import deal_record, write_record
from ..engine.rules import Rules
from ..engine.thoughts import ThoughtLog
from ..pictures import write_replay
from .boards import make_board
from .harness import EvalResult, seat_agents
from .play import play_board, rotation_seating
from .statistics import signed


@dataclass(frozen=True)
class RecordedGame:
    """One game :func:`record_swings` played again: its board, rotation, seating, scores and the files written."""

    board: int
    rotation: int
    seating: list[str]  # the agent spec at each seat in this game
    advantage: float  # the first agent's mean on the board minus the fair share, positive = better
    scores: list[int]  # the game's deal scores by seat
    record: str  # path of the JSON record
    html: str  # path of the replay


def board_swings(result: EvalResult) -> list[tuple[int, float]]:
    """Every board with the first agent's advantage on it (positive = better than the fair share),
    largest swing first (ties: lower board first)."""
    advantage = result.board_advantages(result.agents[0].label)
    order = np.argsort(-np.abs(advantage), kind="stable")
    return [(int(b), float(advantage[b])) for b in order]


def record_swings(rules: Rules, result: EvalResult, out_dir: str, limit: int) -> list[RecordedGame]:
    """Record at most ``limit`` games, board by board from the largest swing, every rotation of each."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"the number of games to record must be at least 1, got {limit!r}")
    seating = list(result.seating)
    n = rules.num_players
    agents = [make_agent(spec, rules, None) for spec in seating]
    games: list[RecordedGame] = []
    for index, advantage in board_swings(result):
        board = make_board(rules, result.seed, index)
        for r in range(n):
            if len(games) == limit:
                return games
            log = ThoughtLog()
            deal = play_board(rules, board, seat_agents(agents, result.seed, index, r), log)
            stem = os.path.join(out_dir, f"board{index:05d}-rotation{r}")
            record = write_record(stem + ".json", deal, log)
            html = write_replay(stem + ".html", deal_record(deal, log))
            games.append(RecordedGame(index, r, rotation_seating(seating, r), advantage, list(deal.scores),
                                      str(record), str(html)))
    return games


def replays_markdown(games: Sequence[RecordedGame], relative_to: str | None = None) -> str:
    """A markdown section linking the recorded games (paths relative to ``relative_to`` if given)."""
    def link(path: str) -> str:
        shown = os.path.relpath(path, relative_to) if relative_to else path
        return f"[{os.path.basename(path)}]({shown})"

    lines = ["## Replays: the boards with the largest swings", "",
             "| board | rotation | seating | first agent better by | deal scores | replay | record |",
             "|---|---|---|---|---|---|---|"]
    for g in games:
        lines.append(f"| {g.board} | {g.rotation} | {', '.join(g.seating)} | {signed(g.advantage)} | "
                     f"{', '.join(map(str, g.scores))} | {link(g.html)} | {link(g.record)} |")
    lines += ["", "'better by' is the first agent's mean score on the board (all rotations) against the "
              "board's fair share, positive = better; each replay shows every hand and the agents' thoughts."]
    return "\n".join(lines)
