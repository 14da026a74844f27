"""Agents by name: ``make_agent("pimc:worlds=20", rules, seed)``.

A spec is ``name`` or ``name:arguments``; arguments are ``key=value`` items separated by
commas, and ``policy`` also takes the checkpoint as its first, unnamed argument: a shipped
agent's name (``policy:black_maria_3p``, :mod:`.shipped`) or a file's path.
A trailing ``#tag`` (``random#b``) is a label only: it lets a seating hold two agents of
the same kind that reports keep apart.

The specs:

- ``random``: uniform over legal actions, seeded
- ``heuristic_v2``: the second rule-based player (:mod:`.heuristic`)
- ``heuristic_v1``: the first rule-based player, frozen (:mod:`.heuristic_v1`), to compare with
- ``heuristic``: an alias of the newest rule-based player, ``heuristic_v2`` (:mod:`.names`)
- ``pimc[:worlds=20,rollouts=1,rollout=heuristic,override_z=Z,guide=PATH,guide_playouts=false,read_passes=false]``: search; ``rollout`` is ``heuristic`` (the alias), ``heuristic_v2``, ``heuristic_v1`` or ``random``; ``override_z`` is 1 without a moon, 0 (the best mean) with one or with random playouts and no guide, unless given; ``guide``: a policy checkpoint that passes and proposes the card the search must beat; ``guide_playouts``: the guide also plays this seat in the playouts; ``read_passes``: worlds drawn by what the pass received says about the other hands
- ``policy:NAME|PATH[,greedy=true]``: a network: a shipped agent by name, or a checkpoint file; ``greedy=false`` samples
- ``search:guide=NAME_OR_PATH[,worlds=8,override_z=Z,playouts=greedy,read_passes=false,belief=NAME_OR_PATH]``: the batched search of :mod:`~bm_env.agents.search`: the ``guide`` network (a shipped agent's name, ``black_maria_3p``, or a checkpoint path) plays every seat in ``worlds`` worlds per decision on the vector engine; ``override_z`` as pimc's (1 without a moon, 0 with one); ``playouts``: ``greedy`` or ``sampled``; ``belief``: the belief network by which the worlds are drawn, a shipped belief's name (``black_maria_3p``) or a file of :mod:`~bm_env.training.belief`

Only ``policy``, ``search`` and a guided ``pimc`` (``guide=``) need torch, and only they import it, when one
is made: random, rule-based and unguided search agents, and the evaluation harness that plays
them, run without it.
:mod:`.thoughts` is what an agent may say about a decision (an agent's optional
``explain()``, :mod:`.base`), which game records carry. :func:`fixed_spec` is the spec with
every alias replaced by the fixed name it stands for, as reports record it.
"""

from __future__ import annotations

from typing import Any

from ..config import NumberError, number
from ..engine.rules import Rules
from .base import Agent
from .heuristic import HeuristicAgent
from .heuristic_v1 import HeuristicV1Agent
from .names import ALIASES, fixed_name
from .pimc import DEFAULT_ROLLOUT, PimcAgent
from .playouts import PLAYOUTS
from .random_agent import RandomAgent
from .shipped import checkpoint_path

AGENT_NAMES = ("random", "heuristic", "heuristic_v1", "heuristic_v2", "pimc", "policy", "search")
#: Each agent's parameters: a type, or for a number the arguments of :func:`bm_env.config.number` after the value
#: (type, lowest, highest, lowest excluded).
#: The highest values bound the work and memory of one decision (worlds * candidates worlds are drawn).
_PARAMS = {
    "random": {},
    "heuristic_v1": {},
    "heuristic_v2": {},
    "pimc": {"worlds": (int, 1, 10_000), "rollouts": (int, 1, 1_000), "rollout": str, "override_z": (float, 0, None),
             "guide": str, "guide_playouts": bool, "read_passes": bool},
    "policy": {"path": str, "greedy": bool},
    "search": {"guide": str, "worlds": (int, 1, 1_024), "override_z": (float, 0, None), "playouts": str,
               "read_passes": bool, "belief": str},
}

# pimc's playout policies are playouts.PLAYOUTS. (A network as the playout policy of every seat was tried
# twice and dropped: too slow one call at a time, and weaker than the network alone when batched in the
# vector engine; a guide network may play its own seat in the playouts, guide_playouts;
# docs/agents.md#pimc-search.)
SPEC_FORMS = ("random | heuristic | heuristic_v1 | heuristic_v2 | pimc[:worlds=N,rollouts=N,rollout="
              + "|".join([*ALIASES, *PLAYOUTS])
              + ",override_z=X,guide=NAME|PATH,guide_playouts=true|false,"
              "read_passes=true|false] | policy:NAME|PATH[,greedy=true|false] | "
              "search:guide=NAME|PATH[,worlds=N,override_z=X,playouts=greedy|sampled,read_passes=true|false,belief=NAME|PATH]")


_REGISTERED: dict[str, Any] = {}


