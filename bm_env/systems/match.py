"""The match: a fixed number of deals or a threshold, its floor and exact resets, and tie breaks.

The British rules play a multiple of the player count and break a tie with an extra deal among
the tied players; Pagat and Petrone's rules play to a threshold and play on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..engine.checks import shown
from .component import Option, RuleSystem
from .table import DECK_TABLES

if TYPE_CHECKING:
    from ..engine.rules import Rules

MATCH_ENDS = ("deals", "threshold_reached", "threshold_passed")
TIE_BREAKS = ("tied_players", "all_players", "shared")


def _problem(r: Rules) -> str | None:
    from . import dealing  # the registry, which imports this module

    if r.tie_break == "tied_players" and not dealing(r).full_deck:
        missing = [k for k in range(2, r.num_players) if k not in DECK_TABLES[r.deck_table]]
        if missing:
            return (f"tie_break='tied_players' needs deals among fewer players, but deck table {r.deck_table!r} "
                    f"does not cover {missing} players; use tie_break 'all_players' or another deck table")
    if r.match_deals < 1:
        return f"match_deals={r.match_deals} must be at least 1"
    if r.exact_reset is not None:
        if len(r.exact_reset) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) for x in r.exact_reset):
            return f"exact_reset must be a pair (score, reset_to) such as (100, 50); got {shown(r.exact_reset)}"
    if r.match_end != "deals" and r.match_threshold <= 0:
        return (f"match_threshold={r.match_threshold} must be positive: a {r.match_end} match ends when the highest "
                "total reaches it, and totals start at 0")
    if r.match_floor is not None and r.match_floor >= 0:
        return (f"match_floor={r.match_floor} must be negative: someone at or below it ends the match, "
                "and totals start at 0")
    return None


def match_would_end(rules: Rules, totals: Sequence[int], deals_played: int) -> bool:
    """Whether the match-end rule fires for these totals after ``deals_played`` deals."""
    if rules.match_floor is not None and min(totals) <= rules.match_floor:
        return True
    if rules.match_end == "deals":
        return deals_played >= rules.match_deals
    # Either sign convention ends on the highest total: the loser's in the Hearts family,
    # the leader's in Petrone's game.
    if rules.match_end == "threshold_reached":
        return max(totals) >= rules.match_threshold
    return max(totals) > rules.match_threshold  # threshold_passed


SYSTEM = RuleSystem(
    name="match",
    options={
        "match_end": Option(str, "deals", "the British rules fixed deals or a threshold; the others a threshold",
                            choices=MATCH_ENDS),
        "match_deals": Option(int, 9, "the British rules: a multiple of the player count, 9 for three players"),
        "match_threshold": Option(int, 100, "100; 50 (the 3-7 player rules, Petrone's rules); 500 (spot)"),
        "match_floor": Option((int, type(None)), None, "Petrone's rules: someone at -50 ends the match, the victory "
                                                       "shared"),
        "exact_reset": Option((tuple, type(None)), None, "Pagat: exactly 100 after a deal resets to 50 (or 0)"),
        "tie_break": Option(str, "tied_players", "the British rules: an extra deal among the tied; Pagat, Petrone's "
                                                 "rules: play on", choices=TIE_BREAKS),
    },
    problem=_problem,
)
