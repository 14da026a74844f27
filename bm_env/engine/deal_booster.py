"""Booster Nines (Pagat) in a :class:`~bm_env.engine.deal.Deal`: nines that make a trick longer.

Each nine of the led suit played to a trick (the lead included, and in the rounds it has
already added) adds a round: once everyone has played, the trick goes round the table
again, for each nine owed, unless the hands are empty after this round (a nine in the
last trick boosts nothing). The highest card of the led suit over all its rounds wins.

Part of the deal's implementation: these functions change the deal's state, its private
lists included (declared in ``bm_env.engine.deal``); nothing else does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import NUM_RANKS

if TYPE_CHECKING:
    from .deal import Deal

_NINE = 7  # rank index of the nine


def count_nine(deal: Deal, c: int, suit: int) -> None:
    """Card ``c`` of ``suit`` was played to the trick: a nine of the led suit owes a round."""
    if suit == deal.led_suit and c % NUM_RANKS == _NINE:
        deal.boosts += 1


def add_round(deal: Deal, nxt: int) -> bool:
    """Everyone has played to the trick and a round is owed: it goes round again from ``nxt``,
    unless the hands are empty (True when it does)."""
    if not deal._hands[nxt]:
        return False
    deal.boosts -= 1
    deal.trick_len += deal.num_players
    return True


def end_trick(deal: Deal) -> None:
    """The trick is won: the next one starts owing nothing."""
    deal.trick_len = deal.num_players
    deal.boosts = 0