def register_agent(name: str, factory) -> None:
    """Make ``name`` a spec for ``factory(rules, seed)`` (custom agents in the harness; no parameters)."""
    if name in _PARAMS or name in ALIASES or not name.isidentifier():
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
    if isinstance(typ, tuple):
        try:
            return number(text, *typ)
        except NumberError as e:
            raise AgentSpecError(f"{name}: {key} {e}") from None
    if typ is bool:
        low = text.lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        raise AgentSpecError(f"{name}: {key}={text!r} must be true or false")
    if not text:
        raise AgentSpecError(f"{name}: {key} is empty")
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"pimc:worlds=20"`` -> ``("pimc", {"worlds": 20})``; refuses anything malformed with a message.

    An alias comes back as the fixed name it stands for (``heuristic`` -> ``heuristic_v2``), and a
    shipped agent's name as its checkpoint file (``policy:black_maria_3p``, ``pimc:guide=black_maria_3p``)."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"agent spec must be a non-empty string; accepted: {SPEC_FORMS}")
    body = spec.strip().split("#", 1)[0]
    name, _, rest = body.partition(":")
    name = fixed_name(name.strip())
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
    if name == "search" and "guide" not in params:
        raise AgentSpecError(f"search needs a guide network, e.g. 'search:guide=black_maria_3p' (a shipped agent's "
                             f"name or a checkpoint path); got {spec!r}")
    if name == "policy" and "path" not in params:
        raise AgentSpecError(f"policy needs a shipped agent's name or a checkpoint path, e.g. 'policy:black_maria_3p' "
                             f"or 'policy:runs/x/best.pt'; got {spec!r}")
    for key in ("path", "guide"):
        if key in params:
            try:
                params[key] = checkpoint_path(params[key])
            except ValueError as e:
                raise AgentSpecError(f"{name}: {e}") from None
    return name, params


def fixed_spec(spec: str) -> str:
    """``spec`` without its ``#tag``, every alias replaced by the fixed name it stands for: the agent's
    name, and a search's playout policy, given (``rollout=heuristic``) or not (``pimc`` plays out with
    the newest heuristic): ``"pimc:worlds=10"`` -> ``"pimc:worlds=10,rollout=heuristic_v2"``. A report
    records it, so that a result stays tied to the player that made it when the alias moves on."""
    name, params = parse_spec(spec)
    rest = spec.strip().split("#", 1)[0].partition(":")[2]
    items = [item.strip() for item in rest.split(",")] if rest.strip() else []
    if name == "pimc":
        items = [item for item in items if item.partition("=")[0].strip() != "rollout"]
        items.append(f"rollout={fixed_name(params.get('rollout', DEFAULT_ROLLOUT))}")
    return name + (":" + ",".join(items) if items else "")


def make_agent(spec: str, rules: Rules, seed: int | None = None) -> Agent:
    """The agent a spec names, for ``rules``, seeded with ``seed``."""
    name, params = parse_spec(spec)
    if name in _REGISTERED:
        return _REGISTERED[name](rules, seed)
    if name == "random":
        return RandomAgent(seed)
    if name == "heuristic_v2":
        return HeuristicAgent(seed)
    if name == "heuristic_v1":
        return HeuristicV1Agent(seed)
    if name == "policy":
        from .policy import PolicyAgent  # torch is imported only where a network plays

        return PolicyAgent(params["path"], rules, params.get("greedy", True), seed)
    if name == "search":
        return _make_search(params, rules, seed)
    if rules is not None and rules.uses_extensions:
        raise AgentSpecError(
            f"pimc plays the classic rules only (one deck, no kitty, charges, boosts, teams, moon choice or other "
            f"extension); it does not play rules options {list(rules.uses_extensions)}; use 'heuristic', 'random' or "
            f"'policy' for these rules"
        )
    try:
        return PimcAgent(params.get("worlds", 20), params.get("rollouts", 1), params.get("rollout", DEFAULT_ROLLOUT), seed,
                         params.get("override_z"), params.get("guide"), rules, params.get("guide_playouts", False),
                         params.get("read_passes", False))
    except CheckpointError:  # a guide that is not a usable checkpoint: said as for a policy agent
        raise
    except ValueError as e:  # a playout that does not exist, override_z with random playouts
        raise AgentSpecError(str(e)) from None

def _make_search(params: dict[str, Any], rules: Rules, seed: int | None) -> Agent:
    """The batched search of a parsed ``search`` spec; rules it does not play refused by name."""
    if rules is None:
        raise AgentSpecError("search needs the rules it plays (make_agent(spec, rules))")
    if rules.uses_extensions:
        raise AgentSpecError(f"search plays the classic rules only; it does not play rules options "
                             f"{list(rules.uses_extensions)}; use 'policy' or 'heuristic' for these rules")
    from .search import SearchAgent  # torch is imported only where a network plays

    try:
        return SearchAgent(params["guide"], rules, params.get("worlds", 8), params.get("override_z"),
                           params.get("playouts", "greedy"), params.get("read_passes", False), seed,
                           params.get("belief"))
    except CheckpointError:
        raise
    except ValueError as e:  # worlds out of range, an unknown playout mode
        raise AgentSpecError(str(e)) from None


__all__ = ["Agent", "AgentSpecError", "AGENT_NAMES", "ALIASES", "CheckpointError", "HeuristicAgent", "HeuristicV1Agent",
           "PimcAgent", "RandomAgent", "SPEC_FORMS", "fixed_name", "fixed_spec", "make_agent", "parse_spec", "register_agent",
           "registered_agents"]
