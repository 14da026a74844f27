"""Passing (bm_env/systems/passing): the picks, the cards moving once everyone has passed, the
pass counts and named cycles of the presets, scatter, and passing on unseen (Pagat)."""

from __future__ import annotations

import numpy as np
import pytest

from bm_env.engine.actions import PASS_ON
from bm_env.engine.cards import cards_of, mask_of, parse_card
from bm_env.engine.deal import PASS, PLAY, Deal, deal_hands, pass_direction_for
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import RulesError, make_rules

from kit import BASE3_DEAL, cards, fill_hands, legal_text, names, new_deal, play

BASE3_HANDS = BASE3_DEAL.hands


def american(n, **kw):
    return make_rules("american_hearts", n, **kw)


# ---------------------------------------------------------------------------- classic passing


def test_black_maria_passes_three_to_the_right():
    # Right of seat s is s-1: P0 -> P2, P1 -> P0, P2 -> P1. Eldest (P0) picks first.
    deal = new_deal(make_rules("black_maria"), BASE3_HANDS, dealer=2, pass_direction="right")
    assert deal.phase == PASS and deal.pass_count == 3 and deal.to_act == 0
    for c in ("AC", "2H", "3H"):
        deal.step(parse_card(c))
    assert deal.to_act == 1
    for c in ("AD", "KD", "QD"):
        deal.step(parse_card(c))
    # Nothing has moved yet: P2 has not received P0's cards, nobody has received anything.
    assert not deal.hands[2] >> parse_card("AC") & 1
    assert deal.received == (0, 0, 0) and not deal.passes_revealed
    for c in ("QS", "KS", "AS"):
        deal.step(parse_card(c))
    assert deal.phase == PLAY and deal.passes_revealed
    assert names(deal.received[2]) == names(cards("AC 2H 3H"))
    assert names(deal.received[0]) == names(cards("AD KD QD"))
    assert names(deal.received[1]) == names(cards("QS KS AS"))
    assert all(h.bit_count() == 17 for h in deal.hands)
    assert deal.to_act == 0  # eldest leads after the pass


def test_black_maria_26_passes_two_cards_with_five_players():
    # The 3-7 player rules: "If there are more than four players, it is customary to pass only 2 cards."
    rules = make_rules("black_maria_26", 5)
    assert rules.passes_for() == 2 and rules.hand_size() == 10
    deal = Deal(rules, deal_hands(rules, 5, 0, np.random.default_rng(7)), 0, "right")
    assert deal.pass_count == 2
    before = list(deal.hands)
    steps = 0
    while deal.phase == PASS:
        deal.step(cards_of(deal.legal)[0])
        steps += 1
    assert steps == 10  # five players, two cards each
    for p in range(5):
        assert deal.received[p].bit_count() == 2
        # what P passed (its two lowest cards) is now held by its right-hand neighbour
        passed = mask_of(cards_of(before[p])[:2])
        assert deal.received[(p - 1) % 5] == passed
    # With 4 players the same preset passes 3.
    assert make_rules("black_maria_26", 4).passes_for() == 3


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
    assert len(p0) == len(p2) == 3 and deal.pass_picks[1] == deal.pass_picks[3] == ()
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
    assert deal.hands == deal.dealt  # P0's cards went round the table back to P0
    assert deal.received_cards[0] == tuple(sorted(deal.pass_picks[0]))


def test_optional_pass_is_not_offered_on_a_scatter_deal():
    rules = american(4, optional_pass=True, pass_cycle="scatter_for_hold")
    hands, _ = fill_hands(rules, {}, 4)
    deal = Deal(rules, hands, dealer=3, pass_direction="scatter")
    assert "pass on unseen" not in legal_text(deal)
