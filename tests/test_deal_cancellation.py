"""Cancellation Hearts (bm_env/systems/two_decks): two decks, identical cards in a trick
cancel, a kitty; from the Black Maria guide and the Hearts page (docs/rules.md).

Every expectation below is worked out by hand from the rule text: "The trick is taken by the
highest card of the suit led which is not duplicated. If all the cards played of the suit
led are in cancelling pairs, the trick remains on the table, the same player leads again,
and the cards go to the winner of the next trick. If the very last trick has no winner its
cards go to the winner of the previous trick."
"""

from __future__ import annotations

import pytest

from bm_env.engine.deal import PLAY, Deal, deal_cards
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import RulesError, make_rules

from kit import SUITS, cards, fill_hands, play

CLUBS, DIAMONDS, HEARTS, SPADES = SUITS


def test_preset_is_two_decks_six_to_ten_players_with_a_kitty():
    r = make_rules("cancellation")
    assert (r.num_players, r.decks, r.kitty, r.first_lead) == (6, 2, "first_trick", "eldest_any")
    # 104 cards: 6 players get 17 and 2 are left; 8 players 13 and none; 10 players 10 and 4.
    assert [(make_rules("cancellation", n).hand_size(), make_rules("cancellation", n).kitty_size())
            for n in (6, 7, 8, 9, 10)] == [(17, 2), (14, 6), (13, 0), (11, 5), (10, 4)]
    assert r.num_actions == 52
    with pytest.raises(RulesError, match="played by \\[6, 7, 8, 9, 10\\] players"):
        make_rules("cancellation", 5)
    with pytest.raises(RulesError, match="needs a kitty rule"):
        make_rules("black_maria", 6, decks=2)


def test_highest_card_that_is_not_duplicated_wins():
    rules = make_rules("cancellation", 8)
    # Dealer 7: position 0 leads. P0 KC, P1 KC cancel; P2 AC, P3 AC cancel; QC is the highest left.
    fixed = {0: "KC", 1: "KC", 2: "AC", 3: "AC", 4: "QC", 5: "3C", 6: "2C", 7: "2C"}
    hands, kitty = fill_hands(rules, fixed, 8)
    deal = Deal(rules, hands, dealer=7)
    play(deal, "KC KC AC AC QC 3C 2C 2C")
    assert deal.tricks[0] == (0, tuple(cards("KC KC AC AC QC 3C 2C 2C")), 4)
    assert deal.to_act == 4 and deal.tricks_won == (0, 0, 0, 0, 1, 0, 0, 0)


def test_all_cancelled_trick_stays_and_goes_to_the_next_winner_with_its_points():
    rules = make_rules("cancellation", 8)
    # P0 leads 5D: every diamond is paired (5D 5D, 9D 9D, JD JD) and P6, P7 discard hearts.
    fixed = {0: "5D 7D", 1: "5D 6D", 2: "9D TD", 3: "9D 4D", 4: "JD 8D", 5: "JD 8D",
             6: "2H 3H", 7: "4H 5H"}
    hands, _ = fill_hands(rules, fixed, 8, avoid={6: "D", 7: "D"})
    deal = Deal(rules, hands, dealer=7)
    play(deal, "5D 5D 9D 9D JD JD 2H 4H")
    assert deal.tricks[0][2] is None  # no winner: the trick stays on the table
    assert deal.pending == (tuple(cards("5D 5D 9D 9D JD JD 2H 4H")),)
    assert deal.to_act == 0 and deal.phase == PLAY  # the same player leads again
    assert deal.captured == (0,) * 8
    # Next trick: 8D 8D cancel; singles 7D 6D TD 4D: TD (P2) wins both tricks: 2H 4H 3H 5H = 4 points.
    play(deal, "7D 6D TD 4D 8D 8D 3H 5H")
    assert deal.tricks[1][2] == 2
    assert deal.captured[2] == 4 and deal.tricks_won[2] == 2 and deal.pending == ()
    # The pending trick is public: every seat saw it stay on the table.
    assert information_state(deal, 5).tricks[0][2] is None


def _mirror_deal():
    """8 players: P0..P3 hold all clubs, diamonds, hearts, spades of one deck, P4..P7 the other deck."""
    rules = make_rules("cancellation", 8)
    hands = [cards(CLUBS), cards(DIAMONDS), cards(HEARTS), cards(SPADES)] * 2
    return rules, Deal(rules, hands, dealer=7)


