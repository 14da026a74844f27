"""bm-demo, the README's main job, plays a deal and a small tournament end to end."""

import io

from bm_env.cli.demo import main, play_demo_deal
from bm_env.engine.rules import make_rules


def test_demo_deal_prints_every_trick_and_scores_that_add_up():
    out = io.StringIO()
    rules = make_rules("black_maria")
    scores = play_demo_deal(rules, ["heuristic", "random", "random"], seed=3, out=out)
    text = out.getvalue()
    assert sum(scores) == 43
    assert text.count("trick ") == 17
    assert "passes" in text and "deal scores" in text


def test_demo_names_the_receiver_of_each_passed_card_in_a_scatter_pass():
    out = io.StringIO()
    rules = make_rules("black_maria", pass_cycle=("scatter",), pass_count=4)
    play_demo_deal(rules, ["random", "random", "random"], seed=1, out=out)
    lines = [line for line in out.getvalue().splitlines() if " passes " in line]
    assert len(lines) == 3
    for s, line in enumerate(lines):
        others = [f"player_{t}" for t in range(3) if t != s]
        # Two cards to each of the other players, never to itself.
        assert line.startswith(f"  player_{s} passes ") and all(line.count(f" to {o}") == 1 for o in others)
        assert f" to player_{s}" not in line


def test_demo_runs_with_a_small_tournament(capsys):
    assert main(["--preset", "american_hearts", "--boards", "2", "--agents", "random", "heuristic"]) == 0
    out = capsys.readouterr().out
    assert "| rank | agent | rating |" in out
    assert out.count("trick ") == 13


def test_demo_rejects_an_unknown_preset(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["--preset", "bridge"])
    assert "unknown preset 'bridge'" in capsys.readouterr().err
