"""The kitty (bm_env/systems/kitty): 3- and 5-player American Hearts with a kitty (Pagat), to the
taker of the first trick or the first point, or added to the hand and discarded."""

from __future__ import annotations

import pytest

from bm_env.engine.deal import DISCARD, PLAY, Deal
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import RulesError, make_rules

from kit import cards, fill_hands, legal_text, play


def american(n, **kw):
    return make_rules("american_hearts", n, **kw)


def test_kitty_deals_the_full_deck_as_far_as_it_goes():
    assert (american(3, kitty="first_trick").hand_size(), american(3, kitty="first_trick").kitty_size()) == (17, 1)
    assert (american(5, kitty="first_point").hand_size(), american(5, kitty="first_point").kitty_size()) == (10, 2)
    # Without a kitty the removal table of Pagat (method 3) applies: 3 players lose the 2♦.
    assert american(3).hand_size() == 17 and american(3).kitty_size() == 0


def test_two_of_clubs_in_the_kitty_lets_the_lowest_club_present_lead():
    rules = american(3, kitty="first_trick")
    hands, kitty = fill_hands(rules, {1: "3C"}, 3, kitty="2C")
    deal = Deal(rules, hands, dealer=0, kitty=kitty)
    assert deal.to_act == 1 and legal_text(deal) == ["3C"]


def test_kitty_to_the_winner_of_the_first_trick():
    rules = american(3, kitty="first_trick")
    # P0 leads 2C; P1 4C, P2 AC wins and takes the face-down QS: 13 points before any heart is played.
    hands, kitty = fill_hands(rules, {0: "2C", 1: "4C", 2: "AC"}, 3, kitty="QS")
    deal = Deal(rules, hands, dealer=2, kitty=kitty)
    play(deal, "2C 4C AC")
    assert deal.kitty_taker == 2 and deal.captured == (0, 0, 13)
    assert information_state(deal, 2).kitty == tuple(cards("QS"))
    assert information_state(deal, 0).kitty == () and information_state(deal, 0).kitty_taker == 2


def test_kitty_to_the_taker_of_the_first_penalty_point():
    rules = american(3, kitty="first_point", first_trick_no_points=False)
    # Trick 1 is clean (P2 wins, no kitty); in trick 2 P0 is void in diamonds and sheds 5H:
    # P1 wins it with AD and takes the kitty's AH with its first point: 1 + 1 = 2.
    hands, kitty = fill_hands(rules, {0: "2C 5H", 1: "4C AD", 2: "AC 2D"}, 3, kitty="AH", avoid={0: "D"})
    deal = Deal(rules, hands, dealer=2, kitty=kitty)
    play(deal, "2C 4C AC")
    assert deal.kitty_taker is None
    play(deal, "2D 5H AD")
    assert deal.kitty_taker == 1 and deal.captured == (0, 2, 0)


def test_kitty_added_to_the_hand_then_as_many_discarded_face_down():
    rules = american(5, kitty="first_trick", kitty_to_hand=True)
    hands, kitty = fill_hands(rules, {0: "3C", 1: "4C", 2: "AC", 3: "5C", 4: "6C"}, 5, kitty="2C QS")
    deal = Deal(rules, hands, dealer=4, kitty=kitty)
    play(deal, "3C 4C AC 5C 6C")  # P2 wins trick 1 with AC
    assert deal.phase == DISCARD and deal.to_act == 2 and deal.hand_count(2) == 9 + 2
    assert information_state(deal, 0).hand_sizes[2] == 11  # everyone sees the kitty picked up
    assert information_state(deal, 2).kitty == tuple(cards("2C QS"))
    play(deal, "QS 2C")  # discards go to P2's tricks: QS is 13 points
    assert deal.phase == PLAY and deal.to_act == 2 and deal.hand_count(2) == 9
    assert deal.captured[2] == 13
    assert information_state(deal, 2).discarded == tuple(cards("QS 2C"))
    assert information_state(deal, 0).discarded == ()  # face down: only the discarder knows


def test_kitty_rules_are_validated():
    with pytest.raises(RulesError, match="kitty_to_hand needs a kitty rule"):
        american(3, kitty_to_hand=True)
    with pytest.raises(RulesError, match="kitty.*not allowed; allowed: \\['none', 'first_trick', 'first_point'\\]"):
        american(3, kitty="middle")
    rules = american(3, kitty="first_trick")
    hands, kitty = fill_hands(rules, {}, 3)
    with pytest.raises(ValueError, match="the kitty must hold the 1 cards left over, got 0"):
        Deal(rules, hands, dealer=0, kitty=())


# ---------------------------------------------------------------------------- optional passing
