"""The web table in a real browser: headless Chromium plays whole deals by clicks.

A deal of black_maria (3 players) and one of american_hearts (4 players) against the shipped
agents, through uvicorn on 127.0.0.1: the pass chosen card by card and confirmed, an illegal
card clicked and its reason shown, a hint asked for, every card played by a click on the
picture, then the record downloaded (it must replay) and its replay page opened. A
screenshot of each table is kept under ``artifacts/`` (or ``$BM_BROWSER_SCREENSHOTS``) for CI.

The test reads the seat's view from the API to decide what to click, and checks the page
shows what the view says.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """uvicorn serving a fresh store on a free loopback port, in a thread; its base URL."""
    try:
        import httpx  # noqa: F401
        import uvicorn

        from bm_env.web import GameStore, make_app
        from bm_env.web.server import bind
    except ImportError as e:
        pytest.fail(f"the web extra is not installed ({e}); pip install -e '.[web,browser]'")
    sock = bind("127.0.0.1", 0)
    srv = uvicorn.Server(uvicorn.Config(make_app(GameStore(tmp_path_factory.mktemp("games"))), log_level="warning"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    srv.should_exit = True
    thread.join(timeout=30)


def _wait(driver, condition, what, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(condition)
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}; console: {driver.get_log('browser')}")
        time.sleep(0.05)


def _shown(driver):
    return int(driver.execute_script("return document.body.dataset.shown || '0'"))


def _click_and_wait(driver, element):
    before = _shown(driver)
    element.click()
    _wait(driver, f"return Number(document.body.dataset.shown || 0) > {before} && "
                  f"document.body.dataset.state === 'ready'", "the next view")


def _card(driver, card):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, f'#table g.hand-card[data-card="{card}"]')


def _screenshot(driver, name):
    folder = Path(os.environ.get("BM_BROWSER_SCREENSHOTS") or ROOT / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 20_000
    return path


@pytest.mark.parametrize("preset,players", [("black_maria", 3), ("american_hearts", 4)])
def test_a_whole_deal_by_clicks(browser, server, tmp_path, preset, players):
    import httpx
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from bm_env.engine.record import replay_deal

    driver = browser
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    driver.get(server + "/")
    _wait(driver, "return document.querySelectorAll('#preset option').length > 10", "the presets")
    Select(driver.find_element(By.ID, "preset")).select_by_value(preset)
    Select(driver.find_element(By.ID, "players")).select_by_value(str(players))
    assert driver.find_element(By.ID, "opponents").get_attribute("placeholder") == "the shipped agent"
    driver.find_element(By.ID, "seed").send_keys("17")
    _click_and_wait(driver, driver.find_element(By.ID, "start"))
    gid = driver.execute_script("return location.hash").split("=")[1]
    api = f"{server}/api/games/{gid}"
    view = httpx.get(api).json()
    assert view["phase"] == "pass" and view["your_turn"]

    # The pass: select cards one by one (a second click unselects), then confirm.
    picks = view["legal"][:view["pass"]["to_pick"]]
    confirm = driver.find_element(By.ID, "confirm-pass")
    _card(driver, picks[0]).click()
    _card(driver, picks[0]).click()
    assert confirm.text == f"Pass 0 of {len(picks)}" and not confirm.is_enabled()
    for c in picks:
        _card(driver, c).click()
    assert driver.find_elements(By.CSS_SELECTOR, "#table g.hand-card.selected") and confirm.is_enabled()
    _click_and_wait(driver, confirm)
    view = httpx.get(api).json()
    assert [p["card"] for p in view["pass"]["passed"]] == picks and not set(picks) & set(view["hand"])

    explained = hinted = False
    shot = None
    while not view["over"]:
        assert view["your_turn"] and view["phase"] == "play"
        shown_hand = [g.get_attribute("data-card") for g in driver.find_elements(By.CSS_SELECTOR, "#table g.hand-card")]
        assert sorted(shown_hand) == sorted(view["hand"])
        if view["illegal"] and not explained:
            wrong = view["illegal"][0]
            _card(driver, wrong["card"]).click()
            message = driver.find_element(By.ID, "message").text
            assert wrong["reason"] in message and "may not play" in message
            explained = True
        if not hinted:
            driver.find_element(By.ID, "hint-button").click()
            _wait(driver, "return document.getElementById('hint-card')", "the hint")
            hint = httpx.get(api + "/hint").json()
            assert driver.find_element(By.ID, "hint-card").get_attribute("data-card") == hint["action"]
            assert hint["action"] in view["legal"]
            hinted = True
        if len(view["tricks"]) >= 4 and len(view["legal"]) >= 3 and shot is None:  # a hint and thoughts shown
            _wait(driver, "return document.querySelectorAll('#thoughts .thought').length", "the agents' thoughts")
            driver.find_element(By.ID, "hint-button").click()
            _wait(driver, "return document.getElementById('hint-card')", "the hint")
            shot = _screenshot(driver, f"web_table_{preset}.png")
        _click_and_wait(driver, _card(driver, view["legal"][-1]))
        view = httpx.get(api).json()
        totals = [int(td.text) for td in driver.find_elements(By.CSS_SELECTOR, "#scores td.taken")]
        assert totals == view["points_taken"]
    assert explained and hinted and shot is not None
    assert "The deal is over" in driver.find_element(By.ID, "status").text

    download = driver.find_element(By.ID, "download")
    download.click()
    name = f"{preset}-{gid}.json"
    deadline = time.monotonic() + 30
    while not (tmp_path / name).exists():
        assert time.monotonic() < deadline, f"no download in {list(tmp_path.iterdir())}"
        time.sleep(0.1)
    rec = json.loads((tmp_path / name).read_text())
    assert rec == httpx.get(api + "/record").json()
    assert list(replay_deal(rec).scores) == [view["deal_scores"][s] for s in rec["seats"]]

    driver.get(driver.find_element(By.ID, "replay").get_attribute("href"))
    _wait(driver, "return document.body.dataset.ready === 'true'", "the replay page")
    assert "player_0's view" in driver.title
