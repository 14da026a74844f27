"""The harness: known-answer statistics, seat rotation on the same cards, reports, league, CLI."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from bm_env.agents import make_agent, register_agent
from bm_env.cli.evaluate import main
from bm_env.engine.rules import make_rules
from bm_env.evaluation import evaluate, league, make_boards, to_markdown, write_report
from bm_env.evaluation.boards import make_board
from bm_env.evaluation.play import play_deal, rotation_seating
from bm_env.evaluation.statistics import bradley_terry, mean_ci, signed, t975

BM = make_rules("black_maria")


class WorstCard:
    """Keeps its penalty cards when passing and plays its highest card, so it takes the most tricks: a sure loser."""

    needs_observation = False
    name = "worst"

    def __init__(self, rules):
        self.values = rules.card_values

    def reset(self, seed=None):
        pass

    def act(self, observation, mask, info):
        legal = np.flatnonzero(mask)
        if info.phase == "pass":
            return int(min(legal, key=lambda c: (self.values[c], c % 13)))
        return int(max(legal, key=lambda c: (c % 13, self.values[c])))


class Recorder:
    """Heuristic stand-in that remembers the seat and the cards it was dealt in each game."""

    needs_observation = False
    name = "recorder"
    games: list[tuple[int, tuple[int, ...]]] = []

    def reset(self, seed=None):
        self.first = True

    def act(self, observation, mask, info):
        if self.first:
            Recorder.games.append((info.seat, info.hand))
            self.first = False
        return int(np.flatnonzero(mask)[0])


register_agent("worst", lambda rules, seed: WorstCard(rules))
register_agent("recorder", lambda rules, seed: Recorder())


def test_identical_deterministic_agents_score_exactly_the_fair_share():
    res = evaluate(BM, ["heuristic#a", "heuristic#b", "heuristic#b"], 8, seed=1, workers=1, progress=False)
    for a in res.agents:
        assert a.diff == pytest.approx(0.0, abs=1e-9)


def test_identical_random_agents_differ_within_the_interval():
    res = evaluate(BM, ["random#a", "random#b", "random#b"], 60, seed=2, workers=1, progress=False)
    a = next(r for r in res.agents if r.label == "random#a")
    assert abs(a.diff) <= a.diff_ci and a.diff_ci < 3


def test_worst_card_player_loses_by_a_margin():
    res = evaluate(BM, ["worst", "heuristic", "heuristic"], 30, seed=3, workers=1, progress=False)
    w = res.agents[0]
    assert w.advantage < -5 and w.diff - w.diff_ci > 0  # the whole interval is above the fair share
    assert res.games == 90 and res.num_boards == 30


def test_each_agent_sits_in_each_seat_on_the_same_cards():
    Recorder.games.clear()
    boards = make_boards(BM, 4, seed=5)
    evaluate(BM, ["recorder", "random", "random"], 4, seed=5, workers=1, progress=False)
    assert len(Recorder.games) == 12
    for b, board in enumerate(boards):
        games = Recorder.games[3 * b: 3 * b + 3]
        assert sorted(seat for seat, _ in games) == [0, 1, 2]
        for seat, hand in games:
            assert sum(1 << c for c in hand) == board.hands[seat]  # the hand of that seat on that board


def test_rotation_seating_moves_everyone_one_seat_left():
    assert [rotation_seating("ABC", r) for r in range(3)] == [list("ABC"), list("CAB"), list("BCA")]


def test_boards_are_fixed_by_seed_and_index():
    a, b = make_boards(BM, 5, 0), make_boards(BM, 9, 0)
    assert a == b[:5]
    assert make_boards(BM, 5, 1) != a
    assert [x.dealer for x in a] == [0, 1, 2, 0, 1]


def test_evaluation_boards_carry_the_kitty_and_two_decks():
    rules = make_rules("cancellation", 7)
    board = make_board(rules, 0, 3)
    assert len(board.kitty) == 6 and sum(len(h) for h in board.hands) == 98
    assert make_board(rules, 0, 3) == board  # the same board for the same seed and index
    scores = play_deal(rules, board, [make_agent("heuristic", rules, s) for s in range(7)])
    assert sum(scores) == 86  # both decks' 43 points, the kitty's included


def test_results_do_not_depend_on_the_number_of_workers():
    one = evaluate(BM, ["random", "heuristic", "heuristic"], 6, seed=4, workers=1, progress=False)
    two = evaluate(BM, ["random", "heuristic", "heuristic"], 6, seed=4, workers=2, progress=False)
    assert one.per_board == two.per_board


def test_matches_report_win_rates_that_sum_to_one():
    res = evaluate(make_rules("black_maria", match_deals=2), ["heuristic", "random", "random"], 3, seed=0,
                   workers=1, matches=4, progress=False)
    assert sum(a.match_win_rate for a in res.agents) == pytest.approx(1.0)
    assert res.agents[0].match_win_rate > res.agents[0].match_fair_rate


def test_bad_seating_is_refused():
    with pytest.raises(ValueError, match="one agent spec per seat"):
        evaluate(BM, ["heuristic", "random"], 2, progress=False)


def test_statistics_known_values():
    assert t975(10) == pytest.approx(2.228, abs=2e-3)
    assert t975(40) == pytest.approx(2.021, abs=1e-3) and t975(120) == pytest.approx(1.980, abs=1e-3)
    mean, ci = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and ci == pytest.approx(3.182 * np.std([1, 2, 3, 4], ddof=1) / 2, rel=5e-3)
    # Win counts drawn from strengths 1 : 2 : 4 are fitted back to those ratios.
    p = np.array([1.0, 2.0, 4.0])
    wins = np.array([[0 if i == j else 1000 * p[i] / (p[i] + p[j]) for j in range(3)] for i in range(3)])
    fit = bradley_terry(wins, prior=0.0)
    assert fit[1] / fit[0] == pytest.approx(2.0, rel=1e-3) and fit[2] / fit[0] == pytest.approx(4.0, rel=1e-3)


def test_reports_are_written(tmp_path):
    res = evaluate(BM, ["heuristic", "random", "random"], 4, seed=0, workers=1, progress=False)
    paths = write_report(res, str(tmp_path))
    data = json.loads(open(paths["json"]).read())
    assert data["num_boards"] == 4 and data["board_set_version"] == 1 and len(data["per_board"]["heuristic"]) == 4
    assert "| heuristic | 1 |" in open(paths["md"]).read() and "| heuristic | 1 |" in to_markdown(res)
    assert open(paths["png"], "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_league_rates_the_heuristic_above_random():
    res = league(BM, ["random", "heuristic"], 6, seed=0, workers=1, progress=False)
    assert res.ratings[1] > res.ratings[0]
    assert "heuristic" in res.to_markdown()


def test_cli_refuses_a_malformed_spec(capsys):
    assert main(["--agents", "heuristic", "pimc:worlds=lots", "random", "--no-progress"]) == 2
    assert "whole number" in capsys.readouterr().err


def test_a_missing_checkpoint_is_refused_before_any_worker_starts(capsys, tmp_path):
    """Built inside a worker, the agent's error would leave the pool waiting for results forever."""
    missing = tmp_path / "none.pt"
    for cmd in (["--agents", f"policy:{missing}", "random", "random", "--workers", "2"],
                ["--league", "random", f"policy:{missing}", "--workers", "2"]):
        assert main(cmd + ["--boards", "2", "--no-progress"]) == 2
        assert "does not exist" in capsys.readouterr().err


