"""VectorEngine.advance with ``active``: the games left out stay exactly as they were, the others play
exactly as a full step would have played them; observe() of some games gives their rows of a full encode."""

import numpy as np
import pytest

from bm_env import make_rules
from bm_env.vector import VectorEngine, make_engine
from kit import extension_rules

RULES = {
    "black_maria": lambda: make_rules("black_maria"),
    "american_hearts": lambda: make_rules("american_hearts"),
    "kitty-3": lambda: extension_rules("kitty-3"),
    "turbo": lambda: extension_rules("turbo"),
    "booster": lambda: extension_rules("booster"),
    "partnership": lambda: extension_rules("partnership"),
    "pass-on-moon-choice-sun": lambda: extension_rules("pass-on-moon-choice-sun"),
    "cancellation-6": lambda: extension_rules("cancellation-6"),
}


def _twin(engine: VectorEngine) -> VectorEngine:
    twin = make_engine(engine.rules, engine.num_envs, seed=0, final_observations=True)
    twin.set_state(engine.get_state())
    return twin


@pytest.mark.parametrize("name", sorted(RULES))
def test_held_games_stay_and_active_games_play_as_in_a_full_step(name):
    rules = RULES[name]()
    N = 32 if rules.num_players < 6 else 12
    engine = make_engine(rules, N, seed=1, final_observations=True)
    engine.final_observers = np.arange(N) % rules.num_players
    engine.reset()
    rng = np.random.default_rng(2)
    names = engine._STATE_ARRAYS
    ended = 0
    for step in range(150 if rules.num_players < 6 else 240):
        actions = engine.random_actions(rng)
        active = rng.random(N) < 0.8
        before = {k: getattr(engine, k).copy() for k in names}
        twin = _twin(engine)
        twin.final_observers = engine.final_observers
        full = twin.advance(actions)
        # garbage in the held games' actions is never read
        rewards, done, scores = engine.advance(np.where(active, actions, 99), active)
        assert not done[~active].any() and not rewards[~active].any() and not scores[~active].any()
        assert np.array_equal(done, full[1] & active)
        assert np.array_equal(rewards[active], full[0][active]) and np.array_equal(scores[active], full[2][active])
        assert np.array_equal(engine.final_obs[done], twin.final_obs[done])
        ended += done.sum()
        same = active & ~done  # re-dealt games draw their deals in another order
        for k in names:
            now, was, other = getattr(engine, k), before[k], getattr(twin, k)
            assert np.array_equal(now[..., ~active], was[..., ~active]), (name, step, k)
            assert np.array_equal(now[..., same], other[..., same]), (name, step, k)
        obs, mask = engine.observe()
        some = np.flatnonzero(rng.random(N) < 0.3)
        sub_obs, sub_mask = engine.observe(some)
        assert np.array_equal(sub_obs, obs[some]) and np.array_equal(sub_mask, mask[some])
    assert ended >= N // 2  # deals ended beside held games: their final views were compared
    none_obs, none_mask = engine.observe(np.array([], dtype=np.int64))
    assert none_obs.shape == (0, engine.observation_size) and none_mask.shape == (0, rules.num_actions)


def test_an_illegal_action_of_an_active_game_is_refused_and_a_malformed_active_too():
    engine = make_engine(make_rules("black_maria"), 4, seed=0)
    engine.reset()
    legal = engine.random_actions(np.random.default_rng(0))
    bad = legal.copy()
    held_card = int(np.flatnonzero(~((engine.legal[2] >> np.arange(52, dtype=np.uint64)) & np.uint64(1)).astype(bool))[0])
    bad[2] = held_card
    with pytest.raises(Exception, match="game 2"):
        engine.advance(bad, np.array([True, True, True, False]))
    with pytest.raises(ValueError, match="active must be a bool array"):
        engine.advance(legal, np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match="active must be a bool array"):
        engine.advance(legal, np.ones(4, dtype=np.int8))
