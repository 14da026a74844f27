"""make_vector_env against SingleAgentEnv, the reference face: the same deals, the same learner actions and
opponents, and at every step the same observations, masks, rewards, ends and last observations."""

from __future__ import annotations

import numpy as np
import pytest

from bm_env import make_rules
from bm_env.engine.cards import cards_of
from bm_env.env.aec import _read_hand
from bm_env.learner import SingleAgentEnv
from bm_env.learner import make_vector_env

from kit import EXTENSIONS, SHIPPED_AGENT, extension_rules, one_torch_thread  # noqa: F401 (an autouse fixture)

#: One or more tables of every family the vector engine plays: classic presets, kitties, charging, boosts,
#: partnerships, optional and scatter passes, the moon choice and the sun, two decks. One of each family in the
#: fast suite, the others behind the slow marker.
FAST = ["black_maria", "american_hearts", "kitty-3", "turbo", "partnership", "pass-on-moon-choice-sun", "cancellation-6"]
SLOW = ["black_maria-7", "petrone_black_mariah", "openspiel_hearts", "spot_hearts", "kitty-5-to-hand",
        "charging-3p-kitty", "booster", "individual-teams", "scatter-3-pass-on", "black-maria-moon-choice-queen"]
CASES = FAST + [pytest.param(case, marks=pytest.mark.slow) for case in SLOW]


def _rules(case: str):
    if case in EXTENSIONS:
        return extension_rules(case)
    preset, _, n = case.partition("-")
    return make_rules(preset, int(n) if n else None)


