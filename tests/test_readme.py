"""The README's generated tables stay true to the code."""

from pathlib import Path

import pytest

from bm_env.observation import layout_table
from bm_env.rules import PRESETS

README_DIR = Path(__file__).resolve().parents[1]
README = (README_DIR / "README.md").read_text(encoding="utf-8")


def test_readme_observation_table_matches_the_layout():
    assert layout_table(3) in README


def test_readme_lists_every_preset():
    for name in PRESETS:
        assert f"| `{name}`" in README


def _python_blocks():
    blocks, inside, current = [], False, []
    for line in README.splitlines():
        if line.strip() == "```python":
            inside, current = True, []
        elif line.strip() == "```" and inside:
            inside = False
            blocks.append("\n".join(current))
        elif inside:
            current.append(line)
    return blocks


def test_readme_has_its_examples():
    assert len(_python_blocks()) >= 4


@pytest.mark.parametrize("index", range(len(_python_blocks())))
def test_readme_python_example_runs(index, monkeypatch):
    monkeypatch.chdir(README_DIR)  # the examples name files of the repository (checkpoints/...)
    code = _python_blocks()[index]
    if "onnxruntime" in code:  # the export example needs the export extras (not in the oldest-versions run)
        pytest.importorskip("onnxruntime", reason="the export example needs the export extras (pip install -e '.[export]')")
    exec(compile(code, "README.md", "exec"), {"__name__": "readme_example"})
