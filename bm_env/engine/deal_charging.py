"""Turbo Hearts (Pagat) in a :class:`~bm_env.engine.deal.Deal`: charging, and the 10♣ multiplier.

After the pass, each player from eldest hand in turn charges any of A♥ Q♠ J♦ 10♣ that it
holds, one card per decision, then ends its charging (``CHARGE_DONE``). A charged A♥
doubles every heart, a charged Q♠ or J♦ counts double. In play, a charged card may not
lead, nor follow in, the first trick of its suit unless nothing else is legal
(discarding it on another suit is allowed). With ``ten_clubs_multiplier`` the taker of
10♣ doubles its deal score, four times it if 10♣ was charged.

Part of the deal's implementation: these functions change the deal's state, its private
lists included (declared in ``bm_env.engine.deal``); nothing else does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import CARD_CHARGE, CHARGE_CARD, CHARGE_DONE
from .cards import ACE_HEARTS, HEARTS, JACK_DIAMONDS, QUEEN_SPADES, SUIT_MASKS, TEN_CLUBS, cards_of

if TYPE_CHECKING:
    from .deal import Deal

_HEART_CARDS = tuple(cards_of(SUIT_MASKS[HEARTS]))


def legal(deal: Deal, p: int) -> int:
    """``p`` may charge any chargeable card it holds and has not charged, or end its charging."""
    out = 1 << CHARGE_DONE
    free = deal._hands[p] & ~deal._charged[p]
    for c, a in CARD_CHARGE.items():
        if free >> c & 1:
            out |= 1 << a
    return out


def charge(deal: Deal, action: int) -> bool:
    """The position to act charges a card, or ends its charging; True after the last player's end."""
    p = deal.to_act
    if action != CHARGE_DONE:
        deal._charged[p] |= 1 << CHARGE_CARD[action]
        deal.legal = legal(deal, p)
        return False
    return deal._next_in_round(legal)


def charged_values(deal: Deal) -> tuple[int, ...]:
    """The card values once every player has charged."""
    charged = 0
    for m in deal._charged:
        charged |= m
    values = list(deal.values)
    if charged >> ACE_HEARTS & 1:  # a charged A♥ doubles every heart
        for c in _HEART_CARDS:
            values[c] *= 2
    for c in (QUEEN_SPADES, JACK_DIAMONDS):  # a charged Q♠ or J♦ counts double
        if charged >> c & 1:
            values[c] *= 2
    return tuple(values)


def note_lead(deal: Deal, suit: int) -> None:
    """A trick is led in ``suit``: is it the first trick of that suit?"""
    cards = SUIT_MASKS[suit]
    deal._first_of_suit = not deal._suits_led & cards
    deal._suits_led |= cards


def playable(deal: Deal, p: int, legal_cards: int, leading: bool) -> int:
    """``legal_cards`` less ``p``'s charged cards that may not go to this trick: on a lead, those of
    a suit not led yet; following, those of the led suit on its first trick; unless nothing else is left."""
    mine = deal._charged[p] & deal._hands[p]
    if not mine:
        return legal_cards
    if leading:
        blocked = mine & ~deal._suits_led
    elif deal._first_of_suit:
        blocked = mine & SUIT_MASKS[deal.led_suit]
    else:
        return legal_cards
    return legal_cards & ~blocked or legal_cards


def multipliers(deal: Deal) -> list[int] | None:
    """Score multiplier of each position (``ten_clubs_multiplier``: the 10♣ taker's ×2, ×4 if it was
    charged), or None when no multiplier applies."""
    taker = deal.ten_clubs_taker
    if not deal.rules.ten_clubs_multiplier or taker is None:
        return None
    charged_tc = any(m >> TEN_CLUBS & 1 for m in deal._charged)
    out = [1] * deal.num_players
    out[taker] = 4 if charged_tc else 2
    return out
