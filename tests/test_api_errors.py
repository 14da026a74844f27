"""Bad input to the Python API fails early and says what is allowed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bm_env import black_maria_v0
from bm_env.observation import main as layout_main
from bm_env.rules import PRESETS, Rules, RulesError, make_rules, max_deal_points


def test_the_env_no_longer_crashes_on_reset_with_a_big_card_value():
    with pytest.raises(RulesError, match="card_values QS=200 outside"):
        black_maria_v0.env(card_values={"QS": 200})


@pytest.mark.parametrize("argv, message", [
    (["0"], "0 players: the layout is for 3 to 7 players"),
    (["99"], "99 players: the layout is for 3 to 7 players"),
    (["bridge"], "unknown preset 'bridge'"),
    (["black_maria", "x"], "player count 'x' is not a whole number"),
    (["black_maria", "9"], "preset 'black_maria' is played by [3, 4, 5, 6, 7] players, not 9"),
])
def test_the_layout_printer_refuses_bad_arguments(argv, message, capsys):
    assert layout_main(argv) == 2
    assert message in capsys.readouterr().err


def test_the_layout_printer_as_a_module():
    done = subprocess.run([sys.executable, "-m", "bm_env.observation", "0"], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "3 to 7 players" in done.stderr
    assert layout_main(["cancellation", "10"]) == 0


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
