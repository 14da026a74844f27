"""Charging and Turbo Hearts' scoring (bm_env/systems/charging and ten_clubs; Pagat): J♦ −10, charged cards
and when they may be played, the 10♣ multiplier.

The scripted tests play kit.TURBO_HANDS (dealer 3, so position 0 is eldest; no pass), where
every card is placed so that the tricks below are legal, and forced where a comment says so.
"""

from __future__ import annotations

import pytest

from bm_env.engine.actions import CHARGE_AH
from bm_env.engine.deal import CHARGE, PLAY, Deal, IllegalActionError
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import make_rules
from bm_env.engine.scoring import deal_scores

from kit import TURBO_HANDS, cards, legal_text, play

def turbo_deal():
    return Deal(make_rules("turbo_hearts"), [cards(h) for h in TURBO_HANDS], dealer=3)


def test_turbo_preset_values_and_action_space():
    r = make_rules("turbo_hearts")
    assert r.card_values[cards("JD")[0]] == -10 and r.card_values[cards("QS")[0]] == 13
    assert r.charging and r.ten_clubs_multiplier and r.num_actions == 57  # 52 cards + 4 charges + end
    assert make_rules("american_hearts").num_actions == 52


def test_charging_comes_after_the_pass_and_offers_only_cards_held():
    deal = turbo_deal()
    assert deal.phase == CHARGE and deal.to_act == 0  # eldest charges first
    assert legal_text(deal) == ["charge TC", "end charging"]  # P0 holds only the 10♣ of the four
    play(deal, "charge TC")
    assert legal_text(deal) == ["end charging"]  # a card is charged once
    play(deal, "end charging")
    assert deal.to_act == 1 and legal_text(deal) == ["charge QS", "charge JD", "end charging"]
    with pytest.raises(IllegalActionError, match="player_1 may not choose charge AH: it is not in your hand; legal: charge QS, charge JD, end"):
        deal.step(CHARGE_AH)
    play(deal, "charge QS, end charging, charge AH, end charging, end charging")
    assert deal.phase == PLAY and deal.to_act == 0  # 2C leads
    assert [information_state(deal, 3).charged[s] for s in range(4)] == [
        tuple(cards("TC")), tuple(cards("QS")), tuple(cards("AH")), ()]  # charges are public
    # Charged values: every heart doubled by the charged A♥, Q♠ doubled; J♦ not charged.
    v = deal.values
    assert v[cards("2H")[0]] == 2 and v[cards("AH")[0]] == 2 and v[cards("QS")[0]] == 26
    assert v[cards("JD")[0]] == -10 and deal.penalty_total == 26 + 26


def test_charged_card_may_not_be_played_the_first_time_its_suit_is_led():
    deal = turbo_deal()
    play(deal, "charge TC, end charging, charge QS, end charging, end charging, end charging")
    play(deal, "2C 6C JC AC")  # trick 1: P3 wins with AC
    # Trick 2: clubs were led before, so P0 may (must: its only club) play the charged 10♣.
    play(deal, "KC")
    assert legal_text(deal) == ["TC"]
    play(deal, "TC 5C 9C")
    assert deal.ten_clubs_taker == 3
    play(deal, "QC 4H 4C 8C")  # trick 3: P0 void in clubs sheds 4H; P3 wins
    play(deal, "KS 2S")  # trick 4, the first spade lead: P1 holds 7S 8S and the charged QS
    assert legal_text(deal) == ["7S", "8S"]
    play(deal, "8S JS")
    play(deal, "AS 3S")  # trick 5: spades were led before: the charged QS is allowed now
    assert legal_text(deal) == ["7S", "QS"]
    play(deal, "QS TS")
    assert deal.captured == (0, 0, 0, 1 + 26)  # 4H (1: A♥ not charged here) and the charged QS


def test_charged_card_is_allowed_when_nothing_else_is_legal():
    # P1 swaps 7S 8S for P0's 2H 3H: its only spade is the Q♠, which it charges.
    hands = [h.split() for h in TURBO_HANDS]
    hands[0] = [c for c in hands[0] if c not in ("2H", "3H")] + ["7S", "8S"]
    hands[1] = [c for c in hands[1] if c not in ("7S", "8S")] + ["2H", "3H"]
    deal = Deal(make_rules("turbo_hearts"), [cards(" ".join(h)) for h in hands], dealer=3)
    play(deal, "end charging, charge QS, end charging, end charging, end charging")
    play(deal, "2C 6C JC AC")  # P3 wins and leads the first spade
    play(deal, "KS 2S")
    assert legal_text(deal) == ["QS"]  # following suit with it is the only legal play


def test_charged_card_may_not_be_led_before_its_suit_was_led():
    deal = turbo_deal()
    play(deal, "end charging, end charging, charge AH, end charging, end charging")
    play(deal, "2C 6C JC AC")  # P3 wins
    play(deal, "KC TC 5C 9C")  # P3 wins
    play(deal, "QC 4H 4C 8C")  # P0 sheds 4H: hearts are broken, but no heart has been led
    play(deal, "2D 3D 7D 9D")  # P2 wins with 9D and leads
    assert deal.to_act == 2
    # Every card of P2 but the charged A♥ (hearts never led yet).
    assert legal_text(deal) == ["7C", "8D", "8H", "9H", "TH", "9S", "TS", "JS"]


def test_ten_of_clubs_doubles_and_quadruples_when_charged():
    # Hand-worked: P3 took 3 points and the 10♣: 3 * 2 = 6 (uncharged) or 3 * 4 = 12 (charged).
    rules = make_rules("turbo_hearts")
    captured, pen = [10, 13, 0, 3], [10, 13, 0, 3]
    assert deal_scores(rules, captured, pen, 26, [0] * 4, multipliers=[1, 1, 1, 2]) == (10, 13, 0, 6)
    assert deal_scores(rules, captured, pen, 26, [0] * 4, multipliers=[1, 1, 1, 4]) == (10, 13, 0, 12)
    # A shooter (26 taken, also J♦ −10) who took the 10♣: (−26 − 10) * 2 under shooter_minus.
    assert deal_scores(rules, [16, 0, 0, 0], [26, 0, 0, 0], 26, [0] * 4, multipliers=[2, 1, 1, 1]) == (-72, 0, 0, 0)
