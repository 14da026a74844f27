"""Moon choices, shooting the sun, Q♠ as soon as it is safe, the exact-100 reset, and partnerships."""

from __future__ import annotations

import pytest

from bm_env.actions import MOON_ADD, MOON_SUBTRACT
from bm_env.deal import MOON, Deal, IllegalActionError
from bm_env.infostate import information_state
from bm_env.match import Match
from bm_env.rewards import deal_rewards
from bm_env.rules import RulesError, make_rules
from bm_env.scoring import deal_scores, moon_shooter

from kit import cards, legal_text, play

HEARTS = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
SPADES = "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
CLUBS = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"
DIAMONDS = "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"
# P0 holds every heart and leads them (eldest, hearts any time); the others are void and
# shed: P1 spades from the top (QS goes in trick 2), P2 clubs, P3 diamonds. P0 takes all 13
# tricks: the moon (26) and the sun.
SWEEP = [cards(HEARTS), cards(SPADES), cards(CLUBS), cards(DIAMONDS)]


def sweep_rules(preset="american_hearts", **kw):
    return make_rules(preset, first_lead="eldest_any", hearts_lead="any_time", **kw)


def play_sweep(deal):
    for i in range(13):
        deal.step(cards(HEARTS)[12 - i])
        for p in (1, 2, 3):
            deal.step(max(deal.legal_actions()))


def test_shooter_chooses_between_subtracting_and_adding():
    rules = sweep_rules(moon="shooter_choice")
    assert rules.num_actions == MOON_ADD + 1
    for action, expected in ((MOON_SUBTRACT, (-26, 0, 0, 0)), (MOON_ADD, (0, 26, 26, 26))):
        deal = Deal(rules, SWEEP, dealer=3)
        play_sweep(deal)
        assert deal.phase == MOON and deal.to_act == 0 and legal_text(deal) == ["moon: subtract", "moon: add to others"]
        assert information_state(deal, 2).moon_shooter == 0
        with pytest.raises(IllegalActionError, match="player_0 may not choose AH"):
            deal.step(cards("AH")[0])
        deal.step(action)
        assert deal.scores == expected


def test_no_choice_without_a_shot():
    rules = make_rules("american_hearts", moon="shooter_choice")
    # Points split 13/13: nobody took every penalty card, no decision, no moon scoring.
    assert moon_shooter(rules, [13, 13, 0, 0], 26, [5, 5, 3, 0]) is None
    assert deal_scores(rules, [13, 13, 0, 0], [13, 13, 0, 0], 26, [0] * 4) == (13, 13, 0, 0)
    with pytest.raises(ValueError, match="moon_choice must be one of \\['subtract', 'add'\\], got None"):
        deal_scores(rules, [26, 0, 0, 0], [26, 0, 0, 0], 26, [0] * 4)


def test_shooting_the_sun_scores_like_the_moon_with_its_total():
    for moon, expected in (("shooter_minus", (-52, 0, 0, 0)), ("others_plus", (0, 52, 52, 52))):
        deal = Deal(sweep_rules(moon=moon, sun_points=52), SWEEP, dealer=3)
        play_sweep(deal)
        assert deal.scores == expected
    deal = Deal(sweep_rules(moon="shooter_choice", sun_points=52), SWEEP, dealer=3)
    play_sweep(deal)
    deal.step(MOON_ADD)
    assert deal.scores == (0, 52, 52, 52)
    with pytest.raises(RulesError, match="sun_points .* needs a moon rule"):
        make_rules("american_hearts", moon="off", sun_points=52)


def test_sun_needs_every_trick_not_only_every_point():
    # P0 took all 26 points in 12 tricks, P2 one clean trick: a moon, not a sun.
    rules = make_rules("american_hearts", sun_points=52)
    assert moon_shooter(rules, [26, 0, 0, 0], 26, [12, 0, 1, 0]) == (0, 26)
    assert moon_shooter(rules, [26, 0, 0, 0], 26, [13, 0, 0, 0]) == (0, 52)


def test_queen_of_spades_must_go_once_safe():
    rules = make_rules("american_hearts", first_lead="eldest_any", queen_when_safe=True)
    hands = [cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AS"),
             cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2H"),
             cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
             cards("3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH AD")]
    deal = Deal(rules, hands, dealer=3)
    play(deal, "2D")  # P1 is void in diamonds: discarding, Q♠ is safe and must go
    assert legal_text(deal) == ["QS"]
    deal = Deal(rules, hands, dealer=3)
    play(deal, "AS")  # a spade trick after A♠: Q♠ cannot win it, so it must be played
    assert legal_text(deal) == ["QS"]
    rules_off = make_rules("american_hearts", first_lead="eldest_any")
    deal = Deal(rules_off, hands, dealer=3)
    play(deal, "AS")
    assert "2S" in legal_text(deal) and "QS" in legal_text(deal)


