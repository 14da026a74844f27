"""The swap at the heart of the hidden-information tests (observations, pictures, replay pages).

Two deals that differ only in two unplayed cards of seats 1 and 2 (same suit, same value,
both dealt to them and never passed) replay the same actions, since every legal move stays
legal; so whatever seat 0 is shown must be identical in both, while seats 1 and 2 see the
difference (which keeps such a test from passing vacuously).
"""

from __future__ import annotations

from bm_env.engine.cards import SUIT_MASKS, cards_of
from bm_env.engine.deal import PASS


def swap_unseen(rules, deal, hands, rng):
    """``(x, y, swapped hands)`` for ``deal`` (in play, dealt ``hands``), or None when it is not in
    play or seats 1 and 2 hold no such pair."""
    if deal.phase == PASS or deal.is_over:
        return None
    keep = cards_of(deal.deck & SUIT_MASKS[0])[:1]  # the lowest club may have to lead
    held1 = [c for c in cards_of(deal.hands[1] & hands[1]) if c not in keep]
    held2 = [c for c in cards_of(deal.hands[2] & hands[2]) if c not in keep]
    values = rules.card_values
    pairs = [(x, y) for x in held1 for y in held2 if x // 13 == y // 13 and values[x] == values[y]]
    if not pairs:
        return None
    x, y = pairs[int(rng.integers(len(pairs)))]
    swapped = list(hands)
    swapped[1] = hands[1] ^ (1 << x) | (1 << y)
    swapped[2] = hands[2] ^ (1 << y) | (1 << x)
    return x, y, swapped
