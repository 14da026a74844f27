"""Fixtures shared by the tests; the helpers they share are in ``kit.py``."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

try:
    import bm_env  # noqa: F401
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


@pytest.fixture(autouse=True)
def subnormals_kept(monkeypatch):
    """bm-train and bm-bench flush float32 subnormals for their whole process; the test process keeps them,
    or a later test's generated floats would fail (hypothesis refuses to run without subnormals). That the
    commands flush, in every torch thread, is tested in a fresh process (tests/test_training.py)."""
    monkeypatch.setattr("bm_env.training.precision.flush_subnormals", lambda: None)


@pytest.fixture
def policy_checkpoint(tmp_path):
    """``(path, network)``: a small policy checkpoint of black_maria (3 players) at step 7."""
    import torch

    from bm_env.env import observation
    from bm_env.agents.checkpoint import PolicyNet, save_checkpoint
    from bm_env.engine.rules import make_rules

    rules = make_rules("black_maria")
    torch.manual_seed(0)
    net = PolicyNet(observation.size(3), rules.num_actions, hidden=(32,))
    path = tmp_path / "p.pt"
    save_checkpoint(path, net, rules, step=7)
    return path, net


SETUP = "run scripts/setup_browser.sh (Debian's chromium and chromium-driver, and selenium)"


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through selenium, for the tests marked ``browser``; fails (with the reason) when it cannot start."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        pytest.fail(f"selenium is not installed ({e}); {SETUP}")
    options = webdriver.ChromeOptions()
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        pytest.fail(f"chromium or chromedriver is not on PATH; {SETUP}")
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(arg)
    try:
        driver = webdriver.Chrome(options=options, service=Service(driver_path))
    except Exception as e:  # selenium raises several kinds when the browser cannot start
        pytest.fail(f"headless Chromium did not start: {type(e).__name__}: {e}")
    yield driver
    driver.quit()