def watching(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A deterministic opponent whose choice depends on every cell of its observation: a difference shows."""
    weights = np.arange(1, obs.shape[1] + 1, dtype=np.int64)
    pick = (obs.astype(np.int64) @ weights) % mask.sum(axis=1)
    return np.array([np.flatnonzero(m)[k] for m, k in zip(mask, pick)], dtype=np.int64)


def one_at_a_time(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(watching(obs[None], mask[None])[0])


def record_deals(env) -> dict[int, list[dict]]:
    """Every deal the env's engine deals, per game, as SingleAgentEnv's reset options."""
    engine, rules = env.engine, env.rules
    n, two = rules.num_players, rules.decks == 2
    log: dict[int, list[dict]] = {g: [] for g in range(env.num_envs)}
    start = engine._start_deals

    def cards(once: int, twice: int) -> list[int]:
        return sorted(cards_of(once) + (cards_of(twice) if two else []))

    def recording(games, dealers, directions, hands=None):
        start(games, dealers, directions, hands)
        for g in games.tolist():
            held = [cards(int(engine.hands[s, g]), int(engine.hands_twice[s, g]) if two else 0) for s in range(n)]
            options = {"hands": held, "dealer": int(engine.dealer[g]),
                       "pass_direction": rules.pass_cycle[int(engine.direction[g])]}
            if rules.kitty != "none":
                options["kitty"] = cards(int(engine.kitty[0, g]), int(engine.kitty[1, g]) if two else 0)
            log[g].append(options)

    engine._start_deals = recording
    return log


def _single(rules, seat: int, deals: list[dict], opponents, **kw):
    """SingleAgentEnv on the vector env's deal now on (``deals[-1]``); in a match, every later deal is the vector
    env's deal of that time too (the match picks its dealer and pass direction itself: they must agree)."""
    env = SingleAgentEnv(learner=seat, opponents=opponents, rules=rules, illegal_action="raise", **kw)
    obs, info = env.reset(seed=0, options=deals[-1])
    match, start = env.aec.match, env.aec.match.start_deal

    def next_deal(hands=None, dealer=None, pass_direction=None, kitty=()):
        given = deals[-1]
        held = [_read_hand(h, s, rules.decks) for s, h in enumerate(given["hands"])]
        return start(held, None, None, given.get("kitty", ()))

    match.start_deal = next_deal
    return env, obs, info


def play_both(rules, num_envs: int, steps: int, seed: int, batch_opponents, single_opponents, learner="random",
              **env_kwargs) -> int:
    """Steps both faces side by side (``env_kwargs``: reward modes, episode); returns the episodes finished (all
    compared)."""
    env = make_vector_env(rules, num_envs=num_envs, learner=learner, opponents=batch_opponents, seed=seed,
                          **env_kwargs)
    log = record_deals(env)
    obs, info = env.reset()
    singles = []
    for g in range(num_envs):
        single, o, i = _single(rules, int(info["learner"][g]), log[g], single_opponents, **env_kwargs)
        np.testing.assert_array_equal(o, obs[g])
        np.testing.assert_array_equal(i["action_mask"], info["action_mask"][g])
        singles.append(single)
    rng = np.random.default_rng(seed)
    finished = 0
    for t in range(steps):
        mask = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        for g, single in enumerate(singles):
            o, r, done, _, i = single.step(int(actions[g]))
            where = f"step {t} game {g}"
            assert done == terminated[g], where
            assert r == pytest.approx(float(rewards[g]), abs=1e-5), where
            if done:
                finished += 1
                np.testing.assert_array_equal(o, info["final_obs"][g], err_msg=where)
                assert info["_final_obs"][g] and info["final_info"]["deal_score"][g] == i["deal_score"], where
                if env_kwargs.get("episode") == "match":
                    assert i["winners"], where
                singles[g], o, i = _single(rules, int(info["learner"][g]), log[g], single_opponents, **env_kwargs)
            np.testing.assert_array_equal(o, obs[g], err_msg=where)
            np.testing.assert_array_equal(i["action_mask"], info["action_mask"][g], err_msg=where)
    return finished


@pytest.mark.parametrize("case", CASES)
def test_the_vector_env_plays_as_the_single_agent_env(case):
    rules = _rules(case)
    reward = {"reward": "zero_sum", "reward_normalise": True} if len(case) % 2 else {}
    steps = 45 if rules.num_players < 6 else 40
    finished = play_both(rules, 4, steps, seed=len(case), batch_opponents=watching, single_opponents=one_at_a_time,
                         **reward)
    assert finished >= 4 or rules.num_players >= 6  # several whole deals compared (long ones at 6+ players)


def test_a_fixed_learner_and_one_opponent_per_seat():
    rules = make_rules("american_hearts")

    def lowest(obs, mask):
        return np.argmax(mask != 0, axis=1)

    def lowest_one(obs, mask):
        return int(np.argmax(mask != 0))

    opponents = [watching, lowest, watching]
    singles = [one_at_a_time, lowest_one, one_at_a_time]
    assert play_both(rules, 3, 80, 5, opponents, singles, learner=2) >= 3


@pytest.mark.parametrize("spec", ["heuristic", pytest.param("heuristic_v1", marks=pytest.mark.slow),
                                  pytest.param(f"policy:{SHIPPED_AGENT}", marks=pytest.mark.slow)])
def test_the_batched_agents_play_as_the_agents_of_the_single_agent_env(spec):
    if spec.startswith("policy") and not SHIPPED_AGENT.exists():
        pytest.skip("checkpoints/black_maria_3p.pt is not in this checkout")
    assert play_both(make_rules("black_maria"), 4, 45, 3, spec, spec) >= 4


#: Whole matches, short ones: every match end rule the engine's matches play (tie-break deals among some players
#: and the moon rule that reads the totals are refused for them).
MATCHES = {
    "american_hearts": ("american_hearts", None, {"match_threshold": 20}),
    "black_maria_26-deals": ("black_maria_26", None, {"match_end": "deals", "match_deals": 2}),
    "petrone_black_mariah": ("petrone_black_mariah", None, {"match_threshold": 20}),
    "partnership": ("partnership_hearts", None, {"match_threshold": 30}),
    "openspiel-shared": ("openspiel_hearts", None, {"match_threshold": 20}),
    "exact-reset": ("american_hearts", 3, {"match_threshold": 30, "exact_reset": (13, 0)}),
}


@pytest.mark.parametrize("name", sorted(MATCHES))
def test_whole_matches_play_as_in_the_single_agent_env(name):
    preset, n, options = MATCHES[name]
    rules = make_rules(preset, n, **options)
    finished = play_both(rules, 4, 70, seed=len(name), batch_opponents=watching, single_opponents=one_at_a_time,
                         episode="match")
    assert finished >= 1
