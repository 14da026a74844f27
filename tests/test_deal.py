"""The deal (bm_env/engine/deal.py) under each classic preset, scripted: given hands, every card played written
out, tricks and scores worked out by hand; and the deal's refusals of bad hands and actions.

Each deal is chosen to exercise what makes a preset different. Hands are by position;
a trick string lists the cards in play order from its leader (clockwise). Comments give the
hand-worked reasoning behind every literal expectation.
"""

from __future__ import annotations

import numpy as np
import pytest

from bm_env.engine.cards import cards_of, parse_card
from bm_env.engine.deal import PLAY, Deal, IllegalActionError, deal_hands
from bm_env.engine.rules import RulesError, make_rules
from bm_env.systems.moon import shooter_would_lead

import kit

# A 3-player deal (no 2C) legal under every 3-player preset of the Black Maria family, with
# what each position takes (kit.BASE3_DEAL). Dealer 2, so position 0 (eldest) leads; no passing.
BASE3_HANDS, BASE3_TRICKS, BASE3_WINNERS = kit.BASE3_DEAL.hands, kit.BASE3_DEAL.tricks, kit.BASE3_DEAL.winners


@pytest.mark.parametrize(
    "preset, expected",
    [
        # hearts 1, QS 13, KS 10, AS 7: P0 3 + 13; P1 7 + 10 + 1; P2 nine hearts. 16 + 18 + 9 = 43.
        ("black_maria", (16, 18, 9)),
        ("black_maria_100", (16, 18, 9)),
        # hearts 1, QS 13 (KS and AS are worth nothing): P0 16, P1 only KH, P2 9. Total 26.
        ("black_maria_26", (16, 1, 9)),
        # spot: hearts 2-10 at face value, J Q K 10, A 15, QS 25.
        #   P0: 4H 4 + AH 15 + 5H 5 + QS 25 = 49; P1: KH 10;
        #   P2: 2+3+6+7+8+9+10 + JH 10 + QH 10 = 65. Total 124.
        ("black_maria_spot", (49, 10, 65)),
        # Dirty Lady: AH 5, KH 4, QH 3, JH 2, other hearts 1, QS 13.
        #   P0: 4H 1 + AH 5 + 5H 1 + QS 13 = 20; P1: KH 4; P2: 7 hearts at 1 + JH 2 + QH 3 = 12. Total 36.
        ("dirty_lady", (20, 4, 12)),
        # Slippery Anne: only QS scores.
        ("slippery_anne", (13, 0, 0)),
        # Omnibus: black_maria plus JD -10, which P2 took in trick 10: 9 - 10 = -1. Total 33.
        ("omnibus", (16, 18, -1)),
    ],
)
def test_base_deal_scored_under_each_3p_preset(preset, expected):
    deal = kit.new_deal(make_rules(preset, 3), BASE3_HANDS, dealer=2)
    assert deal.phase == PLAY and deal.to_act == 0
    assert kit.play_tricks(deal, BASE3_TRICKS) == BASE3_WINNERS
    assert deal.is_over
    assert deal.scores == expected
    assert deal.tricks_won == (2, 3, 12)
    # Every card is in exactly one trick.
    played = [c for _, cs, _ in deal.tricks for c in cs]
    assert sorted(played) == sorted(kit.cards(" ".join(BASE3_HANDS)))


def test_black_maria_leads_and_hearts_broken():
    deal = kit.new_deal(make_rules("black_maria"), BASE3_HANDS, dealer=2)
    # Eldest leads any non-heart: P0's clubs and diamonds, not 2H 3H AH.
    assert kit.names(deal.legal) == "3C 4C 5C 6C 7C 8C 9C AC 2D 3D 4D 5D 6D 7D"
    kit.play_tricks(deal, BASE3_TRICKS[:2])
    # No heart has been played: P1 may not lead its 5H.
    assert not deal.hearts_broken
    assert deal.to_act == 1 and not deal.legal >> parse_card("5H") & 1
    kit.play_tricks(deal, BASE3_TRICKS[2:3])  # P0 discards 2H on a spade lead
    assert deal.hearts_broken
    assert deal.to_act == 2 and kit.names(deal.legal) == kit.names(kit.cards(
        "4H 6H 7H 8H 9H TH JH QH KH 8S 9S TS JS QS"))


