"""Domino Hearts (bm_env/systems/domino; Bicycle): six cards each, a stock drawn from to follow suit, players
dropping out as their cards run out, the last one keeping the rest.

One four-player deal is scripted card by card with its results worked out by hand; random deals at every
player count check what must hold whatever is played.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from bm_env import Deal, information_state, make_rules, replay_deal
from bm_env.black_maria_v0 import raw_env
from bm_env.engine.cards import cards_of, parse_card
from bm_env.engine.deal import deal_cards
from bm_env.engine.record import deal_record
from bm_env.engine.rules import RulesError
from bm_env.systems import domino
from bm_env.vector import UnsupportedRulesError, make_engine

from kit import cards

RULES = make_rules("domino_hearts", 4)

#: Dealer seat 3, so seat 0 leads. Seat 0 holds the six top clubs; the others one low club each.
HANDS = [cards("AC KC QC JC TC 9C"), cards("2C 2D 3D 4D 5D 6D"), cards("3C 2S 3S 4S 5S 6S"), cards("4C 2H 3H 4H 5H 6H")]
#: The stock, top first: the four clubs left come second, fourth, sixth and eighth.
STOCK = [parse_card(c) for c in ("7D 5C 7S 6C 7H 7C 8D 8C 9D TD JD QD KD AD 8S 9S TS JS QS KS AS "
                                 "8H 9H TH JH QH KH AH").split()]
#: The cards played, trick by trick, and who played them.
TRICKS = [
    ("AC 2C 3C 4C", (0, 1, 2, 3)),  # everyone follows: no draw
    ("KC 5C 6C 7C", (0, 1, 2, 3)),  # seats 1, 2, 3 each draw a card of another suit, then a club (2 cards each)
    ("QC 8C 2S 2H", (0, 1, 2, 3)),  # seat 1 draws 8D 8C; seat 2 draws the last 20 (no club among them), discards
    ("JC 2D 3S 3H", (0, 1, 2, 3)),  # the stock is empty: whoever cannot follow discards
    ("TC 3D 4S 4H", (0, 1, 2, 3)),
    ("9C 4D 5S 5H", (0, 1, 2, 3)),  # seat 0 wins with its last card: the lead goes to seat 1, on its left
    ("5D 9D 6H", (1, 2, 3)),  # seat 0 is out
    ("8H 7H 6D", (2, 3, 1)),  # seat 3 plays its last card
    ("TD 7D", (2, 1)),  # seats 3 and 0 are passed over
    ("JD 8D", (2, 1)),  # seat 1's last card: seat 2 alone holds cards, and keeps them
]


def scripted_deal() -> Deal:
    return Deal(RULES, HANDS, 3, "hold", kitty=STOCK)


def test_the_preset_deals_six_each_from_the_whole_deck_and_keeps_the_rest_in_order():
    assert (RULES.hand_size(), RULES.kitty_size(), RULES.removed_cards(), RULES.pass_count) == (6, 28, frozenset(), 0)
    hands, stock = deal_cards(RULES, 4, 3, np.random.default_rng(0))
    assert [m.bit_count() for m in hands] == [6] * 4 and len(stock) == 28
    assert stock != tuple(sorted(stock))  # the order dealt, not sorted: the top is drawn first
    assert scripted_deal().kitty == tuple(STOCK)


def test_a_scripted_deal_draws_to_follow_passes_players_over_and_the_last_keeps_the_rest():
    deal = scripted_deal()
    drawn_after = {}
    for t, (played, positions) in enumerate(TRICKS):
        for c in cards(played):
            deal.step(c)
        assert deal.trick_positions(t) == positions, f"trick {t + 1}"
        drawn_after[t] = tuple(domino.drew(deal, p).bit_count() for p in range(4))
    assert drawn_after[0] == (0, 0, 0, 0)
    assert drawn_after[1] == (0, 2, 2, 2)
    assert drawn_after[2] == drawn_after[9] == (0, 4, 22, 2)
    assert domino.drew(deal, 1) == sum(1 << parse_card(c) for c in ("7D", "5C", "8D", "8C"))
    assert deal.is_over and domino.stock_left(deal) == ()
    assert [domino.out_from(deal, p) for p in range(4)] == [6, 10, None, 8]  # the trick each plays no more from
    # Seat 2 kept its 18 cards, six hearts (9H-AH) among them. By hand: seat 0 took the hearts discarded on its
    # tricks (2H-5H: 4); seat 2 took 6H (trick 7) and 8H 7H (trick 8), and keeps 6: 9.
    assert domino.kept(deal, 2).bit_count() == 18 and domino.kept(deal, 0) == 0
    assert deal.tricks_won == (6, 0, 4, 0) and deal.captured == (4, 0, 9, 0)
    assert deal.scores == (4, 0, 9, 0) and sum(deal.penalty_taken) == deal.penalty_total == 13
    assert sorted(deal.taken_apart()) == sorted(cards_of(domino.kept(deal, 2)))


def test_a_player_who_cannot_follow_draws_until_it_can_and_then_must_follow():
    deal = scripted_deal()
    for c in cards("AC 2C 3C 4C KC"):
        deal.step(c)
    # seat 1 had no club: the deal drew 7D, then 5C, for it, which it must play
    assert deal.to_act == 1 and deal.legal_actions() == [parse_card("5C")]
    assert deal.hand_count(1) == 7 and len(domino.stock_left(deal)) == 26
    for c in cards("5C 6C 7C QC 8C"):
        deal.step(c)
    # seat 2: the stock held no club; it drew all of it and may now play any card it holds
    assert domino.stock_left(deal) == () and deal.legal == deal.hands[2] and deal.hand_count(2) == 26


def test_what_was_drawn_is_its_drawers_and_how_many_is_public():
    deal = scripted_deal()
    for c in cards("AC 2C 3C 4C KC 5C 6C 7C"):
        deal.step(c)
    mine, theirs = information_state(deal, 1), information_state(deal, 0)
    assert mine.drawn == theirs.drawn == (0, 2, 2, 2) and mine.stock_size == theirs.stock_size == 22
    assert mine.drew == tuple(sorted(cards("7D 5C"))) and theirs.drew == ()
    assert theirs.hand_sizes == (4, 6, 6, 6)  # seat 0 played two cards; each other seat played two and drew two


def test_the_record_holds_the_stock_and_replays_the_draws():
    deal = scripted_deal()
    for played, _ in TRICKS:
        for c in cards(played):
            deal.step(c)
    record = deal_record(deal)
    assert record["stock"] == [c for c in ("7D 5C 7S 6C 7H 7C 8D 8C 9D TD JD QD KD AD 8S 9S TS JS QS KS AS "
                                           "8H 9H TH JH QH KH AH").split()]
    assert "kitty" not in record
    replayed = replay_deal(record)
    assert replayed.scores == deal.scores and replayed.tricks == deal.tricks


@pytest.mark.parametrize("options, refusal", [
    ({"pass_count": 3, "pass_cycle": ("left",)}, "domino has no pass"),
    ({"first_lead": "lowest_club"}, "domino: the lowest club may lie in the stock"),
    ({"clean_trick_bonus": 3}, "clean_trick_bonus is not played with it"),
    ({"kitty": "first_trick"}, "a kitty is not supported with domino"),
    ({"charging": True}, "charging is not supported with domino"),
    ({"booster_nines": True}, "booster_nines is not supported with domino"),
    ({"teams": "joint", "tie_break": "all_players"}, "teams is not supported with domino"),
])
def test_domino_refuses_what_no_source_plays_with_it(options, refusal):
    with pytest.raises(RulesError, match=refusal):
        make_rules("domino_hearts", 4, **options)


def test_the_vector_engine_refuses_domino_by_name():
    with pytest.raises(UnsupportedRulesError, match=r"does not implement rules option domino=True"):
        make_engine(RULES, 2)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_random_deals_play_every_holder_once_a_trick_and_nobody_after_running_out(n):
    rules = make_rules("domino_hearts", n)
    chooser = random.Random(n)
    for seed in range(30):
        hands, stock = deal_cards(rules, n, seed % n, np.random.default_rng(seed))
        deal = Deal(rules, hands, seed % n, "hold", kitty=stock)
        while not deal.is_over:
            if not deal.trick:  # a lead: every player still holding cards plays to this trick, once
                holders = {p for p in range(n) if deal.hand_count(p)}
            deal.step(chooser.choice(deal.legal_actions()))
            if not deal.trick:
                t = deal.tricks_played - 1
                assert set(deal.trick_positions(t)) == holders and len(deal.tricks[t][1]) == len(holders)
        out = [domino.out_from(deal, p) for p in range(n)]
        assert sum(x is None for x in out) <= 1  # at most one player held cards to the end, and kept them
        for t in range(deal.tricks_played):
            assert all(out[p] is None or out[p] > t for p in deal.trick_positions(t))
        assert sum(deal.captured) == 13 and deal.hands == (0,) * n


def test_the_environment_plays_domino_with_masks_of_the_follows_after_a_draw():
    env = raw_env(rules="domino_hearts", num_players=4)
    env.reset(options={"hands": HANDS, "dealer": 3, "kitty": STOCK})
    for c in cards("AC 2C 3C 4C KC"):
        env.step(c)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert env.agent_selection == "player_1" and np.flatnonzero(mask).tolist() == [parse_card("5C")]
