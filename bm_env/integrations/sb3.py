"""Stable-Baselines3: :func:`bm_env.learner.make_vector_env` as an SB3 ``VecEnv``, masks included.

SB3 steps its own ``VecEnv`` class, not a ``gymnasium.vector.VectorEnv``, and has no adapter
from one; :class:`SB3VecEnv` is that adapter. Its ``step_wait`` returns SB3's tuple
``(obs, rewards, dones, infos)``, with the finished deal's last observation in
``infos[i]["terminal_observation"]`` (SB3 resets its envs in the same step, as the vector env
does), and ``env_method("action_masks")`` gives every game's mask, which is how
sb3-contrib's MaskablePPO finds the legal actions of a ``VecEnv``. ``seed`` (SB3's, as
``MaskablePPO(..., seed=S)`` calls it) reseeds the whole batch at the next reset with the
first of its seeds.

    pip install 'black-maria[sb3]'
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from ..learner.vector_env import BlackMariaVectorEnv


class SB3VecEnv(VecEnv):
    """An SB3 ``VecEnv`` over one :class:`~bm_env.learner.vector_env.BlackMariaVectorEnv` (its ``num_envs`` games)."""

    def __init__(self, env: BlackMariaVectorEnv) -> None:
        if not isinstance(env, BlackMariaVectorEnv):
            raise ValueError(f"SB3VecEnv wraps the env of bm_env.learner.make_vector_env, got {type(env).__name__}")
        self.env = env
        self._actions: np.ndarray | None = None
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    def reset(self):
        seed = self._seeds[0]
        obs, info = self.env.reset(seed=seed)
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = info["final_obs"]
            for g in np.flatnonzero(dones).tolist():
                infos[g] = {"terminal_observation": final[g], "TimeLimit.truncated": bool(truncated[g] and not terminated[g])}
        return obs, rewards, dones, infos

    def close(self) -> None:
        self.env.close()

    # The games share one engine: there is one object, whose attributes and methods are every game's.

    def _games(self, indices) -> list[int]:
        return list(self._get_indices(indices))

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        if attr_name == "action_masks":
            return [self.action_masks] * len(self._games(indices))
        if attr_name == "render_mode":
            return [None] * len(self._games(indices))
        return [getattr(self.env, attr_name)] * len(self._games(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(f"the games of SB3VecEnv share one engine; attribute {attr_name!r} cannot be set per game")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        games = self._games(indices)
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[g] for g in games]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(games)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._games(indices))

    def action_masks(self) -> np.ndarray:
        """Every game's legal actions now, ``[N, A]`` int8."""
        return self.env.action_masks()

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs
