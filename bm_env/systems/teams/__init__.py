"""Partnerships (Pagat, Partnership Hearts): four players, partners across.

``teams="joint"`` keeps tricks and scores together (a team slam: the partner with more of the
points chooses); ``"individual"`` scores each player and lets the team totals decide.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..component import Bounds, InfoField, Option, RuleSystem

if TYPE_CHECKING:
    from ...engine.infostate import InfoState
    from ...engine.rules import Rules

TEAMS = ("none", "joint", "individual")


def partner_of(seat):
    """The partner of ``seat`` under ``teams`` (or of each seat of an array): the player across.

    Partnerships are played by four players only (:class:`~bm_env.Rules` refuses other counts).
    """
    return (seat + 2) % 4


def partner(rules: Rules, seat: int) -> int | None:
    """``seat``'s partner under ``rules``, or None where each plays alone."""
    return None if rules.teams == "none" else partner_of(seat)


def sides(rules: Rules, num_players: int) -> tuple[tuple[int, ...], ...]:
    """The seats that win or lose the match together: the two partnerships (0, 2) and (1, 3), or each seat alone."""
    if rules.teams == "none":
        return tuple((s,) for s in range(num_players))
    return ((0, 2), (1, 3))


def side_totals(rules: Rules, totals) -> tuple[int, ...]:
    """Each side's total (:func:`sides`): shared by joint partners, who both carry it; summed under individual
    scoring, where the team totals decide; a seat's own where each plays alone."""
    if rules.teams == "joint":
        return (totals[0], totals[1])
    return tuple(sum(totals[s] for s in side) for side in sides(rules, len(totals)))


@lru_cache(maxsize=64)
def scoring_units(rules: Rules, num_players: int) -> tuple[tuple[int, ...], ...]:
    """The positions that score a deal together: the joint partnerships, whose tricks count as one, or each
    position alone (individual partners score apart). Cached: every deal's scores ask."""
    if rules.teams == "joint" and num_players == 4:
        return ((0, 2), (1, 3))
    return tuple((p,) for p in range(num_players))


def reward_scores(rules: Rules, scores) -> tuple[int, ...]:
    """Each player's deal score as their partnership's: the partners' sum under individual scoring, where team
    totals decide the match; unchanged otherwise (joint partners already carry the team's score)."""
    if rules.teams != "individual" or len(scores) != 4:
        return tuple(scores)
    return tuple(scores[p] + scores[partner_of(p)] for p in range(4))


def _problem(r: Rules) -> str | None:
    if r.teams == "none":
        return None
    if r.num_players != 4:
        return f"teams={r.teams!r} is played by 4 players in two partnerships across; got num_players={r.num_players}"
    if r.tie_break == "tied_players":
        return "teams need tie_break 'all_players' or 'shared' (a tie-break deal among tied players splits a team)"
    return None


# --- in the observation


def _parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    if "teams" not in feats:
        return ()
    return (("team_mode", len(TEAMS) - 1, "rule: one-hot joint or individual partnership scoring"),
            ("partner", n, "one-hot: my partner's seat"))


def _encode_rules(vec: np.ndarray, o: dict[str, slice], rules: Rules, feats: tuple[str, ...]) -> None:
    if "teams" in feats:
        vec[o["team_mode"]] = 0
        vec[o["team_mode"].start + TEAMS.index(rules.teams) - 1] = 1


def _encode_state(vec: np.ndarray, o: dict[str, slice], info: InfoState, feats: tuple[str, ...], rel) -> None:
    if "teams" in feats and info.partner is not None:
        vec[o["partner"].start + rel(info.partner)] = 1


SYSTEM = RuleSystem(
    name="teams",
    options={
        "teams": Option(str, "none", "Pagat, Partnership Hearts: 'joint' tricks and scores (a team slam: the partner"
                                     " with more of the points chooses), or 'individual' scores with the team totals"
                                     " deciding", choices=TEAMS),
    },
    problem=_problem,
    features=lambda r: ("teams",) if r.teams != "none" else (),
    bounds=lambda r: Bounds(unit_size=2) if r.teams == "individual" else None,  # a reward adds the partners' scores
    parts=_parts,
    encode_rules=_encode_rules,
    encode_state=_encode_state,
    info_fields={"partner": InfoField(int | None, None, "this seat's partner")},
    inform=lambda deal, pos, seat, by_seat: {"partner": partner_of(seat)},
)

