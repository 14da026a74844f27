"""The players of the other seats in :func:`bm_env.learner.make_vector_env`, deciding for many games at once.

Each is built once for the whole batch and asked, at every step of the opponents' turns,
for the actions of the acting seat of a set of games (``games``, indices), from the
engine's arrays. So a policy network runs one forward pass for every game whose opponent
acts, and the engine's observation is encoded only for the players that read it
(:attr:`Opponent.needs_observation`).

Given as: the player (its cost per decision, beside the engine's step).

- ``None`` or ``"random"``: a uniform legal action, :meth:`~bm_env.vector.VectorEngine.random_actions` (one numpy pass; no observation)
- ``"heuristic"``, ``"heuristic_v1"``, ``"heuristic_v2"``: the rule-based players, :mod:`.rule_players` (game by game in Python, 17-20 µs)
- ``"policy:PATH[,greedy=false]"``: the checkpoint's network, one batched pass (the observation and a row of the pass)
- :class:`PolicyPool`: one of several checkpoints, drawn per seat and deal (as ``policy``: one pass for the pool)
- a callable ``f(obs [B, L], mask [B, A]) -> actions [B]``: the caller's (the observation and the callable)

``random``, ``greedy=false`` policies and pools draw from generators reseeded from the
environment's at every ``reset(seed=...)``; a callable is the caller's to seed.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..engine.rules import Rules
from ..vector.engine import VectorEngine

#: What an opponent may be given as, for messages.
OPPONENT_FORMS = ("'random', 'heuristic', 'heuristic_v1', 'heuristic_v2', 'policy:PATH[,greedy=true|false]' (the shipped agents "
                  "included), a PolicyPool of such checkpoints, or a callable f(obs[B], mask[B]) -> actions[B]")


class Opponent:
    """A player of other seats in many games; subclasses decide :meth:`act`."""

    #: Whether :meth:`act` reads the observations and masks of its games (encoded only then).
    needs_observation = True

    def bind(self, rules: Rules, num_envs: int) -> None:
        """Made ready for ``num_envs`` games of ``rules`` (once, when the environment is built)."""

    def reset(self, rng: np.random.Generator) -> None:
        """Reseed from the environment's generator (every ``reset``)."""

    def new_deals(self, games: np.ndarray, rng: np.random.Generator) -> None:
        """Deals have just begun in ``games`` (a pool draws their players here)."""

    def act(self, engine: VectorEngine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray | None,
            rng: np.random.Generator) -> np.ndarray:
        """The actions of the acting seat of each game of ``games`` (``obs``, ``mask``: their rows, or None)."""
        raise NotImplementedError


class RandomOpponent(Opponent):
    """A uniformly random legal action from the environment's generator."""

    needs_observation = False

    def act(self, engine, games, obs, mask, rng):
        """A uniform legal action per game, drawn from the environment's ``rng``."""
        return engine.random_actions(rng, games)


class RuleOpponent(Opponent):
    """A rule-based player (``heuristic_v1`` or ``heuristic_v2``, by fixed name) reading the plain engine's arrays."""

    needs_observation = False

    def __init__(self, name: str, rules: Rules) -> None:
        from .rule_players import PLAYERS  # the agents' modules, only where a rule-based player plays

        if rules.uses_extensions:
            raise ValueError(f"opponent {name!r}: the rule-based players read the arrays of the plain vector engine, "
                             f"and these rules use options of the extension engine ({', '.join(rules.uses_extensions)}); "
                             f"use 'random', a policy or a callable")
        self.name, self.player = name, PLAYERS[name]

    def act(self, engine, games, obs, mask, rng):
        """The rule-based player's action in each game, game by game from the engine's arrays."""
        from .rule_players import rule_actions

        return rule_actions(engine, games, self.player)


class CallableOpponent(Opponent):
    """The caller's batched function ``f(obs [B, L] int8, mask [B, A] int8) -> actions [B]``."""

    def __init__(self, f: Callable[[np.ndarray, np.ndarray], Any]) -> None:
        self.f = f

    def act(self, engine, games, obs, mask, rng):
        """What the callable returns for the games' rows; ValueError unless one integer action per game."""
        actions = np.asarray(self.f(obs, mask))
        if actions.shape != (len(games),) or actions.dtype.kind not in "iu":
            raise ValueError(f"an opponent callable must return one integer action per row ({len(games)},), "
                             f"got {actions.dtype}{list(actions.shape)}")
        return actions


