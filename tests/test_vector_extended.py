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

from bm_env.env import observation
from bm_env.engine.actions import PASS_ON
from bm_env.engine.cards import NUM_CARDS
from bm_env.engine.deal import Deal, IllegalActionError, deal_cards, pass_direction_for
from bm_env.env.rewards import deal_rewards
from bm_env.engine.rules import make_rules
from bm_env.vector import VectorEngine
from bm_env.vector.extended import ExtendedEngine

from kit import EXTENSIONS, ONLY_QS, reference_obs

def _masks(rules, hands, kitty):
    """Reference hands (card-id lists or masks) and kitty as the engine's given-deal arrays."""
    if rules.decks == 1:
        return (np.array([int(h) for h in hands], dtype=np.uint64),
                np.uint64(sum(1 << c for c in kitty)))
    once = [sum(1 << c for c in set(h)) for h in hands]
    twice = [sum(1 << c for c in set(h) if list(h).count(c) == 2) for h in hands]
    k_once, k_twice = sum(1 << c for c in set(kitty)), sum(1 << c for c in set(kitty) if kitty.count(c) == 2)
    return np.array([once, twice], dtype=np.uint64).T, np.array([k_once, k_twice], dtype=np.uint64)


def _reference_deal(rules, state, i):
    """The reference deal of game ``i`` from the engine's perfect-information state."""
    if rules.decks == 1:
        hands = [int(h) for h in state["hands"][i]]
        kitty = [c for c in range(NUM_CARDS) if int(state["kitty"][i]) >> c & 1] if rules.kitty != "none" else []
    else:
        once, twice = state["hands"][i], state["hands_twice"][i]
        hands = [[c for c in range(NUM_CARDS) for m in (int(a), int(b)) if m >> c & 1] for a, b in zip(once, twice)]
        kitty = [c for c in range(NUM_CARDS) for m in map(int, state["kitty"][i]) if m >> c & 1]
    return Deal(rules, hands, int(state["dealer"][i]), str(state["pass_direction"][i]), kitty=kitty)


