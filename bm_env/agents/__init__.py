"""Agents by name: ``make_agent("pimc:worlds=20", rules, seed)``.

A spec is ``name`` or ``name:arguments``; arguments are ``key=value`` items separated by
commas, and ``policy`` also takes the checkpoint path as its first, unnamed argument.
A trailing ``#tag`` (``random#b``) is a label only: it lets a seating hold two agents of
the same kind that reports keep apart.

| spec | agent |
|---|---|
| ``random`` | uniform over legal actions, seeded |
| ``heuristic`` | the rule-based player of :mod:`.heuristic` |
| ``heuristic_v1`` | the first rule-based player, frozen (:mod:`.heuristic_v1`), to compare with |
| ``pimc[:worlds=20,rollouts=1,rollout=heuristic,override_z=Z,guide=PATH,guide_playouts=false,infer=false,surprise=0.2,candidates=4,pass_worlds=N,pass_candidates=8,read_passes=false]`` | search; ``rollout`` is ``heuristic``, ``heuristic_v1`` or ``random``; ``override_z`` is 1 without a moon, 0 (the best mean) with one or with random playouts and no guide, unless given; ``guide``: a policy checkpoint that passes and proposes the card the search must beat; ``guide_playouts``: the guide also plays this seat in the playouts; ``infer``: worlds drawn by how likely the other players' cards are under the playout policy (``surprise``, ``candidates``); ``pass_worlds``: with a guide, the pass searched among the guide's ``pass_candidates`` likeliest over that many deals (not given: the guide's pass); ``read_passes``: worlds drawn by what the pass received says about the other hands |
| ``policy:PATH[,greedy=true]`` | a network from a checkpoint; ``greedy=false`` samples |

Only ``policy`` and a guided ``pimc`` (``guide=``) need torch, and only they import it, when one
is made: random, rule-based and unguided search agents, and the evaluation harness that plays
them, run without it.
:mod:`.thoughts` is what an agent may say about a decision (an agent's optional
``explain()``, :mod:`.base`), which game records carry.
"""

from __future__ import annotations

from typing import Any

from ..engine.rules import Rules
from .base import Agent
from .heuristic import HeuristicAgent
from .heuristic_v1 import HeuristicV1Agent
from .pimc import PimcAgent
from .playouts import PLAYOUTS
from .random_agent import RandomAgent

AGENT_NAMES = ("random", "heuristic", "heuristic_v1", "pimc", "policy")
_PARAMS = {
    "random": {},
    "heuristic": {},
    "heuristic_v1": {},
    "pimc": {"worlds": int, "rollouts": int, "rollout": str, "override_z": float, "guide": str,
             "guide_playouts": bool, "infer": bool, "surprise": float, "candidates": int, "pass_worlds": int,
             "pass_candidates": int, "read_passes": bool},
    "policy": {"path": str, "greedy": bool},
}

# pimc's playout policies are playouts.PLAYOUTS. (A network as the playout policy of every seat was tried
# twice and dropped: too slow one call at a time, and weaker than the network alone when batched in the
# vector engine; a guide network may play its own seat in the playouts, guide_playouts;
# docs/agents.md#pimc-search.)
SPEC_FORMS = ("random | heuristic | heuristic_v1 | pimc[:worlds=N,rollouts=N,rollout=" + "|".join(PLAYOUTS)
              + ",override_z=X,guide=PATH,guide_playouts=true|false,infer=true|false,surprise=X,candidates=N,pass_worlds=N,"
              "pass_candidates=N,read_passes=true|false] | policy:PATH[,greedy=true|false]")


_REGISTERED: dict[str, Any] = {}


def register_agent(name: str, factory) -> None:
    """Make ``name`` a spec for ``factory(rules, seed)`` (custom agents in the harness; no parameters)."""
    if name in _PARAMS or not name.isidentifier():
        raise ValueError(f"agent name {name!r} is taken or not an identifier")
    _REGISTERED[name] = factory


def registered_agents() -> dict[str, Any]:
    """The custom agents of :func:`register_agent` by name (evaluation workers register them again)."""
    return dict(_REGISTERED)


class AgentSpecError(ValueError):
    """An agent spec that cannot be read, with the accepted forms."""


class CheckpointError(ValueError):
    """A checkpoint that cannot be used here, with the reason (raised by :mod:`.checkpoint`; defined here,
    where torch is not needed, so that the command-line tools catch it without importing torch)."""


