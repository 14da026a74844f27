"""Booster Nines (bm_env/systems/booster_nines; Pagat): a nine of the led suit adds a round to the trick.

The tests play kit.TURBO_HANDS under the booster_nines preset (dealer 3, so position 0 is
eldest; no pass).
"""

from __future__ import annotations

from bm_env.engine.deal import PLAY, Deal
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import make_rules

from kit import TURBO_HANDS, cards, play


def booster_deal():
    return Deal(make_rules("booster_nines"), [cards(h) for h in TURBO_HANDS], dealer=3)


def test_booster_nine_adds_a_round_and_the_highest_of_eight_wins():
    deal = booster_deal()
    play(deal, "end charging, end charging, end charging, end charging")
    # P0 2C, P1 6C, P2 9C (a nine following suit: boost), P3 KC; round two: P0 TC, P1 5C, P2 JC, P3 AC.
    play(deal, "2C 6C 9C KC")
    assert deal.phase == PLAY and deal.to_act == 0 and len(deal.trick) == 4  # the trick goes on
    assert information_state(deal, 1).boosts_owed == 0 and deal.trick_len == 8
    play(deal, "TC 5C JC AC")
    assert deal.tricks[0] == (0, tuple(cards("2C 6C 9C KC TC 5C JC AC")), 3)
    assert deal.ten_clubs_taker == 3 and deal.to_act == 3


def test_a_discarded_nine_boosts_nothing():
    deal = booster_deal()
    play(deal, "end charging, end charging, end charging, end charging")
    play(deal, "2C 6C JC AC")  # P3 wins
    play(deal, "2D 3D 7D")  # P3 leads 2D; P2 holds 8D 9D: 9D follows suit -> boost
    play(deal, "9D")
    assert len(deal.trick) == 4 and deal.trick_len == 8
    play(deal, "TD 4D 6D 8D")
    assert deal.tricks[-1][2] == 3  # TD beats 9D among the eight diamonds
    play(deal, "KD 5D JD")  # P3 leads KD; P0 and P1 follow with their last diamonds
    play(deal, "9H")  # P2, void in diamonds, discards a nine: no boost
    assert deal.tricks[-1][1] == tuple(cards("KD 5D JD 9H")) and deal.tricks[-1][2] == 3
