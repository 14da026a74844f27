"""scripts/floor_pins.py: the pins of the oldest-versions environment are pyproject.toml's floors."""

import pytest

from kit import ROOT, load_script

tomllib = pytest.importorskip("tomllib", reason="scripts/floor_pins.py reads pyproject.toml with tomllib (3.11+)")

floor_pins = load_script("floor_pins")


def test_one_pin_per_core_and_test_dependency_at_its_floor():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = floor_pins.floor_pins(ROOT / "pyproject.toml")
    assert len(pins) == len(project["dependencies"]) + len(project["optional-dependencies"]["test"])
    assert "numpy==1.24" in pins and "pettingzoo==1.24" in pins and "pytest==7.4" in pins


def test_extras_markers_and_a_missing_floor(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\ndependencies = ["a[x]>=1.2,<2", "b<3,>=0.5 ; python_version < \'4\'"]\n'
                    '[project.optional-dependencies]\ntest = ["c>=7"]\n')
    assert floor_pins.floor_pins(path) == ["a==1.2", "b==0.5", "c==7"]
    path.write_text('[project]\ndependencies = ["a<2"]\n[project.optional-dependencies]\ntest = []\n')
    with pytest.raises(SystemExit, match="'a<2' has no '>=' floor"):
        floor_pins.floor_pins(path)