def _value(name: str, key: str, text: str, typ) -> Any:
    if typ is bool:
        low = text.lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        raise AgentSpecError(f"{name}: {key}={text!r} must be true or false")
    if typ is float:
        try:
            x = float(text)
        except ValueError:
            raise AgentSpecError(f"{name}: {key}={text!r} must be a number") from None
        if not 0 <= x < float("inf"):
            raise AgentSpecError(f"{name}: {key}={text!r} must be a finite number >= 0")
        return x
    if typ is int:
        try:
            v = int(text)
        except ValueError:
            raise AgentSpecError(f"{name}: {key}={text!r} must be a whole number") from None
        if v < 1:
            raise AgentSpecError(f"{name}: {key}={v} must be at least 1")
        return v
    if not text:
        raise AgentSpecError(f"{name}: {key} is empty")
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"pimc:worlds=20"`` -> ``("pimc", {"worlds": 20})``; refuses anything malformed with a message."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"agent spec must be a non-empty string; accepted: {SPEC_FORMS}")
    body = spec.strip().split("#", 1)[0]
    name, _, rest = body.partition(":")
    name = name.strip()
    if name in _REGISTERED and not rest.strip():
        return name, {}
    if name not in _PARAMS:
        raise AgentSpecError(f"unknown agent {name!r} in spec {spec!r}; accepted: {SPEC_FORMS}")
    params: dict[str, Any] = {}
    allowed = _PARAMS[name]
    if rest.strip():
        for i, item in enumerate(rest.split(",")):
            item = item.strip()
            if "=" not in item:
                if name == "policy" and i == 0 and item:
                    params["path"] = item
                    continue
                raise AgentSpecError(f"argument {item!r} of spec {spec!r} is not key=value; accepted: {SPEC_FORMS}")
            key, _, text = item.partition("=")
            key = key.strip()
            if key not in allowed:
                what = f"allowed: {sorted(allowed)}" if allowed else "it takes no arguments"
                raise AgentSpecError(f"agent {name!r} has no parameter {key!r} ({what})")
            if key in params:
                raise AgentSpecError(f"parameter {key!r} given twice in spec {spec!r}")
            params[key] = _value(name, key, text.strip(), allowed[key])
    elif ":" in body:
        raise AgentSpecError(f"spec {spec!r} ends with ':' but gives no arguments; accepted: {SPEC_FORMS}")
    if name == "policy" and "path" not in params:
        raise AgentSpecError(f"policy needs a checkpoint path, e.g. 'policy:checkpoints/run.pt'; got {spec!r}")
    return name, params


def make_agent(spec: str, rules: Rules, seed: int | None = None) -> Agent:
    """The agent a spec names, for ``rules``, seeded with ``seed``."""
    name, params = parse_spec(spec)
    if name in _REGISTERED:
        return _REGISTERED[name](rules, seed)
    if name == "random":
        return RandomAgent(seed)
    if name == "heuristic":
        return HeuristicAgent(seed)
    if name == "heuristic_v1":
        return HeuristicV1Agent(seed)
    if name == "policy":
        from .policy import PolicyAgent  # torch is imported only where a network plays

        return PolicyAgent(params["path"], rules, params.get("greedy", True), seed)
    if rules is not None and rules.uses_extensions:
        raise AgentSpecError(
            f"pimc plays the classic rules only (one deck, no kitty, charges, boosts, teams, moon choice or other "
            f"extension); it does not play rules options {list(rules.uses_extensions)}; use 'heuristic', 'random' or "
            f"'policy' for these rules"
        )
    for option, needs in (("surprise", "infer"), ("candidates", "infer"), ("pass_candidates", "pass_worlds")):
        if option in params and not params.get(needs):
            raise AgentSpecError(f"pimc: {option} takes effect only with {needs} (spec {spec!r}); "
                                 f"add {needs}={'true' if needs == 'infer' else 'N'} or drop {option}")
    try:
        return PimcAgent(params.get("worlds", 20), params.get("rollouts", 1), params.get("rollout", "heuristic"), seed,
                         params.get("override_z"), params.get("guide"), rules, params.get("guide_playouts", False),
                         params.get("infer", False), params.get("surprise", 0.2), params.get("candidates", 4),
                         params.get("pass_worlds", 0), params.get("pass_candidates", 8),
                         params.get("read_passes", False))
    except CheckpointError:  # a guide that is not a usable checkpoint: said as for a policy agent
        raise
    except ValueError as e:  # a playout that does not exist, override_z with random playouts
        raise AgentSpecError(str(e)) from None

__all__ = ["Agent", "AgentSpecError", "AGENT_NAMES", "CheckpointError", "HeuristicAgent", "HeuristicV1Agent", "PimcAgent", "RandomAgent",
           "make_agent", "parse_spec", "register_agent", "registered_agents"]