def test_cli_prints_the_table(capsys, tmp_path):
    assert main(["--agents", "heuristic", "random", "random", "--boards", "3", "--workers", "1", "--no-progress",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| heuristic |" in out and (tmp_path / "evaluation.png").exists()


def test_a_policy_agent_evaluates_on_two_workers(policy_checkpoint):
    # Workers used to be forked after torch had started its thread pool, and hung at 0 boards.
    import subprocess
    import sys

    import torch

    path, _ = policy_checkpoint
    torch.ones(64, 64) @ torch.ones(64, 64)  # the parent's thread pool is running, as in a training process
    res = evaluate(BM, [f"policy:{path}", "heuristic", "heuristic"], 6, seed=0, workers=2, progress=False)
    assert res.num_boards == 6 and res.workers == 2
    out = subprocess.run([sys.executable, "-m", "bm_env.cli.evaluate", "--agents", f"policy:{path}", "heuristic",
                          "heuristic", "--boards", "4", "--workers", "2", "--no-progress"],
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    assert "policy:" in out.stdout


def _fails_in_workers(rules, seed):
    """A custom agent that builds in the parent process and fails in every worker process."""
    import multiprocessing

    if multiprocessing.parent_process() is not None:
        raise RuntimeError("this agent cannot be built in a worker process")
    return make_agent("random", rules, seed)


def test_a_worker_that_dies_starting_fails_the_evaluation_instead_of_hanging():
    register_agent("fails_in_workers", _fails_in_workers)
    with pytest.raises(RuntimeError, match="an evaluation worker process died"):
        evaluate(BM, ["fails_in_workers", "random", "random"], 4, seed=0, workers=2, progress=False)


def test_a_registered_agent_that_cannot_reach_workers_is_refused_by_name():
    with pytest.raises(ValueError, match="custom agent 'worst' cannot be sent to worker processes"):
        evaluate(BM, ["worst", "random", "random"], 2, seed=0, workers=2, progress=False)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="torch's default is one thread here: nothing to cap")
def test_a_worker_caps_torch_threads_after_its_policy_agent_imports_torch(policy_checkpoint):
    # A spawned worker starts without torch; the policy agent imports it, so the cap must come after.
    import subprocess
    import sys

    path, _ = policy_checkpoint
    code = ("import sys; from bm_env.engine.rules import make_rules; from bm_env.evaluation.harness import _init; "
            f"_init(make_rules('black_maria'), ['policy:{path}', 'heuristic', 'heuristic'], 0, 1); "
            "import torch; assert 'torch' in sys.modules; print(torch.get_num_threads())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1"


@pytest.mark.parametrize("preset,players", [("black_maria", 3), ("petrone_black_mariah", 4)])
def test_the_table_has_one_signed_column_positive_for_the_stronger_agent(preset, players):
    """Lowest-wins and highest-wins presets alike, 'better than fair share' is the agent's
    advantage, positive for the rule player against random ones; no column of the other sign."""
    rules = make_rules(preset, num_players=players)
    res = evaluate(rules, ["heuristic"] + ["random"] * (players - 1), 6, seed=0, workers=1, progress=False)
    head, _, *rows = to_markdown(res).splitlines()
    cols = [c.strip() for c in head.strip("|").split("|")]
    assert cols[:4] == ["agent", "seats", "better than fair share", "95% CI"] and "mean score/deal" not in cols
    row = next(r for r in rows if r.startswith("| heuristic "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    value = float(cells[cols.index("better than fair share")])
    h = next(a for a in res.agents if a.label == "heuristic")
    assert value == pytest.approx(h.advantage, abs=0.006) and value > 0
    assert (h.mean < res.fair_share) == rules.lower_wins  # the raw mean keeps the rules' direction
    by_seat = [float(cells[cols.index(f"as {seat}")]) for seat in h.by_seat]
    assert all(v > 0 for v in by_seat)  # the rule player beats random ones from every seat, in either direction
    seats = len(h.by_seat)
    assert sum(by_seat) / seats == pytest.approx(h.advantage, abs=0.01 * seats)  # each seat holds its cards as often


def test_ctrl_c_with_two_workers_ends_in_one_line_without_tracebacks(tmp_path):
    """Ctrl-C in a terminal reaches the whole process group: the workers as well as bm-eval."""
    import signal
    import subprocess
    import sys
    import time

    def as_from_a_terminal():
        """Ctrl-C handled by default and not blocked, whatever the test process inherited (a test runner's worker
        may ignore or block it, and an ignored or blocked signal passes to the child: Python would then never
        raise KeyboardInterrupt)."""
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    proc = subprocess.Popen([sys.executable, "-m", "bm_env.cli.evaluate", "--agents", "heuristic", "random", "random",
                             "--boards", "3000", "--workers", "2", "--no-progress", "--out", str(tmp_path / "out")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=as_from_a_terminal)
    children = f"/proc/{proc.pid}/task/{proc.pid}/children"
    deadline = time.time() + 120
    while len(open(children).read().split()) < 3:  # the resource tracker and two workers
        assert time.time() < deadline and proc.poll() is None
        time.sleep(0.1)
    time.sleep(3)  # the workers are playing boards
    masks = dict(line.split(":\t") for line in open(f"/proc/{proc.pid}/status").read().splitlines() if ":\t" in line)
    sigint = 1 << (signal.SIGINT - 1)
    assert int(masks["SigCgt"], 16) & sigint, "bm-eval does not handle Ctrl-C once its workers have started"
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert err == "\nbm-eval: interrupted; nothing was written\n" and not (tmp_path / "out").exists()


@pytest.mark.parametrize("x, text", [(-0.004, "+0.00"), (-0.0, "+0.00"), (0.004, "+0.00"), (-0.005001, "-0.01"),
                                     (1.234, "+1.23"), (-2.5, "-2.50")])
def test_a_signed_figure_that_rounds_to_zero_has_no_minus_sign(x, text):
    assert signed(x) == text
