"""bm-replay's page in a real browser: headless Chromium steps through it with key presses.

Set up by ``scripts/setup_browser.sh`` (Debian's chromium and chromium-driver, selenium);
CI runs these in a step of their own (``pytest -m browser``). When Chromium cannot start
the tests fail, with the reason, rather than skip: a replay nobody could open is a bug.
"""

from __future__ import annotations

import os
import shutil
import time

import numpy as np
import pytest

from bm_env import Match, make_rules
from bm_env.agents import make_agent
from bm_env.engine.thoughts import ThoughtLog, read_thoughts
from bm_env.cli.replay import main as replay_main
from bm_env.engine.cards import card_str
from bm_env.engine.record import replay_match, write_record
from bm_env.evaluation.play import agent_action

pytestmark = pytest.mark.browser

@pytest.fixture(scope="module")
def match_record(tmp_path_factory):
    """A two-deal match with pimc thinking at seat 0, written and turned into a spectator's page."""
    rules = make_rules("black_maria", match_deals=2)
    match = Match(rules, np.random.default_rng(7))
    agents = [make_agent("pimc:worlds=2", rules, 1), make_agent("heuristic", rules), make_agent("random", rules, 3)]
    log = ThoughtLog()
    while not match.is_over:
        deal = match.deal
        match.step(agent_action(agents[deal.current_seat], deal, match.totals, match.deals_played, log))
    folder = tmp_path_factory.mktemp("replay")
    path = write_record(folder / "match.json", match, log)
    assert replay_main([str(path), "--html", str(folder / "match.html")]) == 0
    assert replay_main([str(path), "--html", str(folder / "seat1.html"), "--seat", "1"]) == 0
    return path, folder


def _expected(path):
    """What each frame must show, from the record: (trick on the table, match totals, points taken, thought, action)."""
    from bm_env.engine.record import load_record

    rec = load_record(path)
    frames = []
    deals = []

    def before(deal, action):
        if not deals or deals[-1][0] is not deal:
            if deals:
                frames.append(_state(deals[-1][0], None, None))
            deals.append((deal, read_thoughts(rec["deals"][len(deals)]), [0]))
        _, thoughts, count = deals[-1]
        frames.append(_state(deal, thoughts.get(count[0]), action))
        count[0] += 1

    replay_match(rec, before)
    frames.append(_state(deals[-1][0], None, None))
    return rec, frames


def _state(deal, thought, action):
    seats = deal.seats
    trick = [[str(seats[(deal.leader + i) % len(seats)]), card_str(c)] for i, c in enumerate(deal.trick)]
    return {
        "trick": trick,
        "match": [str(x) for x in deal.totals_before],
        "points": [str(x) for x in deal.captured],
        "thought": thought,
        "action": action,
        "deal_scores": None if deal.scores is None or action is not None else [str(x) for x in deal.scores],
    }


SHOWN = """
const q = (sel) => Array.from(document.querySelectorAll(sel));
return {
  index: Number(document.body.dataset.index), view: document.body.dataset.view,
  caption: document.getElementById('caption').textContent,
  trick: q('#board .trick-card').map((e) => [e.dataset.seat, e.dataset.card]),
  match: q('#board .match-score').sort((a, b) => a.dataset.seat - b.dataset.seat).map((e) => e.dataset.value),
  points: q('#board .deal-points').sort((a, b) => a.dataset.seat - b.dataset.seat).map((e) => e.dataset.value),
  deal_scores: q('#board .deal-score').sort((a, b) => a.dataset.seat - b.dataset.seat).map((e) => e.dataset.value),
  bars: q('#chart .bar').map((e) => [e.dataset.action, Number(e.dataset.value), e.dataset.chosen === 'true']),
  hand_seats: [...new Set(q('#board .hand-card').map((e) => e.dataset.seat))],
  counts: q('#board .hand-count').length,
};
"""


def _open(driver, page):
    driver.get(page.as_uri())
    deadline = time.monotonic() + 20
    while driver.execute_script("return document.body.dataset.ready") != "true":
        if time.monotonic() > deadline:
            pytest.fail(f"the page did not finish loading; console: {driver.get_log('browser')}")
        time.sleep(0.05)


