"""bm-eval --compare and --pool: runs of the same boards paired board by board, runs of other boards pooled,
and the runs each refuses."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import bm_env
from bm_env.cli.evaluate import main as eval_main
from bm_env.evaluation import evaluate, provenance, to_markdown, write_report
from bm_env.evaluation.combine import compare, load_result, pool
from bm_env.evaluation.provenance import code_identity
from bm_env.evaluation.statistics import mean_ci
from bm_env.engine.rules import make_rules

RULES = make_rules("black_maria")
OPPONENTS = ["random", "random"]


def run(first: str, seed: int = 3, boards: int = 8, opponents=OPPONENTS):
    return evaluate(RULES, [first, *opponents], num_boards=boards, seed=seed, workers=1, progress=False)


@pytest.fixture(scope="module")
def new():
    return run("heuristic")


@pytest.fixture(scope="module")
def old():
    return run("heuristic_v1")


def advantages_by_hand(result) -> np.ndarray:
    """The first agent's per-board distance from the fair share, worked out from the per-board means."""
    first, rest = result.seating[0], result.per_board["random"]
    fair = (np.array(result.per_board[first]) + 2 * np.array(rest)) / 3
    return -(np.array(result.per_board[first]) - fair)  # lower totals win in black_maria


def test_the_difference_is_taken_board_by_board(new, old):
    c = compare(new, old)
    expected, expected_ci = mean_ci(advantages_by_hand(new) - advantages_by_hand(old))
    assert c.difference == pytest.approx(expected) and c.difference_ci == pytest.approx(expected_ci)
    # The mean of the differences is the difference of the two results' own figures.
    assert c.difference == pytest.approx(new.agents[0].advantage - old.agents[0].advantage)
    assert (c.new, c.old, c.boards) == ("heuristic", "heuristic_v1", 8)
    assert compare(old, new).difference == pytest.approx(-c.difference)


def test_a_written_report_reads_back_as_the_same_result(new, tmp_path):
    paths = write_report(new, str(tmp_path / "a"))
    assert load_result(str(tmp_path / "a")) == new
    assert load_result(paths["json"]) == new


@pytest.mark.parametrize("other, what", [
    (lambda: run("heuristic_v1", seed=4), "board seed"),
    (lambda: run("heuristic_v1", boards=7), "number of boards"),
    (lambda: run("heuristic_v1", opponents=["heuristic", "random"]), "opponents"),
])
def test_runs_of_other_boards_or_opponents_are_refused(new, other, what):
    with pytest.raises(ValueError, match=what):
        compare(new, other())


def test_unreadable_evaluations_are_refused_with_the_path(new, tmp_path):
    with pytest.raises(ValueError, match="no evaluation here"):
        load_result(str(tmp_path / "missing"))
    broken = tmp_path / "broken.json"
    broken.write_text('{"seating": [')
    with pytest.raises(ValueError, match="broken.json: not an evaluation.json"):
        load_result(str(broken))
    no_boards = tmp_path / "no_boards.json"
    no_boards.write_text(json.dumps(new.to_dict(with_boards=False)))
    with pytest.raises(ValueError, match="no_boards.json: holds no per-board means"):
        load_result(str(no_boards))
    no_agents = tmp_path / "no_agents.json"
    no_agents.write_text(json.dumps({k: v for k, v in new.to_dict(with_boards=True).items() if k != "agents"}))
    with pytest.raises(ValueError, match="no_agents.json: not an evaluation.json"):
        load_result(str(no_agents))


def test_cli_prints_the_paired_table_and_refuses_a_mismatch(new, old, tmp_path, capsys):
    write_report(new, str(tmp_path / "new"))
    write_report(old, str(tmp_path / "old"))
    write_report(run("heuristic_v1", seed=5), str(tmp_path / "other"))
    assert eval_main(["--compare", str(tmp_path / "new"), str(tmp_path / "old")]) == 0
    out = capsys.readouterr().out
    difference = new.agents[0].advantage - old.agents[0].advantage
    assert "new minus old, paired per board" in out and f"{difference:+.2f}" in out
    assert eval_main(["--compare", str(tmp_path / "new"), str(tmp_path / "other")]) == 2
    assert "differ in their board seed: 3 against 5" in capsys.readouterr().err
    # Options of a run that plays are refused, not ignored.
    assert eval_main(["--compare", str(tmp_path / "new"), str(tmp_path / "old"), "--boards", "50", "--seed", "1"]) == 2
    assert "so --boards, --seed would be ignored" in capsys.readouterr().err


def test_pooling_weighs_every_board_of_every_run_alike(new):
    more = run("heuristic", seed=4, boards=4)
    pooled = pool([new, more])
    assert (pooled.boards, pooled.seeds, [a.label for a in pooled.agents]) == (12, [3, 4], ["heuristic", "random"])
    first = pooled.agents[0]
    by_hand = np.concatenate([advantages_by_hand(new), advantages_by_hand(more)])
    assert (first.advantage, first.advantage_ci) == pytest.approx(mean_ci(by_hand))
    # The pooled mean is the runs' means weighted by their boards.
    assert first.advantage == pytest.approx((8 * new.agents[0].advantage + 4 * more.agents[0].advantage) / 12)
    assert first.mean == pytest.approx((8 * new.agents[0].mean + 4 * more.agents[0].mean) / 12)
    # Lower totals win: the agent's mean is the fair share less its advantage.
    assert first.mean == pytest.approx(pooled.fair_share - first.advantage)


