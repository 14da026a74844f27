"""Bad input to the Python API fails early and says what is allowed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bm_env import black_maria_v0
from bm_env.engine.rules import PRESETS, Rules, RulesError, make_rules, max_deal_points
from bm_env.env.observation import main as layout_main


@pytest.mark.parametrize("options, message", [
    # the observation holds a card's value and the clean-trick bonus in one int8 cell
    (dict(card_values={"QS": 200}), r"^card_values QS=200 outside -128\.\.127: the observation holds a card's value "
                                    r"in one int8 cell$"),
    (dict(card_values={"QS": -129, "KS": 130}), r"^card_values QS=-129, KS=130 outside -128\.\.127"),
    (dict(clean_trick_bonus=128), r"^clean_trick_bonus=128 is outside -128\.\.127"),
    (dict(card_values={"QS": "13", "KS": 1.5}), r"^card_values must be whole numbers; got QS='13', KS=1\.5$"),
    # points and totals take two cells: -4095..4095
    (dict(match_deals=100), r"^100 deals of up to 43 points make totals of 4300: the observation holds points and "
                            r"totals from -4095 to 4095$"),
    (dict(match_end="threshold_reached", match_threshold=4060),
     r"^match_threshold=4060 plus a deal of up to 43 points make totals of 4103"),
    (dict(match_end="threshold_reached", match_floor=-4090), r"^match_floor=-4090 less a deal of up to 43 points"),
    (dict(exact_reset=[5000, 50]), r"^exact_reset=5000: the observation holds points and totals from -4095 to 4095$"),
    # thresholds that can end a match
    (dict(match_end="threshold_reached", match_threshold=-5),
     r"^match_threshold=-5 must be positive: a threshold_reached match ends when the highest total reaches it"),
    (dict(match_end="threshold_passed", match_threshold=0), r"^match_threshold=0 must be positive"),
    (dict(match_floor=0), r"^match_floor=0 must be negative: someone at or below it ends the match"),
])
def test_numbers_the_observation_cannot_hold_or_the_match_cannot_use_are_refused(options, message):
    with pytest.raises(RulesError, match=message):
        make_rules("black_maria", **options)


def test_the_env_no_longer_crashes_on_reset_with_a_big_card_value():
    with pytest.raises(RulesError, match="card_values QS=200 outside"):
        black_maria_v0.env(card_values={"QS": 200})


def test_every_preset_fits_the_observation():
    for name, preset in PRESETS.items():
        for n in preset.player_counts:
            r = make_rules(name, n)
            assert 0 < max_deal_points(r) and (r.match_deals if r.match_end == "deals" else 1) * max_deal_points(r) <= 4095


def test_from_dict_needs_every_option():
    with pytest.raises(RulesError, match=r"^rules are missing option\(s\) \['num_players', 'deck_table', .*\]; a rules "
                                         r"dict \(Rules.to_dict\(\)\) holds every option"):
        Rules.from_dict({})
    d = make_rules("black_maria").to_dict()
    del d["moon"]
    with pytest.raises(RulesError, match=r"missing option\(s\) \['moon'\]"):
        Rules.from_dict(d)


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
    done = subprocess.run([sys.executable, "-m", "bm_env.env.observation", "0"], capture_output=True, text=True)
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
