"""Agents by name (bm_env/agents/__init__.py): specs parsed and refused, the random agent, and every
agent playing only legal cards under every classic preset."""

from __future__ import annotations

import numpy as np
import pytest

from bm_env.agents import AgentSpecError, make_agent, parse_spec
from bm_env.engine.deal import DONE, Deal, deal_hands
from bm_env.engine.rules import make_rules

from kit import CLASSIC_COUNTS, play_agents


@pytest.mark.parametrize("spec, name, params", [
    ("random", "random", {}),
    ("heuristic#b", "heuristic_v2", {}),  # the alias, as the fixed name it stands for
    ("heuristic_v2", "heuristic_v2", {}),
    ("pimc:worlds=7,rollouts=2", "pimc", {"worlds": 7, "rollouts": 2}),
    ("pimc:rollout=random", "pimc", {"rollout": "random"}),
    ("heuristic_v1", "heuristic_v1", {}),
    ("pimc:rollout=heuristic_v1", "pimc", {"rollout": "heuristic_v1"}),
    ("pimc:override_z=0.5", "pimc", {"override_z": 0.5}),
    ("policy:ckpt/a.pt,greedy=false", "policy", {"path": "ckpt/a.pt", "greedy": False}),
])
def test_spec_parses(spec, name, params):
    assert parse_spec(spec) == (name, params)


@pytest.mark.parametrize("spec, words", [
    ("", "non-empty"),
    ("alphazero", "unknown agent 'alphazero'"),
    ("pimc:worlds=many", "whole number"),
    ("pimc:worlds=0", "worlds must be a whole number from 1 to 10000, got '0'"),
    ("pimc:worlds=1000000000", "worlds must be a whole number from 1 to 10000, got '1000000000'"),
    ("pimc:worlds=7.7", "expected a whole number, got '7.7'"),
    ("pimc:rollouts=5000", "rollouts must be a whole number from 1 to 1000"),
    ("search:guide=black_maria_3p,worlds=5000", "worlds must be a whole number from 1 to 1024"),
    ("pimc:override_z=nan", "override_z must be a number of at least 0, got 'nan'"),
    ("pimc:override_z=inf", "override_z must be a number of at least 0, got 'inf'"),
    ("pimc:override_z=-1", "override_z must be a number of at least 0, got '-1'"),
    ("pimc:depth=3", "no parameter 'depth'"),
    ("pimc:worlds", "not key=value"),
    ("pimc:worlds=3,worlds=4", "given twice"),
    ("random:seed=3", "takes no arguments"),
    ("policy", "needs a shipped agent's name or a checkpoint path"),
    ("policy:a.pt,greedy=maybe", "true or false"),
    ("heuristic:", "no arguments"),
])
def test_malformed_spec_is_refused_with_a_message(spec, words):
    with pytest.raises(AgentSpecError, match=words):
        parse_spec(spec)


def test_an_unknown_pimc_playout_is_refused_naming_the_playouts():
    with pytest.raises(AgentSpecError, match=r"rollout='checkpoints/black_maria_3p.pt' .* \['heuristic', 'heuristic_v1', 'heuristic_v2', 'random'\]"):
        make_agent("pimc:rollout=checkpoints/black_maria_3p.pt", make_rules("black_maria"), 0)


def test_random_agent_is_seeded_and_uniform_over_legal_actions():
    mask = np.zeros(52, dtype=np.int8)
    mask[[3, 17, 40]] = 1
    a, b = make_agent("random", None, 5), make_agent("random", None, 5)
    picks = [a.act(None, mask) for _ in range(600)]
    assert picks == [b.act(None, mask) for _ in range(600)]
    counts = np.bincount(picks, minlength=52)
    assert set(np.flatnonzero(counts)) == {3, 17, 40}
    assert counts[[3, 17, 40]].min() > 150  # 200 expected each
    masks = np.zeros((1000, 52), dtype=np.int8)
    masks[:, 5] = 1
    masks[::2, 9] = 1
    batch = a.act_batch(None, masks)
    assert set(batch[1::2]) == {5} and set(batch[::2]) == {5, 9}


# pimc refuses the extension options (test_agents_pimc.py); test_agents_heuristic.py plays them with the heuristics.
@pytest.mark.parametrize("preset, n", CLASSIC_COUNTS)
def test_heuristic_and_pimc_play_only_legal_cards(preset, n):
    rules = make_rules(preset, n)
    rng = np.random.default_rng(n)
    for d in range(2):
        agents = [make_agent("pimc:worlds=2" if s == d else "heuristic", rules, s) for s in range(n)]
        deal = Deal(rules, deal_hands(rules, n, d, rng), d, rules.pass_cycle[d % len(rules.pass_cycle)])
        play_agents(deal, agents)  # the engine raises IllegalActionError on an illegal card
        assert deal.phase == DONE and len(deal.tricks) == rules.hand_size(n)
