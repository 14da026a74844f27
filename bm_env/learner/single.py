"""A Gymnasium single-agent view of the environment: one learning seat, the others played by given agents.

The observation is the learning seat's int8 vector; the legal actions come from
:meth:`~bm_env.learner.SingleAgentEnv.action_masks` (the method MaskablePPO-style learners call) and from
``info["action_mask"]``. The reward of a step is what the learning seat earned between its
decisions (deal rewards, see :mod:`bm_env.env.rewards`).

``opponents`` names the other seats' players the way every tool does: an agent spec
(``"heuristic"``, ``"policy:black_maria_3p"``, see :mod:`bm_env.agents`), a
callable ``f(observation, mask) -> action`` or an object with the
:class:`~bm_env.agents.base.Agent` method ``act(observation, mask, info_state)``. One of
these plays every other seat (a spec builds one agent per seat); a list gives one per
other seat in seat order and may mix the kinds. Agents built from specs are reseeded at
every reset from the wrapper's generator, so ``reset(seed=...)`` fixes their play too;
callables and agent objects are the caller's to seed. Without opponents, each other seat
plays a legal card uniformly at random from the wrapper's generator.

Illegal actions: a learner that samples from the full action space (as
``gymnasium.utils.env_checker.check_env`` does) needs an answer other than an exception,
so the wrapper defaults to ``illegal_action="renege_penalty"``: the source's renege
penalty, under which the offender takes every penalty point and the deal ends. The action
is never replaced by a legal one. Pass ``illegal_action="raise"`` to get the error instead.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium
import numpy as np

from ..engine import checks
from ..env.aec import BlackMariaEnv

#: Where gymnasium.Env keeps its generator and seed (the seed field since gymnasium 1.0).
_GENERATOR_FIELDS = ("_np_random", "_np_random_seed")


class SingleAgentEnv(gymnasium.Env):
    """One seat of :class:`~bm_env.env.aec.BlackMariaEnv` as a Gymnasium environment."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        learner: int = 0,
        opponents: Sequence[Any] | Any | None = None,
        render_mode: str | None = None,
        illegal_action: str = "renege_penalty",
        **env_kwargs: Any,
    ) -> None:
        self.aec = BlackMariaEnv(render_mode=render_mode, illegal_action=illegal_action, **env_kwargs)
        n = self.aec.rules.num_players
        self.learner = learner = checks.seat("learner", learner, n)
        self.aec.render_seat = learner
        self.agent = f"player_{learner}"
        others = [s for s in range(n) if s != learner]
        if opponents is None:
            opponents = {}
        elif isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != n - 1:
                raise ValueError(f"opponents must hold one agent per other seat ({n - 1}), got {len(opponents)}")
            opponents = dict(zip(others, opponents))
        else:
            opponents = {s: opponents for s in others}
        self._opponents: dict[int, Any] = {s: self._opponent(s, opp) for s, opp in opponents.items()}
        #: The agents this wrapper built from specs, in seat order: the ones it reseeds at reset.
        self._built = [self._opponents[s] for s, opp in opponents.items() if isinstance(opp, str)]
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)["observation"]
        self.action_space = self.aec.action_space(self.agent)
        self._mask = np.zeros(self.action_space.n, dtype=np.int8)

    def _opponent(self, seat: int, opp: Any) -> Any:
        """The player for ``seat``: an agent built from a spec, or the callable or agent given."""
        if isinstance(opp, str):
            # Imported here: bm_env.agents loads torch, which a wrapper without specs does not need.
            from ..agents import make_agent

            return make_agent(opp, self.aec.rules)  # an unknown spec raises AgentSpecError with the forms
        if callable(opp) or hasattr(opp, "act"):
            return opp
        raise ValueError(f"opponent for seat {seat} must be an agent spec such as 'heuristic', a callable "
                         f"(observation, mask) or an object with .act, got {checks.shown(opp)}")

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learning seat now (int8; all zero once the episode is over)."""
        return self._mask.copy()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start an episode: a new deal (or match) drawn from the wrapper's generator; ``(observation, info)``.

        ``options`` are the environment's reset options (:data:`bm_env.env.aec.RESET_OPTIONS`).
        """
        if seed is not None and not checks.is_whole(seed) or checks.is_whole(seed) and seed < 0:
            raise ValueError(f"seed must be a whole number of at least 0, or None; got {checks.shown(seed)}")
        # A refused reset (bad options) leaves the wrapper's generator as it was, like the env's own.
        kept = {k: v for k, v in vars(self).items() if k in _GENERATOR_FIELDS}
        drawn_from = self._np_random.bit_generator.state if self._np_random is not None else None
        super().reset(seed=None if seed is None else int(seed))
        try:
            # Every episode's deal is drawn from the wrapper's generator, so one seed fixes the whole run.
            self.aec.reset(seed=int(self.np_random.integers(2**31)), options=options)
        except ValueError:
            for k in _GENERATOR_FIELDS:
                vars(self).pop(k, None)
            vars(self).update(kept)
            if drawn_from is not None:
                self._np_random.bit_generator.state = drawn_from
            raise
        for agent in self._built:
            agent.reset(int(self.np_random.integers(2**31)))
        self._play_others()  # the learner acts before any deal can end, so no reward is lost here
        return self._observe()

    def step(self, action: int):
        """Play the learning seat's ``action``, then the other seats up to its next decision.

        Returns Gymnasium's ``(observation, reward, terminated, truncated, info)``; ``truncated``
        is always false, a deal or match ends only by its rules.
        """
        aec = self.aec
        if not hasattr(aec, "terminations") or aec.terminations[self.agent]:
            raise RuntimeError("no episode in progress; call reset() first")
        aec.step(action)
        reward = float(aec._cumulative_rewards[self.agent])
        aec._cumulative_rewards[self.agent] = 0
        reward += self._play_others()
        obs, info = self._observe()
        terminated = bool(aec.terminations[self.agent])
        return obs, reward, terminated, False, info

    def _play_others(self) -> float:
        """Let the other seats act until the learner must act or the episode ends; the learner's reward meanwhile."""
        aec = self.aec
        reward = 0.0
        while not aec.terminations[self.agent] and aec.agent_selection != self.agent:
            seat = aec._seat_of[aec.agent_selection]
            o = aec.observe(aec.agent_selection)
            opp = self._opponents.get(seat)
            if opp is None:
                legal = o["action_mask"].nonzero()[0]
                action = int(legal[self.np_random.integers(len(legal))])
            elif hasattr(opp, "act"):
                action = opp.act(o["observation"], o["action_mask"], aec.information_state(aec.agent_selection))
            else:
                action = opp(o["observation"], o["action_mask"])
            aec.step(action)
        reward += float(aec._cumulative_rewards[self.agent])
        aec._cumulative_rewards[self.agent] = 0
        return reward

    def _observe(self):
        o = self.aec.observe(self.agent)
        self._mask = o["action_mask"]
        info = dict(self.aec.infos[self.agent])
        info["action_mask"] = o["action_mask"].copy()
        return o["observation"], info

    def render(self):
        """What the wrapped environment's :meth:`~bm_env.env.aec.BlackMariaEnv.render` returns."""
        return self.aec.render()

    def close(self) -> None:
        """Close the wrapped environment."""
        self.aec.close()
