"""Golden playthroughs: one seeded deal per preset through the environment, pinned as text.

A change that alters what agents see or do (dealing, legal actions, observations, tricks,
rewards) shows up here as a readable diff. When the change is intended, regenerate with
``python -m bm_env.env.playthrough PRESET 0 > tests/golden/playthrough_PRESET.txt`` and review it.
"""

from pathlib import Path

import pytest

from bm_env.env.playthrough import playthrough

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("playthrough_*.txt")), ids=lambda p: p.stem)
def test_playthrough_matches_the_golden_file(path):
    preset = path.stem.removeprefix("playthrough_")
    assert playthrough(preset, 0) == path.read_text(encoding="utf-8")


def test_golden_files_exist_for_the_main_presets():
    names = {p.stem.removeprefix("playthrough_") for p in GOLDEN.glob("playthrough_*.txt")}
    assert {"black_maria", "american_hearts", "turbo_hearts", "petrone_black_mariah"} <= names