def test_any_time_presets_let_eldest_lead_a_heart():
    # black_maria_26 (the 3-7 player rules): "no restriction on leading hearts".
    deal = kit.new_deal(make_rules("black_maria_26"), BASE3_HANDS, dealer=2)
    assert kit.names(deal.legal) == kit.names(kit.cards(BASE3_HANDS[0]))


def test_follow_suit_and_the_illegal_action_error():
    deal = kit.new_deal(make_rules("black_maria"), BASE3_HANDS, dealer=2)
    kit.play_tricks(deal, BASE3_TRICKS[:1])
    deal.step(parse_card("TC"))
    deal.step(parse_card("KS"))
    # P0 holds clubs, so must play one: the error names the player, the card and the legal cards.
    assert kit.names(deal.legal) == "3C 4C 5C 6C 7C 8C 9C AC"
    with pytest.raises(IllegalActionError, match=r"^player_0 may not play 3D: you must follow the suit led, clubs; legal: 3C 4C 5C 6C 7C 8C 9C AC$"):
        deal.step(parse_card("3D"))
    # Nothing changed: the same player is still to act with the same choices.
    assert deal.to_act == 0 and len(deal.trick) == 2
    deal.step(parse_card("3C"))
    assert deal.tricks[-1][2] == 1


def test_leading_an_unbroken_heart_is_rejected():
    deal = kit.new_deal(make_rules("black_maria"), BASE3_HANDS, dealer=2)
    with pytest.raises(IllegalActionError, match=r"player_0 may not play 2H: the first lead may not be a heart; legal: 3C .* 7D$"):
        deal.step(parse_card("2H"))


def test_renege_penalty_offender_takes_every_penalty_point():
    # The British rules: a renege costs the offender all 43 points of the deal, and the deal ends,
    # whatever has been captured so far (P1 had taken AS in trick 1).
    deal = kit.new_deal(make_rules("black_maria"), BASE3_HANDS, dealer=2, on_illegal="renege_penalty")
    kit.play_tricks(deal, BASE3_TRICKS[:1])
    deal.step(parse_card("TC"))
    deal.step(parse_card("KS"))
    deal.step(parse_card("2D"))  # P0 does not follow clubs
    assert deal.is_over and deal.legal == 0
    assert deal.renege == (0, parse_card("2D"), "play")
    assert deal.scores == (43, 0, 0)
    with pytest.raises(IllegalActionError, match="the deal is over"):
        deal.step(parse_card("3C"))


def test_renege_penalty_in_petrone_costs_every_negative_card():
    # Petrone's game: the offender takes AS KS QS, -7 -10 -13.
    d = kit.PETRONE_DEAL
    deal = kit.new_deal(make_rules("petrone_black_mariah"), d.hands, d.dealer, on_illegal="renege_penalty")
    deal.step(parse_card("AC"))
    deal.step(parse_card("2D"))  # P1 has no clubs: a legal discard
    deal.step(parse_card("KS"))  # P2 holds clubs: a renege
    assert deal.is_over and deal.scores == (0, 0, -30, 0)


# ---------------------------------------------------------------------------
# Dirty Lady: pass left, QS may not be passed, graded hearts, taking all 14 penalty cards.
# ---------------------------------------------------------------------------

DIRTY_HANDS = (
    "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2H 3H 4H 5H 6H",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2S 3S 4S 5S",
    "7H 8H 9H TH JH QH KH AH 6S 7S 8S 9S TS JS QS KS AS",
)
# Left of seat s is s+1: P0 -> P1, P1 -> P2, P2 -> P0.
DIRTY_PASSES = {0: "2H 3H 4H", 1: "2S 3S 4S", 2: "AH KH AS"}
# After the pass P0 holds 3C..AC 5H 6H AH KH AS; P1 2D..AD 5S 2H 3H 4H; P2 7H..QH 6S..KS 2S 3S 4S.
DIRTY_TRICKS = (
    "AC 2H QS",  # P0 leads clubs; the others, void, shed hearts and QS onto P0's tricks
    "KC 3H QH",
    "QC 4H JH",
    "JC 2D TH",
    "TC 3D 9H",
    "9C 4D 8H",
    "8C 5D 7H",
    "AH 6D 2S",  # hearts broken since trick 1; P0 cashes its own hearts
    "KH 7D 3S",
    "6H 8D 4S",
    "5H 9D 6S",
    "7C TD 7S",
    "6C JD 8S",
    "5C QD 9S",
    "4C KD TS",
    "3C AD JS",
    "AS 5S KS",
)


