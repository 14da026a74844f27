"""3- and 5-player American Hearts with a kitty, the seed-003 pass cycles, scatter and optional passing."""

from __future__ import annotations

import pytest

from bm_env.actions import PASS_ON
from bm_env.deal import DISCARD, PASS, PLAY, Deal, pass_direction_for
from bm_env.infostate import information_state
from bm_env.rules import RulesError, make_rules

from kit import cards, fill_hands, legal_text, play


def american(n, **kw):
    return make_rules("american_hearts", n, **kw)


# ---------------------------------------------------------------------------- kitty


def test_kitty_deals_the_full_deck_as_far_as_it_goes():
    assert (american(3, kitty="first_trick").hand_size(), american(3, kitty="first_trick").kitty_size()) == (17, 1)
    assert (american(5, kitty="first_point").hand_size(), american(5, kitty="first_point").kitty_size()) == (10, 2)
    # Without a kitty the removal table of seed 003 (method 3) applies: 3 players lose the 2♦.
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
    assert deal.kitty_taker == 2 and deal.captured == [0, 0, 13]
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
    assert deal.kitty_taker == 1 and deal.captured == [0, 2, 0]


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


# ---------------------------------------------------------------------------- pass cycles


def test_named_pass_cycles_of_seed_003():
    r = american(5, pass_cycle="five_alternating")
    assert [pass_direction_for(r, d, None) for d in range(9)] == [
        "left", "right", "left2", "hold", "left", "right", "right2", "hold", "left"]
    assert american(5, pass_cycle="five_second").pass_cycle == ("left", "right", "left2", "right2", "hold")
    assert american(3, pass_cycle="three").pass_cycle == ("left", "right")


def test_second_to_the_right_pass_reaches_position_minus_two():
    rules = american(5, pass_cycle="five_second")
    hands, _ = fill_hands(rules, {0: "AS KS QS"}, 5)
    deal = Deal(rules, hands, dealer=4, pass_direction="right2")
    play(deal, "AS KS QS")
    while deal.phase == PASS:
        deal.step(min(c for c in deal.legal_actions() if c < 52))
    assert deal.received_cards[3] == tuple(sorted(cards("AS KS QS")))  # 0 - 2 = 3 (mod 5)


# ---------------------------------------------------------------------------- scatter


def test_scatter_gives_one_card_to_each_other_player():
    rules = american(4, pass_cycle="scatter_and_hold")
    hands, _ = fill_hands(rules, {0: "AS KS QS"}, 4)
    deal = Deal(rules, hands, dealer=3, pass_direction="scatter")
    play(deal, "AS KS QS")  # first pick to the left, second across, third to the right
    assert information_state(deal, 0).passed == ((cards("AS")[0], 1), (cards("KS")[0], 2), (cards("QS")[0], 3))
    while deal.phase == PASS:
        deal.step(min(deal.legal_actions()))
    assert cards("AS")[0] in deal.received_cards[1]
    assert cards("KS")[0] in deal.received_cards[2]
    assert cards("QS")[0] in deal.received_cards[3]
    assert [len(r) for r in deal.received_cards] == [3, 3, 3, 3]
    assert information_state(deal, 1).received_from is None  # cards came from everyone


def test_three_player_scatter_of_four_passes_two_to_each():
    rules = american(3, pass_count=4, pass_cycle="three_scatter")
    hands, _ = fill_hands(rules, {0: "AS KS QS JS"}, 3)
    deal = Deal(rules, hands, dealer=2, pass_direction="scatter")
    play(deal, "AS KS QS JS")
    assert [to for _, to in information_state(deal, 0).passed] == [1, 1, 2, 2]
    with pytest.raises(RulesError, match="pass_count 3 is not a positive multiple of 2"):
        american(3, pass_cycle="three_scatter")


# ---------------------------------------------------------------------------- optional passing


def _pass_all(deal, passers_on):
    while deal.phase == PASS:
        p = deal.to_act
        if p in passers_on and not deal.pass_picks[p]:
            deal.step(PASS_ON)
        else:
            deal.step(min(c for c in deal.legal_actions() if c < 52))


def test_passing_on_unseen_forwards_the_cards_passed_to_you():
    rules = american(4, optional_pass=True)
    assert rules.num_actions == PASS_ON + 1
    hands, _ = fill_hands(rules, {}, 4)
    deal = Deal(rules, hands, dealer=3, pass_direction="left")
    assert "pass on unseen" in legal_text(deal)
    deal.step(min(deal.legal_actions()))
    assert "pass on unseen" not in legal_text(deal)  # only instead of picking
    dealt = [deal.dealt[p] for p in range(4)]
    _pass_all(deal, {1, 3})
    p0, p2 = deal.pass_picks[0], deal.pass_picks[2]
    assert len(p0) == len(p2) == 3 and deal.pass_picks[1] == deal.pass_picks[3] == []
    # P0 -> P1 passes on -> P2; P2 -> P3 passes on -> P0. P1 and P3 keep their hands.
    assert deal.received_cards[2] == tuple(sorted(p0))
    assert deal.received_cards[0] == tuple(sorted(p2))
    assert deal.hands[1] == dealt[1] and deal.hands[3] == dealt[3]
    assert deal.received_cards[1] == () and deal.received_cards[3] == ()
    info0 = information_state(deal, 0)
    assert {to for _, to in info0.passed} == {2}  # the passer saw the stack forwarded to P2
    assert info0.passed_on == (1, 3)
    assert information_state(deal, 2).received_from == 0


def test_cards_can_come_back_to_their_passer():
    rules = american(4, optional_pass=True)
    hands, _ = fill_hands(rules, {}, 4)
    deal = Deal(rules, hands, dealer=3, pass_direction="left")
    _pass_all(deal, {1, 2, 3})
    assert deal.hands == list(deal.dealt)  # P0's cards went round the table back to P0
    assert deal.received_cards[0] == tuple(sorted(deal.pass_picks[0]))


def test_optional_pass_is_not_offered_on_a_scatter_deal():
    rules = american(4, optional_pass=True, pass_cycle="scatter_for_hold")
    hands, _ = fill_hands(rules, {}, 4)
    deal = Deal(rules, hands, dealer=3, pass_direction="scatter")
    assert "pass on unseen" not in legal_text(deal)
