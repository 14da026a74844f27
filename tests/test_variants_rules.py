"""The extension options as rules data: presets, validation messages, action ids, round trips."""

from __future__ import annotations

import pytest

from bm_env.engine.actions import (
    CHARGE_AH, CHARGE_DONE, CHARGE_QS, MAX_ACTIONS, MOON_ADD, MOON_SUBTRACT, PASS_ON, action_str, parse_action,
)
from bm_env.engine.rules import OPTION_NAMES, PRESETS, Rules, RulesError, make_rules


def test_extra_action_ids_follow_the_cards_in_one_fixed_order():
    assert (CHARGE_AH, CHARGE_QS, CHARGE_DONE, MOON_SUBTRACT, MOON_ADD, PASS_ON) == (52, 53, 56, 57, 58, 59)
    assert MAX_ACTIONS == 60
    assert [action_str(a) for a in range(52, 60)] == [
        "charge AH", "charge QS", "charge JD", "charge TC", "end charging", "moon: subtract",
        "moon: add to others", "pass on unseen"]
    with pytest.raises(ValueError, match="action id must be in 0..59, got 60"):
        action_str(60)
    with pytest.raises(ValueError, match="cannot charge 'ks'; chargeable: AH, QS, JD, TC"):
        parse_action("charge ks")


@pytest.mark.parametrize("overrides, actions", [
    ({}, 52), ({"charging": True}, 57), ({"moon": "shooter_choice"}, 59), ({"optional_pass": True}, 60),
    ({"kitty": "first_trick"}, 52), ({"queen_when_safe": True, "sun_points": 52}, 52),
])
def test_action_space_grows_only_with_the_decisions_used(overrides, actions):
    assert make_rules("american_hearts", **overrides).num_actions == actions


def test_classic_presets_are_unchanged():
    for name in ("black_maria", "black_maria_26", "black_maria_100", "black_maria_spot", "dirty_lady",
                 "slippery_anne", "omnibus", "american_hearts", "openspiel_hearts", "spot_hearts",
                 "petrone_black_mariah"):
        for n in PRESETS[name].player_counts:
            r = make_rules(name, n)
            assert r.uses_extensions == () and r.num_actions == 52 and r.decks == 1 and r.kitty == "none"


@pytest.mark.parametrize("preset", ["cancellation", "turbo_hearts", "booster_nines", "partnership_hearts"])
def test_new_presets_round_trip_through_a_dict(preset):
    r = make_rules(preset)
    assert Rules.from_dict(r.to_dict()) == r
    assert set(r.to_dict()) == set(OPTION_NAMES)


@pytest.mark.parametrize("overrides, words", [
    ({"decks": 3}, "decks=3 is not allowed; allowed: 1, or 2"),
    ({"kitty": "first_trick", "kitty_to_hand": "yes"}, "kitty_to_hand must be bool"),
    ({"teams": "trio"}, "teams='trio' is not allowed; allowed: \\['none', 'joint', 'individual'\\]"),
    ({"moon": "off", "sun_points": 52}, "needs a moon rule"),
    ({"sun_points": -1}, "sun_points=-1 must be positive"),
    ({"optional_pass": True, "pass_count": 0}, "optional_pass needs a pass"),
    ({"pass_cycle": ("left", "scatter"), "num_players": 3}, "pass_count 3 is not a positive multiple of 2"),
    ({"booster_nines": True, "trumps": "hearts"}, "booster_nines is defined without trumps"),
])
def test_bad_options_are_refused_with_what_is_allowed(overrides, words):
    with pytest.raises(RulesError, match=words):
        make_rules("american_hearts", **overrides)


def test_player_counts_depend_on_the_decks():
    with pytest.raises(RulesError, match="num_players=8 is not allowed; allowed: 3 to 7 .*10 with decks=2"):
        make_rules("black_maria", 7).replace(num_players=8)


def test_two_decks_refuse_what_no_source_combines():
    with pytest.raises(RulesError, match="charging is not supported with two decks"):
        make_rules("cancellation", charging=True)
    with pytest.raises(RulesError, match="num_players=11 is not allowed; allowed: 3 to 10"):
        make_rules("cancellation", num_players=10).replace(num_players=11)