def test_dirty_lady_queen_may_not_be_passed_and_the_moon():
    rules = make_rules("dirty_lady")
    deal = kit.new_deal(rules, DIRTY_HANDS, dealer=2, pass_direction="left")
    for p, picks in ((0, "2H 3H 4H"), (1, "2S 3S 4S")):
        for c in picks.split():
            deal.step(parse_card(c))
    # P2 holds QS and may pass anything but it.
    assert deal.to_act == 2
    qs = parse_card("QS")
    assert not deal.legal >> qs & 1
    assert deal.legal == deal.hands[2] & ~(1 << qs)
    assert deal.legal_mask()[qs] == 0
    with pytest.raises(IllegalActionError, match=r"^player_2 may not pass QS: these rules do not let it be passed; legal: "):
        deal.step(qs)
    for c in ("AH", "KH", "AS"):
        deal.step(parse_card(c))
    assert kit.names(deal.received[0]) == kit.names(kit.cards("AH KH AS"))
    assert kit.names(deal.received[1]) == kit.names(kit.cards("2H 3H 4H"))
    # Eldest leads a non-heart: clubs or AS.
    assert kit.names(deal.legal) == "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC AS"
    assert kit.play_tricks(deal, DIRTY_TRICKS) == [0] * 17
    # P0 took all 13 hearts (23 in Dirty Lady values) and QS (13): 36, which under
    # "counts favourably" (shooter_minus) scores -36 and nothing for the others.
    assert deal.captured == (36, 0, 0)
    assert deal.scores == (-36, 0, 0)


# The same deal after the pass, for the moon options of the 43-point game.
MOON_HANDS = (
    "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 5H 6H AH KH AS",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 5S 2H 3H 4H",
    "7H 8H 9H TH JH QH 6S 7S 8S 9S TS JS QS KS 2S 3S 4S",
)


@pytest.mark.parametrize(
    "moon, totals_before, deals_before, expected",
    [
        # P0 takes all 13 hearts, QS, KS and AS: 43.
        ("off", None, 0, (43, 0, 0)),
        ("shooter_minus", None, 0, (-43, 0, 0)),
        ("others_plus", None, 0, (0, 43, 43)),
        # others_plus_unless_win, first of 9 deals: the match cannot end, so the others get +43.
        ("others_plus_unless_win", (0, 0, 0), 0, (0, 43, 43)),
        # Last (9th) deal with totals 100, 50, 80: +43 to the others would end the match with
        # P1 lowest (93 < 100), so the shooter takes -43 instead.
        ("others_plus_unless_win", (100, 50, 80), 8, (-43, 0, 0)),
        # Last deal with totals 10, 50, 80: after +43 the shooter still has the lowest total, so +43.
        ("others_plus_unless_win", (10, 50, 80), 8, (0, 43, 43)),
    ],
)
def test_black_maria_moon_options(moon, totals_before, deals_before, expected):
    rules = make_rules("black_maria", moon=moon)
    deal = kit.new_deal(rules, MOON_HANDS, dealer=2, totals_before=totals_before, deals_before=deals_before)
    assert kit.play_tricks(deal, DIRTY_TRICKS) == [0] * 17
    assert deal.penalty_taken == (43, 0, 0)
    assert deal.scores == expected


@pytest.mark.parametrize("totals_before, expected", [
    # Where the highest total wins, the shooter wins with the highest. Last deal, 10/50/80:
    # +43 to the others gives 10/93/123, P2 ahead of the shooter, so the shooter takes -43.
    ((10, 50, 80), (-43, 0, 0)),
    # 200/50/80: after +43, 200/93/123, the shooter still ahead: +43 to the others.
    ((200, 50, 80), (0, 43, 43)),
])
def test_moon_unless_win_reads_the_best_total_where_the_highest_wins(totals_before, expected):
    rules = make_rules("black_maria", moon="others_plus_unless_win", lower_wins=False)
    deal = kit.new_deal(rules, MOON_HANDS, dealer=2, totals_before=totals_before, deals_before=8)
    kit.play_tricks(deal, DIRTY_TRICKS)
    assert deal.scores == expected


