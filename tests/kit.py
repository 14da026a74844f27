"""Helpers shared by the engine tests, handed to tests through the ``kit`` fixture.

Scripted deals are written with card strings: a hand is ``"AC KC 2H"``, a trick is the
cards in play order from its leader, ``"AC 2D AS"``. Positions are the deal's ``0..k-1``.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Sequence

import pytest

try:
    import bm_env  # noqa: F401
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bm_env.cards import card_str, cards_of, mask_of, parse_card, rank_of, suit_of  # noqa: E402
from bm_env.deal import PASS, Deal  # noqa: E402
from bm_env.rules import Rules, direction_offset  # noqa: E402


def cards(text: str) -> list[int]:
    """Card ids of a space-separated list of card strings."""
    return [parse_card(t) for t in text.split()]


def names(ids) -> str:
    """Card strings of card ids (or a mask), space-separated, in id order."""
    if isinstance(ids, int):
        ids = cards_of(ids)
    return " ".join(card_str(c) for c in sorted(ids))


def new_deal(rules: Rules, hands: Sequence[str], dealer: int, pass_direction: str = "hold", **kw) -> Deal:
    """A deal with the given hands (card strings, by position)."""
    return Deal(rules, [cards(h) for h in hands], dealer, pass_direction, **kw)


def do_passes(deal: Deal, picks: dict[int, str] | Sequence[str]) -> None:
    """Play the whole passing phase: position ``p`` passes the cards ``picks[p]`` in order."""
    todo = {p: cards(s) for p, s in (picks.items() if isinstance(picks, dict) else enumerate(picks))}
    while deal.phase == PASS:
        p = deal.to_act
        deal.step(todo[p].pop(0))
    assert not any(todo.values()), f"cards left unpassed: {todo}"


def play_tricks(deal: Deal, tricks: Sequence[str]) -> list[int]:
    """Play whole tricks (cards in order from the leader); return the winner position of each."""
    winners = []
    for t in tricks:
        before = len(deal.tricks)
        for c in t.split():
            deal.step(parse_card(c))
        assert len(deal.tricks) == before + 1, f"{t!r} is not one whole trick"
        winners.append(deal.tricks[-1][2])
    return winners


def random_action(deal: Deal, chooser: random.Random) -> int:
    legal = cards_of(deal.legal)
    return legal[chooser.randrange(len(legal))]


def play_out(deal: Deal, chooser: random.Random) -> None:
    """Finish a deal with uniformly random legal actions."""
    while not deal.is_over:
        deal.step(random_action(deal, chooser))


def prepass_hands(final: Sequence[int], offset: int, count: int, no_pass: int = 0):
    """Hands before passing, and the picks, that turn into the masks ``final`` after the pass.

    Each position ``p`` passes ``count`` cards of its receiver's final hand (the lowest ones
    that may be passed), so ``before[p] = final[p] - what p receives + what p passes``.
    """
    k = len(final)
    if not offset or not count:
        return list(final), {p: [] for p in range(k)}
    picks = {}
    for p in range(k):
        recv = (p + offset) % k
        picks[p] = [c for c in cards_of(final[recv]) if not no_pass >> c & 1][:count]
        assert len(picks[p]) == count
    before = []
    for p in range(k):
        giver = (p - offset) % k
        before.append((final[p] & ~mask_of(picks[giver])) | mask_of(picks[p]))
    return before, picks


def forced_hands(rules: Rules, k: int, dealer: int):
    """Final (after-pass) hands in which the first leader wins every trick, whatever anyone plays.

    Returns ``(hands, taker)``. The taker is eldest hand (``dealer + 1``) and holds the top
    cards of every suit it holds: whatever it leads is the highest card of that suit still
    out, and with no trumps nobody can beat it. Where the holder of the lowest club leads,
    the taker holds every club (others cannot follow) and the top cards of the other suits.
    Not for trump games.
    """
    assert rules.trumps == "none"
    deck = cards_of(rules.deck_mask(k))
    size = len(deck) // k
    taker = (dealer + 1) % k
    if rules.first_lead.startswith("lowest_club"):
        key = lambda c: (suit_of(c) != 0, -rank_of(c), suit_of(c))  # noqa: E731
    else:
        key = lambda c: (-rank_of(c), suit_of(c))  # noqa: E731
    order = sorted(deck, key=key)
    hands = [0] * k
    hands[taker] = mask_of(order[:size])
    others = [p for p in range(k) if p != taker]
    for i, c in enumerate(order[size:]):
        hands[others[i % (k - 1)]] |= 1 << c
    return hands, taker


def play_forced_deal(match, chooser: random.Random, pass_direction: str | None = None) -> int:
    """Start the match's next deal with forced hands (see :func:`forced_hands`), play it out
    with random legal play, and return the match seat of the taker (eldest hand).

    The pass direction is the cycle's for the deal number unless given; each player passes
    cards that the forced hands give its receiver (:func:`prepass_hands`).
    """
    rules = match.rules
    seats, dealer = match.next_deal_setup()
    k = len(seats)
    if pass_direction is None:
        pass_direction = rules.pass_cycle[match.deal_number % len(rules.pass_cycle)]
    final, taker = forced_hands(rules, k, dealer)
    offset = direction_offset(pass_direction, k)
    before, picks = prepass_hands(final, offset, rules.passes_for(k), mask_of(rules.no_pass_cards))
    deal = match.start_deal(hands=before, pass_direction=pass_direction)
    while not deal.is_over:
        if deal.phase == PASS:
            match.step(picks[deal.to_act][len(deal.pass_picks[deal.to_act])])
        else:
            match.step(random_action(deal, chooser))
    return seats[taker]


#: Petrone's game (hearts are trumps), 4 players, dealer 3 so position 0 leads. Scored and
#: explained in test_deal_scripted.py::test_petrone_hearts_trump_and_clean_tricks.
PETRONE_DEAL = SimpleNamespace(
    hands=(
        "AC KC QC JC AD KD QD JD AS 2S 3S 4S 5S",
        "2H 3H 4H 5H 6H 7H 2D 3D 4D 5D 6D 7D 8D",
        "2C 3C 4C 5C 6C 7C 8C 9C TC KS QS 8H 9H",
        "TH JH QH KH AH 9D TD 6S 7S 8S 9S TS JS",
    ),
    dealer=3,
    tricks=(
        "AC 2H 2C 9D",  # 1: P1 trumps the ace of clubs with 2H: clean, P1 +3
        "2D 8H TD AD",  # 2: P2 trumps a diamond lead: clean, P2 +3
        "3C TH KC 3H",  # 3: two trumps, the higher (TH, P3) wins: clean, P3 +3
        "6S AS 4H QS",  # 4: P1 trumps, taking AS and QS: -7 -13, no bonus
        "5H 9H AH 2S",  # 5: a heart lead, AH wins: clean, P3 +3
        "JH 3S 6H KS",  # 6: P3 takes KS: -10, no bonus
        "QH 4S 7H 4C",  # 7-13: P3 wins every trick, all clean: +3 each
        "KH 5S 3D 5C",
        "7S QC 4D 6C",
        "8S JC 5D 7C",
        "9S KD 6D 8C",
        "TS QD 7D 9C",
        "JS JD 8D TC",
    ),
)


@pytest.fixture
def kit():
    """The helpers of this module: ``kit.cards``, ``kit.new_deal``, ``kit.play_tricks`` …"""
    return sys.modules[__name__]
