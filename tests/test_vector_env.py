"""make_vector_env as a gymnasium.vector.VectorEnv: spaces, SAME_STEP autoreset, seeding, opponents, refusals."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium import spaces
from gymnasium.vector import VectorEnv

from bm_env import make_rules
from bm_env.agents.checkpoint import PolicyNet, save_checkpoint
from bm_env.engine.deal import IllegalActionError
from bm_env.env.observation import offsets
from bm_env.learner import PolicyPool, make_vector_env

from kit import SHIPPED_AGENT, one_torch_thread  # noqa: F401 (an autouse fixture)

needs_shipped = pytest.mark.skipif(not SHIPPED_AGENT.exists(), reason="checkpoints/black_maria_3p.pt is not here")


def legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in mask])


def run(env, steps: int, seed: int, reset_seed: int | None = None) -> list:
    """Everything the env returned over ``steps`` steps of seeded random legal play."""
    obs, info = env.reset(seed=reset_seed)
    rng = np.random.default_rng(seed)
    out = [obs, info["action_mask"], info["learner"]]
    for _ in range(steps):
        obs, rewards, terminated, truncated, info = env.step(legal_actions(env.action_masks(), rng))
        out += [obs, rewards, terminated, info["action_mask"], info["learner"]]
    return out


def same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


def test_spaces_and_what_reset_and_step_return():
    env = make_vector_env("american_hearts", num_envs=5, seed=0)
    assert isinstance(env, VectorEnv) and env.num_envs == 5
    L = env.engine.observation_size
    assert env.single_observation_space == spaces.Box(-128, 127, (L,), np.int8)
    assert env.single_action_space == spaces.Discrete(52)
    assert env.observation_space.shape == (5, L) and env.observation_space.dtype == np.int8
    assert env.action_space == spaces.MultiDiscrete([52] * 5)
    obs, info = env.reset()
    assert obs in env.observation_space and obs.dtype == np.int8
    assert info["action_mask"].shape == (5, 52) and info["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"])
    assert (env.action_masks().sum(axis=1) > 0).all() and (info["learner"] == 0).all()
    obs, rewards, terminated, truncated, info = env.step(env.action_space.sample() * 0 + np.argmax(env.action_masks(), 1))
    assert obs in env.observation_space
    assert rewards.shape == (5,) and rewards.dtype == np.float32
    assert terminated.dtype == bool and truncated.dtype == bool and not truncated.any()
    # the mask is the learner's: its legal cards are in its hand (the observation's first plane)
    hand = offsets(4)["hand"]
    assert (env.action_masks() <= obs[:, hand]).all()
    # partnerships: the extra decision ids are in the action space
    assert make_vector_env("partnership_hearts", num_envs=2).single_action_space == spaces.Discrete(59)


def test_same_step_autoreset_final_obs_and_gymnasiums_episode_statistics():
    pytest.importorskip("gymnasium", minversion="1.1", reason="gymnasium names autoreset modes from 1.1 on")
    from gymnasium.vector import AutoresetMode
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    env = make_vector_env("black_maria", num_envs=6, learner="random", seed=3)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    stats = RecordEpisodeStatistics(env)
    obs, info = stats.reset(seed=3)
    rng = np.random.default_rng(0)
    returns, lengths = np.zeros(6), np.zeros(6, dtype=int)
    o = offsets(3)
    ended = 0
    for _ in range(45):
        obs, rewards, terminated, _, info = stats.step(legal_actions(env.action_masks(), rng))
        returns += rewards
        lengths += 1
        if not terminated.any():
            assert "final_obs" not in info
            continue
        ended += terminated.sum()
        np.testing.assert_array_equal(info["_final_obs"], terminated)
        final = info["final_obs"][terminated]
        assert not final[:, o["phase"]].any() and not final[:, o["hand"]].any()  # the deal is over, hands empty
        assert (final[:, o["deals_played"]] == [0, 1]).all()
        assert not final[~terminated[terminated]].any() and not info["final_obs"][~terminated].any()
        # the returned observation is the learner's first decision of the new deal: its 17 cards, none picked yet
        assert (obs[terminated][:, o["hand"]].sum(axis=1) == 17).all()
        assert (rewards[terminated] <= 0).all() and info["final_info"]["deal_score"][terminated].min() >= 0
        # black_maria: 3 pass picks and 17 cards per deal, every one a learner step
        assert (lengths[terminated] == 20).all()
        np.testing.assert_allclose(info["episode"]["r"][terminated], returns[terminated], atol=1e-4)
        np.testing.assert_array_equal(info["episode"]["l"][terminated], lengths[terminated])
        returns[terminated], lengths[terminated] = 0, 0
    assert ended >= 6


def test_seeded_runs_repeat_with_every_kind_of_opponent(tmp_path):
    rules = make_rules("black_maria")
    torch.manual_seed(0)
    other = tmp_path / "other.pt"
    save_checkpoint(other, PolicyNet(696, 52, (32,)), rules)
    first_legal = lambda obs, mask: np.argmax(mask, axis=1)  # noqa: E731
    kinds = {"random": lambda: "random", "heuristic": lambda: "heuristic", "callable": lambda: first_legal,
             "sampled policy": lambda: f"policy:{other},greedy=false",
             "sampled pool": lambda: PolicyPool([str(other), str(other)], greedy=False)}  # one pool per env
    for kind, opponents in kinds.items():
        make = lambda: make_vector_env(rules, num_envs=7, learner="random", opponents=opponents(), seed=11)  # noqa: E731
        first, again = run(make(), 25, seed=0), run(make(), 25, seed=0)
        assert same(first, again), kind
        env = make()
        assert same(run(env, 25, seed=0), first)
        assert same(run(env, 25, seed=0, reset_seed=5), run(make(), 25, seed=0, reset_seed=5))
        assert not same(run(env, 25, seed=0, reset_seed=6), first)  # another seed, other games


def test_different_seeds_deal_different_games_and_unseeded_resets_go_on():
    env = make_vector_env("black_maria", num_envs=4, seed=1)
    a, _ = env.reset()
    b, _ = env.reset()
    c, _ = make_vector_env("black_maria", num_envs=4, seed=2).reset()
    assert not np.array_equal(a, b) and not np.array_equal(a, c)


@needs_shipped
def test_a_pool_draws_its_player_per_seat_and_deal(tmp_path):
    rules = make_rules("black_maria")
    torch.manual_seed(1)
    weak = tmp_path / "weak.pt"
    save_checkpoint(weak, PolicyNet(696, 52, (256, 256)), rules)
    shipped = f"policy:{SHIPPED_AGENT}"
    alone = run(make_vector_env(rules, num_envs=6, opponents=shipped, seed=4), 30, seed=1)
    only_shipped = PolicyPool([shipped, str(weak)], weights=[1, 0])
    assert same(run(make_vector_env(rules, num_envs=6, opponents=only_shipped, seed=4), 30, seed=1), alone)
    only_weak = run(make_vector_env(rules, num_envs=6, opponents=f"policy:{weak}", seed=4), 30, seed=1)
    assert same(run(make_vector_env(rules, num_envs=6, opponents=PolicyPool([shipped, str(weak)], weights=[0, 1]),
                                    seed=4), 30, seed=1), only_weak)
    both = PolicyPool([shipped, str(weak)])
    env = make_vector_env(rules, num_envs=64, opponents=both, seed=4)
    env.reset()
    members = both.member[:, 1:].copy()  # the learner sits at 0
    assert set(np.unique(members)) == {0, 1}
    rng = np.random.default_rng(0)
    while True:
        _, _, terminated, _, _ = env.step(legal_actions(env.action_masks(), rng))
        if terminated.any():
            break
    # new deals drew again; the games still on kept their players
    assert np.array_equal(both.member[~terminated, 1:], members[~terminated])
    assert terminated.sum() >= 8 and not np.array_equal(both.member[terminated, 1:], members[terminated])


def test_refusals_name_what_is_allowed():
    with pytest.raises(ValueError, match=r"episode='season' is not allowed; allowed: \['deal', 'match'\]"):
        make_vector_env("black_maria", num_envs=2, episode="season")
    with pytest.raises(ValueError, match="tie-break deals among the tied players"):
        make_vector_env("black_maria", num_envs=2, episode="match")
    with pytest.raises(ValueError, match="moon='others_plus_unless_win'"):
        make_vector_env("american_hearts", num_envs=2, episode="match", moon="others_plus_unless_win")
    with pytest.raises(ValueError, match=r"^num_envs must be a whole number in 1\.\.4194304, got 0$"):
        make_vector_env("black_maria", num_envs=0)
    with pytest.raises(ValueError, match=r"learner must be a seat in 0..2 or 'random'"):
        make_vector_env("black_maria", num_envs=2, learner=3)
    # by the one rule for values: an array, a float, a truthy string are refused in one line, numpy integers taken
    with pytest.raises(ValueError, match=r"^learner must be a seat in 0\.\.2 or 'random' \(drawn per episode\), got array"):
        make_vector_env("black_maria", num_envs=2, learner=np.array([1, 2]))
    with pytest.raises(ValueError, match=r"^num_envs must be a whole number in 1\.\.4194304, got 2\.0$"):
        make_vector_env("black_maria", num_envs=2.0)
    with pytest.raises(ValueError, match=r"^reward_normalise must be True or False, got 'yes'$"):
        make_vector_env("black_maria", num_envs=2, reward_normalise="yes")
    assert make_vector_env("black_maria", num_envs=np.int64(2), learner=np.int8(1)).num_envs == 2
    with pytest.raises(ValueError, match="cannot play inside the batch"):
        make_vector_env("black_maria", num_envs=2, opponents="pimc")
    with pytest.raises(ValueError, match="one player per other seat"):
        make_vector_env("black_maria", num_envs=2, opponents=["random"])
    with pytest.raises(ValueError, match="rule-based players read the arrays of the plain vector engine"):
        make_vector_env("turbo_hearts", num_envs=2, opponents="heuristic")
    with pytest.raises(ValueError, match="unknown keyword"):
        make_vector_env("black_maria", num_envs=2, colour="red")
    with pytest.raises(ValueError, match="reward='best' is not allowed"):
        make_vector_env("black_maria", num_envs=2, reward="best")
    with pytest.raises(ValueError, match="PolicyPool weights"):
        PolicyPool(["a.pt", "b.pt"], weights=[1, float("nan")])
    if SHIPPED_AGENT.exists():
        pool = PolicyPool([str(SHIPPED_AGENT)])
        make_vector_env("black_maria", num_envs=2, opponents=pool)
        with pytest.raises(ValueError, match="one PolicyPool per env"):
            make_vector_env("black_maria", num_envs=2, opponents=pool)
    env = make_vector_env("black_maria", num_envs=2, seed=0)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="one whole number"):
        env.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="reset options"):
        env.reset(options={"hands": []})
    env.reset()
    bad = np.argmax(env.action_masks() == 0, axis=1)
    with pytest.raises(IllegalActionError, match="game 0"):
        env.step(bad)
    with pytest.raises(ValueError, match="integer"):
        env.step(np.zeros(2))
    wrong = make_vector_env("black_maria", num_envs=2, opponents=lambda obs, mask: np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="one integer action per row"):
        wrong.reset()
        for _ in range(3):  # the opponents have played by the learner's third pass pick at the latest
            wrong.step(np.argmax(wrong.action_masks(), axis=1))


def test_a_match_episode_keeps_its_learner_and_shows_the_match_so_far():
    env = make_vector_env("american_hearts", num_envs=6, learner="random", episode="match", match_threshold=25, seed=2)
    o = offsets(4)
    obs, info = env.reset()
    learner, deals = info["learner"], np.zeros(6, dtype=int)
    rng = np.random.default_rng(1)
    matches = deals_seen = 0
    for _ in range(150):
        obs, rewards, terminated, _, info = env.step(legal_actions(env.action_masks(), rng))
        played = obs[:, o["deals_played"]] @ [32, 1]  # the observation's two cells: coarse, fine
        going_on = ~terminated
        assert np.array_equal(info["learner"][going_on], learner[going_on])  # a seat for the whole match
        assert np.isin(played - deals, [0, 1])[going_on].all()  # a deal ended, the match goes on
        assert (played[terminated] == 0).all()  # a new match
        deals_seen += int((played > deals).sum())
        matches += int(terminated.sum())
        deals, learner = played, info["learner"]
    assert matches >= 6 and deals_seen >= 6  # matches of several deals, and their ends