@pytest.mark.parametrize("totals, shooter, leads", [
    # Individual scores, team totals deciding (seats 0+2 against 1+3): 30+60 = 90 < 40+70 = 110.
    ((30, 40, 60, 70), 2, True),
    ((30, 40, 60, 70), 1, False),   # P1 has the second-lowest total, but its team is behind
    ((30, 40, 60, 50), 3, True),    # a tie of the teams (90 each) counts as leading
])
def test_the_shooter_leads_by_its_team_total_under_individual_team_scoring(totals, shooter, leads):
    rules = make_rules("partnership_hearts", teams="individual", moon="others_plus_unless_win")
    assert shooter_would_lead(rules, totals, shooter) is leads


@pytest.mark.parametrize("moon, expected", [
    # P0 also took JD (P1 discarded it in trick 13): 43 - 10 = 33 without a moon rule.
    ("off", (33, 0, 0)),
    # Pagat: the taker of JD has 10 deducted "even if it is the shooter": -43 - 10.
    ("shooter_minus", (-53, 0, 0)),
    ("others_plus", (-10, 43, 43)),
])
def test_omnibus_bonus_card_counts_for_the_shooter(moon, expected):
    deal = kit.new_deal(make_rules("omnibus", moon=moon), MOON_HANDS, dealer=2)
    kit.play_tricks(deal, DIRTY_TRICKS)
    assert deal.scores == expected


# ---------------------------------------------------------------------------
# American Hearts: pass left, the 2C holder leads it, shooting the moon.
# ---------------------------------------------------------------------------

SUITS4 = (
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
)
# Dealer 1, so eldest is P2, who picks first. Left: P0 -> P1 -> P2 -> P3 -> P0.
# P0 passes its 2C away: P1 will hold it and lead it, although P2 is eldest.
MOON_PASSES = {0: "2C 3C 4C", 1: "2D 3D 4D", 2: "AH KH QH", 3: "QS KS AS"}
MOON_TRICKS = (
    "2C 2D 2S 5C",  # P1 leads 2C; P2 and P3 have no clubs; P0's 5C wins
    "AC 3C JH AH",  # P0 runs its clubs; P2 and P3 shed hearts on them
    "KC 4C TH KH",
    "QC 5D 9H QH",
    "JC 6D 8H JS",
    "TC 7D 7H TS",
    "9C 8D 6H 9S",
    "8C 9D 5H 8S",
    "7C TD 4H 7S",
    "6C JD 3H 6S",
    "AS QD 2H 3S",  # P2's last heart
    "KS KD 3D 4S",
    "QS AD 4D 5S",  # P0 takes its own QS: all 26 points
)
# Same deal, but P3 keeps AS (passing JS instead) and so wins trick 11, with 2H in it.
FAILED_PASSES = {0: "2C 3C 4C", 1: "2D 3D 4D", 2: "AH KH QH", 3: "QS KS JS"}
FAILED_TRICKS = (
    "2C 2D 2S 5C",
    "AC 3C JH AH",
    "KC 4C TH KH",
    "QC 5D 9H QH",
    "JC 6D 8H TS",
    "TC 7D 7H 9S",
    "9C 8D 6H 8S",
    "8C 9D 5H 7S",
    "7C TD 4H 6S",
    "6C JD 3H 5S",
    "JS QD 2H AS",  # P3's AS beats P0's JS: P3 takes 2H
    "3S KS KD 3D",
    "QS AD 4D 4S",
)


def _american(preset, passes, tricks):
    deal = kit.new_deal(make_rules(preset), SUITS4, dealer=1, pass_direction="left")
    assert deal.to_act == 2  # eldest picks first
    kit.do_passes(deal, passes)
    # The holder of 2C leads it, whoever is eldest.
    assert deal.to_act == 1 and kit.names(deal.legal) == "2C"
    return deal, kit.play_tricks(deal, tricks)


