"""The reference builds with warnings as errors: every page in a toctree, every cross-reference
resolved, every public name in the API pages with a docstring (``scripts/docs.sh`` builds it the
same way)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_parser") is None,
    reason="sphinx and myst-parser are not installed (the docs extra)",
)
def test_docs_build_without_warnings(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-q", "--keep-going", "-W", "-c", "docs", ".", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