def test_a_last_trick_without_winner_goes_to_the_winner_of_the_trick_before():
    rules, deal = _mirror_deal()
    hearts, spades = iter(cards(HEARTS)), iter(cards(SPADES))

    def trick(lead: str, follow: str) -> None:
        # P0 or P4 leads a club and the other club holder follows; P1/P5 shed their lowest
        # diamond, P2/P6 the next heart and P3/P7 the next spade, both in ascending order.
        heart, spade = next(hearts), next(spades)
        clubs = {deal.to_act: lead, (deal.to_act + 4) % 8: follow}
        start = deal.to_act
        for i in range(8):
            p = (start + i) % 8
            if p in clubs:
                deal.step(cards(clubs[p])[0])
            elif p in (1, 5):
                deal.step(min(deal.legal_actions()))
            else:
                deal.step(heart if p in (2, 6) else spade)

    # Trick 1: 2C 2C cancel -> it stays, P0 leads again.
    trick("2C", "2C")
    assert deal.tricks[-1][2] is None and deal.to_act == 0
    # Trick 2: P0 3C, P4 AC: P4 wins both tricks, with the hearts 2H 2H 3H 3H = 4 points.
    trick("3C", "AC")
    assert deal.tricks[-1][2] == 4 and deal.captured[4] == 4
    # Trick 3: P4 leads 3C, P0 plays AC and wins: 4H 4H = 2 points.
    trick("3C", "AC")
    assert deal.tricks[-1][2] == 0 and deal.captured[0] == 2
    # Tricks 4..13: both hold 4C..KC; P0 leads each and P4 follows with the same card: all cancel.
    for rank in "456789TJQK":
        trick(rank + "C", rank + "C")
    assert deal.phase == "done"
    # The last trick had no winner, so the ten tricks on the table go to P0, winner of trick 3:
    # two hearts a trick (5H..AH, 20 points) and the spades shed in ascending order, whose
    # last three tricks hold QS QS KS KS AS AS = (13 + 10 + 7) * 2 = 60.
    assert deal.captured == (2 + 20 + 60, 0, 0, 0, 4, 0, 0, 0)
    assert deal.tricks_won == (11, 0, 0, 0, 2, 0, 0, 0)
    assert deal.scores == (82, 0, 0, 0, 4, 0, 0, 0)
    assert sum(deal.captured) == deal.penalty_total == 86


def test_kitty_goes_with_the_first_trick_and_counts_both_copies():
    rules = make_rules("cancellation", 6)
    # 6 players x 17 + kitty 2: put QS and AH in the kitty; P0 leads AC and wins the first trick.
    fixed = {0: "AC", 1: "2C", 2: "3C", 3: "4C", 4: "5C", 5: "6C"}
    hands, kitty = fill_hands(rules, fixed, 6, kitty="QS AH")
    assert kitty == cards("QS AH")
    deal = Deal(rules, hands, dealer=5, kitty=kitty)
    assert deal.penalty_total == 86  # both decks' 43 points, kitty included
    before = information_state(deal, 0)
    assert before.kitty == () and before.kitty_size == 2  # face down: nobody knows it yet
    assert cards("QS AH")[0] in before.unseen
    play(deal, "AC 2C 3C 4C 5C 6C")
    assert deal.kitty_taker == 0 and deal.captured[0] == 14  # QS 13 + AH 1
    assert information_state(deal, 0).kitty == tuple(sorted(cards("QS AH")))  # the taker may look
    assert information_state(deal, 1).kitty == ()  # nobody else sees it
    assert information_state(deal, 1).kitty_taker == 0


def test_hands_hold_two_copies_and_masks_and_observations_count_them():
    rules = make_rules("cancellation", 8)
    hands = [cards(CLUBS), cards(DIAMONDS), cards(HEARTS), cards(SPADES)] * 2
    hands[0], hands[4] = cards("2C 2C 3C 3C 4C 4C 5C 5C 6C 6C 7C 7C 8C"), cards("8C 9C 9C TC TC JC JC QC QC KC KC AC AC")
    deal = Deal(rules, hands, dealer=7)
    assert deal.hand_count(0) == 13 and deal.legal_actions() == cards("2C 3C 4C 5C 6C 7C 8C")
    deal.step(cards("2C")[0])
    assert deal.hand_cards(0).count(cards("2C")[0]) == 1  # one copy left, still legal later
    from bm_env.env.observation import decode, encode
    vec = encode(information_state(deal, 0))
    d = decode(vec, 8, rules)
    assert d["hand"].count(cards("3C")[0]) == 2 and d["hand"].count(cards("2C")[0]) == 1


def test_hands_must_make_two_decks():
    rules = make_rules("cancellation", 8)
    hands = [cards(CLUBS), cards(DIAMONDS), cards(HEARTS), cards(SPADES)] * 2
    hands[7] = hands[7][:-1] + cards("2C")  # a third 2C instead of the second AS
    with pytest.raises(ValueError, match="exactly twice.*2C x3.*AS x1"):
        Deal(rules, hands, dealer=7)


def test_dealing_two_decks_is_seeded_and_complete():
    import numpy as np

    rules = make_rules("cancellation", 7)
    h1, k1 = deal_cards(rules, 7, 0, np.random.default_rng(5))
    h2, k2 = deal_cards(rules, 7, 0, np.random.default_rng(5))
    assert (h1, k1) == (h2, k2)
    assert len(k1) == 6 and all(len(h) == 14 for h in h1)
    everything = sorted([c for h in h1 for c in h] + list(k1))
    assert everything == sorted(list(range(52)) * 2)
