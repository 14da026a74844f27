"""What the pass a seat received says about where the other players' cards lie when play starts.

A player who passes by a known policy tells the receiver more than the three cards: the cards it
did *not* pass were, by that policy, worth keeping. The heuristic passes the spade honours unless
five lower spades guard them, so in ``black_maria`` a seat that was passed no honour by its
neighbour can infer that the neighbour held none unguarded, and that the honours it does not see
were most likely dealt to the third player, who passed them on to that neighbour. Uniform worlds
put each unseen honour with either player at about even odds; drawn by the passes, they put it
with its real holder almost always when the others pass as the heuristic does
(docs/agents.md, "Worlds drawn by what the passes say").

:func:`pass_marginals` draws deals at the pass from this seat's knowledge (its own hand, its own
picks, and the cards it received, which its passer held), lets the other players pass by the
playout policy, keeps the deals in which the passer passes exactly what this seat received, and
counts where each card lies once the cards have moved. :class:`~bm_env.agents.pimc.PimcAgent`
(``read_passes``) turns those counts into weights for the seat each hidden card is drawn to
(:func:`affinities`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..engine.cards import NUM_CARDS, cards_of, mask_of
from ..engine.deal import PASS, Deal
from ..engine.infostate import InfoState

#: Below this many kept deals the counts say too little, and the worlds are drawn uniformly.
MIN_KEPT = 20


def original_hand(info: InfoState) -> int:
    """This seat's hand as dealt (a bit mask): what it holds and has played, its picks back, its receipt out."""
    played = mask_of(c for s, c in info.plays if s == info.seat)
    return (mask_of(info.hand) | played | mask_of(c for c, _ in info.passed)) & ~mask_of(info.received)


def pass_marginals(info: InfoState, move: Callable, rng: np.random.Generator, kept: int = 400,
                   draws: int = 4000) -> dict[int, np.ndarray] | None:
    """By seat, the chance that each card (52 entries) is in that seat's hand when play starts, given that the
    other players pass as ``move`` does and that this seat's passer passed what it received.

    Deals are drawn uniformly among those where the passer holds the received cards, the passes are made
    (this seat's own picks as it made them, the others' by ``move``), and a deal is kept where the passer's
    picks are the received cards: up to ``kept`` deals out of at most ``draws``. None where there was no
    pass to read (a hold deal, or passing not over) or where fewer than :data:`MIN_KEPT` deals were kept:
    the passer does not pass like ``move``, and the counts would mislead.
    """
    if info.phase == PASS or not info.received or info.received_from is None:
        return None
    seats = info.seats
    pos = seats.index(info.seat)
    giver = seats.index(info.received_from)
    mine = original_hand(info)
    received = mask_of(info.received)
    size = info.rules.hand_size(len(seats))  # every hand as dealt (pimc plays one-deck rules without a kitty)
    ours = tuple(c for c, _ in info.passed)
    totals = tuple(info.match_scores[s] for s in seats)
    dealer = seats.index(info.dealer)
    counts = np.zeros((len(seats), NUM_CARDS))
    got = 0
    pool = np.array(cards_of(info.rules.deck_mask(len(seats)) & ~(mine | received)))
    for _ in range(draws):
        rng.shuffle(pool)
        hands, at = [], 0
        for p in range(len(seats)):
            if p == pos:
                hands.append(mine)
                continue
            take = size - (len(info.received) if p == giver else 0)
            hands.append(mask_of(pool[at:at + take].tolist()) | (received if p == giver else 0))
            at += take
        deal = Deal(info.rules, hands, dealer, info.pass_direction, seats, totals, info.deals_played)
        if not passes_as_received(deal, pos, giver, ours, received, move, rng):
            continue
        for p in range(len(seats)):
            counts[p, cards_of(deal.hands[p])] += 1
        got += 1
        if got == kept:
            break
    if got < MIN_KEPT:
        return None
    return {s: counts[p] / got for p, s in enumerate(seats) if p != pos}


def passes_as_received(deal: Deal, pos: int, giver: int, ours: tuple[int, ...], received: int, move: Callable,
                       rng: np.random.Generator) -> bool:
    """Make ``deal``'s passes (position ``pos`` picking ``ours``, the others by ``move``) unless ``giver`` picks
    a card outside ``received``: whether the passes were made, ``giver`` picking exactly ``received``."""
    k = 0
    while deal.phase == PASS:
        if deal.to_act == pos:
            deal.step(ours[k])
            k += 1
            continue
        c = move(deal, rng)
        if deal.to_act == giver and not received >> c & 1:
            return False
        deal.step(c)
    return True


def affinities(marginals: dict[int, np.ndarray], info: InfoState, floor: float = 0.01) -> dict[int, np.ndarray]:
    """By seat, how much likelier than its share of the hidden cards each card is to lie with that seat.

    The hidden cards are those the other players held when play started, less the cards this seat
    passed (it knows where those went). A seat holding a fifth of them, and a card it holds with
    chance 0.6, has affinity 3 for it: a card is drawn to a seat in proportion to the seat's room
    times this affinity, so with the chances all equal to the shares the draw is the uniform one.
    Chances are kept at least ``floor`` (and at most 1 - ``floor``), so that a world the passes call
    unlikely is never ruled out.
    """
    seats = list(marginals)
    table = np.stack([marginals[s] for s in seats])
    hidden = table.sum(axis=0) > 0
    hidden[[c for c, _ in info.passed]] = False
    share = table[:, hidden].sum(axis=1) / max(int(hidden.sum()), 1)
    clipped = np.clip(table, floor, 1 - floor)
    return {s: np.where(hidden, clipped[i] / max(share[i], floor), 1.0) for i, s in enumerate(seats)}
