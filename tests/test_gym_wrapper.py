"""The Gymnasium single-agent wrapper: check_env, opponents, rewards of the learning seat, masks."""

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from bm_env.agents import AgentSpecError, HeuristicAgent, RandomAgent
from bm_env.agents.policy import PolicyAgent
from bm_env.engine.deal import IllegalActionError
from bm_env.learner import SingleAgentEnv
from bm_env.env.rewards import deal_rewards

from kit import SHIPPED_AGENT


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


def _play(env, seed):
    """The learner's observations and rewards over one episode, always playing its lowest legal action."""
    obs, _ = env.reset(seed=seed)
    out, done = [obs.tobytes()], False
    while not done:
        obs, r, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        out.append((obs.tobytes(), r))
    return out


def test_opponents_by_spec_play_every_other_seat():
    env = SingleAgentEnv(learner=1, opponents="heuristic", illegal_action="raise")
    assert sorted(env._opponents) == [0, 2]
    assert all(isinstance(a, HeuristicAgent) for a in env._opponents.values())
    assert env._opponents[0] is not env._opponents[2]  # one agent per seat, each with its own generator
    assert len(_play(env, 3)) == 1 + 3 + 17  # the whole deal: the first observation, 3 passes and 17 cards


def test_spec_opponents_are_reseeded_from_the_wrapper_seed():
    env = SingleAgentEnv(opponents="random")
    first = _play(env, 5)
    assert _play(env, 5) == first  # the same env again: without reseeding, the agents' generators would run on
    assert _play(SingleAgentEnv(opponents="random"), 5) == first
    assert any(_play(env, s) != first for s in (6, 7, 8))


def test_mixed_opponents_specs_callables_and_agents():
    calls = []

    def lowest(obs, mask):
        calls.append(1)
        return int(np.flatnonzero(mask)[0])

    agent = RandomAgent(0)
    env = SingleAgentEnv(num_players=4, opponents=["random", lowest, agent])
    assert isinstance(env._opponents[1], RandomAgent) and env._opponents[1] is not agent
    assert env._opponents[2] is lowest and env._opponents[3] is agent
    assert env._built == [env._opponents[1]]  # only what the wrapper built is reseeded
    assert len(_play(env, 0)) == 1 + 3 + 13
    assert len(calls) == 3 + 13  # the callable decided every decision of seat 2


@pytest.mark.skipif(not SHIPPED_AGENT.exists(), reason="checkpoints/black_maria_3p.pt is not in this checkout")
def test_policy_spec_opponents_use_the_checkpoint():
    env = SingleAgentEnv(opponents=f"policy:{SHIPPED_AGENT}", illegal_action="raise")
    assert all(isinstance(a, PolicyAgent) and a.path == str(SHIPPED_AGENT) for a in env._opponents.values())
    assert len(_play(env, 1)) == 1 + 3 + 17  # the whole deal, the policies' cards all legal


def test_bad_opponent_specs_are_refused_with_the_accepted_forms():
    with pytest.raises(AgentSpecError, match=r"unknown agent 'nosuch'.*accepted: random \| heuristic"):
        SingleAgentEnv(opponents="nosuch")
    with pytest.raises(AgentSpecError, match=r"worlds must be a whole number from 1 to 10000, got '0'"):
        SingleAgentEnv(opponents=["heuristic", "pimc:worlds=0"])
    with pytest.raises(ValueError, match=r"opponent for seat 2 must be an agent spec such as 'heuristic'.*got 5"):
        SingleAgentEnv(opponents=["heuristic", 5])
