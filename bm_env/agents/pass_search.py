"""A pass chosen by search: the guide network's likeliest passes, each played out in sampled deals.

The sources call the pass the key decision of the deal, and a network picks it one card at a
time with no look at what follows. The search (:meth:`~bm_env.agents.pimc.PimcAgent.searched_pass`)
takes the network's greedy pass and its likeliest other ones (:func:`likeliest_passes`, a beam
over its picks), ``pass_candidates`` in all, and scores each by the seat's result over
``pass_worlds`` deals drawn at the pass (:func:`deal_at_pass`: the other players' hands drawn
uniformly from the cards this seat does not hold), where the other players pass as the playout
policy would and the whole deal is played out by it (:func:`pass_values`). The same worlds
serve every candidate. As for cards (:func:`~bm_env.agents.pimc.card_to_play`), the network's
pass is kept unless another beats it by ``override_z`` standard errors of the paired difference.
Measured, it finds a better pass now and then against the heuristic and none against pimc
(docs/agents.md#a-searched-pass).

Used by :class:`~bm_env.agents.pimc.PimcAgent` with a ``guide`` and ``pass_worlds`` > 0.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..engine.cards import mask_of
from ..engine.deal import PASS, Deal, clone_deal
from ..engine.infostate import InfoState, information_state
from ..env.observation import encode
from .playouts import playout


def deal_at_pass(info: InfoState, rng: np.random.Generator) -> Deal:
    """A deal at the start of passing where this seat holds its real hand (its picks so far put
    back) and the other players hold cards drawn uniformly from the rest, as many as each was dealt.

    Nothing of the other hands is known while passing, so a uniform draw is the whole of this
    seat's knowledge; the deal starts before anyone's pick.
    """
    if info.phase != PASS:
        raise ValueError(f"a deal at the pass is drawn while passing; the phase is {info.phase!r}")
    seats = info.seats
    pool = np.array(info.unseen)
    rng.shuffle(pool)
    hands, at = [], 0
    for s in seats:
        if s == info.seat:
            hands.append(mask_of(info.hand) | mask_of(c for c, _ in info.passed))
        else:
            size = info.hand_sizes[s]
            hands.append(mask_of(pool[at:at + size].tolist()))
            at += size
    if at != len(pool):
        raise ValueError(f"information state is inconsistent: {len(pool)} unseen cards for {at} places in hands")
    totals = tuple(info.match_scores[s] for s in seats)
    return Deal(info.rules, hands, seats.index(info.dealer), info.pass_direction, seats, totals, info.deals_played)


def picks_until(deal: Deal, pos: int, move: Callable, rng: np.random.Generator, ours: tuple[int, ...] = ()) -> None:
    """Step ``deal``'s passing: position ``pos`` picks ``ours`` in order, every other position picks
    by ``move``; stop when passing is over or ``pos`` is to pick with ``ours`` used up."""
    k = 0
    while deal.phase == PASS:
        if deal.to_act == pos:
            if k == len(ours):
                return
            deal.step(ours[k])
            k += 1
        else:
            deal.step(move(deal, rng))


def likeliest_passes(net, info: InfoState, deal: Deal, count: int) -> list[tuple[int, ...]]:
    """The ``count`` likeliest different passes of ``net`` (a :class:`~bm_env.agents.policy.PolicyAgent`;
    a set of cards counts once, in the order of its likeliest picking), likeliest first: a beam of
    ``count`` over the picks, each step one batched call. ``deal`` is a deal at the pass
    (:func:`deal_at_pass`) with ``info``'s seat to pick its first card; the network reads the
    observation this seat has there, which no other hand enters.
    With ``count`` 1 it is the network's greedy pass (ties to the lower card, as argmax breaks them)."""
    beam: list[tuple[tuple[int, ...], float, Deal]] = [((), 0.0, deal)]
    for _ in range(info.pass_count):
        observations = np.stack([encode(information_state(d, info.seat, info.match_scores, info.deals_played))
                                 for _, _, d in beam])
        masks = np.stack([d.legal_mask() for _, _, d in beam])
        logp = net.log_probs(observations, masks)
        grown = [(picks + (int(a),), lp + float(row[a]), d)
                 for (picks, lp, d), row, m in zip(beam, logp, masks) for a in np.flatnonzero(m)]
        grown.sort(key=lambda g: -g[1])  # stable: ties keep the lower card first, as argmax does
        seen: set[frozenset[int]] = set()
        beam = []
        for picks, lp, d in grown:
            if frozenset(picks) in seen:
                continue
            seen.add(frozenset(picks))
            after = clone_deal(d)
            after.step(picks[-1])
            beam.append((picks, lp, after))
            if len(beam) == count:
                break
    return [picks for picks, _, _ in beam]


def pass_values(info: InfoState, passes: list[tuple[int, ...]], worlds: list[Deal], move: Callable,
                rng: np.random.Generator) -> np.ndarray:
    """The seat's result (higher is better) of each pass (columns) in each world (rows), every other
    decision of the deal made by ``move``: the other players' picks and every card played."""
    pos = info.seats.index(info.seat)
    sign = -1.0 if info.rules.lower_wins else 1.0
    values = np.zeros((len(worlds), len(passes)))
    for w, world in enumerate(worlds):
        for i, picks in enumerate(passes):
            d = clone_deal(world)
            picks_until(d, pos, move, rng, picks)
            playout(d, move, rng)
            values[w, i] = sign * d.scores[pos]
    return values
