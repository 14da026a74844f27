"""The strength tables (README, docs/agents.md) are written from saved bm-eval runs (scripts/strength_table.py), never typed."""

from __future__ import annotations

import json
import shutil

import pytest

from bm_env.cli.evaluate import main as bm_eval
from bm_env.evaluation.combine import load_result, pool

from kit import load_script

strength_table = load_script("strength_table")

ROW = strength_table.Row("black_maria", 3, "heuristic", "`heuristic`")


def keep_run(row, column, seed, boards, folder, tmp_path, index=0):
    """Play one of a cell's runs with bm-eval and keep its JSON where the table looks for it."""
    out = tmp_path / f"out{seed}"
    assert bm_eval([*strength_table.bm_eval_args(row, column, seed, boards), "--workers", "1", "--no-progress",
                    "--out", str(out)]) == 0
    shutil.copyfile(out / "evaluation.json", strength_table.cell_files(row, column, str(folder))[index])
    return out / "evaluation.json"


@pytest.mark.parametrize("which", strength_table.TABLES, ids=lambda t: t.name)
def test_every_table_is_what_the_saved_evaluations_give(which):
    text = open(which.path).read()
    assert strength_table.written_table(text, which.name) == strength_table.table(which), (
        f"{which.path}'s {which.name} differs from evaluations/: run python scripts/strength_table.py")


def test_a_column_of_its_own_agent_plays_that_agent_and_names_its_files_by_seed_and_boards():
    rules_table = strength_table.RULE_PLAYERS_TABLE
    row, column = rules_table.rows[0], rules_table.columns[2]
    assert (row.spec, column.agent) == ("heuristic", "heuristic_v1")
    seated = strength_table.seated(row, column)
    assert strength_table.bm_eval_args(seated, column, 0, 500)[5] == "heuristic_v1"
    assert strength_table.cell_files(seated, column)[0].endswith("black_maria_3p__heuristic_v1__vs__random__seed0_500.json")
    assert all(r.spec != "heuristic" for r, c, *_ in strength_table.missing() if c is column)


def test_a_cell_two_tables_show_is_one_file_played_once():
    readme, black_maria = strength_table.README_TABLE, strength_table.BLACK_MARIA_TABLE
    network = next(row for row in readme.rows if row.spec == "policy:black_maria_3p")
    same = next(row for row in black_maria.rows if row.spec == "policy:black_maria_3p")
    assert network.shown != same.shown  # written differently in the two tables ...
    assert strength_table.cell_files(network, readme.columns[0]) == strength_table.cell_files(same, black_maria.columns[0])
    # ... one file each cell; the README's pimc runs are the first two of the page's 2,000 boards
    assert strength_table.cell_files(network, readme.columns[1]) == strength_table.cell_files(same, black_maria.columns[2])[:2]
    files = [f for *_, f in strength_table.missing()]
    assert len(files) == len(set(files))


def test_a_cell_is_the_agents_advantage_and_interval_from_its_run(tmp_path):
    column = strength_table.Column("vs random", "random", ((0, 3),))
    saved = keep_run(ROW, column, 0, 3, tmp_path, tmp_path)
    agent = json.loads(saved.read_text())["agents"][0]
    assert agent["label"] == "heuristic" and agent["advantage"] > 0  # the rule player beats random on any 3 boards
    assert strength_table.cell(ROW, column, str(tmp_path)) == f"+{agent['advantage']:.2f} ± {agent['diff_ci']:.2f}"


def test_a_pooled_cell_shows_only_once_every_run_is_there(tmp_path):
    column = strength_table.Column("vs pimc", "random", ((0, 2), (1, 2)))
    first = keep_run(ROW, column, 0, 2, tmp_path, tmp_path, 0)
    assert strength_table.cell(ROW, column, str(tmp_path)) == ""
    second = keep_run(ROW, column, 1, 2, tmp_path, tmp_path, 1)
    pooled = pool([load_result(str(first)), load_result(str(second))]).agents[0]
    assert strength_table.cell(ROW, column, str(tmp_path)) == f"+{pooled.advantage:.2f} ± {pooled.advantage_ci:.2f}"


def test_a_run_that_is_not_what_its_file_name_says_is_refused(tmp_path):
    column = strength_table.Column("vs random", "random", ((0, 3),))
    other = strength_table.Column("vs random", "random", ((1, 3),))
    keep_run(ROW, other, 1, 3, tmp_path, tmp_path)
    shutil.move(strength_table.cell_files(ROW, other, str(tmp_path))[0],
                strength_table.cell_files(ROW, column, str(tmp_path))[0])  # seed 1's run under seed 0's name
    with pytest.raises(ValueError, match="not what its name says"):
        strength_table.cell(ROW, column, str(tmp_path))


@pytest.mark.parametrize("which", strength_table.TABLES, ids=lambda t: t.name)
def test_a_table_is_rewritten_between_its_own_markers_only(which, tmp_path):
    page = tmp_path / "page.md"
    begin, end = strength_table.begin_marker(which.name), strength_table.end_marker(which.name)
    other = strength_table.begin_marker("other table") + "\nkept\n" + strength_table.end_marker("other table")
    before, after = f"# title\n\n{other}\n\n", "\n\n1. a footnote\n"
    page.write_text(f"{before}{begin}\nold table\n{end}{after}")
    assert strength_table.write_table(which, str(page), str(tmp_path)) is True
    text = page.read_text()
    assert text.startswith(before + begin) and text.endswith(end + after)
    assert strength_table.written_table(text, which.name) == strength_table.table(which, str(tmp_path))
    assert strength_table.written_table(text, "other table") == "kept"
    assert strength_table.write_table(which, str(page), str(tmp_path)) is False


def test_a_page_without_the_markers_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no markers of the strength table"):
        strength_table.written_table("# no table here\n", "strength table")
