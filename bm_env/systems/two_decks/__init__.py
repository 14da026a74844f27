"""Cancellation's two decks (the British rules, Pagat): two full decks shuffled together, and cards
that cancel.

A player may hold a card twice (``Deal.hands_twice``). Identical cards in a trick cancel each
other for winning: the highest led-suit card played once wins. A trick in which every led-suit
card is cancelled has no winner: it stays on the table, its leader leads again, and the next
trick's winner takes it too; a last trick with no winner goes to the winner of the trick before
(its leader, if none). The two decks are dealt as far as they go, so the rule needs a kitty for
the rest; no source combines them with charging, Booster Nines or partnerships.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from ...engine.cards import NUM_CARDS
from ..component import Dealing, InfoField, Option, RuleSystem
from ..kitty import KITTIES

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...engine.infostate import InfoState
    from ...engine.rules import Rules


def _problem(r: Rules) -> str | None:
    if r.decks not in (1, 2):
        return f"decks={r.decks} is not allowed; allowed: 1, or 2 (Cancellation, two decks shuffled together)"
    return None


# --- in the observation


def _parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    if "two_decks" not in feats:
        return ()
    return (("two_decks", 1, "rule: two decks (card planes count copies: 0, 1 or 2)"),
            ("pending_trick_cards", NUM_CARDS, "cards of cancelled tricks left on the table for the next winner"))


def _encode_rules(vec: np.ndarray, o: dict[str, slice], rules: Rules, feats: tuple[str, ...]) -> None:
    if "two_decks" in feats:
        vec[o["two_decks"].start] = 1


def _encode_state(vec: np.ndarray, o: dict[str, slice], info: InfoState, feats: tuple[str, ...], rel) -> None:
    if "two_decks" in feats:
        for c in info.pending:
            vec[o["pending_trick_cards"].start + c] += 1


SYSTEM = RuleSystem(
    name="two_decks",
    options={
        "decks": Option(int, 1, "the British rules, Pagat, Cancellation: 2 = two full decks shuffled together; "
                                "identical cards in a trick cancel for winning; a trick with every led-suit card "
                                "cancelled waits for the next winner"),
    },
    problem=_problem,
    features=lambda r: ("two_decks",) if r.decks != 1 else (),
    dealing=lambda r: Dealing(copies=r.decks) if r.decks != 1 else None,
    requires={"kitty": "decks=2 deals the two decks as far as they go; it needs a kitty rule for the rest "
                       f"(kitty one of {[k for k in KITTIES if k != 'none']})"},
    excludes={"charging": "charging is not supported with two decks (no source combines them)",
              "booster_nines": "booster_nines is not supported with two decks (no source combines them)",
              "teams": "teams are not supported with two decks (partnerships are a 4-player, one-deck game)"},
    parts=_parts,
    encode_rules=_encode_rules,
    encode_state=_encode_state,
    changes_in_play=True,
    info_fields={"pending": InfoField(tuple[int, ...], (), "cards of tricks left on the table for the next winner "
                                                           "(public)", cards=True)},
    inform=lambda deal, pos, seat, by_seat: {"pending": tuple(c for cards in deal.pending for c in cards)},
)


# --- in the reference Deal: part of its implementation, these functions change the deal's state, its
# private lists included (declared in bm_env.engine.deal); nothing else does.


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