def _check(shown, want, where):
    assert shown["trick"] == want["trick"], f"{where}: trick on the table"
    assert shown["match"] == want["match"], f"{where}: match scores"
    assert shown["points"] == want["points"], f"{where}: points taken this deal"
    if want["deal_scores"] is not None:
        assert shown["deal_scores"] == want["deal_scores"], f"{where}: deal scores"
    thought = want["thought"]
    if thought is None:
        assert shown["bars"] == [], f"{where}: no chart without a recorded thought"
    else:
        bars = {a: (v, chosen) for a, v, chosen in shown["bars"]}
        assert set(bars) == {card_str(a) for a in thought["values"]}, f"{where}: one bar per legal card"
        for a, v in thought["values"].items():
            assert bars[card_str(a)][0] == pytest.approx(v, abs=1e-4)
        assert [a for a, (_, chosen) in bars.items() if chosen] == [card_str(want["action"])]


def test_keys_step_through_the_match_and_the_page_shows_what_the_record_says(browser, match_record):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    path, folder = match_record
    rec, frames = _expected(path)
    _open(browser, folder / "match.html")
    body = browser.find_element(By.TAG_NAME, "body")
    first_deal = 9 + 51 + 1  # three players: 9 pass picks, 51 cards, the end frame
    assert len(frames) == 2 * first_deal
    shown = browser.execute_script(SHOWN)
    assert shown["index"] == 0 and shown["view"] == "all"
    _check(shown, frames[0], "frame 0")
    charts = 0
    for i in range(1, first_deal):  # the whole first deal, one key press a step
        body.send_keys(Keys.ARROW_RIGHT)
        shown = browser.execute_script(SHOWN)
        assert shown["index"] == i
        _check(shown, frames[i], f"frame {i}")
        charts += frames[i]["thought"] is not None
    assert charts > 5  # pimc explained its searched cards
    assert "The deal is over" in shown["caption"]
    body.send_keys(Keys.ARROW_LEFT)
    assert browser.execute_script(SHOWN)["index"] == first_deal - 2
    body.send_keys(Keys.PAGE_DOWN)
    shown = browser.execute_script(SHOWN)
    assert shown["index"] == first_deal and shown["caption"].startswith("Deal 2, decision 1.")
    _check(shown, frames[first_deal], "first frame of deal 2")
    body.send_keys(Keys.END)
    shown = browser.execute_script(SHOWN)
    assert shown["index"] == len(frames) - 1
    _check(shown, frames[-1], "last frame")
    assert shown["deal_scores"] == [str(x) for x in rec["deals"][-1]["scores"]]
    browser.find_element(By.ID, "first").click()
    assert browser.execute_script(SHOWN)["index"] == 0
    browser.find_element(By.ID, "next").click()
    assert browser.execute_script(SHOWN)["index"] == 1
    for _ in range(20):
        body.send_keys(Keys.ARROW_RIGHT)
    shot = folder / "replay.png"
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    target = os.environ.get("BM_BROWSER_SCREENSHOTS")
    if target:  # CI may keep the picture
        os.makedirs(target, exist_ok=True)
        shutil.copy(shot, os.path.join(target, "replay.png"))


def test_the_selector_switches_to_one_seats_view_and_a_seat_file_has_no_other(browser, match_record):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    _, folder = match_record
    _open(browser, folder / "match.html")
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(15):
        body.send_keys(Keys.ARROW_RIGHT)
    shown = browser.execute_script(SHOWN)
    assert sorted(shown["hand_seats"]) == ["0"] and shown["counts"] == 0  # all hands: no face-down count
    Select(browser.find_element(By.ID, "view")).select_by_value("1")
    deadline = time.monotonic() + 10
    while browser.execute_script(SHOWN)["view"] != "1":
        assert time.monotonic() < deadline, "the view did not switch"
        time.sleep(0.05)
    shown = browser.execute_script(SHOWN)
    assert shown["index"] == 15  # the same step, seen by player_1
    assert shown["hand_seats"] == ["1"] and shown["counts"] == 2  # two hands face down, counted
    assert shown["bars"] == [] or "player_1" in shown["caption"]
    _open(browser, folder / "seat1.html")
    assert browser.find_elements(By.ID, "view") == []
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(15):
        body.send_keys(Keys.ARROW_RIGHT)
    shown = browser.execute_script(SHOWN)
    assert shown["view"] == "1" and shown["hand_seats"] == ["1"] and shown["counts"] == 2
