"""examples/tianshou_dqn.py: a few epochs train the masked DQN seat and no seat plays an illegal card."""

import math

import pytest

from kit import load_example

pytestmark = pytest.mark.tianshou


def test_dqn_seat_trains_and_every_card_is_legal():
    pytest.importorskip("tianshou", reason="tianshou is not installed; scripts/setup_extra_env.sh tianshou tianshou "
                        "makes .venv-tianshou with it")
    example = load_example("tianshou_dqn")
    assert example.make_env(3).env.unwrapped.illegal_action == "raise"  # an illegal card would end the run
    result = example.train(epochs=2, steps_per_epoch=300, envs=2, eval_deals=4, seed=0)
    assert result.env_steps >= 600 and result.gradient_steps > 0
    assert len(result.losses) == 2 and all(math.isfinite(loss) and loss >= 0 for loss in result.losses)
    # normalised deal rewards: minus a share of the deal's penalty points
    assert -1.5 <= result.learner_reward <= 0 and -1.5 <= result.opponents_reward <= 0