@pytest.mark.parametrize("preset, moon", [
    ("american_hearts", 26),  # P0 shot the moon: 13 hearts + QS = 26, scored as -26 for the shooter
    ("pink_lady", 38),  # Pink Lady: QH 13 as well as QS 13, the other twelve hearts 1: the moon takes both queens
])
def test_american_hearts_two_of_clubs_leads_and_moon(preset, moon):
    deal, winners = _american(preset, MOON_PASSES, MOON_TRICKS)
    assert winners == [0] * 13
    assert deal.penalty_taken == (moon, 0, 0, 0)
    assert deal.scores == (-moon, 0, 0, 0)


@pytest.mark.parametrize("preset, p0", [
    ("american_hearts", 25),  # P0: 12 hearts + QS = 25; P3: 2H = 1
    ("pink_lady", 37),  # P0: the eleven hearts of 1 but 2H, QH 13 and QS 13 = 37; P3: 2H = 1
])
def test_american_hearts_failed_moon_scores_normally(preset, p0):
    deal, winners = _american(preset, FAILED_PASSES, FAILED_TRICKS)
    assert winners == [0] * 10 + [3, 0, 0]
    assert deal.scores == (p0, 0, 0, 1)


def test_spot_hearts_pip_values():
    # Spot Hearts: hearts at pip value (2..10, J 11, Q 12, K 13, A 14: 104 in all), QS 25.
    deal, _ = _american("spot_hearts", FAILED_PASSES, FAILED_TRICKS)
    # P0: every heart but 2H (104 - 2 = 102) + QS 25 = 127; P3: 2H = 2.
    assert deal.scores == (127, 0, 0, 2)
    deal, _ = _american("spot_hearts", MOON_PASSES, MOON_TRICKS)
    # The moon: all 129 points, taken off the shooter.
    assert deal.scores == (-129, 0, 0, 0)


def test_american_five_players_lead_the_three_of_clubs():
    # 5 players: 2D and 2C are out, so the holder of 3C must lead it.
    rules = make_rules("american_hearts", 5)
    assert rules.removed_cards() == frozenset(kit.cards("2D 2C"))
    deal = Deal(rules, deal_hands(rules, 5, 0, np.random.default_rng(3)), 0, "hold")
    assert kit.names(deal.legal) == "3C"
    assert deal.hands[deal.to_act] >> parse_card("3C") & 1


# ---------------------------------------------------------------------------
# OpenSpiel's hearts: no points on the first trick, QS breaks hearts, the others get +26.
# ---------------------------------------------------------------------------

OPENSPIEL_HANDS = (
    "2C QC KC AC QD KD AD KS AS JH QH KH AH",
    "3C 4C 5C 6C 7C 8C 9C TC JC 2H 3H 4H 5H",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD 6H 7H 8H",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS 9H TH",
)
OPENSPIEL_TRICKS = (
    "2C 3C 2D 2S",  # P1's 3C wins the first trick, which holds no points
    "4C 3D 3S AC",  # P0 wins with AC
    "AS 5C 4D QS",  # P3 has to give up QS: that breaks hearts under this preset
    "AH 2H 6H 9H",  # P0 may now lead hearts, and runs them
    "KH 3H 7H TH",
    "QH 4H 8H 4S",
    "JH 5H 5D 5S",
    "KS 6C 6D 6S",  # the rest are P0's top cards
    "KC 7C 7D 7S",
    "QC 8C 8D 8S",
    "AD 9C 9D 9S",
    "KD TC TD TS",
    "QD JC JD JS",
)


