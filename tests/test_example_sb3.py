"""examples/sb3_maskable_ppo.py and the SB3 adapter: MaskablePPO trains on make_vector_env through SB3VecEnv,
finds its masks, and never plays an illegal card (the vector env would raise)."""

import math

import numpy as np
import pytest

from kit import SHIPPED_AGENT, load_example

pytestmark = pytest.mark.sb3


def _needs_sb3():
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed; scripts/setup_extra_env.sh sb3 sb3 "
                        "makes .venv-sb3 with it")


@pytest.mark.parametrize("opponents", ["heuristic", f"policy:{SHIPPED_AGENT}"])
def test_maskable_ppo_trains_and_every_card_is_legal(opponents):
    _needs_sb3()
    if opponents.startswith("policy") and not SHIPPED_AGENT.exists():
        pytest.skip("checkpoints/black_maria_3p.pt is not in this checkout")
    example = load_example("sb3_maskable_ppo")
    result = example.train(iterations=2, steps_per_iteration=128, opponents=opponents, eval_deals=3, seed=0, envs=8)
    assert result.timesteps == 256
    assert len(result.losses) == 2 and all(math.isfinite(loss) for loss in result.losses)
    # normalised deal rewards: minus the learner's share of the deal's penalty points
    assert -1.5 <= result.eval_reward <= 0


def test_the_adapter_gives_maskable_ppo_the_masks_and_sb3_the_terminal_observations():
    _needs_sb3()
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from bm_env.integrations.sb3 import SB3VecEnv
    from bm_env.learner import make_vector_env

    vector = make_vector_env("black_maria", num_envs=5, seed=2)
    env = SB3VecEnv(vector)
    assert env.num_envs == 5 and env.observation_space == vector.single_observation_space
    assert is_masking_supported(env)
    env.seed(7)
    obs = env.reset()
    again = SB3VecEnv(make_vector_env("black_maria", num_envs=5, seed=99))
    again.seed(7)
    np.testing.assert_array_equal(again.reset(), obs)  # SB3's seed decides the games
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(25):
        masks = get_action_masks(env)
        np.testing.assert_array_equal(masks, vector.action_masks())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = env.step(actions)
        assert len(infos) == 5
        for g in range(5):
            assert ("terminal_observation" in infos[g]) == dones[g]
            if dones[g]:
                ended += 1
                final = infos[g]["terminal_observation"]
                assert final.shape == obs[g].shape and not np.array_equal(final, obs[g])
    assert ended == 5  # a black_maria deal is 20 learner decisions


def test_the_speed_comparison_runs():
    _needs_sb3()
    vector, single = load_example("sb3_maskable_ppo").compare(steps=256, envs=8, opponents="random")
    assert vector > 0 and single > 0
