"""bm-eval --record-games: the largest-swing boards played again, recorded, and linked from the report."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bm_env.cli.evaluate import main as eval_main
from bm_env.evaluation import evaluate
from bm_env.evaluation.replays import board_swings, record_swings
from bm_env.engine.record import load_record, replay_deal
from bm_env.engine.rules import make_rules
from kit import embedded_frames

RULES = make_rules("black_maria")
SEATING = ["pimc:worlds=2", "heuristic", "random"]


@pytest.fixture(scope="module")
def result():
    return evaluate(RULES, SEATING, num_boards=5, seed=4, workers=1, progress=False)


def test_swings_are_the_first_agents_distance_from_the_fair_share_largest_first(result):
    swings = board_swings(result)
    assert sorted(b for b, _ in swings) == list(range(5))
    sizes = [abs(a) for _, a in swings]
    assert sizes == sorted(sizes, reverse=True)
    per_board = {label: np.array(v) for label, v in result.per_board.items()}
    board, advantage = swings[0]
    fair = sum(per_board[s][board] for s in SEATING) / 3
    assert advantage == pytest.approx(-(per_board[SEATING[0]][board] - fair))  # lower totals win


def test_recorded_games_are_the_games_the_evaluation_scored(result, tmp_path):
    games = record_swings(RULES, result, str(tmp_path), limit=4)
    assert len(games) == 4
    top = board_swings(result)[0][0]
    assert [(g.board, g.rotation) for g in games[:3]] == [(top, 0), (top, 1), (top, 2)]
    # The first agent's mean over the three rotations of the top board is the evaluation's figure.
    mine = [g.scores[g.seating.index(SEATING[0])] for g in games[:3]]
    assert np.mean(mine) == pytest.approx(result.per_board[SEATING[0]][top])
    for g in games:
        rec = load_record(g.record)
        assert list(replay_deal(rec).scores) == g.scores
        pimc_seat = g.seating.index(SEATING[0])
        assert rec["thoughts"] and {t["seat"] for t in rec["thoughts"]} == {pimc_seat}
        frames = embedded_frames(open(g.html, encoding="utf-8").read())
        assert list(frames) == ["all", "0", "1", "2"]
        assert sum(f[3] is not None for f in frames["all"]) == len(rec["thoughts"])
    with pytest.raises(ValueError, match="at least 1"):
        record_swings(RULES, result, str(tmp_path), limit=0)


def test_cli_links_the_replays_from_the_report_and_refuses_what_it_cannot_record(tmp_path, capsys):
    out, games = tmp_path / "out", tmp_path / "games"
    rc = eval_main(["--agents", *SEATING, "--boards", "3", "--workers", "1", "--no-progress", "--out", str(out),
                    "--record-games", str(games), "--record-max", "2"])
    assert rc == 0
    report = (out / "evaluation.md").read_text(encoding="utf-8")
    assert "## Replays: the boards with the largest swings" in report
    links = [part.split(")")[0] for part in report.split("](")[1:]]
    assert len(links) == 4 and all(link.startswith("../games/board") for link in links)
    for link in links:
        assert (out / link).resolve().is_file()
    assert json.loads((out / "evaluation.json").read_text())["num_boards"] == 3
    capsys.readouterr()
    assert eval_main(["--league", "random", "heuristic", "--record-games", str(games)]) == 2
    assert "--record-games records the games of an --agents seating" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        eval_main(["--agents", *SEATING, "--record-games", str(games), "--record-max", "0"])
    assert stop.value.code == 2
    assert "--record-max: must be a whole number of at least 1, got '0'" in capsys.readouterr().err


def test_a_config_file_can_ask_for_the_recordings(tmp_path):
    games = tmp_path / "games"
    config = tmp_path / "eval.yaml"
    config.write_text(f"agents: [random, heuristic, heuristic]\nboards: 2\nworkers: 1\n"
                      f"record_games: {games}\nrecord_max: 1\n", encoding="utf-8")
    assert eval_main(["--config", str(config), "--no-progress"]) == 0
    written = sorted(p.name for p in games.iterdir())
    assert len(written) == 2 and written[0].endswith("-rotation0.html") and written[1].endswith("-rotation0.json")
    assert "thoughts" not in load_record(games / written[1])  # neither agent explains itself
