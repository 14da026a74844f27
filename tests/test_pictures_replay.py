"""bm-replay's page: frames that follow the record, hidden information in the file's bytes, errors."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from bm_env import Match, make_rules
from bm_env.agents import make_agent
from bm_env.engine.cards import card_str, cards_of
from bm_env.cli.replay import main as replay_main
from bm_env.engine.deal import DONE, PASS, Deal, deal_hands
from bm_env.evaluation.play import agent_action
from bm_env.pictures import record_frames, replay_html
from bm_env.engine.record import RecordError, deal_record, match_record, write_record
from bm_env.engine.thoughts import Thought, ThoughtLog

from kit import embedded_frames, swap_unseen


class Scripted:
    """Plays given actions and explains each with a uniform distribution over its legal actions,
    which shows its hand: exactly what a seat's file must not carry for other seats."""

    name = "scripted"

    def __init__(self, actions):
        self.actions = actions
        self.legal = None

    def reset(self, seed=None):
        pass

    def act(self, observation, mask, info):
        self.legal = np.flatnonzero(mask)
        return self.actions.pop(0)

    def explain(self):
        return Thought("probability", {int(a): 1 / len(self.legal) for a in self.legal})


def _record(rules, hands, dealer, actions):
    """The record, with every decision explained, of ``actions`` played on ``hands`` (maybe unfinished)."""
    deal = Deal(rules, hands, dealer, rules.pass_cycle[0])
    agent = Scripted(list(actions))
    log = ThoughtLog()
    for _ in actions:
        deal.step(agent_action(agent, deal, thoughts=log))
    return deal_record(deal, log)


@pytest.mark.parametrize("preset,n", [("black_maria", 3), ("american_hearts", 4), ("omnibus", 5)])
def test_a_seat_file_is_byte_identical_whatever_the_cards_it_has_not_seen(preset, n):
    rules = make_rules(preset, n)
    rng = np.random.default_rng(n)
    checked = 0
    for _ in range(60):
        hands = deal_hands(rules, n, 0, rng)
        deal = Deal(rules, hands, 0, rules.pass_cycle[0])
        actions = []
        for _ in range(int(rng.integers(n * 3, n * 8))):
            a = int(rng.choice(cards_of(deal.legal)))
            actions.append(a)
            deal.step(a)
        swap = swap_unseen(rules, deal, hands, rng)
        if swap is None:
            continue
        x, y, swapped = swap
        a, b = _record(rules, hands, 0, actions), _record(rules, swapped, 0, actions)
        assert a["hands"] != b["hands"] and a["thoughts"] != b["thoughts"]
        assert replay_html(a, seat=0).encode() == replay_html(b, seat=0).encode(), (
            f"seat 0's file depends on where {card_str(x)} and {card_str(y)} lie")
        assert replay_html(a, seat=1) != replay_html(b, seat=1)  # seat 1 holds one of them: the test is not void
        assert replay_html(a) != replay_html(b)  # the spectator's file shows every hand
        checked += 1
        if checked == 4:  # each check writes n + 3 pages: four are plenty
            break
    assert checked == 4


def test_a_seat_file_embeds_only_that_seats_view_hand_and_thoughts():
    rules = make_rules("black_maria")
    hands = deal_hands(rules, 3, 0, np.random.default_rng(5))
    deal = Deal(rules, hands, 0, "right")
    actions = []
    while deal.phase != DONE:
        actions.append(cards_of(deal.legal)[0])
        deal.step(actions[-1])
    rec = _record(rules, hands, 0, actions)
    page = replay_html(rec, seat=2)
    views = embedded_frames(page)
    assert list(views) == ["2"] and 'id="view"' not in page  # no selector: nothing else is in the file
    for _, caption, svg, chart in views["2"]:
        assert set(re.findall(r'class="card hand-card[^"]*" data-seat="(\d+)"', svg)) <= {"2"}
        assert 'class="hand-text"' not in svg  # no revealed hand of another seat
        if chart is not None:
            assert "player_2 (you)" in caption
        if "picks" in caption and "player_2" not in caption:
            assert "picks a card to pass" in caption
    charts = [f for f in views["2"] if f[3] is not None]
    assert len(charts) == sum(1 for t in rec["thoughts"] if t["seat"] == 2)
    spectator = embedded_frames(replay_html(rec))
    assert list(spectator) == ["all", "0", "1", "2"]
    assert sum(f[3] is not None for f in spectator["all"]) == len(rec["thoughts"])


