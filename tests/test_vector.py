"""The vector engine against the reference engine, step by step, and its own contract.

The differential tests deal the same hands to both engines, choose the same random legal
actions, and compare acting players, masks, observations, rewards, final scores and final
observations at every step; when a vector game re-deals itself, the reference takes over
the new deal from the engine's perfect-information state.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bm_env.engine.cards import card_str
from bm_env.engine.deal import IllegalActionError, deal_hands
from bm_env.engine.rules import Rules, make_rules
from bm_env.vector import UnsupportedRulesError, make_engine
from bm_env.vector.popcount import bitwise_count

from kit import CLASSIC_COUNTS, play_side_by_side


# ---------------------------------------------------------------------------------- differential tests

# The classic presets; test_vector_extended.py plays the extension options.
CONFIGS = CLASSIC_COUNTS


@pytest.mark.parametrize("preset,n", CONFIGS, ids=[f"{p}-{n}" for p, n in CONFIGS])
def test_every_preset_and_player_count_matches_the_reference(preset, n):
    out = play_side_by_side(make_rules(preset, n), batch=8, deals=24, seed=n)
    assert out["deals"] >= 24


OPTION_VARIANTS = {
    # Pagat: the others add the moon unless one of them would win; JD -10 and +1 per clean
    # trick make the shooter sometimes not the lowest, so both branches occur.
    "moon_unless_win": dict(preset="slippery_anne", card_values={"QS": 13, "JD": -10}, clean_trick_bonus=1,
                            moon="others_plus_unless_win", match_end="threshold_reached", match_threshold=10),
    "moon_unless_win_one_deal": dict(preset="slippery_anne", moon="others_plus_unless_win", match_deals=1),
    "shooter_minus": dict(preset="slippery_anne", moon="shooter_minus"),
    "queen_only_hearts_lead": dict(preset="american_hearts", lead_hearts_with_queen_only=True, queen_breaks_hearts=True),
    "any_club_first_lead": dict(preset="american_hearts", first_lead="lowest_club_any_club", first_trick_no_points=True),
    # clubs that score: the first lead, any club, must then be one of no value where the leader holds one
    "any_club_first_lead_scoring_clubs": dict(preset="american_hearts", first_lead="lowest_club_any_club",
                                              first_trick_no_points=True, card_values={"QS": 13, "KC": 5, "9C": 2}),
    "moon_unless_win_highest_wins": dict(preset="slippery_anne", moon="others_plus_unless_win", lower_wins=False,
                                         match_deals=1),
    "eldest_any_no_points": dict(preset="black_maria", first_lead="eldest_any", first_trick_no_points=True),
    "hearts_trumps_3p": dict(preset="black_maria", trumps="hearts", lower_wins=False),
    "random_pass_order": dict(preset="black_maria", pass_order="random", pass_cycle=("left", "right", "hold")),
    "pass_second_left_5p": dict(preset="black_maria", num_players=5, pass_cycle=("left2", "right2"),
                                no_pass_cards=("AS", "KS")),
    "no_passing": dict(preset="black_maria", pass_count=0),
}


@pytest.mark.parametrize("name", sorted(OPTION_VARIANTS))
def test_rule_options_match_the_reference(name):
    opts = dict(OPTION_VARIANTS[name])
    rules = make_rules(opts.pop("preset"), opts.pop("num_players", None), **opts)
    out = play_side_by_side(rules, batch=8, deals=32, seed=7)
    if name.startswith("moon") or name == "shooter_minus":
        assert out["moons"] == out["deals"]  # only Q♠ scores positive: every deal is a moon


@pytest.mark.parametrize("mode,normalise", [("score", True), ("zero_sum", False), ("zero_sum", True)])
def test_reward_modes_match_the_reference(mode, normalise):
    play_side_by_side(make_rules("omnibus", 4), batch=8, deals=24, seed=11, reward=mode, normalise=normalise)


def test_batch_of_one_matches_the_reference():
    out = play_side_by_side(make_rules("black_maria"), batch=1, deals=12, seed=5)
    assert out["steps"] == 12 * (9 + 51)  # 3 players pass 3 each, then 17 tricks of 3


def test_games_that_end_at_different_times_match_the_reference():
    # American Hearts: a hold deal has no passing, so it ends 12 decisions earlier.
    rules = make_rules("american_hearts", 4)
    ends = []
    out = play_side_by_side(rules, batch=6, deals=30, seed=9,
                            directions=["hold", "left", "hold", "across", "right", "hold"], on_done=ends.append)
    first = [step for step, game in ends if game == 0][0]
    assert [step for step, game in ends if game == 1][0] == first + 12
    assert out["deals"] >= 30


@pytest.mark.slow
@pytest.mark.parametrize("preset,n", CONFIGS, ids=[f"{p}-{n}" for p, n in CONFIGS])
def test_thousands_of_deals_match_the_reference(preset, n):
    play_side_by_side(make_rules(preset, n), batch=64, deals=2000, seed=100 + n)


# ---------------------------------------------------------------------------------- seeded dealing

def _trajectory(engine, seed, steps):
    rng = np.random.default_rng(seed)
    obs, mask, _ = engine.reset(seed=seed)
    out = [obs.copy()]
    for _ in range(steps):
        obs = engine.step(engine.random_actions(rng))[0]
        out.append(obs.copy())
    return np.stack(out)


def test_seeded_reset_is_reproducible_and_seeds_differ():
    rules = make_rules("black_maria")
    a = _trajectory(make_engine(rules, 16), 3, 130)
    b = _trajectory(make_engine(rules, 16), 3, 130)
    c = _trajectory(make_engine(rules, 16), 4, 130)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(CONFIGS), steps=st.integers(1, 150))
def test_cards_are_conserved_and_masks_are_never_empty(seed, preset, steps):
    rules = make_rules(*preset)
    eng = make_engine(rules, 5, seed=seed)
    rng = np.random.default_rng(seed)
    _, mask, to_act = eng.reset()
    deck = rules.deck_mask()
    for _ in range(steps):
        s = eng.state()
        held = np.bitwise_or.reduce(s["hands"], axis=1)
        in_play = held | np.bitwise_or.reduce(s["played"], axis=1)
        passing = s["phase"] == 0
        in_play |= np.where(passing, np.bitwise_or.reduce(s["passed"], axis=1), 0).astype(np.uint64)
        assert (in_play == np.uint64(deck)).all()
        assert (bitwise_count(s["hands"]).sum(axis=1) + bitwise_count(s["played"]).sum(axis=1)
                + np.where(passing, bitwise_count(s["passed"]).sum(axis=1), 0) == bin(deck).count("1")).all()
        assert (mask.sum(axis=1) > 0).all()
        own_hand = s["hands"][np.arange(5), to_act]
        assert ((s["legal"] & ~own_hand) == 0).all()  # only cards the acting seat holds
        _, mask, to_act, *_ = eng.step(eng.random_actions(rng))


def test_random_actions_are_uniform_over_the_legal_cards():
    eng = make_engine(make_rules("black_maria"), 4000, seed=1)
    eng.reset()
    rng = np.random.default_rng(2)
    picks = eng.random_actions(rng)
    legal = eng.state()["legal"]
    assert (((legal >> picks.astype(np.uint64)) & np.uint64(1)) == 1).all()
    # First pass pick: the whole 17-card hand is legal; position of the pick within the hand.
    ranks = np.array([bin(int(h) & ((1 << int(c)) - 1)).count("1") for h, c in zip(legal, picks)])
    counts = np.bincount(ranks, minlength=17)
    assert counts.size == 17 and counts.min() > 4000 / 17 * 0.6 and counts.max() < 4000 / 17 * 1.4


# ---------------------------------------------------------------------------------- errors and refusals

def test_an_illegal_action_names_the_game_and_the_card():
    eng = make_engine(make_rules("black_maria"), 4, seed=0)
    eng.reset()
    actions = eng.random_actions(np.random.default_rng(0))
    hands = eng.state()["hands"]
    to_act = eng.state()["to_act"]
    foreign = int(hands[2, (to_act[2] + 1) % 3])
    actions[2] = (foreign & -foreign).bit_length() - 1  # a card the next seat holds
    with pytest.raises(IllegalActionError, match=rf"game 2: player_{to_act[2]} may not pass {card_str(int(actions[2]))}; legal:"):
        eng.step(actions)


@pytest.mark.parametrize("actions,match", [
    (np.zeros(3, dtype=np.int64), r"one action per game: shape \(4,\)"),
    (np.full(4, 52), r"game 0: action 52 is outside the action space 0..51"),
    (np.zeros(4, dtype=np.float32), r"integer card ids"),
])
def test_malformed_actions_are_refused(actions, match):
    eng = make_engine(make_rules("black_maria"), 4, seed=0)
    eng.reset()
    with pytest.raises((ValueError, IllegalActionError), match=match):
        eng.step(actions)


def test_bad_given_deals_are_refused():
    rules = make_rules("black_maria")
    eng = make_engine(rules, 2)
    hands = np.array([deal_hands(rules, 3, 0, np.random.default_rng(i)) for i in range(2)], dtype=np.uint64)
    bad = hands.copy()
    bad[1, 0] |= np.uint64(1)  # 2♣ is not in the 3-player deck
    with pytest.raises(ValueError, match="game 1: hands do not deal the 3-player deck"):
        eng.reset(hands=bad)
    with pytest.raises(ValueError, match=r"^pass_directions\[0\]='left' is not allowed; allowed: \['right'\]$"):
        eng.reset(hands=hands, pass_directions=["left", "right"])
    with pytest.raises(ValueError, match=r"dealers must be 2 seats in 0..2"):
        eng.reset(hands=hands, dealers=[0, 3])
    with pytest.raises(RuntimeError, match="reset"):
        make_engine(rules, 2).step(np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize("change, message", [
    (lambda h: np.where(np.arange(3) == 0, -1, h.astype(np.int64)),
     r"^hands must hold bit masks of cards, whole numbers in 0\.\.2\*\*52 - 1, got -1$"),
    (lambda h: h.astype(np.float64), r"^hands must hold whole-number bit masks of cards \(uint64\), got dtype float64$"),
    (lambda h: h | np.uint64(1 << 60), r"^hands must hold bit masks of cards, whole numbers in 0\.\.2\*\*52 - 1, got \d+$"),
    (lambda h: [[2**70, 0, 0]] * 2, r"^hands entries must be a bit mask of cards, a whole number in 0\.\.2\*\*52 - 1, got \d+$"),
    (lambda h: "hands", r"^hands must hold whole-number bit masks of cards \(uint64\), got dtype <U5$"),
])
def test_given_masks_are_whole_numbers_of_52_bits(change, message):
    # A negative mask once wrapped to a huge uint64 (or overflowed), a float one was truncated.
    rules = make_rules("black_maria")
    hands = np.array([deal_hands(rules, 3, 0, np.random.default_rng(i)) for i in range(2)], dtype=np.uint64)
    eng = make_engine(rules, 2, seed=1)
    with pytest.raises(ValueError, match=message):
        eng.reset(hands=change(hands))


@pytest.mark.parametrize("kwargs, message", [
    (dict(normalise="yes"), r"^normalise must be True or False, got 'yes'$"),
    (dict(final_observations=1), r"^final_observations must be True or False, got 1$"),
    (dict(seed=float("nan")), r"^seed must be a whole number of at least 0, or None; got nan$"),
    (dict(seed=-1), r"^seed must be a whole number of at least 0, or None; got -1$"),
    (dict(batch_size=2.0), r"^batch_size must be a whole number in 1\.\.4194304, got 2\.0$"),
    (dict(batch_size=True), r"^batch_size must be a whole number in 1\.\.4194304, got True$"),
    # a typo's batch would take gigabytes before its first step
    (dict(batch_size=10**12), r"^batch_size must be a whole number in 1\.\.4194304, got 1000000000000$"),
])
def test_engine_arguments_are_checked(kwargs, message):
    args = {"batch_size": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        make_engine(make_rules("black_maria"), **args)
    assert make_engine(make_rules("black_maria"), np.int64(2), normalise=np.True_).num_envs == 2


def test_a_refused_reset_or_set_state_leaves_the_engine_as_it_was():
    rules = make_rules("black_maria")
    eng = make_engine(rules, 2, seed=3)
    eng.reset()
    saved = eng.get_state()
    before = {k: v.copy() for k, v in eng.state().items()}
    for call in (lambda: eng.reset(seed=7, dealers=[0, 5]), lambda: eng.reset(seed=7, hands=[[1, 2, 3]] * 2),
                 lambda: eng.reset(seed=7, pass_directions="rr"), lambda: eng.set_state(None),
                 lambda: eng.set_state({**saved, "generator": {"state": 1}}),
                 lambda: eng.set_state({**saved, "arrays": {**saved["arrays"], "undealt": np.array([-1])}}),
                 lambda: eng.set_state({**saved, "arrays": {**saved["arrays"], "voids": np.zeros(3)}})):
        with pytest.raises(ValueError):
            call()
        assert all(np.array_equal(before[k], v) for k, v in eng.state().items())
    # the generator too: the next deal is the one it would have been
    twin = make_engine(rules, 2)
    twin.set_state(saved)
    assert np.array_equal(eng.reset()[0], twin.reset()[0])


def test_set_state_before_get_state_names_what_it_takes():
    with pytest.raises(ValueError, match=r"^set_state takes the dict that get_state\(\) returns \(with its 'arrays'\), got None$"):
        make_engine(make_rules("black_maria"), 2).set_state(None)


def test_unsupported_options_are_refused_at_construction():
    heavy = make_rules("black_maria", card_values=[40] * 52, match_end="threshold_reached", match_threshold=1)
    with pytest.raises(UnsupportedRulesError, match="deal scores of these card values could reach 4080"):
        make_engine(heavy, 4)

    @dataclasses.dataclass(frozen=True)
    class NewRules(Rules):
        jokers: bool = False  # an option the engine has no code for

    make_engine(NewRules(), 2)  # at its default the option changes nothing
    with pytest.raises(UnsupportedRulesError, match="does not implement rules option jokers=True"):
        make_engine(NewRules(jokers=True), 2)
    with pytest.raises(ValueError, match="reward mode 'win' is not allowed"):
        make_engine(make_rules("black_maria"), 2, reward="win")


def test_outputs_are_new_arrays_the_engine_does_not_reuse():
    eng = make_engine(make_rules("black_maria"), 2, seed=0)
    obs, mask, to_act = eng.reset()
    kept = obs.copy(), mask.copy(), to_act.copy()
    obs[:] = 0  # a learner normalising in place must not corrupt the engine
    mask[:] = 0
    out = eng.step(eng.random_actions(np.random.default_rng(0)))
    assert out[0] is not obs and (out[1].sum(axis=1) > 0).all()
    assert not np.array_equal(out[0], kept[0])  # the acting seat's view moved on


def test_state_per_game_is_well_under_a_kilobyte():
    for preset, n in [("black_maria", 3), ("black_maria", 7)]:
        eng = make_engine(make_rules(preset, n), 1000)
        # The game state: every array with one column per game, observation buffers aside.
        state = [a for a in vars(eng).values() if isinstance(a, np.ndarray) and a.shape[-1] == 1000]
        assert len(state) > 20
        assert sum(a.nbytes for a in state) / 1000 < 1024


@pytest.mark.parametrize("batch, decisions, timed_steps", [(16, 800, 50), (16, 3200, 200), (64, 640, 50)])
def test_benchmark_rates_are_the_decisions_played_over_the_time_measured(monkeypatch, batch, decisions, timed_steps):
    """decisions_per_second's rates, with its clocks replaced by ones that advance 2 s (wall) and 4 s (CPU)
    over the timed part: each timed step is one decision in each game of the batch, at least 50 steps
    after 20 untimed warm-up steps, and a rate is those decisions over the clock's difference."""
    from types import SimpleNamespace

    from bm_env.bench import vector as bench

    reads = []  # one entry per clock read
    steps = []  # for each engine step: how many clock reads came before it

    def clock(times):
        times = iter(times)

        def read():
            reads.append(len(steps))
            return next(times)
        return read

    def counting_engine(*args, **kwargs):
        engine = make_engine(*args, **kwargs)
        step = engine.step

        def counted(actions):
            assert len(actions) == batch  # one decision in each game
            steps.append(len(reads))
            return step(actions)
        engine.step = counted
        return engine

    monkeypatch.setattr(bench, "make_engine", counting_engine)
    monkeypatch.setattr(bench, "time", SimpleNamespace(perf_counter=clock([10.0, 12.0]), process_time=clock([1.0, 5.0])))
    wall, cpu = bench.decisions_per_second("black_maria", 3, batch, decisions)
    assert len(reads) == 4 and steps.count(0) == 20 and steps.count(2) == timed_steps and len(steps) == 20 + timed_steps
    assert wall == timed_steps * batch / 2.0 and cpu == timed_steps * batch / 4.0


