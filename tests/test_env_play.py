"""Random play through the env: masks, rewards against the engine's scores, infos, renege penalty; the
extension options with the heuristic and random agents."""

import numpy as np
import pytest

from bm_env.agents.heuristic import HeuristicAgent
from bm_env.agents.random_agent import RandomAgent
from bm_env.black_maria_v0 import env as make_env
from bm_env.black_maria_v0 import raw_env
from bm_env.env.observation import encode, size_for
from bm_env.env.rewards import deal_rewards
from bm_env.engine.rules import make_rules

from kit import EXTENSIONS, PRESET_COUNTS


def play_deals(kwargs, deals, seed):
    """Play ``deals`` one-deal episodes at random, checking every decision; return the number played."""
    e = make_env(**kwargs)
    raw = e.unwrapped
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    for _ in range(deals):
        deal = raw.match.deal
        collected = {a: 0.0 for a in e.possible_agents}
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            collected[agent] += reward
            if term:
                e.step(None)
                continue
            mask = obs["action_mask"]
            assert mask.dtype == np.int8 and obs["observation"].dtype == np.int8
            assert mask.sum() > 0, f"{agent} has no legal action"
            np.testing.assert_array_equal(mask, raw.match.deal.legal_mask())  # the fast paths agree with the engine
            for other in e.agents:
                if other != agent:
                    assert not e.observe(other)["action_mask"].any(), f"{other} has a mask while {agent} acts"
            e.step(int(rng.choice(np.flatnonzero(mask))))
        assert deal.is_over
        want = deal_rewards(raw.rules, deal.scores, raw.reward_mode, raw.reward_normalise)
        for pos, s in enumerate(deal.seats):
            assert collected[f"player_{s}"] == pytest.approx(want[pos])
        e.reset()
    return deals


@pytest.mark.parametrize("preset,n", PRESET_COUNTS)
def test_random_deals_every_preset(preset, n):
    play_deals(dict(rules=preset, num_players=n), 40, seed=n)
    play_deals(dict(rules=preset, num_players=n, reward="zero_sum", reward_normalise=True), 10, seed=n + 1)


@pytest.mark.slow
@pytest.mark.parametrize("preset,n", PRESET_COUNTS)
def test_thousands_of_random_deals_every_preset(preset, n):
    play_deals(dict(rules=preset, num_players=n), 1000, seed=n)


@pytest.mark.parametrize("case", sorted(EXTENSIONS))
def test_a_deal_through_the_env_with_both_agents(case):
    """Each extension configuration with the heuristic and random agents: the rows equal the encoder, the
    masks the engine's legal actions (extra decision ids included), and partners get their team's reward."""
    preset, n, kw = EXTENSIONS[case]
    e = make_env(rules=preset, num_players=n, **kw)
    rules = make_rules(preset, n, **kw)
    assert e.action_space("player_0").n == rules.num_actions
    assert e.observation_space("player_0")["observation"].shape == (size_for(rules),)
    e.reset(seed=7)
    raw = e.unwrapped
    agents = {a: (HeuristicAgent() if i % 2 == 0 else RandomAgent(i)) for i, a in enumerate(e.agents)}
    phases = set()
    rewards = {a: 0.0 for a in e.agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        rewards[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        deal = raw.match.deal
        phases.add(deal.phase)
        state = raw.information_state(agent)
        np.testing.assert_array_equal(obs["observation"], encode(state))
        np.testing.assert_array_equal(obs["action_mask"], deal.legal_mask())
        e.step(agents[agent].act(obs["observation"], obs["action_mask"], state))
    if rules.charging:
        assert "charge" in phases
    if rules.teams != "none":
        assert rewards["player_0"] == rewards["player_2"] and rewards["player_1"] == rewards["player_3"]
    else:
        # Reward "score": minus the deal score of each seat.
        assert [rewards[f"player_{s}"] for s in range(n)] == [-x for x in raw.match.completed[-1].scores]


def test_infos_at_deal_end_hold_scores_and_nothing_else():
    e = raw_env(rules="black_maria", episode="match")
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    while e.match.deals_played == 0:
        assert all(v == {} for v in e.infos.values())
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    deal = e.match.completed[0]
    for s in range(3):
        info = e.infos[f"player_{s}"]
        assert set(info) == {"deal_score", "match_score", "deals_played"}
        assert info["deal_score"] == deal.scores[deal.seats.index(s)] == e.match.totals[s] == info["match_score"]
        assert info["deals_played"] == 1
    e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    assert all(v == {} for v in e.infos.values()), "infos describe the deal that ended until the next step"
    assert all(r == 0 for r in e.rewards.values())


def test_match_episode_ends_with_winners_and_rewards_after_each_deal():
    e = raw_env(rules="black_maria", episode="match", match_deals=2)
    e.reset(seed=9)
    rng = np.random.default_rng(9)
    deal_ends = 0
    while not e.terminations["player_0"]:
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
        if e.infos["player_0"]:
            deal_ends += 1
            # score rewards: minus the penalty points of that deal, sign flipped since lower wins
            last = e.match.completed[-1]
            for pos, s in enumerate(last.seats):
                assert e.rewards[f"player_{s}"] == -last.scores[pos]
    assert deal_ends == len(e.match.completed) >= 2
    assert e.infos["player_0"]["winners"] == [f"player_{w}" for w in e.match.winners]


def test_renege_penalty_gives_the_offender_every_penalty_point():
    e = raw_env(rules="black_maria", illegal_action="renege_penalty")
    e.reset(seed=4)
    offender = e.agent_selection
    illegal = int(np.flatnonzero(e.observe(offender)["action_mask"] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    assert e.rewards[offender] == -43  # hearts 13 + Q♠ 13 + K♠ 10 + A♠ 7, sign flipped
    assert all(r == 0 for a, r in e.rewards.items() if a != offender)
    assert e.infos[offender]["deal_score"] == 43
    e.reset(seed=4)
    assert not any(e.terminations.values())
    assert e.observe(e.agent_selection)["action_mask"].sum() > 0


def test_deal_episodes_rotate_the_dealer_and_follow_the_pass_cycle():
    e = raw_env(rules="american_hearts")
    e.reset(seed=0)
    first = e.match.deal.seats[e.match.deal.dealer]
    seen = []
    for i in range(5):
        if i:
            e.reset()
        d = e.match.deal
        seen.append((d.seats[d.dealer], d.pass_direction))
    assert seen == [((first + i) % 4, ("left", "right", "across", "hold")[i % 4]) for i in range(5)]
