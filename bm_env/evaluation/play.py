"""Playing one board at one seating: the reference engine driven by agents.

Agents see only their seat's information state (and its observation vector when they
declare ``needs_observation``); an illegal action is never replaced: the engine raises
:class:`~bm_env.engine.deal.IllegalActionError` naming the player, the card and the legal cards.
"""

from __future__ import annotations

from typing import Sequence

from ..engine.deal import DONE, Deal
from ..engine.infostate import information_state
from ..engine.rules import Rules
from ..engine.thoughts import ThoughtLog
from ..env.observation import encode
from .boards import Board


def rotation_seating(seating: Sequence, rotation: int) -> list:
    """Who sits where in rotation ``r``: seat ``s`` gets ``seating[(s - r) mod n]``."""
    n = len(seating)
    return [seating[(s - rotation) % n] for s in range(n)]


def agent_action(agent, deal: Deal, match_scores: Sequence[int] | None = None, deals_played: int = 0,
                 thoughts: ThoughtLog | None = None) -> int:
    """What ``agent`` plays for the seat to act in ``deal``, given that seat's view only
    (noted in ``thoughts``, with the agent's explanation where it gives one)."""
    info = information_state(deal, deal.current_seat, match_scores, deals_played)
    obs = encode(info) if getattr(agent, "needs_observation", True) else None
    action = agent.act(obs, deal.legal_mask(), info)
    if thoughts is not None:
        thoughts.note(deal, agent)
    return action


def play_board(rules: Rules, board: Board, agents: Sequence, thoughts: ThoughtLog | None = None) -> Deal:
    """Play ``board`` with ``agents[s]`` at seat ``s``; the finished deal."""
    deal = Deal(rules, board.hands, board.dealer, board.pass_direction, kitty=board.kitty)
    while deal.phase != DONE:
        deal.step(agent_action(agents[deal.to_act], deal, thoughts=thoughts))
    return deal


def play_deal(rules: Rules, board: Board, agents: Sequence) -> tuple[int, ...]:
    """The scores by seat of :func:`play_board`."""
    return play_board(rules, board, agents).scores
