"""The vector engine on the extension presets and options (kit.EXTENSIONS), against the reference engine step by step.

As in ``test_vector.py``: both engines get the same hands (and kitty), the same random
legal actions, and must agree at every step on the acting player, the mask (the extra
decision ids included), the observation, and at each deal's end on the rewards (team
rewards for partnerships), the scores and the final observation. The chooser takes an
extra decision (a charge, passing on, a moon choice) half the time one is offered, so
the rare paths are walked often; cases whose point is a rare event assert that it happened.
"""

from __future__ import annotations

import numpy as np
import pytest

from bm_env.engine.cards import NUM_CARDS
from bm_env.engine.deal import IllegalActionError, deal_cards
from bm_env.engine.rules import make_rules
from bm_env.vector import make_engine
from bm_env.vector.extended import ExtendedEngine

from kit import EXTENSIONS, ONLY_QS, VECTOR_EXTENSIONS, choose_legal, given_arrays, play_side_by_side

def test_make_engine_picks_the_class_and_the_classic_class_refuses_extension_rules():
    from bm_env.vector import UnsupportedRulesError, VectorEngine

    assert type(make_engine(make_rules("black_maria"), 1)) is VectorEngine
    with pytest.raises(UnsupportedRulesError, match=r"VectorEngine plays the classic rules; these use \['charging', 'ten_clubs_multiplier'\]: "
                                                    r"make_engine\(rules, \.\.\.\) builds"):
        VectorEngine(make_rules("turbo_hearts"), 1)
    with pytest.raises(ValueError, match="needs a bm_env.engine.rules.Rules object"):
        make_engine("black_maria", 1)


@pytest.mark.parametrize("case", sorted(VECTOR_EXTENSIONS))
def test_extension_presets_and_options_match_the_reference(case):
    preset, n, kw = EXTENSIONS[case]
    rules = make_rules(preset, n, **kw)
    assert isinstance(make_engine(rules, 1), ExtendedEngine)
    seen = play_side_by_side(rules, batch=6, deals=12, seed=len(case))
    if rules.charging:
        assert "charge" in seen["phases"]
    if rules.kitty_to_hand:
        assert "discard" in seen["phases"]
    if rules.optional_pass:
        assert seen["pass_on"] > 0
    if kw.get("card_values") == ONLY_QS:
        assert seen["moons"] == seen["deals"]
        if rules.moon == "shooter_choice":
            assert "moon" in seen["phases"]


@pytest.mark.parametrize("mode,normalise", [("zero_sum", False), ("zero_sum", True), ("score", True)])
def test_team_rewards_match_the_reference(mode, normalise):
    for kw in ({}, {"teams": "individual", "moon": "shooter_minus"}):
        play_side_by_side(make_rules("partnership_hearts", **kw), batch=4, deals=8, seed=3, reward=mode,
                          normalise=normalise)


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(VECTOR_EXTENSIONS))
def test_many_deals_of_each_extension_match_the_reference(case):
    preset, n, kw = EXTENSIONS[case]
    play_side_by_side(make_rules(preset, n, **kw), batch=32, deals=600, seed=100 + len(case))


def test_shooting_the_sun():
    # Seat 0 holds the top cards of every suit and always plays its highest: it takes every trick.
    rules = make_rules("american_hearts", pass_cycle=("hold",), moon="shooter_choice", sun_points=52)
    top = [c for s in range(4) for c in range(13 * s + 9, 13 * s + 13)][:13]
    rest = [c for c in range(NUM_CARDS) if c not in top]
    hands = [sum(1 << c for c in h) for h in (top, rest[0:13], rest[13:26], rest[26:39])]

    def chooser(mask, refs):
        return np.array([np.flatnonzero(row).max() if ref.to_act == 0 else np.flatnonzero(row).min()
                         for row, ref in zip(mask, refs)])

    seen = play_side_by_side(rules, batch=2, deals=2, seed=0, dealt=[(hands, [])] * 2, chooser=chooser)
    assert seen["moons"] == 2 and "moon" in seen["phases"]


