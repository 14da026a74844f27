"""Measuring agents: fixed boards, seat rotation, intervals over boards, reports, a league."""

from .boards import BOARD_SET_VERSION, Board, make_boards
from .harness import AgentReport, EvalResult, evaluate
from .league import LeagueResult, league
from .report import to_markdown, write_report

__all__ = ["BOARD_SET_VERSION", "AgentReport", "Board", "EvalResult", "LeagueResult", "evaluate", "league",
           "make_boards", "to_markdown", "write_report"]
