"""The deal's scores (bm_env/engine/scoring.py and the deal's moon decision): the shooter's choice, shooting the
sun, and partnerships.

Most deals are kit.SWEEP: P0 takes every trick and every point (the moon and the sun).
"""

from __future__ import annotations

import pytest

from bm_env.engine.actions import MOON_ADD, MOON_SUBTRACT
from bm_env.engine.deal import MOON, Deal, IllegalActionError
from bm_env.engine.infostate import information_state
from bm_env.env.rewards import deal_rewards
from bm_env.engine.rules import RulesError, make_rules
from bm_env.engine.scoring import deal_scores
from bm_env.systems.moon import moon_shooter

from kit import SWEEP, cards, legal_text, play_sweep, sweep_rules


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