def choose(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per game; an extra decision half the time one is offered."""
    out = np.empty(mask.shape[0], dtype=np.int64)
    for g, row in enumerate(mask):
        legal = np.flatnonzero(row)
        extras = legal[legal >= NUM_CARDS]
        out[g] = rng.choice(extras if extras.size and rng.random() < 0.5 else legal)
    return out


def play_side_by_side(rules, batch: int, deals: int, seed: int, reward: str = "score", normalise: bool = False,
                      directions=None, dealt=None, chooser=None) -> dict:
    """Step both engines until ``deals`` deals have ended, asserting agreement; returns what was seen."""
    n = rules.num_players
    rng = np.random.default_rng(seed)
    dealers = rng.integers(n, size=batch)
    if dealt is None:
        dealt = [deal_cards(rules, n, int(d), rng) for d in dealers]
    if directions is None:
        directions = [pass_direction_for(rules, 0, rng) for _ in range(batch)]
    refs = [Deal(rules, h, int(d), p, kitty=k) for (h, k), d, p in zip(dealt, dealers, directions)]
    given = [_masks(rules, h, k) for h, k in dealt]
    eng = VectorEngine(rules, batch, reward=reward, normalise=normalise, seed=seed, final_observations=True)
    assert isinstance(eng, ExtendedEngine)
    obs, mask, to_act = eng.reset(hands=np.array([h for h, _ in given]), dealers=dealers, pass_directions=directions,
                                  kitty=np.array([k for _, k in given]) if rules.kitty != "none" else None)
    seen = {"steps": 0, "deals": 0, "phases": set(), "pass_on": 0, "moons": 0, "pending": 0}
    o = observation.offsets(n, observation.features(rules))
    while seen["deals"] < deals:
        for i, ref in enumerate(refs):
            where = f"game {i} step {seen['steps']} ({ref.phase})"
            seen["phases"].add(ref.phase)
            seen["pending"] += bool(ref.pending)
            assert to_act[i] == ref.to_act, f"{where}: to_act"
            assert np.array_equal(mask[i], ref.legal_mask()), f"{where}: mask {np.flatnonzero(mask[i])} vs " \
                                                               f"{np.flatnonzero(ref.legal_mask())}"
            want = reference_obs(ref, ref.to_act)
            if not np.array_equal(obs[i], want):
                bad = [name for name, sl in o.items() if not np.array_equal(obs[i][sl], want[sl])]
                raise AssertionError(f"{where}: observation differs in {bad}")
        actions = choose(mask, rng) if chooser is None else chooser(mask, refs)
        seen["pass_on"] += int((actions == PASS_ON).sum())
        last = to_act.copy()
        obs, mask, to_act, rewards, done, final = eng.step(actions)
        seen["steps"] += 1
        state = eng.state()
        for i, ref in enumerate(refs):
            ref.step(int(actions[i]))
            assert done[i] == ref.is_over, f"game {i} step {seen['steps']}: done"
            if not done[i]:
                assert not rewards[i].any() and not final[i].any()
                continue
            seen["deals"] += 1
            seen["moons"] += ref.moon_shot is not None
            assert tuple(final[i]) == ref.scores, f"game {i}: scores {final[i]} vs {ref.scores}"
            want = np.float32(deal_rewards(rules, ref.scores, reward, normalise))
            assert np.array_equal(rewards[i], want), f"game {i}: rewards {rewards[i]} vs {want}"
            got = eng.final_obs[i]
            want = reference_obs(ref, int(last[i]))
            if not np.array_equal(got, want):
                bad = [name for name, sl in o.items() if not np.array_equal(got[sl], want[sl])]
                raise AssertionError(f"game {i}: final observation differs in {bad}")
            refs[i] = _reference_deal(rules, state, i)
    return seen


@pytest.mark.parametrize("case", sorted(EXTENSIONS))
def test_extension_presets_and_options_match_the_reference(case):
    preset, n, kw = EXTENSIONS[case]
    rules = make_rules(preset, n, **kw)
    seen = play_side_by_side(rules, batch=6, deals=12, seed=len(case))
    if rules.charging:
        assert "charge" in seen["phases"]
    if rules.kitty_to_hand:
        assert "discard" in seen["phases"]
    if rules.optional_pass:
        assert seen["pass_on"] > 0
    if kw.get("card_values") == ONLY_QS:
        assert seen["moons"] == seen["deals"]
        if rules.moon_choice:
            assert "moon" in seen["phases"]


@pytest.mark.parametrize("mode,normalise", [("zero_sum", False), ("zero_sum", True), ("score", True)])
def test_team_rewards_match_the_reference(mode, normalise):
    for kw in ({}, {"teams": "individual", "moon": "shooter_minus"}):
        play_side_by_side(make_rules("partnership_hearts", **kw), batch=4, deals=8, seed=3, reward=mode,
                          normalise=normalise)


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(EXTENSIONS))
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
        out = choose(mask, rng)
        for g, ref in enumerate(refs):
            if ref.trick and mask[g][ref.trick[-1]]:
                out[g] = ref.trick[-1]
        return out

    seen = play_side_by_side(rules, batch=2, deals=4, seed=0, dealt=[(hands, [51, 51])] * 2, chooser=chooser)
    assert seen["pending"] > 0


@pytest.mark.parametrize("preset,n", [("booster_nines", 4), ("cancellation", 6)])
def test_engine_state_round_trip_continues_identically(preset, n):
    rules = make_rules(preset, n, kitty_to_hand=True) if preset == "cancellation" else make_rules(preset, n)
    a = VectorEngine(rules, 8, seed=5, final_observations=True)
    mask = a.reset()[1]
    rng = np.random.default_rng(1)
    for _ in range(100):
        mask = a.step(choose(mask, rng))[1]
    b = VectorEngine(rules, 8, seed=99, final_observations=True)
    b.reset()
    b.set_state(a.get_state())
    for _ in range(150):  # past deal ends: the dealt-ahead deals (hands twice, kitties) carry over
        actions = choose(mask, rng)
        out = a.step(actions)
        for x, y in zip(out, b.step(actions)):
            assert np.array_equal(x, y)
        assert np.array_equal(a.final_obs, b.final_obs)
        mask = out[1]


def test_extra_actions_are_drawn_by_random_actions():
    eng = VectorEngine(make_rules("turbo_hearts"), 64, seed=1)
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
    eng = VectorEngine(make_rules("turbo_hearts"), 2, seed=0)
    eng.reset(pass_directions=["hold", "hold"])
    with pytest.raises(IllegalActionError, match=r"game 0: player_\d may not choose 2C; legal: .*end charging"):
        eng.step(np.array([0, 56]))  # a card while charging
    with pytest.raises(IllegalActionError, match=r"game 1: action 57 is outside the action space 0..56"):
        eng.step(np.array([56, 57]))


def test_given_deals_with_a_kitty_are_checked():
    rules = make_rules("american_hearts", 3, kitty="first_trick")
    eng = VectorEngine(rules, 1)
    hands, kitty = deal_cards(rules, 3, 0, np.random.default_rng(0))
    h, k = _masks(rules, hands, kitty)
    with pytest.raises(ValueError, match="these rules deal a kitty of 1 cards"):
        eng.reset(hands=h[None])
    with pytest.raises(ValueError, match="game 0: hands and kitty do not deal the 3-player deck"):
        eng.reset(hands=h[None], kitty=np.array([k | np.uint64(1 << int(kitty[0]) ^ 1)]))
    with pytest.raises(ValueError, match="these rules have no kitty"):
        VectorEngine(make_rules("turbo_hearts"), 1).reset(hands=np.zeros((1, 4), dtype=np.uint64), kitty=[0])


def test_vector_engine_masks_have_the_extra_action_ids():
    assert VectorEngine(make_rules("american_hearts", moon="shooter_choice"), 4).reset()[1].shape == (4, 59)
    assert VectorEngine(make_rules("turbo_hearts"), 4).reset()[1].shape == (4, 57)
