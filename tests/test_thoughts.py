"""What agents thought: explain(), the ThoughtLog, and records that carry thoughts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bm_env.agents import make_agent
from bm_env.engine.cards import card_str
from bm_env.evaluation.boards import make_board
from bm_env.evaluation.play import play_board
from bm_env.engine.record import RecordError, deal_record, load_record, replay_deal
from bm_env.engine.rules import make_rules
from bm_env.engine.thoughts import ThoughtLog, read_thoughts

from kit import Script, play_at_terminal

BM = make_rules("black_maria")


def _decisions(rec):
    """(seat, legal actions, action) of every decision of a deal record, in replay order."""
    out = []
    replay_deal(rec, lambda deal, action: out.append((deal.current_seat, set(deal.legal_actions()), action)))
    return out


@pytest.mark.parametrize("greedy", [True, False])
def test_policy_explains_with_its_masked_softmax(policy_checkpoint, greedy):
    policy_path, _ = policy_checkpoint
    agents = [make_agent(f"policy:{policy_path},greedy={str(greedy).lower()}", BM, s) for s in range(3)]
    log = ThoughtLog()
    deal = play_board(BM, make_board(BM, 0, 0), agents, log)
    rec = deal_record(deal, log)
    decisions = _decisions(rec)
    thoughts = read_thoughts(rec)
    assert sorted(thoughts) == list(range(len(decisions)))  # a policy explains every decision
    for d, (seat, legal, action) in enumerate(decisions):
        t = thoughts[d]
        assert t["kind"] == "probability" and t["seat"] == seat
        assert set(t["values"]) == legal
        assert sum(t["values"].values()) == pytest.approx(1.0, abs=1e-3)
        if greedy:
            assert max(t["values"], key=t["values"].get) == action


def test_pimc_explains_its_searched_play_decisions_only():
    rules = make_rules("black_maria")
    # override_z=0: it plays the best of the values it explains (by default it may keep the heuristic's card)
    agents = [make_agent("pimc:worlds=3,override_z=0", rules, 0), make_agent("heuristic", rules), make_agent("random", rules, 2)]
    log = ThoughtLog()
    deal = play_board(rules, make_board(rules, 0, 3), agents, log)
    rec = deal_record(deal, log)
    thoughts = read_thoughts(rec)
    decisions = _decisions(rec)
    searched = [d for d, (seat, legal, _) in enumerate(decisions) if seat == 0 and len(legal) > 1 and d >= 9]
    assert sorted(thoughts) == searched  # not its passes (the heuristic's), nor forced cards, nor other seats
    for d in searched:
        t = thoughts[d]
        _, legal, action = decisions[d]
        assert t["kind"] == "value" and set(t["values"]) == legal
        assert t["agent"].startswith("pimc(worlds=3")
        assert t["values"][action] == max(t["values"].values())


def test_records_without_thoughts_stay_as_they_were_and_still_replay(tmp_path):
    agents = [make_agent("heuristic", BM) for _ in range(3)]
    deal = play_board(BM, make_board(BM, 0, 1), agents)
    plain = deal_record(deal)
    log = ThoughtLog()
    assert deal_record(deal, log) == plain and "thoughts" not in plain  # nobody explained: no field
    assert read_thoughts(plain) == {}
    assert replay_deal(plain).scores == deal.scores


def test_a_record_with_thoughts_round_trips_through_a_file(tmp_path):
    from bm_env.engine.record import write_record

    agents = [make_agent("pimc:worlds=2", BM, 5), make_agent("heuristic", BM), make_agent("heuristic", BM)]
    log = ThoughtLog()
    deal = play_board(BM, make_board(BM, 2, 0), agents, log)
    path = write_record(tmp_path / "g.json", deal, log)
    rec = load_record(path)
    assert rec["thoughts"] and rec["thoughts"] == deal_record(deal, log)["thoughts"]
    assert replay_deal(rec).scores == deal.scores
    first = rec["thoughts"][0]
    assert set(first) == {"decision", "seat", "agent", "kind", "values"}
    assert all(isinstance(k, str) and len(k) == 2 for k in first["values"])  # card strings such as "QS"


@pytest.mark.parametrize("bad, words", [
    ("not a list", ["expected a list"]),
    ([{"decision": 0}], ["needs decision, seat, kind and values"]),
    ([{"decision": -1, "seat": 0, "kind": "value", "values": {"QS": 1}}], ["decision must be"]),
    ([{"decision": 0, "seat": 0, "kind": "mood", "values": {"QS": 1}}], ["kind 'mood'", "probability", "value"]),
    ([{"decision": 0, "seat": 0, "kind": "value", "values": {"ZZ": 1}}], ["thoughts[0]", "ZZ"]),
    ([{"decision": 0, "seat": 0, "kind": "value", "values": {"QS": "high"}}], ["value of QS must be a finite number"]),
    ([{"decision": 0, "seat": 0, "kind": "value", "values": {"QS": float("nan")}}],
     ["value of QS must be a finite number, got nan"]),
    ([{"decision": 0, "seat": 0, "kind": "value", "values": {"QS": float("inf")}}], ["must be a finite number, got inf"]),
    ([{"decision": 0, "seat": 0, "kind": "value", "values": {"QS": 1}, "note": "x" * 10_000}],
     ["nothing else", "'note'"]),
    ([{"decision": 2, "seat": 0, "kind": "value", "values": {"QS": 1}}] * 2, ["decision 2 has two thoughts"]),
])
def test_malformed_thoughts_are_refused_with_where_they_go_wrong(bad, words):
    with pytest.raises(RecordError) as err:
        read_thoughts({"thoughts": bad})
    for w in words:
        assert w in str(err.value)


def test_bm_play_record_carries_the_opponents_thoughts(tmp_path):
    path = tmp_path / "game.json"
    rc, _ = play_at_terminal(["--seed", "2", "--opponents", "pimc:worlds=2", "--record", str(path)], Script([]))
    assert rc == 0
    rec = json.loads(path.read_text(encoding="utf-8"))
    thoughts = [t for d in rec["deals"] for t in d.get("thoughts", [])]
    assert thoughts and {t["seat"] for t in thoughts} <= {1, 2}  # the person (seat 0) has none
    decisions = _decisions(rec["deals"][0])
    for t in rec["deals"][0]["thoughts"]:
        seat, legal, _ = decisions[t["decision"]]
        assert seat == t["seat"] and {card_str(c) for c in legal} == set(t["values"])
    assert np.isfinite([v for t in thoughts for v in t["values"].values()]).all()
