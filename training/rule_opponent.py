"""The rule-based player deciding in games of the vector engine, so that training can face it.

Self-play drifts towards play that beats itself, not towards play that beats the
rule-based player the agents are measured against. Seating that player in a share of the
training games (``rule_opponent``, ``rule_share`` in :mod:`training.config`) lets the
policy learn its habits. The player is the very same code as the agent
(:func:`~bm_env.agents.heuristic.choose` or :func:`~bm_env.agents.heuristic_v1.choose`);
only its view of the position is read here from the engine's arrays instead of from a
:class:`~bm_env.engine.deal.Deal`, and a test checks both views agree at every step of played deals.

It decides game by game in Python, on one core, which costs: one decision takes about
17 to 20 µs (black_maria and american_hearts, either player, the engine's step included;
one core of a 2-vCPU AMD EPYC), about three times the policy network's forward pass per
decision in a batch of 1,024 (256 × 256, fp32, one thread). It costs in proportion to its
share (``bm-bench --only training`` has a row with it in 30% of the deals); in the ``american_hearts``
closing stages with the player in 80% or all of the deals, the rollout's decisions (the
player's and the network's) took 50 to 62% of the time (TensorBoard's
``speed/rollout_forward_share``), while only one seat of each such deal gives training data.
The networks run on that seat's decisions alone (:mod:`training.rollout`): in that closing
stage's config (80% rule deals, 10% pool deals, 2 threads, fp32, the same EPYC) training ran at
25,300 to 25,700 decisions/s, against 23,500 to 23,600 when they ran on every seat (before
commit ``b06a41a``); about a quarter of the time is still this player's decisions.

A run may seat several players, each in its share of the rule deals
(``rule_opponent: {heuristic_v1: 0.8, random: 0.2}``), ``random`` among them: a policy
trained against one player alone learns that player's weaknesses rather than the game
(docs/training.md, "Against the rule-based player from the start"). The player of each rule
deal is drawn with the deal's seating, so one cast plays the whole deal.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from bm_env.agents import heuristic, heuristic_v1
from bm_env.config import ConfigError
from bm_env.engine.deal import PASS
from bm_env.engine.rules import Rules
from bm_env.vector import VectorEngine

#: The players that can sit at the engine's games, by agent spec. ``random`` has no module: it draws one of the
#: legal actions uniformly, so that a run can also face players who do not play as the rule-based ones do.
PLAYERS: dict[str, ModuleType | None] = {"heuristic": heuristic, "heuristic_v1": heuristic_v1, "random": None}


def rule_mix(spec: str | dict) -> dict[str, float]:
    """The players of the rule deals and each one's share of them, from ``rule_opponent``: a name of
    :data:`PLAYERS` (every rule deal), or a mapping of names to their shares of the rule deals, summing to 1."""
    mix = {spec: 1.0} if isinstance(spec, str) else dict(spec)
    if not mix:
        raise ConfigError(f"key 'rule_opponent' is an empty mapping; give a player of {sorted(PLAYERS)} or a mapping "
                          f"of them to their shares of the rule deals, e.g. {{heuristic_v1: 0.8, random: 0.2}}")
    for name, share in mix.items():
        if name not in PLAYERS:
            raise ConfigError(f"key 'rule_opponent' names {name!r}; the players are {sorted(PLAYERS)}")
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not share > 0:
            raise ConfigError(f"key 'rule_opponent': the share of {name!r} must be a positive number, got {share!r}")
    total = sum(mix.values())
    if abs(total - 1) > 1e-6:
        raise ConfigError(f"key 'rule_opponent': the shares of the rule deals must sum to 1, got {total:g} "
                          f"({', '.join(f'{k}: {v:g}' for k, v in mix.items())})")
    return {name: float(share) for name, share in mix.items()}


def check_rule_opponent(spec: str | dict, rules: Rules) -> dict[str, float]:
    """:func:`rule_mix` of ``spec``, refused with the reason where a player of it cannot sit at these rules' games."""
    mix = rule_mix(spec)
    if rules.uses_extensions and any(PLAYERS[name] is not None for name in mix):
        raise ConfigError(f"key 'rule_opponent': the rule-based player reads the arrays of the plain vector engine, "
                          f"and these rules use options it leaves to the extension engine "
                          f"({', '.join(rules.uses_extensions)}); set rule_opponent: null (or random)")
    return mix


def player_actions(engine: VectorEngine, games: np.ndarray, name: str, rng: np.random.Generator) -> np.ndarray:
    """The action player ``name`` chooses for the acting seat of each game in ``games``; ``random`` takes the
    engine's own uniform draw over the legal actions (:meth:`~bm_env.vector.VectorEngine.random_actions`) with ``rng``."""
    player = PLAYERS[name]
    if player is None:
        return engine.random_actions(rng)[games]
    return rule_actions(engine, games, player)


def rule_actions(engine: VectorEngine, games: np.ndarray, player: ModuleType) -> np.ndarray:
    """The card ``player`` chooses for the acting seat of each game in ``games``."""
    n = engine.n
    t = player.tables(engine.rules, n)
    View, choose = player.View, player.choose
    hands = engine.hands[:, games].T.tolist()
    trick_ids = engine._trick_ids()[:, games].T.tolist()
    voids = engine.voids[games].tolist()
    cols = [a[games].tolist() for a in (engine.to_act, engine.phase, engine.legal, engine.leader, engine.in_trick,
                                        engine.led, engine.pass_count, engine.picked)]
    out = np.empty(len(games), dtype=np.int64)
    for i, (p, phase, legal, leader, in_trick, led, pass_count, picked) in enumerate(zip(*cols)):
        hand = hands[i][p]
        if phase == 0:  # passing
            view = View(t, PASS, hand, legal, (), -1, 0, (), pass_count - picked)
        else:
            held = 0
            for h in hands[i]:
                held |= h
            trick = tuple(trick_ids[i][(leader + j) % n] for j in range(in_trick))
            w = voids[i]
            later = tuple((w >> 4 * q & 15, hands[i][q].bit_count())
                          for q in ((p + j) % n for j in range(1, n - in_trick)))
            view = View(t, "play", hand, legal, trick, led if in_trick else -1, held & ~hand, later, 0)
        out[i] = choose(view)
    return out