def test_openspiel_hearts_first_trick_queen_breaks_and_others_plus():
    deal = kit.new_deal(make_rules("openspiel_hearts"), OPENSPIEL_HANDS, dealer=0)
    assert deal.eldest == 1 and deal.to_act == 0 and kit.names(deal.legal) == "2C"
    deal.step(parse_card("2C"))
    assert kit.names(deal.legal) == "3C 4C 5C 6C 7C 8C 9C TC JC"  # follow suit
    deal.step(parse_card("3C"))
    # P2 has no clubs: it may discard, but not a heart on the first trick.
    assert kit.names(deal.legal) == "2D 3D 4D 5D 6D 7D 8D 9D TD JD"
    deal.step(parse_card("2D"))
    # P3 may discard any spade but QS, and no heart.
    assert kit.names(deal.legal) == "2S 3S 4S 5S 6S 7S 8S 9S TS JS"
    with pytest.raises(IllegalActionError, match="player_3 may not play QS"):
        deal.step(parse_card("QS"))
    deal.step(parse_card("2S"))
    assert deal.tricks[-1][2] == 1
    kit.play_tricks(deal, OPENSPIEL_TRICKS[1:2])
    # No heart and no QS played yet: P0 may not lead a heart.
    assert not deal.hearts_broken
    assert kit.names(deal.legal) == "QC KC QD KD AD KS AS"
    kit.play_tricks(deal, OPENSPIEL_TRICKS[2:3])
    assert deal.hearts_broken  # by QS alone
    assert kit.names(deal.legal) == "QC KC QD KD AD JH QH KH AH KS"
    winners = kit.play_tricks(deal, OPENSPIEL_TRICKS[3:])
    assert [t[2] for t in deal.tricks] == [1] + [0] * 12 and winners == [0] * 10
    # P0 took all 13 hearts and QS: under "others_plus" the shooter scores 0, the others 26.
    assert deal.scores == (0, 26, 26, 26)


def test_queen_does_not_break_hearts_in_american_hearts():
    # The same first three tricks are legal in American Hearts, where only a heart breaks hearts.
    deal = kit.new_deal(make_rules("american_hearts"), OPENSPIEL_HANDS, dealer=0)
    kit.play_tricks(deal, OPENSPIEL_TRICKS[:3])
    assert not deal.hearts_broken
    assert kit.names(deal.legal) == "QC KC QD KD AD KS"


def test_first_trick_points_allowed_when_nothing_else():
    # P2 holds only hearts: on the first trick it may play them, having nothing else.
    deal = kit.new_deal(make_rules("openspiel_hearts"), SUITS4, dealer=3)
    deal.step(parse_card("2C"))
    assert kit.names(deal.legal) == kit.names(kit.cards(SUITS4[1]))
    deal.step(parse_card("2D"))
    assert kit.names(deal.legal) == kit.names(kit.cards(SUITS4[2]))
    deal.step(parse_card("AH"))
    assert kit.names(deal.legal) == "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS"


# ---------------------------------------------------------------------------
# Hearts-lead rules in the 43-point game.
# ---------------------------------------------------------------------------


def test_a_hand_of_only_hearts_may_lead_them():
    # P0 holds four top clubs and all 13 hearts; it wins the four club tricks (the others
    # follow or discard diamonds/spades), then holds only hearts with hearts unbroken.
    deal = kit.new_deal(
        make_rules("black_maria"),
        (
            "AC KC QC JC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
            "3C 4C 5C 6C 7C 8C 9C TC 2D 3D 4D 5D 6D 7D 8D 9D TD",
            "JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
        ),
        dealer=2,
    )
    assert kit.names(deal.legal) == "JC QC KC AC"
    assert kit.play_tricks(deal, ("AC 3C JD", "KC 4C QD", "QC 5C KD", "JC 6C AD")) == [0, 0, 0, 0]
    assert not deal.hearts_broken
    assert kit.names(deal.legal) == "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
    assert kit.play_tricks(deal, ("2H 2D 2S",)) == [0]
    assert deal.hearts_broken  # a heart led by necessity breaks hearts


@pytest.mark.parametrize("option, expected", [
    # Without the option a hand of only hearts and QS must lead QS.
    (False, "QS"),
    # Pagat: "many people allow hearts to be led, instead of forcing ... the Queen of Spades".
    (True, "2H 3H 4H 5H 6H 7H 8H 9H TH QS"),
])
def test_lead_hearts_with_queen_only(option, expected):
    rules = make_rules("black_maria", 4, lead_hearts_with_queen_only=option)
    deal = kit.new_deal(
        rules,
        (
            "AC KC QC QS 2H 3H 4H 5H 6H 7H 8H 9H TH",
            "2C 3C 4C 5C 6C 7C 8C 9C TC JC JH QH KH",
            "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
            "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS AH",
        ),
        dealer=3,
    )
    # P0 wins three club tricks; nobody discards a heart.
    assert kit.play_tricks(deal, ("AC 2C 2D 2S", "KC 3C 3D 3S", "QC 4C 4D 4S")) == [0, 0, 0]
    assert not deal.hearts_broken
    assert kit.names(deal.legal) == expected


