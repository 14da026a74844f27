"""Versioned agent names: heuristic is an alias of heuristic_v2, and reports record the fixed name."""

from __future__ import annotations

import json

import pytest

from bm_env.agents import AgentSpecError, HeuristicAgent, HeuristicV1Agent, fixed_spec, make_agent, register_agent
from bm_env.config import ConfigError
from bm_env.engine.rules import make_rules
from bm_env.evaluation import evaluate, league, to_markdown, write_report
from bm_env.training.rule_opponent import rule_mix

BM = make_rules("black_maria")


def test_the_alias_resolves_to_the_newest_rule_based_player():
    assert isinstance(make_agent("heuristic", BM, 0), HeuristicAgent)
    assert isinstance(make_agent("heuristic_v2", BM, 0), HeuristicAgent)
    assert isinstance(make_agent("heuristic_v1", BM, 0), HeuristicV1Agent)
    assert make_agent("heuristic", BM, 0).name == "heuristic_v2"
    assert make_agent("pimc:worlds=2", BM, 0).name == make_agent("pimc:worlds=2,rollout=heuristic_v2", BM, 0).name


@pytest.mark.parametrize("spec, fixed", [
    ("heuristic", "heuristic_v2"),
    ("heuristic#b", "heuristic_v2"),
    ("heuristic_v1", "heuristic_v1"),
    ("pimc", "pimc:rollout=heuristic_v2"),
    ("pimc:worlds=3,rollout=heuristic,override_z=0", "pimc:worlds=3,override_z=0,rollout=heuristic_v2"),
    ("pimc:rollout=heuristic_v1", "pimc:rollout=heuristic_v1"),
    ("policy:black_maria_3p,greedy=false", "policy:black_maria_3p,greedy=false"),
])
def test_fixed_spec_names_every_alias_by_its_fixed_name(spec, fixed):
    assert fixed_spec(spec) == fixed


def test_the_alias_is_not_a_name_a_custom_agent_can_take():
    with pytest.raises(ValueError, match="taken"):
        register_agent("heuristic", lambda rules, seed: HeuristicAgent(seed))


def test_evaluation_json_records_the_fixed_name(tmp_path):
    result = evaluate(BM, ["heuristic", "heuristic_v1", "random"], num_boards=2, seed=0, workers=1, progress=False)
    assert [(a.label, a.spec) for a in result.agents] == [("heuristic", "heuristic_v2"), ("heuristic_v1", "heuristic_v1"),
                                                          ("random", "random")]
    assert "Agents by fixed name: heuristic is heuristic_v2." in to_markdown(result)
    paths = write_report(result, str(tmp_path))
    saved = json.loads(open(paths["json"]).read())
    assert saved["agents"][0]["label"] == "heuristic" and saved["agents"][0]["spec"] == "heuristic_v2"
    assert "heuristic is heuristic_v2" in open(paths["md"]).read()


def test_a_report_without_aliases_says_nothing_of_them():
    result = evaluate(BM, ["heuristic_v2", "random", "random"], num_boards=1, seed=0, workers=1, progress=False)
    assert "fixed name" not in to_markdown(result)


def test_a_league_records_fixed_names_and_refuses_one_agent_under_two_names():
    res = league(BM, ["heuristic", "random"], num_boards=1, seed=0, workers=1, progress=False)
    assert res.fixed_specs == ["heuristic_v2", "random"] and "heuristic is heuristic_v2" in res.to_markdown()
    with pytest.raises(AgentSpecError, match="'heuristic' and 'heuristic_v2' are both heuristic_v2"):
        league(BM, ["heuristic", "heuristic_v2"], num_boards=1, workers=1, progress=False)


def test_training_takes_the_alias_as_its_fixed_player():
    assert rule_mix("heuristic") == {"heuristic_v2": 1.0}
    assert rule_mix({"heuristic": 0.5, "heuristic_v1": 0.5}) == {"heuristic_v2": 0.5, "heuristic_v1": 0.5}
    with pytest.raises(ConfigError, match="names one player twice: 'heuristic' and 'heuristic_v2' are both heuristic_v2"):
        rule_mix({"heuristic": 0.5, "heuristic_v2": 0.5})
