"""The wheel: one top-level package, the shipped agents and configs inside it, the licence and py.typed."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest

from kit import ROOT

tomllib = pytest.importorskip("tomllib", reason="pyproject.toml is read with tomllib (Python 3.11+)")

SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_package_of_the_source_is_listed_and_the_shipped_folders_are_mapped_in():
    found = sorted(".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "bm_env").rglob("__init__.py"))
    mapped = SETUPTOOLS["package-dir"]
    # folders of data only (no __init__.py) are listed as packages too, each with its package data, so that
    # setuptools ships them without its warning that a folder Python could import is not configured
    data = sorted(".".join(p.relative_to(ROOT).parts) for p in (ROOT / "bm_env").rglob("*")
                  if p.is_dir() and p.name != "__pycache__" and not (p / "__init__.py").exists())
    assert all(name in SETUPTOOLS["package-data"] for name in data)
    assert sorted(SETUPTOOLS["packages"]) == sorted(found + list(mapped) + data)
    assert mapped == {"bm_env.checkpoints": "checkpoints", "bm_env.configs": "configs"}
    for folder in mapped.values():
        assert (ROOT / folder).is_dir() and not (ROOT / "bm_env" / folder).exists()  # mapped, not copied


@pytest.mark.slow
def test_the_wheel_holds_bm_env_alone_with_the_shipped_files_the_licence_and_py_typed(tmp_path):
    pytest.importorskip("build", reason="the wheel is built with the test extras' build")
    built = subprocess.run([sys.executable, "-m", "build", "--outdir", str(tmp_path), str(ROOT)], check=True,
                           capture_output=True, text=True, timeout=900)
    log = (built.stdout + built.stderr).lower()
    assert "deprecat" not in log and "would be ignored" not in log  # setuptools' warnings of the pyproject keys
    (wheel,) = tmp_path.glob("black_maria-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {"bm_env", f"{wheel.name.split('-py3')[0]}.dist-info"}  # no top-level training/, checkpoints/...
    for p in sorted((ROOT / "checkpoints").iterdir()):
        assert f"bm_env/checkpoints/{p.name}" in names
    for p in sorted((ROOT / "configs").glob("*.yaml")):
        assert f"bm_env/configs/{p.name}" in names
    assert "bm_env/py.typed" in names and "bm_env/cli/train.py" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata and "Classifier: Typing :: Typed" in metadata
