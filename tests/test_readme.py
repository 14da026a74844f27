"""The README's generated tables stay true to the code."""

from pathlib import Path

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


def test_readme_python_examples_run(monkeypatch):
    monkeypatch.chdir(README_DIR)  # the examples name files of the repository (checkpoints/...)
    blocks = _python_blocks()
    assert len(blocks) >= 4
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {"__name__": "readme_example"})
