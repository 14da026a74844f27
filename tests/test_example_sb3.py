"""examples/sb3_maskable_ppo.py: a few MaskablePPO updates against agent-spec opponents, no illegal card."""

import math

import pytest

from kit import SHIPPED_AGENT, load_example

pytestmark = pytest.mark.sb3


@pytest.mark.parametrize("opponents", ["heuristic", f"policy:{SHIPPED_AGENT}"])
def test_maskable_ppo_trains_and_every_card_is_legal(opponents):
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed; scripts/setup_extra_env.sh sb3 sb3 "
                        "makes .venv-sb3 with it")
    if opponents.startswith("policy") and not SHIPPED_AGENT.exists():
        pytest.skip("checkpoints/black_maria_3p.pt is not in this checkout")
    example = load_example("sb3_maskable_ppo")
    assert example.make_env(opponents).aec.illegal_action == "raise"  # an illegal card would end the run
    result = example.train(iterations=2, steps_per_iteration=128, opponents=opponents, eval_deals=3, seed=0)
    assert result.timesteps == 256
    assert len(result.losses) == 2 and all(math.isfinite(loss) for loss in result.losses)
    # normalised deal rewards: minus the learner's share of the deal's penalty points
    assert -1.5 <= result.eval_reward <= 0
