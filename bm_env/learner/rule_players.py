"""The rule-based players deciding in games of the vector engine, from its arrays.

The player is the very same code as the agent (:func:`~bm_env.agents.heuristic.choose` or
:func:`~bm_env.agents.heuristic_v1.choose`); only its view of the position is read here from
the engine's arrays instead of from a :class:`~bm_env.engine.deal.Deal`, and a test checks both
views agree at every step of played deals. ``bm-train`` seats them in its ``rule_opponent``
deals (:mod:`bm_env.training.rule_opponent`), and :func:`bm_env.learner.make_vector_env` as
opponents. They read the plain engine's arrays only: rules with extension options are refused
where they are seated.

It decides game by game in Python, on one core, which costs: one decision takes about
17 to 20 µs (black_maria and american_hearts, either player, the engine's step included;
one core of a 2-vCPU AMD EPYC), about three times the policy network's forward pass per
decision in a batch of 1,024 (256 × 256, fp32, one thread). It costs in proportion to its
share (``bm-bench --only training`` has a row with it in 30% of the deals); in the ``american_hearts``
closing stages with the player in 80% or all of the deals, the rollout's decisions (the
player's and the network's) took 50 to 62% of the time (TensorBoard's
``speed/rollout_forward_share``), while only one seat of each such deal gives training data.
The networks run on that seat's decisions alone (:mod:`bm_env.training.rollout`): in that closing
stage's config (80% rule deals, 10% pool deals, 2 threads, fp32, the same EPYC) training ran at
25,300 to 25,700 decisions/s, against 23,500 to 23,600 when they ran on every seat; about a
quarter of the time is still this player's decisions.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from ..agents import heuristic, heuristic_v1
from ..engine.deal import PASS
from ..vector.engine import VectorEngine

#: The players that can sit at the engine's games, by agent spec. ``random`` has no module: it draws one of the
#: legal actions uniformly, so that a run can also face players who do not play as the rule-based ones do.
PLAYERS: dict[str, ModuleType | None] = {"heuristic_v1": heuristic_v1, "heuristic_v2": heuristic, "random": None}


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
