"""The rule-based players of ``rule_opponent`` deals: which players, and each one's share of those deals.

Self-play drifts towards play that beats itself, not towards play that beats the
rule-based player the agents are measured against. Seating that player in a share of the
training games (``rule_opponent``, ``rule_share`` in :mod:`bm_env.training.config`) lets the
policy learn its habits. The players decide from the engine's arrays
(:mod:`bm_env.learner.rule_players`, which says what they cost).

A run may seat several players, each in its share of the rule deals
(``rule_opponent: {heuristic_v1: 0.8, random: 0.2}``), ``random`` among them: a policy
trained against one player alone learns that player's weaknesses rather than the game
(docs/training.md, "Against the rule-based player from the start"). The player of each rule
deal is drawn with the deal's seating, so one cast plays the whole deal.
"""

from __future__ import annotations

from bm_env.agents.names import ALIASES, fixed_name
from bm_env.config import ConfigError
from bm_env.engine.rules import Rules
from bm_env.learner.rule_players import PLAYERS


def rule_mix(spec: str | dict) -> dict[str, float]:
    """The players of the rule deals, by fixed name, and each one's share of them, from ``rule_opponent``: a
    name of :data:`PLAYERS` or an alias (every rule deal), or a mapping of names to their shares of the rule
    deals, summing to 1."""
    mix = {spec: 1.0} if isinstance(spec, str) else dict(spec)
    names = sorted([*ALIASES, *PLAYERS])
    if not mix:
        raise ConfigError(f"key 'rule_opponent' is an empty mapping; give a player of {names} or a mapping "
                          f"of them to their shares of the rule deals, e.g. {{heuristic_v1: 0.8, random: 0.2}}")
    fixed: dict[str, str] = {}
    for name, share in mix.items():
        if fixed_name(name) not in PLAYERS:
            raise ConfigError(f"key 'rule_opponent' names {name!r}; the players are {names}")
        if fixed_name(name) in fixed:
            raise ConfigError(f"key 'rule_opponent' names one player twice: {fixed[fixed_name(name)]!r} and "
                              f"{name!r} are both {fixed_name(name)}")
        fixed[fixed_name(name)] = name
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not share > 0:
            raise ConfigError(f"key 'rule_opponent': the share of {name!r} must be a positive number, got {share!r}")
    total = sum(mix.values())
    if abs(total - 1) > 1e-6:
        raise ConfigError(f"key 'rule_opponent': the shares of the rule deals must sum to 1, got {total:g} "
                          f"({', '.join(f'{k}: {v:g}' for k, v in mix.items())})")
    return {fixed_name(name): float(share) for name, share in mix.items()}


def check_rule_opponent(spec: str | dict, rules: Rules) -> dict[str, float]:
    """:func:`rule_mix` of ``spec``, refused with the reason where a player of it cannot sit at these rules' games."""
    mix = rule_mix(spec)
    if rules.uses_extensions and any(PLAYERS[name] is not None for name in mix):
        raise ConfigError(f"key 'rule_opponent': the rule-based player reads the arrays of the plain vector engine, "
                          f"and these rules use options it leaves to the extension engine "
                          f"({', '.join(rules.uses_extensions)}); set rule_opponent: null (or random)")
    return mix