def test_benchmark_memory_is_measured_while_playing():
    from bm_env.bench.vector import peak_memory_mb

    assert 0 < peak_memory_mb("black_maria", 3, 16, steps=5) < 50
    # The games' arrays dominate large batches: twice the games, about twice the peak (5.7 and 11.5 MB measured).
    a, b = peak_memory_mb("black_maria", 3, 4096, steps=5), peak_memory_mb("black_maria", 3, 8192, steps=5)
    assert 1.6 * a < b < 2.4 * a


def test_an_observation_does_not_change_when_other_players_swap_unseen_cards():
    rules = make_rules("black_maria", 4)
    hands = deal_hands(rules, 4, 3, np.random.default_rng(8))  # dealer 3: seat 0 acts first
    swapped = list(hands)
    a, b = hands[1] & -hands[1], hands[2] & -hands[2]  # the lowest card of seats 1 and 2
    swapped[1], swapped[2] = hands[1] ^ a | b, hands[2] ^ b | a
    eng = make_engine(rules, 2)
    obs, mask, to_act = eng.reset(hands=np.array([hands, swapped], dtype=np.uint64), dealers=[3, 3])
    assert list(to_act) == [0, 0]
    assert np.array_equal(obs[0], obs[1]) and np.array_equal(mask[0], mask[1])
    assert not np.array_equal(eng.state()["hands"][0], eng.state()["hands"][1])