class PolicyOpponent(Opponent):
    """A checkpoint's network (:class:`~bm_env.agents.policy.PolicyAgent`), one forward pass for all its games."""

    def __init__(self, spec: str, rules: Rules) -> None:
        from ..agents import make_agent  # torch, only where a network plays

        self.agent = make_agent(spec, rules)

    def reset(self, rng):
        """Reseed the network's agent from the environment's ``rng`` (a sampling policy draws from it)."""
        self.agent.reset(int(rng.integers(2**31)))

    def act(self, engine, games, obs, mask, rng):
        """The network's actions for all the games' rows in one forward pass."""
        return self.agent.act_batch(obs, mask)


class PolicyPool(Opponent):
    """Several checkpoints of one architecture; each opponent seat of each deal is played by one drawn from them.

    ``specs``: ``policy:PATH`` specs (or bare checkpoint paths); ``weights``: their chances
    (default: equal); ``greedy``: the best legal action, else a draw from the masked softmax.
    All the pool's rows of a step go through one batched pass
    (:class:`~bm_env.agents.stacked_pool.StackedPool`).
    """

    def __init__(self, specs: Sequence[str], weights: Sequence[float] | None = None, greedy: bool = True) -> None:
        if isinstance(specs, str) or not specs:
            raise ValueError(f"PolicyPool needs a non-empty list of checkpoints ('policy:PATH' or paths), got {specs!r}")
        self.specs = [s if s.startswith("policy:") else f"policy:{s}" for s in specs]
        w = np.ones(len(self.specs)) if weights is None else np.asarray(weights, dtype=np.float64)
        if w.shape != (len(self.specs),) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"PolicyPool weights must be {len(self.specs)} finite numbers >= 0, not all 0; got {weights!r}")
        self.chances = w / w.sum()
        self.greedy = bool(greedy)
        self.member: np.ndarray | None = None  # [N, n]: the pool member playing each seat of each game's deal

    def bind(self, rules: Rules, num_envs: int) -> None:
        """Load the checkpoints for ``rules`` (refused if made for other rules) and size the seats' draws."""
        if self.member is not None:
            raise ValueError("this PolicyPool already plays in a vector env (it keeps each game's draws); "
                             "make one PolicyPool per env")
        import torch

        from ..agents.checkpoint import load_checkpoint
        from ..agents.policy import choose_actions
        from ..agents.stacked_pool import StackedPool

        nets = [load_checkpoint(spec.split(":", 1)[1].split(",", 1)[0], rules)[0] for spec in self.specs]
        self.stacked = StackedPool(nets, "fp32")
        self.member = np.zeros((num_envs, rules.num_players), dtype=np.int64)
        self._torch, self._choose = torch, choose_actions

    def reset(self, rng):
        """A generator of the pool's own, seeded from the environment's ``rng``: it draws the members and,
        unless greedy, their actions."""
        self._rng = np.random.default_rng(int(rng.integers(2**31)))

    def new_deals(self, games, rng):
        """Draw, by the pool's chances, the member that plays each seat of the deals just begun in ``games``."""
        self.member[games] = self._rng.choice(len(self.specs), size=(len(games), self.member.shape[1]), p=self.chances)

    def act(self, engine, games, obs, mask, rng):
        """Each game's acting seat played by its drawn member, every member's rows in one batched pass."""
        torch = self._torch
        who = self.member[games, engine.to_act[games]]
        with torch.no_grad():
            logits = self.stacked.logits(torch.from_numpy(obs).float(), who)
        logits = logits.masked_fill(~torch.from_numpy(mask != 0), torch.finfo(logits.dtype).min)
        return self._choose(logits, mask, self.greedy, self._rng)


def make_opponent(given: Any, rules: Rules) -> Opponent:
    """The batched player ``given`` names (see the module docstring); anything else is refused, naming the forms."""
    if given is None or given == "random":
        return RandomOpponent()
    if isinstance(given, Opponent):
        return given
    if isinstance(given, str):
        from ..agents.names import fixed_name  # the alias heuristic names the newest rule-based player

        name = given.strip().split("#", 1)[0].partition(":")[0].strip()
        if fixed_name(name) in ("heuristic_v1", "heuristic_v2") and ":" not in given:
            return RuleOpponent(fixed_name(name), rules)
        if name == "policy":
            return PolicyOpponent(given, rules)
        raise ValueError(f"opponent {given!r} cannot play inside the batch; allowed: {OPPONENT_FORMS} "
                         "(search agents such as pimc play in SingleAgentEnv)")
    if callable(given) and not hasattr(given, "act"):
        return CallableOpponent(given)
    raise ValueError(f"opponent {given!r} is not allowed; allowed: {OPPONENT_FORMS}")
