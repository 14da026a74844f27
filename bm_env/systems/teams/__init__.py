"""Partnerships (Pagat, Partnership Hearts): four players, partners across.

``teams="joint"`` keeps tricks and scores together (a team slam: the partner with more of the
points chooses); ``"individual"`` scores each player and lets the team totals decide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..component import RuleSystem

if TYPE_CHECKING:
    from ...engine.infostate import InfoState
    from ...engine.rules import Rules

TEAMS = ("none", "joint", "individual")


def partner_of(seat):
    """The partner of ``seat`` under ``teams`` (or of each seat of an array): the player across.

    Partnerships are played by four players only (:class:`~bm_env.Rules` refuses other counts).
    """
    return (seat + 2) % 4


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
    options={"teams": str},
    choices={"teams": TEAMS},
    problem=_problem,
    features=lambda r: ("teams",) if r.teams != "none" else (),
    parts=_parts,
    encode_rules=_encode_rules,
    encode_state=_encode_state,
)


def team_scores(rules: Rules, scores: Sequence[int]) -> tuple[int, ...]:
    """Each player's deal score as their partnership's (Pagat's Partnership Hearts); unchanged without teams.

    Under joint scoring both partners already carry the team's score; under individual
    scoring the team's score is the partners' sum, since team totals decide the match.
    """
    if rules.teams != "individual" or len(scores) != 4:
        return tuple(scores)
    return tuple(scores[p] + scores[partner_of(p)] for p in range(4))
