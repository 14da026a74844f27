"""Why an action is not legal now: the rule that forbids it, in words.

The engine computes legal actions as one mask (:class:`~bm_env.engine.deal.Deal`); a person who
typed a card, or a programmer reading an :class:`~bm_env.engine.deal.IllegalActionError`, needs
to know which rule took that card out. :func:`why_illegal` goes through the rules in the
order the engine applies them and names the first one the action breaks. Kept apart from
the engine so that the hot path stays a few mask operations.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from ..systems import SYSTEMS
from .actions import PASS_ON
from .cards import CLUBS, HEARTS, NUM_CARDS, NUM_RANKS, QUEEN_SPADES, SUIT_MASKS, SUIT_NAMES, card_str

_HEARTS = SUIT_MASKS[HEARTS]
_CLUBS = SUIT_MASKS[CLUBS]


def why_illegal(deal, action: int, name: Callable[[int], str] = card_str) -> str:
    """The reason ``action`` is not legal for the player to act in ``deal`` (``name`` writes a card).

    Meant for an action outside ``deal.legal``; the phrase fits after "may not play X: ".
    """
    if deal.phase == "done":
        return "the deal is over"
    p = deal.to_act
    hand = deal.hands[p] | (deal.hands_twice[p] if deal.two_decks else 0)
    if deal.phase not in ("pass", "play"):  # a phase of a rule system's (charging, the kitty's discards, the moon)
        owner = next(system for system in SYSTEMS if deal.phase in system.phases)
        return owner.explain(deal, p, hand, action, name) or "the rules do not allow it now"
    if action == PASS_ON:
        if deal.phase == "pass" and deal.can_pass_on:
            return "passing on is only possible before picking any card to pass"
        return "passing on, unseen, is not a decision now"
    if not 0 <= action < NUM_CARDS:
        return f"it is not a decision of the {deal.phase} phase; give a card"
    if not hand >> action & 1:
        if deal.phase == "pass" and action in deal.pass_picks[p]:
            return "it is already picked to pass"
        return "it is not in your hand"
    if deal.phase == "pass":
        if deal.no_pass_mask >> action & 1:
            return "these rules do not let it be passed"
        return "it may not be passed now"
    return _play_reason(deal, p, hand, action, name)


def _play_reason(deal, p: int, hand: int, c: int, name: Callable[[int], str]) -> str:
    rules = deal.rules
    bit = 1 << c
    suit = c // NUM_RANKS
    first_trick = not deal.tricks
    if not deal.trick:  # a lead
        if first_trick and rules.first_lead == "lowest_club":
            low = deal.deck & _CLUBS
            return f"the first lead must be the lowest club in the deck, {name((low & -low).bit_length() - 1)}"
        if first_trick and rules.first_lead == "lowest_club_any_club" and suit != CLUBS:
            return "the first lead must be a club"
        if first_trick and rules.first_lead == "eldest_non_heart" and suit == HEARTS and hand & ~_HEARTS:
            return "the first lead may not be a heart"
        if suit == HEARTS and rules.hearts_lead == "when_broken" and not deal.hearts_broken and hand & ~_HEARTS:
            if rules.lead_hearts_with_queen_only:
                return (f"hearts are not broken yet: a heart may not be led while you hold a card other than hearts "
                        f"and {name(QUEEN_SPADES)}")
            return "hearts are not broken yet: a heart may not be led while you hold another suit"
    else:
        led = SUIT_MASKS[deal.led_suit]
        if not bit & led and hand & led:
            return f"you must follow the suit led, {SUIT_NAMES[deal.led_suit]}"
    for system in _in_use(rules):  # a filter or a compulsion of a rule system's (the queen when safe, charging)
        reason = system.explain(deal, p, hand, c, name)
        if reason:
            return reason
    if first_trick and rules.first_trick_no_points and deal.penalty_mask & bit:
        return "no points may be played on the first trick while you can play a card without points"
    return "the rules do not allow it now"


@lru_cache(maxsize=64)
def _in_use(rules) -> tuple:
    """The rule systems in use under ``rules``."""
    return tuple(system for system in SYSTEMS if system.features(rules))
