"""``black_maria_v0``: Black Maria and the whole Hearts family as a PettingZoo AEC environment.

``env(**kwargs)`` is the environment wrapped the PettingZoo way (order enforcement, by a
thin wrapper of our own that reads hot attributes directly; see :mod:`bm_env.env.order`);
``raw_env(**kwargs)`` is the bare :class:`~bm_env.env.aec.BlackMariaEnv`. Keyword arguments:

- ``rules``: a preset name (``bm_env.engine.rules.PRESETS``) or a ``Rules`` object; any rules option
  may be given as a further keyword and overrides the preset (``moon="shooter_minus"``);
- ``num_players``: player count (the preset's default otherwise);
- ``episode``: ``"deal"`` (one deal per episode, the default) or ``"match"``;
- ``reward``: ``"score"`` or ``"zero_sum"``; ``reward_normalise=True`` divides by the deal's scale;
- ``illegal_action``: ``"raise"`` (default) or ``"renege_penalty"``;
- ``render_mode``: ``None``, ``"human"``, ``"ansi"`` or ``"rgb_array"`` (the table as an image); ``render_seat``, ``render_reveal``.
- ``strict_options``: ``True`` refuses an unknown reset option, which is otherwise ignored with a warning.

Importing this module registers ``bm_env/black_maria-v0`` with PettingZoo's registry, so
``pettingzoo.make("aec", "bm_env/black_maria-v0", num_players=4)`` works on versions that
have one (1.27+).
"""

from __future__ import annotations

from typing import Any

from .env.aec import BlackMariaEnv
from .env.order import FastOrderEnforcingWrapper

ENV_ID = "bm_env/black_maria-v0"


def raw_env(**kwargs: Any) -> BlackMariaEnv:
    """The unwrapped environment."""
    return BlackMariaEnv(**kwargs)


def env(**kwargs: Any) -> FastOrderEnforcingWrapper:
    """The environment behind order enforcement: what users and ``pettingzoo.make`` get."""
    return FastOrderEnforcingWrapper(BlackMariaEnv(**kwargs))


def _register() -> None:
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # PettingZoo before the registry (1.24 to 1.26)
        return
    if ENV_ID not in aec_registry:
        register("aec", ENV_ID, entry_point=env)


_register()

__all__ = ["env", "raw_env", "BlackMariaEnv", "ENV_ID"]
