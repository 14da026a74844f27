"""One learning seat, the other seats played by agents: the Gymnasium faces that RL libraries train on.

- :class:`SingleAgentEnv` (:mod:`.single`): one game at a time, a ``gymnasium.Env`` over the
  PettingZoo environment, with the legal actions in ``action_masks()`` and ``info``;
- :func:`make_vector_env` and :class:`BlackMariaVectorEnv` (:mod:`.vector_env`): a
  ``gymnasium.vector.VectorEnv`` of N games of the vector engine, the other seats decided
  inside each step for the whole batch (:mod:`.opponents`, :class:`PolicyPool`; the rule-based
  players read the engine's arrays in :mod:`.rule_players`).

They stand above the agents, which play the other seats, and so above the environment and the
vector engine beneath those: the layer order is in :mod:`bm_env`'s docstring and
``tests/test_layers.py`` holds it. The names below are imported from their modules when first
asked for, so that reading :mod:`.rule_players` (as the trainer does) costs no Gymnasium or
PettingZoo; torch loads only where a network plays a seat.
"""

import importlib

__all__ = ["BlackMariaVectorEnv", "PolicyPool", "SingleAgentEnv", "make_vector_env"]

_MODULE_OF = {"BlackMariaVectorEnv": "vector_env", "PolicyPool": "opponents", "SingleAgentEnv": "single",
              "make_vector_env": "vector_env"}


def __getattr__(name: str):
    if name in _MODULE_OF:
        return getattr(importlib.import_module(f".{_MODULE_OF[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