# ---------------------------------------------------------------------------
# Q♠ as soon as it is safe (queen_when_safe, Pagat).
# ---------------------------------------------------------------------------


def test_queen_of_spades_must_go_once_safe():
    rules = make_rules("american_hearts", first_lead="eldest_any", queen_when_safe=True)
    hands = [kit.cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AS"),
             kit.cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2H"),
             kit.cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
             kit.cards("3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH AD")]
    deal = Deal(rules, hands, dealer=3)
    kit.play(deal, "2D")  # P1 is void in diamonds: discarding, Q♠ is safe and must go
    assert kit.legal_text(deal) == ["QS"]
    deal = Deal(rules, hands, dealer=3)
    kit.play(deal, "AS")  # a spade trick after A♠: Q♠ cannot win it, so it must be played
    assert kit.legal_text(deal) == ["QS"]
    rules_off = make_rules("american_hearts", first_lead="eldest_any")
    deal = Deal(rules_off, hands, dealer=3)
    kit.play(deal, "AS")
    assert "2S" in kit.legal_text(deal) and "QS" in kit.legal_text(deal)


def test_queen_is_not_forced_on_a_low_spade_lead():
    rules = make_rules("american_hearts", first_lead="eldest_any", queen_when_safe=True)
    hands = [kit.cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD 2S"),
             kit.cards("AS 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2H"),
             kit.cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
             kit.cards("3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH AD")]
    deal = Deal(rules, hands, dealer=3)
    kit.play(deal, "2S")  # no A♠ or K♠ on the trick yet: any spade
    assert len(kit.legal_text(deal)) == 12


# ---------------------------------------------------------------------------
# Petrone's Black Mariah: hearts are trumps, +3 per clean trick, spade honours negative.
# ---------------------------------------------------------------------------


def test_petrone_hearts_trump_and_clean_tricks():
    d = kit.PETRONE_DEAL
    deal = kit.new_deal(make_rules("petrone_black_mariah"), d.hands, d.dealer)
    # Eldest leads anything, hearts included.
    assert deal.to_act == 0 and kit.names(deal.legal) == kit.names(kit.cards(d.hands[0]))
    winners = kit.play_tricks(deal, d.tricks)
    # Trick 1: 2H beats AC; trick 3: TH beats 3H; trick 4: 4H beats AS.
    assert winners == [1, 2, 3, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3]
    assert deal.clean_tricks == (0, 1, 1, 9)
    # P0 won nothing: 0. P1: trick 1 clean (+3), trick 4 AS + QS (-20, no bonus): -17.
    # P2: trick 2 clean: +3. P3: nine clean tricks (+27) and KS in trick 6 (-10): 17.
    # Hearts score nothing. Total 3 = 11 clean tricks * 3 - 30.
    assert deal.scores == (0, -17, 3, 17)


# ---------------------------------------------------------------------------
# Deals refuse bad hands and bad actions.
# ---------------------------------------------------------------------------

BM = make_rules("black_maria")
GOOD = deal_hands(BM, 3, 0, np.random.default_rng(0))


