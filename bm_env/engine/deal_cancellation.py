"""Cancellation Hearts (the British rules, Pagat) in a :class:`~bm_env.engine.deal.Deal`: two decks, and cards that cancel.

Two full decks are shuffled together, so a player may hold a card twice (``Deal.hands_twice``).
Identical cards in a trick cancel each other for winning: the highest led-suit card
played once wins. A trick in which every led-suit card is cancelled has no winner: it
stays on the table, its leader leads again, and the next trick's winner takes it too; a
last trick with no winner goes to the winner of the trick before (its leader, if none).

Part of the deal's implementation: these functions change the deal's state, its private
lists included (declared in ``bm_env.engine.deal``); nothing else does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from .deal import Deal


def standing(trick: Sequence[int], cards: Sequence[int]) -> list[int]:
    """Those of ``cards`` (cards of ``trick``) played once in it: the ones that can win."""
    return [c for c in cards if trick.count(c) == 1]


def leave_on_table(deal: Deal, trick: Sequence[int]) -> bool:
    """``trick`` has no winner: it waits on the table for the next winner. True when its leader
    still holds cards and leads again; False for the last trick, which goes to :func:`last_taker`."""
    deal._pending.append(tuple(trick))
    return bool(deal._hands[deal.leader])


def last_taker(deal: Deal) -> int:
    """Who takes a last trick with no winner: the winner of the trick before, else its leader."""
    return deal._last_winner if deal._last_winner is not None else deal.leader


def collect_table(deal: Deal, winner: int) -> int:
    """``winner`` takes every trick left on the table; returns the penalty points in them."""
    points = 0
    for cards in deal._pending:
        points += deal._collect(winner, cards)
    deal._pending = []
    return points