def test_frames_follow_the_record_of_a_match():
    rules = make_rules("black_maria", match_deals=2)
    match = Match(rules, np.random.default_rng(3))
    agents = [make_agent("heuristic", rules) for _ in range(3)]
    while not match.is_over:
        deal = match.deal
        match.step(agent_action(agents[deal.current_seat], deal, match.totals, match.deals_played))
    rec = match_record(match)
    frames = record_frames(rec)
    per_deal = [sum(1 for f in frames if f.deal == d) for d in range(len(rec["deals"]))]
    decisions = [9 + 51 for _ in rec["deals"]]  # 3 passes each, 17 tricks of 3
    assert per_deal == [d + 1 for d in decisions]
    assert "trick-card" not in frames[0].svg and frames[0].chart is None
    assert frames[0].caption.startswith("Deal 1, decision 1. Next: player_")
    first = rec["deals"][0]
    lead = first["tricks"][0]
    f = frames[9 + 1]  # after the passes and the first lead
    assert f'data-seat="{lead["leader"]}" data-card="{lead["cards"][0]}"' in f.svg
    end = frames[per_deal[0] - 1]
    assert "The deal is over. Deal scores:" in end.caption
    for s, x in enumerate(first["scores"]):
        assert f'class="deal-score" data-seat="{s}" data-value="{x}"' in end.svg
    second = frames[per_deal[0]]
    for s, t in enumerate(rec["deals"][1]["totals_before"]):
        assert f'class="match-score" data-seat="{s}" data-value="{t}"' in second.svg


def test_bad_records_seats_and_thoughts_are_refused():
    rules = make_rules("black_maria")
    hands = deal_hands(rules, 3, 0, np.random.default_rng(1))
    rec = _record(rules, hands, 0, [])
    with pytest.raises(RecordError, match=r"seat 3 is not a seat of this record \(0..2\)"):
        replay_html(rec, seat=3)
    with pytest.raises(RecordError, match="neither"):
        record_frames({**rec, "format": "chess/1"})
    with pytest.raises(RecordError, match="JSON object"):
        replay_html([1, 2])
    deal = Deal(rules, hands, 0, "right")
    actions = []
    while deal.phase == PASS:
        actions.append(cards_of(deal.legal)[0])
        deal.step(actions[-1])
    rec = _record(rules, hands, 0, actions)
    assert rec["thoughts"][0]["seat"] == 1  # dealer 0: player_1 passes first
    wrong_seat = json.loads(json.dumps(rec))
    wrong_seat["thoughts"][0]["seat"] = 2
    with pytest.raises(RecordError, match="decision 0 is player_1's"):
        replay_html(wrong_seat)
    not_legal = json.loads(json.dumps(rec))
    not_legal["thoughts"][0]["values"]["2C"] = 0.5  # three players play without the 2♣
    with pytest.raises(RecordError, match=r"deals\[0\].thoughts: decision 0"):
        replay_html(not_legal)


def test_cli_writes_the_page_and_refuses_what_it_cannot_read(tmp_path, capsys):
    rules = make_rules("black_maria")
    deal = Deal(rules, deal_hands(rules, 3, 0, np.random.default_rng(2)), 0, "right")
    while deal.phase != DONE:
        deal.step(cards_of(deal.legal)[-1])
    path = write_record(tmp_path / "deal.json", deal)
    out = tmp_path / "out" / "deal.html"
    assert replay_main([str(path), "--html", str(out), "--seat", "1"]) == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and list(embedded_frames(page)) == ["1"]
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "")  # no external asset
    assert replay_main([str(tmp_path / "missing.json"), "--html", str(out)]) == 2
    assert "cannot read" in capsys.readouterr().err
    rec = json.loads(path.read_text(encoding="utf-8"))
    rec["tricks"][0]["cards"][0] = rec["tricks"][0]["cards"][1]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(rec), encoding="utf-8")
    assert replay_main([str(broken), "--html", str(out)]) == 2
    assert "tricks[0]" in capsys.readouterr().err


def test_bm_replay_refuses_nan_thoughts_and_deep_nesting_in_one_line(tmp_path, capsys):
    from bm_env.cli.replay import main

    path = tmp_path / "g.json"
    for text, words in [('{"thoughts": [{"values": {"QS": NaN}}]}', "NaN is not a JSON number"),
                        ("[" * 100_000 + "]" * 100_000, "nested too deeply")]:
        path.write_text(text)
        assert main([str(path), "--html", str(tmp_path / "g.html")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err and not (tmp_path / "g.html").exists()
