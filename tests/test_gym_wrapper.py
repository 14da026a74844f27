"""The Gymnasium single-agent wrapper: check_env, opponents, rewards of the learning seat, masks."""

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from bm_env.deal import IllegalActionError
from bm_env.env.gym_wrapper import SingleAgentEnv
from bm_env.rewards import deal_rewards


@pytest.mark.parametrize("kwargs", [dict(), dict(learner=2, rules="american_hearts", episode="match"),
                                    dict(render_mode="ansi", num_players=5)])
def test_check_env(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "no spec", render fps advice
        check_env(SingleAgentEnv(**kwargs))


def test_episode_reward_is_the_learners_deal_reward_and_masks_are_legal():
    calls = []

    def lowest(obs, mask):
        calls.append(obs.shape)
        return int(np.flatnonzero(mask)[0])

    env = SingleAgentEnv(learner=1, opponents=lowest, reward="zero_sum")
    obs, info = env.reset(seed=4)
    total, done = 0.0, False
    while not done:
        mask = env.action_masks()
        np.testing.assert_array_equal(mask, info["action_mask"])
        assert mask.sum() > 0
        assert env.aec.agent_selection == "player_1"
        obs, reward, done, truncated, info = env.step(int(np.flatnonzero(mask)[-1]))
        assert not truncated
        total += reward
    deal = env.aec.match.completed[0]
    assert total == pytest.approx(deal_rewards(env.aec.rules, deal.scores, "zero_sum")[deal.seats.index(1)])
    assert calls and all(shape == obs.shape for shape in calls)
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_agent_objects_get_the_information_state():
    seen = []

    class Lowest:
        name = "lowest"

        def act(self, observation, mask, info):
            seen.append(info.seat)
            return min(info.legal)

        def reset(self, seed=None):
            pass

    env = SingleAgentEnv(opponents=[Lowest(), Lowest()])
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert set(seen) <= {1, 2} and seen


def test_same_seed_same_episode():
    def run():
        env = SingleAgentEnv()
        obs, _ = env.reset(seed=11)
        out = [obs.tobytes()]
        done = False
        while not done:
            obs, r, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            out.append((obs.tobytes(), r))
        return out

    assert run() == run()


def test_illegal_action_raise_mode_and_bad_arguments():
    env = SingleAgentEnv(illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(int(np.flatnonzero(env.action_masks() == 0)[0]))
    with pytest.raises(ValueError, match="learner"):
        SingleAgentEnv(learner=3)
    with pytest.raises(ValueError, match="one agent per other seat"):
        SingleAgentEnv(opponents=[lambda o, m: 0])
    with pytest.raises(ValueError, match="callable"):
        SingleAgentEnv(opponents=5)


def test_renege_default_ends_the_deal_with_the_penalty():
    env = SingleAgentEnv()
    env.reset(seed=0)
    _, reward, done, _, info = env.step(int(np.flatnonzero(env.action_masks() == 0)[0]))
    assert done and reward == -43 and info["deal_score"] == 43
