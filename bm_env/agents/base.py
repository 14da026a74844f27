"""The agent interface every player implements.

An agent gets what its seat may know and nothing else: the observation vector, the int8
action mask and the :class:`~bm_env.engine.infostate.InfoState`; it returns an action id whose
mask entry is 1. Rule-based and search agents read the information state, learned ones
the vector. Agents that can act for many games at once also implement ``act_batch``;
agents that can say how they chose implement ``explain()``, returning a
:class:`~bm_env.engine.thoughts.Thought` about their last ``act`` or None (game records carry it).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..engine.infostate import InfoState


@runtime_checkable
class Agent(Protocol):
    """What every player implements: ``act`` on what its seat may know, ``reset`` for a new game.

    A protocol, not a base class: any object with these methods and a ``name`` is an agent
    (``isinstance`` checks it at run time).
    """

    name: str

    def act(self, observation: np.ndarray, mask: np.ndarray, info: InfoState) -> int:
        """The action to take; must be legal under ``mask``."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Start afresh (a new game), reseeding any randomness the agent uses."""
        ...
