"""The README's generated tables stay true to the code."""

from pathlib import Path

from bm_env.observation import layout_table
from bm_env.rules import PRESETS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_readme_observation_table_matches_the_layout():
    assert layout_table(3) in README


def test_readme_lists_every_preset():
    for name in PRESETS:
        assert f"| `{name}`" in README