def test_pooling_refuses_overlapping_boards_and_other_seatings(new, old):
    with pytest.raises(ValueError, match="share the board seed 3: their boards overlap"):
        pool([new, run("heuristic", seed=3, boards=5)])
    with pytest.raises(ValueError, match="differ in their seating"):
        pool([new, run("heuristic_v1", seed=4, boards=4)])
    with pytest.raises(ValueError, match="at least two evaluations"):
        pool([new])


def test_cli_pools_folders(new, tmp_path, capsys):
    more = run("heuristic", seed=4, boards=4)
    write_report(new, str(tmp_path / "a"))
    write_report(more, str(tmp_path / "b"))
    assert eval_main(["--pool", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert f"{pool([new, more]).agents[0].advantage:+.2f}" in out and "12 boards of the board sets of seeds 3, 4" in out
    assert eval_main(["--pool", str(tmp_path / "a"), str(tmp_path / "a")]) == 2
    assert "share the board seed 3" in capsys.readouterr().err


SHIPPED = str(Path(__file__).resolve().parents[1] / "checkpoints" / "black_maria_3p.pt")


def test_a_policy_agent_is_told_by_its_file_not_its_path(tmp_path):
    copy = tmp_path / "same.pt"
    shutil.copyfile(SHIPPED, copy)
    a = run(f"policy:{SHIPPED}", seed=3, boards=2)
    b = run(f"policy:{copy}", seed=4, boards=2)
    assert a.agent_files == {f"policy:{SHIPPED}": hashlib.sha256(open(SHIPPED, "rb").read()).hexdigest()}
    pooled = pool([a, b])  # one file under two paths: one agent
    assert pooled.agents[0].label == f"policy:{SHIPPED}" and pooled.boards == 4
    assert pooled.agents[0].mean == pytest.approx((a.agents[0].mean + b.agents[0].mean) / 2)
    # The same path holding another file (a checkpoint retrained in place) is another agent.
    retrained = dataclasses.replace(b, seating=a.seating, agent_files={f"policy:{SHIPPED}": "0" * 64},
                                    per_board={f"policy:{SHIPPED}" if k.startswith("policy") else k: v
                                               for k, v in b.per_board.items()})
    with pytest.raises(ValueError, match=re.escape(f"differ in their seating (seat 0: policy:{SHIPPED} against")):
        pool([a, retrained])


def test_opponents_from_other_files_are_not_paired(new):
    a = run("heuristic", opponents=[f"policy:{SHIPPED}", "random"])
    other_file = dataclasses.replace(a, agent_files={f"policy:{SHIPPED}": "0" * 64})
    assert compare(a, a).difference == 0
    with pytest.raises(ValueError, match="differ in their opponents \\(seat 1"):
        compare(a, other_file)


def test_a_run_records_the_code_that_played_it(new):
    identity = code_identity()
    assert new.code == identity and re.fullmatch("[0-9a-f]{64}", identity["source_sha256"])
    assert identity["version"] == bm_env.__version__
    assert f"code: bm_env {identity['version']}, source {identity['source_sha256'][:12]}" in to_markdown(new)


def test_the_commit_is_recorded_with_whether_the_package_differs_from_it(tmp_path, monkeypatch):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "rules.py").write_text("QUEEN = 13\n")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "rules"], check=True)
    head = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    monkeypatch.setattr(provenance, "PACKAGE", package)
    try:
        provenance.code_identity.cache_clear()
        clean = provenance.code_identity()
        assert clean["commit"] == head and "modified" not in clean
        assert provenance.describe(clean).endswith(f"commit {head[:7]}")
        (package / "agents.py").write_text("WORLDS = 20\n")  # a new file counts as a change
        provenance.code_identity.cache_clear()
        edited = provenance.code_identity()
        assert edited["commit"] == head and edited["modified"] == "yes"
        assert provenance.describe(edited).endswith(f"commit {head[:7]} with modified files")
    finally:
        monkeypatch.undo()
        provenance.code_identity.cache_clear()


def test_the_source_hash_follows_every_file_of_the_package(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    (package / "agents").mkdir(parents=True)
    (package / "agents" / "search.py").write_text("WORLDS = 20\n")
    (package / "rules.py").write_text("QUEEN = 13\n")
    monkeypatch.setattr(provenance, "PACKAGE", package)

    def source() -> str:
        provenance.code_identity.cache_clear()
        identity = provenance.code_identity()
        assert "commit" not in identity  # no git checkout around this folder
        return identity["source_sha256"]

    try:
        first = source()
        assert source() == first
        (package / "agents" / "search.py").write_text("WORLDS = 40\n")
        edited = source()
        (package / "agents" / "search.py").rename(package / "agents" / "search2.py")
        renamed = source()
        (package / "notes.txt").write_text("not code")
        assert len({first, edited, renamed}) == 3 and source() == renamed
    finally:
        monkeypatch.undo()
        provenance.code_identity.cache_clear()


def test_runs_of_different_code_are_combined_with_a_warning(new, old):
    assert compare(new, old).warning is None and pool([new, run("heuristic", seed=4, boards=4)]).warning is None
    other_code = dataclasses.replace(old, code={**old.code, "source_sha256": "f" * 64})
    c = compare(new, other_code)
    assert c.warning.startswith("warning: these runs may come from different code") and "source ffffffffffff" in c.warning
    assert c.warning in c.to_markdown() and c.difference == compare(new, old).difference  # the arithmetic is the same
    unrecorded = dataclasses.replace(run("heuristic", seed=4, boards=4), code={})
    pooled = pool([new, unrecorded])
    assert "run 2: no code version recorded" in pooled.warning and pooled.warning in pooled.to_markdown()
