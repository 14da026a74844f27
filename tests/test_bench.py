"""bm-bench end to end: every section runs in its quick form and reports what it measured, and a
section that breaks is reported without stopping the others. (The figures themselves are not
asserted: speed is checked by reading them, never by a timed test.)"""

from __future__ import annotations

import json

import pytest

from bm_env.bench import SECTIONS, Section
from bm_env.cli import bench


@pytest.mark.slow
def test_quick_bench_runs_every_section_and_writes_its_rows(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert bench.main(["--quick", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [s["section"] for s in report["sections"]] == [s.name for s in SECTIONS]
    assert all(s["error"] is None and s["rows"] > 0 for s in report["sections"])
    table = capsys.readouterr().out
    for row in report["rows"]:
        assert f"| {row['section']} | {row['name']} |" in table
        if row["value"] is None:  # only OpenSpiel's own rows may be missing (no pyspiel here), and they say why
            assert "pyspiel" in row["name"] and "not installed" in row["note"], row
        else:
            assert row["value"] > 0, row
    shares = [r["value"] for r in report["rows"] if r["section"] == "training" and r["unit"] == "ratio"]
    assert len(shares) == 3 and 0.5 < sum(shares) <= 1.0  # engine, forward passes, update: parts of one whole


def test_a_broken_section_is_reported_and_the_others_still_run(monkeypatch, tmp_path, capsys):
    def broken(quick):
        raise RuntimeError("no such device")

    def fine(quick):
        return [{"name": "something timed", "value": 12.0, "unit": "deals/s", "note": "how"}]

    modules = {"broken_mod": broken, "fine_mod": fine}
    monkeypatch.setattr(Section, "runner", lambda self: modules[self.module])
    monkeypatch.setattr(bench, "SECTIONS", (Section("broken", "broken_mod", ""), Section("fine", "fine_mod", "")))
    monkeypatch.setattr("bm_env.bench.SECTIONS", bench.SECTIONS)
    out = tmp_path / "bench.json"
    assert bench.main(["--quick", "--json", str(out)]) == 1
    report = json.loads(out.read_text())
    assert [(s["section"], s["error"]) for s in report["sections"]] == [
        ("broken", "RuntimeError: no such device"), ("fine", None)]
    assert [(r["section"], r["name"], r["value"]) for r in report["rows"]] == [
        ("broken", "(failed)", None), ("fine", "something timed", 12.0)]
    table = capsys.readouterr().out
    assert "| broken | (failed) | n/a |" in table and "| fine | something timed | 12 |" in table