def test_queen_is_not_forced_on_a_low_spade_lead():
    rules = make_rules("american_hearts", first_lead="eldest_any", queen_when_safe=True)
    hands = [cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD 2S"),
             cards("AS 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2H"),
             cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
             cards("3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH AD")]
    deal = Deal(rules, hands, dealer=3)
    play(deal, "2S")  # no A♠ or K♠ on the trick yet: any spade
    assert len(legal_text(deal)) == 12


def test_exact_hundred_resets_to_fifty_or_zero():
    for reset, expected in (((100, 50), 50), ((100, 0), 0)):
        rules = sweep_rules(moon="off", exact_reset=reset)
        m = Match(rules, 0, first_dealer=3)
        m.totals = [74, 10, 20, 30]
        m.start_deal(SWEEP, 3, "hold")
        play_sweep(m.deal)  # P0 takes 26 (no moon rule): 74 + 26 = 100 exactly
        m.finish_deal()
        assert m.totals == [expected, 10, 20, 30] and not m.is_over
    # Passing 100 is no reset: 80 + 26 = 106 ends the match, P1 wins with 10.
    m = Match(sweep_rules(moon="off", exact_reset=(100, 50)), 0, first_dealer=3)
    m.totals = [80, 10, 20, 30]
    m.start_deal(SWEEP, 3, "hold")
    play_sweep(m.deal)
    m.finish_deal()
    assert m.totals == [106, 10, 20, 30] and m.winners == (1,)


# ---------------------------------------------------------------------------- partnerships


def test_joint_partnership_scores_the_team_tricks_together():
    rules = make_rules("partnership_hearts")
    # P0 5 + P2 8 = 13 for team 0/2; P1 13 (Q♠) + P3 0 = 13 for team 1/3.
    assert deal_scores(rules, [5, 13, 8, 0], [5, 13, 8, 0], 26, [0] * 4) == (13, 13, 13, 13)
    # Team slam split between partners (20 + 6): the team chooses, through P0 (more points).
    assert moon_shooter(rules, [20, 0, 6, 0], 26) == (0, 26)
    assert deal_scores(rules, [20, 0, 6, 0], [20, 0, 6, 0], 26, [0] * 4, moon_choice="subtract") == (-26, 0, -26, 0)
    assert deal_scores(rules, [20, 0, 6, 0], [20, 0, 6, 0], 26, [0] * 4, moon_choice="add") == (0, 26, 0, 26)


def test_team_slam_is_decided_by_an_action_in_the_engine():
    deal = Deal(sweep_rules("partnership_hearts"), SWEEP, dealer=3)
    play_sweep(deal)
    assert deal.phase == MOON and deal.to_act == 0
    deal.step(MOON_ADD)
    assert deal.scores == (0, 26, 0, 26)
    # Rewards are per team: both partners get the team's reward.
    assert deal_rewards(deal.rules, deal.scores) == (0.0, -26.0, 0.0, -26.0)


def test_individual_partnership_match_is_won_by_the_lower_team_total():
    # Seed 003's example: you 105, partner 34, opponents 78 and 69: your team wins 139 to 147.
    rules = sweep_rules("partnership_hearts", teams="individual", moon="shooter_minus")
    m = Match(rules, 0, first_dealer=3)
    m.totals = [131, 78, 34, 69]
    m.start_deal(SWEEP, 3, "hold")
    play_sweep(m.deal)  # P0 shoots the moon alone: -26 -> 105
    m.finish_deal()
    assert m.totals == [105, 78, 34, 69]
    assert m.team_totals() == (139, 147) and m.winners == (0, 2)
    # Rewards: a player's reward is their team's deal score (partners' sum), sign flipped.
    assert deal_rewards(rules, (5, 13, 8, 0)) == (-13.0, -13.0, -13.0, -13.0)


def test_teams_need_four_players_and_no_tie_break_among_tied_players():
    with pytest.raises(RulesError, match="4 players in two partnerships across; got num_players=3"):
        make_rules("american_hearts", 3, teams="joint")
    with pytest.raises(RulesError, match="teams need tie_break"):
        make_rules("partnership_hearts", tie_break="tied_players")
