"""Why a card is not legal: each rule that takes a card out is named in the error."""

from __future__ import annotations

import pytest

from bm_env.engine.cards import card_pretty, parse_card
from bm_env.engine.deal import Deal, IllegalActionError
from bm_env.engine.explain import why_illegal
from bm_env.engine.rules import make_rules

from kit import BASE3_DEAL, TURBO_HANDS, cards, play

BM_HANDS = BASE3_DEAL.hands  # three players, dealer 2
FOUR_HANDS = TURBO_HANDS  # four players, dealer 3


def refused(deal: Deal, card: str) -> str:
    with pytest.raises(IllegalActionError) as e:
        deal.step(parse_card(card))
    return str(e.value)


def bm_deal(preset="black_maria", **kw) -> Deal:
    return Deal(make_rules(preset, **kw), [cards(h) for h in BM_HANDS], dealer=2)


def test_a_card_not_held():
    assert refused(bm_deal(), "KS") == "player_0 may not play KS: it is not in your hand; legal: " + \
        "3C 4C 5C 6C 7C 8C 9C AC 2D 3D 4D 5D 6D 7D"


def test_following_suit():
    deal = bm_deal()
    play(deal, "2D")
    assert ": you must follow the suit led, diamonds;" in refused(deal, "2S")


def test_no_heart_on_the_first_lead_and_hearts_not_broken():
    assert ": the first lead may not be a heart;" in refused(bm_deal(), "2H")
    deal = bm_deal(first_lead="eldest_any")
    assert ": hearts are not broken yet: a heart may not be led while you hold another suit;" in refused(deal, "2H")
    deal = bm_deal(first_lead="eldest_any", lead_hearts_with_queen_only=True)
    assert "while you hold a card other than hearts and QS;" in refused(deal, "AH")


def test_first_leads_of_the_lowest_club_and_any_club():
    deal = Deal(make_rules("american_hearts"), [cards(h) for h in FOUR_HANDS], dealer=3)
    assert ": the first lead must be the lowest club in the deck, 2C;" in refused(deal, "TC")
    deal = Deal(make_rules("american_hearts", first_lead="lowest_club_any_club"), [cards(h) for h in FOUR_HANDS], 3)
    assert ": the first lead must be a club;" in refused(deal, "3D")


def test_any_club_first_lead_with_clubs_that_score():
    # P0 leads holding 2C and TC; with TC worth 5 and no points on the first trick, only 2C may lead.
    rules = make_rules("american_hearts", first_lead="lowest_club_any_club", first_trick_no_points=True,
                       card_values={"QS": 13, "TC": 5})
    deal = Deal(rules, [cards(h) for h in FOUR_HANDS], 3, "hold")
    assert deal.to_act == 0 and deal.legal_actions() == [parse_card("2C")]
    assert ": no points may be played on the first trick while you can play a card without points;" \
        in refused(deal, "TC")
    assert ": the first lead must be a club;" in refused(deal, "3D")


def test_no_points_on_the_first_trick():
    hands = [
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        "2H 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
        "AD 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    ]
    deal = Deal(make_rules("openspiel_hearts"), [cards(h) for h in hands], dealer=3, pass_direction="hold")
    play(deal, "2C")  # P1, void in clubs, holds diamonds without points
    assert ": no points may be played on the first trick while you can play a card without points;" \
        in refused(deal, "2H")


def test_charged_cards_and_charging():
    deal = Deal(make_rules("turbo_hearts"), [cards(h) for h in FOUR_HANDS], dealer=3)
    play(deal, "end charging")
    assert ": it is not in your hand;" in str(pytest.raises(IllegalActionError, deal.step, 52).value)
    play(deal, "charge QS, end charging, end charging, end charging")
    play(deal, "2C 6C JC AC")
    play(deal, "KS 2S")  # the first spade lead: P1's charged QS may not follow to it
    assert ": it is charged: it may not be played to the first trick led in spades while another card can be;" \
        in refused(deal, "QS")


def test_passing_reasons():
    deal = Deal(make_rules("dirty_lady"), [cards(h) for h in BM_HANDS], dealer=0, pass_direction="left")
    play(deal, "2S")  # P1 picks 2S
    assert ": it is already picked to pass;" in refused(deal, "2S")
    play(deal, "3S 4S")
    assert ": these rules do not let it be passed;" in refused(deal, "QS")


def test_the_terminal_names_cards_with_suit_symbols():
    deal = bm_deal()
    play(deal, "2D")
    assert why_illegal(deal, parse_card("QS"), card_pretty) == "it is not in your hand"
    deal = Deal(make_rules("american_hearts"), [cards(h) for h in FOUR_HANDS], dealer=3)
    assert why_illegal(deal, parse_card("TC"), card_pretty).endswith("2♣")


def test_an_extra_decision_out_of_its_phase():
    deal = bm_deal()
    assert why_illegal(deal, 56) == "it is not a decision of the play phase; give a card"
    assert why_illegal(deal, 59) == "passing on, unseen, is not a decision now"