def test_cancelled_tricks_wait_for_the_next_winner():
    # Seats 0-1, 2-3 and 4-5 hold identical hands, nobody passes, and each seat copies the card
    # before it when it can: whole tricks cancel and wait on the table for the next winner.
    rules = make_rules("cancellation", 6, pass_count=0)
    ids = list(range(NUM_CARDS))
    hands = [ids[0:17], ids[0:17], ids[17:34], ids[17:34], ids[34:51], ids[34:51]]
    rng = np.random.default_rng(2)

    def chooser(mask, refs):
        out = choose_legal(mask, rng)
        for g, ref in enumerate(refs):
            if ref.trick and mask[g][ref.trick[-1]]:
                out[g] = ref.trick[-1]
        return out

    seen = play_side_by_side(rules, batch=2, deals=4, seed=0, dealt=[(hands, [51, 51])] * 2, chooser=chooser)
    assert seen["pending"] > 0


@pytest.mark.parametrize("preset,n", [("booster_nines", 4), ("cancellation", 6)])
def test_engine_state_round_trip_continues_identically(preset, n):
    rules = make_rules(preset, n, kitty_to_hand=True) if preset == "cancellation" else make_rules(preset, n)
    a = make_engine(rules, 8, seed=5, final_observations=True)
    mask = a.reset()[1]
    rng = np.random.default_rng(1)
    for _ in range(100):
        mask = a.step(choose_legal(mask, rng))[1]
    b = make_engine(rules, 8, seed=99, final_observations=True)
    b.reset()
    b.set_state(a.get_state())
    for _ in range(150):  # past deal ends: the dealt-ahead deals (hands twice, kitties) carry over
        actions = choose_legal(mask, rng)
        out = a.step(actions)
        for x, y in zip(out, b.step(actions)):
            assert np.array_equal(x, y)
        assert np.array_equal(a.final_obs, b.final_obs)
        mask = out[1]


def test_engine_state_without_an_array_is_refused_naming_it():
    rules = make_rules("cancellation", 6)
    a = make_engine(rules, 4, seed=5)
    a.reset()
    state = a.get_state()
    del state["arrays"]["hands_twice"]
    with pytest.raises(ValueError, match=r"lacks the arrays \['hands_twice'\]"):
        make_engine(rules, 4).set_state(state)


def test_extra_actions_are_drawn_by_random_actions():
    eng = make_engine(make_rules("turbo_hearts"), 64, seed=1)
    eng.reset()
    rng = np.random.default_rng(1)
    drawn = set()
    for _ in range(40):
        actions = eng.random_actions(rng)
        assert ((eng.legal >> actions.astype(np.uint64)) & np.uint64(1)).all()
        drawn |= set(actions.tolist())
        eng.step(actions)
    assert {52, 53, 54, 55, 56} <= drawn  # the four charges and the end of charging


def test_illegal_extra_actions_are_refused_by_name():
    eng = make_engine(make_rules("turbo_hearts"), 2, seed=0)
    eng.reset(pass_directions=["hold", "hold"])
    with pytest.raises(IllegalActionError, match=r"game 0: player_\d may not choose 2C; legal: .*end charging"):
        eng.step(np.array([0, 56]))  # a card while charging
    with pytest.raises(IllegalActionError, match=r"game 1: action 57 is outside the action space 0..56"):
        eng.step(np.array([56, 57]))


def test_given_deals_with_a_kitty_are_checked():
    rules = make_rules("american_hearts", 3, kitty="first_trick")
    eng = make_engine(rules, 1)
    hands, kitty = deal_cards(rules, 3, 0, np.random.default_rng(0))
    h, k = given_arrays(rules, hands, kitty)
    with pytest.raises(ValueError, match="these rules deal a kitty of 1 cards"):
        eng.reset(hands=h[None])
    with pytest.raises(ValueError, match="game 0: hands and kitty do not deal the 3-player deck"):
        eng.reset(hands=h[None], kitty=np.array([k | np.uint64(1 << int(kitty[0]) ^ 1)]))
    with pytest.raises(ValueError, match="these rules have no kitty"):
        make_engine(make_rules("turbo_hearts"), 1).reset(hands=np.zeros((1, 4), dtype=np.uint64), kitty=[0])


def test_vector_engine_masks_have_the_extra_action_ids():
    assert make_engine(make_rules("american_hearts", moon="shooter_choice"), 4).reset()[1].shape == (4, 59)
    assert make_engine(make_rules("turbo_hearts"), 4).reset()[1].shape == (4, 57)
