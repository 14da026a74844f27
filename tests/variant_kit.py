"""Helpers for the tests of the extension rule systems: hands from card strings, scripted play.

Hands are space-separated card strings ("AC KC 2H"); with two decks a card written twice
is held twice. :func:`fill_hands` completes hands from the rest of the deck(s) so that a
scripted trick only has to name the cards it is about.
"""

from __future__ import annotations

from collections import Counter

from bm_env.engine.actions import action_str, parse_action
from bm_env.engine.cards import cards_of, parse_card
from bm_env.engine.deal import Deal


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def fill_hands(rules, fixed: dict[int, str], num_players: int, kitty: str = "", avoid: dict[int, str] | None = None):
    """Hands of ``num_players``: the ``fixed`` cards per position, completed from the rest of the deck.

    ``avoid[p]`` names suits ("CD") position ``p`` must not be given by the filler (to keep
    it void). Raises if the filler cannot respect that.
    """
    avoid = avoid or {}
    size = rules.hand_size(num_players)
    left = Counter(cards_of(rules.deck_mask(num_players)) * rules.decks)
    hands = {p: cards(fixed.get(p, "")) for p in range(num_players)}
    kitty_cards = cards(kitty)
    for h in list(hands.values()) + [kitty_cards]:
        left.subtract(h)
    assert all(m >= 0 for m in left.values()), f"a fixed card is used too often: {left}"
    pool = sorted(c for c, m in left.items() for _ in range(m))
    need_kitty = rules.kitty_size(num_players) - len(kitty_cards)
    for p in range(num_players):
        banned = {"CDHS".index(s) for s in avoid.get(p, "")}
        while len(hands[p]) < size:
            c = next((c for c in pool if c // 13 not in banned), None)
            assert c is not None, f"cannot fill position {p} without suits {avoid.get(p)}"
            pool.remove(c)
            hands[p].append(c)
    kitty_cards += pool[:need_kitty]
    assert len(pool) == need_kitty
    return [sorted(hands[p]) for p in range(num_players)], kitty_cards


def play(deal: Deal, text: str) -> None:
    """Step each action of ``text`` (cards, or extra decisions as ``"charge QS"`` separated by commas)."""
    if "," in text or any(w in text for w in ("charge", "moon", "pass on", "end")):
        for part in text.split(","):
            deal.step(parse_action(part))
    else:
        for c in cards(text):
            deal.step(c)


def legal_text(deal: Deal) -> list[str]:
    return [action_str(a) for a in cards_of(deal.legal)]