@pytest.mark.parametrize("hands, dealer, message", [
    ([GOOD[0]], 0, r"a deal has 2 to 7 players, got 1 hands"),
    ([GOOD[0] >> 0] * 8, 0, r"a deal has 2 to 7 players, got 8 hands"),
    ([GOOD[0], GOOD[0], GOOD[2]], 0, r"card\(s\) .* dealt twice \(again to position 1\)"),
    ([GOOD[0] | 1, GOOD[1], GOOD[2]], 0, r"hands do not make the 3-player deck of deck table 'black_maria': missing \[\], not in that deck \['2C'\]"),
    ([GOOD[0] & (GOOD[0] - 1), GOOD[1], GOOD[2]], 0, r"hands do not make the 3-player deck .* missing \['\w\w'\], not in that deck \[\]"),
    # move one card from hand 0 to hand 1: the deck is whole but the sizes differ
    ([GOOD[0] & (GOOD[0] - 1), GOOD[1] | (GOOD[0] & -GOOD[0]), GOOD[2]], 0, r"hands must all be the same size, got sizes \[16, 18, 17\]"),
    (GOOD, 3, r"dealer must be a position in 0\.\.2, got 3"),
    (GOOD, 1.0, r"dealer must be a position in 0\.\.2, got 1\.0"),
    # masks and card ids by the one rule (bm_env.engine.checks): a negative mask would never end a walk over its bits
    ([-1, 0, 0], 0, r"^the hand of position 0 must be a bit mask of cards, a whole number in 0\.\.2\*\*52 - 1, got -1$"),
    ([GOOD[0], GOOD[1], 1 << 60], 0, r"^the hand of position 2 must be a bit mask of cards, .*, got 1152921504606846976$"),
    ([[7.7] + cards_of(GOOD[0])[1:], GOOD[1], GOOD[2]], 0, r"^a card of position 0 must be a card id in 0\.\.51, got 7\.7$"),
    ([[-1], GOOD[1], GOOD[2]], 0, r"^a card of position 0 must be a card id in 0\.\.51, got -1$"),
    ([["QS"], GOOD[1], GOOD[2]], 0, r"^a card of position 0 must be a card id in 0\.\.51, got 'QS'$"),
    ([2.5, GOOD[1], GOOD[2]], 0, r"^the hand of position 0 must be a bit mask or a sequence of card ids, got 2\.5$"),
    (5, 0, r"^hands must be a sequence of hands, one per position, got 5$"),
])
def test_bad_hands(hands, dealer, message):
    with kit.within(5), pytest.raises(ValueError, match=message):
        Deal(BM, hands, dealer)


@pytest.mark.parametrize("kitty, message", [
    ([-3], r"^a card of the kitty must be a card id in 0\.\.51, got -3$"),
    ([2.0], r"^a card of the kitty must be a card id in 0\.\.51, got 2\.0$"),
    ("QS", r"^kitty must be a sequence of card ids, got 'QS'$"),
])
def test_bad_kitty_cards(kitty, message):
    with pytest.raises(ValueError, match=message):
        Deal(make_rules("american_hearts", 3, kitty="first_trick"), GOOD, 0, kitty=kitty)


def test_pass_direction_must_be_a_name():
    with pytest.raises(ValueError, match=r"^pass_direction must be a direction name such as 'right' or 'hold', got 1$"):
        Deal(BM, GOOD, 0, 1)


def test_bad_deal_options():
    with pytest.raises(ValueError, match=r"on_illegal='ignore' is not allowed; allowed: \['raise', 'renege_penalty'\]"):
        Deal(BM, GOOD, 0, on_illegal="ignore")
    with pytest.raises(RulesError, match="unknown pass direction 'up'"):
        Deal(BM, GOOD, 0, "up")


@pytest.mark.parametrize("action", [52, -1, 2**70])
def test_actions_outside_the_action_space(action):
    deal = Deal(BM, GOOD, 0, "right")
    with pytest.raises(IllegalActionError, match=r"is outside the action space 0\.\.51"):
        deal.step(action)


@pytest.mark.parametrize("action", [True, "QS", 3.0, float("nan"), None, [3], np.float64(3.0)])
def test_actions_that_are_not_ints_are_refused_as_such(action):
    deal = Deal(BM, GOOD, 0, "right")
    state = deal.hands
    with pytest.raises(IllegalActionError, match=r"^an action must be an int action id in 0\.\.51 \(a Python or "
                                                r"numpy integer\), got "):
        deal.step(action)
    assert deal.hands == state and deal.to_act == deal.eldest


def test_a_card_not_held_is_illegal():
    deal = Deal(BM, GOOD, 0, "right")
    missing = next(c for c in range(52) if not GOOD[1] >> c & 1 and c != 0)
    with pytest.raises(IllegalActionError, match=r"^player_1 may not pass \w\w: .*; legal: "):
        deal.step(missing)
    deal.step(np.int64(next(c for c in range(52) if GOOD[1] >> c & 1)))  # numpy ints are accepted
