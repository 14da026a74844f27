"""The PettingZoo contract: api_test and seed_test (the extension options too), registration, arguments,
order enforcement, and bad input refused early with what is allowed."""

import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

from bm_env import black_maria_v0
from bm_env.engine.deal import IllegalActionError
from bm_env.engine.rules import RulesError, make_rules

from kit import EXTENSIONS

SETTINGS = [
    dict(rules="black_maria", num_players=3),
    dict(rules="black_maria", num_players=6),
    dict(rules="american_hearts", num_players=4, reward="zero_sum", reward_normalise=True),
    dict(rules="petrone_black_mariah"),
    dict(rules="dirty_lady", num_players=5, episode="match"),
    dict(rules="black_maria", episode="match"),
    dict(rules="slippery_anne", episode="match", match_deals=1),  # frequent tie-break deals
]


@pytest.mark.parametrize("kwargs", SETTINGS, ids=lambda k: "-".join(str(v) for v in k.values()))
def test_api_and_seed(kwargs):
    with warnings.catch_warnings():
        # api_test's advice about Dict observations, and the warning its made-up reset option gets
        warnings.simplefilter("ignore")
        api_test(black_maria_v0.env(**kwargs), num_cycles=300)
    seed_test(lambda: black_maria_v0.env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("case", ["cancellation-6", "turbo", "kitty-5-to-hand"])
def test_api_under_extension_options(case):
    preset, n, kw = EXTENSIONS[case]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(black_maria_v0.env(rules=preset, num_players=n, **kw), num_cycles=300)
    # Its probe of reset's options reaches the user as a warning naming the made-up key.
    assert any(str(w.message).startswith("unknown reset option(s) ['options']; known options: ['hands', ")
               for w in caught)


@pytest.mark.skipif(not hasattr(pettingzoo, "make"),
                    reason=f"PettingZoo {pettingzoo.__version__} has no registry (pettingzoo.make came in 1.27)")
def test_pettingzoo_make_finds_the_env():
    e = pettingzoo.make("aec", black_maria_v0.ENV_ID, num_players=4)
    e.reset(seed=1)
    assert e.unwrapped.rules.num_players == 4
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]


def test_spaces_are_the_same_object_each_call():
    e = black_maria_v0.env(num_players=4)
    for a in e.possible_agents:
        assert e.observation_space(a) is e.observation_space(a)
        assert e.action_space(a) is e.action_space(a)
        assert e.action_space(a).n == 52


def test_rule_overrides_and_rules_objects_are_accepted():
    e = black_maria_v0.raw_env(rules="black_maria", moon="shooter_minus", hearts_lead="any_time")
    assert e.rules.moon == "shooter_minus" and e.rules.hearts_lead == "any_time"
    rules = make_rules("omnibus", 4)
    assert black_maria_v0.raw_env(rules=rules).rules == rules


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(episode="season"), ["episode", "deal", "match"]),
        (dict(reward="win"), ["reward", "score", "zero_sum"]),
        (dict(illegal_action="skip"), ["illegal_action", "raise", "renege_penalty"]),
        (dict(render_mode="svg"), ["render_mode", "human", "ansi", "rgb_array"]),
        (dict(reward_normalise="yes"), ["reward_normalise"]),
        (dict(colour="red"), ["colour", "episode", "moon"]),
        (dict(render_seat=3), ["render_seat", "0..2"]),
        (dict(strict_options="yes"), ["strict_options", "True or False"]),
    ],
)
def test_bad_arguments_name_what_is_allowed(kwargs, words):
    with pytest.raises(ValueError) as err:
        black_maria_v0.env(**kwargs)
    for w in words:
        assert w in str(err.value)


def test_bad_rules_are_refused_by_the_rules_object():
    with pytest.raises(RulesError, match="played by"):
        black_maria_v0.env(rules="openspiel_hearts", num_players=3)
    with pytest.raises(RulesError, match="unknown preset"):
        black_maria_v0.env(rules="bridge")


def test_order_enforcement_before_reset():
    e = black_maria_v0.env()
    with pytest.raises(AttributeError, match="before reset"):
        _ = e.agent_selection
    with pytest.raises(AttributeError, match="before reset"):
        _ = e.rewards
    with pytest.raises(AssertionError, match="reset"):
        e.step(0)
    with pytest.raises(AssertionError, match="reset"):
        e.observe("player_0")
    with pytest.raises(AssertionError):
        e.agent_iter()


def test_agent_iter_insists_on_a_step_between_agents():
    e = black_maria_v0.env()
    e.reset(seed=0)
    it = iter(e.agent_iter())
    next(it)
    with pytest.raises(AssertionError, match="step"):
        next(it)


def test_dead_step_protocol_at_the_end():
    e = black_maria_v0.env()
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    finished = []
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        assert type(term) is bool and type(trunc) is bool
        if term:
            assert set(info) >= {"deal_score", "match_score"}
            with pytest.raises(ValueError, match="only valid action is None"):
                e.step(5)
            finished.append(agent)
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sorted(finished) == e.possible_agents
    assert e.agents == []


def test_none_action_for_a_live_agent_is_refused():
    e = black_maria_v0.env()
    e.reset(seed=0)
    with pytest.raises(ValueError, match="None"):
        e.step(None)


def test_illegal_action_raises_naming_player_card_and_legal_cards_and_env_stays_usable():
    e = black_maria_v0.env()
    e.reset(seed=0)
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = e.observe(agent)["observation"].copy()
    with pytest.raises(IllegalActionError, match=agent + r" may not pass .*legal:"):
        e.step(illegal)
    assert e.agent_selection == agent
    np.testing.assert_array_equal(e.observe(agent)["observation"], before)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        e.step(52)
    e.step(int(np.flatnonzero(mask)[0]))  # still usable without a reset
    e.reset(seed=1)
    assert not any(e.terminations.values())


def test_the_env_no_longer_crashes_on_reset_with_a_big_card_value():
    with pytest.raises(RulesError, match="card_values QS=200 outside"):
        black_maria_v0.env(card_values={"QS": 200})


def test_last_after_the_episode_is_a_clear_error():
    env = black_maria_v0.env()
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][0]))
    assert env.agents == []
    with pytest.raises(RuntimeError, match=r"the episode is over .* call reset\(\) to start the next episode"):
        env.last()
    env.reset()
    assert env.last()[2] is False


def test_an_unknown_agent_is_named():
    env = black_maria_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"unknown agent 'player_9'; the agents are \['player_0', 'player_1', "):
        env.observe("player_9")
    with pytest.raises(ValueError, match=r"unknown agent 0;"):
        env.unwrapped.information_state(0)


@pytest.mark.parametrize("seed", [-3, "abc", 1.5, True])
def test_a_bad_seed_is_named(seed):
    with pytest.raises(ValueError, match=rf"^seed must be a whole number of at least 0, or None; got {seed!r}$"):
        black_maria_v0.env().reset(seed=seed)
