"""Perfect-information Monte Carlo (bm_env/agents/pimc.py): its parameters, sampled hands that respect
what the seat knows, and no sight of the real hands."""

from __future__ import annotations

import numpy as np
import pytest

from bm_env.agents import AgentSpecError, make_agent
from bm_env.agents.pimc import sample_hidden_hands, world_deal
from bm_env.engine.cards import cards_of, mask_of
from bm_env.engine.deal import PLAY, Deal, deal_hands
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import make_rules

from kit import play_agents

BM = make_rules("black_maria")


def test_pimc_spec_sets_its_parameters():
    agent = make_agent("pimc:worlds=3,rollouts=2", make_rules("black_maria"), 0)
    assert (agent.worlds, agent.rollouts) == (3, 2)


def test_pimc_rollout_names_its_playout_player():
    from bm_env.agents.pimc import heuristic_playout, heuristic_v1_playout

    rules = make_rules("black_maria")
    assert make_agent("pimc", rules, 0).playout is heuristic_playout
    old = make_agent("pimc:rollout=heuristic_v1", rules, 0)
    assert old.playout is heuristic_v1_playout and "rollout=heuristic_v1" in old.name
    assert make_agent("heuristic_v1", rules).name == "heuristic_v1"


def test_pimc_refuses_the_new_rule_systems_clearly():
    with pytest.raises(AgentSpecError, match="pimc .* does not play rules options \\['charging'"):
        make_agent("pimc", make_rules("turbo_hearts"), 0)
    make_agent("heuristic", make_rules("turbo_hearts"), 0)  # the heuristic plays them


def mid_play_states(rules, count, seed):
    """Information states of the seat to act at random points of heuristic play."""
    rng = np.random.default_rng(seed)
    n = rules.num_players
    out = []
    for i in range(count):
        deal = Deal(rules, deal_hands(rules, n, i % n, rng), i % n, rules.pass_cycle[i % len(rules.pass_cycle)])
        stop = int(rng.integers(1, rules.hand_size() * n - 2))
        h = make_agent("heuristic", rules)
        play_agents(deal, [h] * n, upto=lambda d: d.phase == PLAY and len(d.tricks) * n + len(d.trick) >= stop)
        out.append((deal, information_state(deal, deal.seats[deal.to_act])))
    return out


@pytest.mark.parametrize("preset", ["black_maria", "american_hearts", "petrone_black_mariah", "dirty_lady"])
def test_sampled_hands_respect_what_the_seat_knows(preset):
    rules = make_rules(preset)
    rng = np.random.default_rng(0)
    differs = 0
    for deal, info in mid_play_states(rules, 12, 3):
        for _ in range(10):
            hidden = sample_hidden_hands(info, rng)
            assert set(hidden) == set(info.seats) - {info.seat}
            union = 0
            for s, h in hidden.items():
                assert h.bit_count() == info.hand_sizes[s]
                assert h & union == 0
                union |= h
                assert mask_of(info.known_held.get(s, ())) & ~h == 0  # passed cards stay with their holder
                for suit in range(4):
                    if info.voids[s] >> suit & 1:
                        assert not any(c // 13 == suit for c in cards_of(h))
            assert union == mask_of(info.unseen) | mask_of(c for cs in info.known_held.values() for c in cs)
            world = world_deal(info, hidden)
            seen = information_state(world, info.seat)
            for field in ("hand", "plays", "hand_sizes", "voids", "points_taken", "current_trick", "legal", "to_act"):
                assert getattr(seen, field) == getattr(info, field), field
            real = {s: deal.hands[deal.seats.index(s)] for s in hidden}
            differs += hidden != real
    assert differs > 0


def test_pimc_cannot_see_the_real_hands():
    # Two deals that seat 0 cannot tell apart: swap two cards between the other players.
    rules = BM
    rng = np.random.default_rng(11)
    hands = deal_hands(rules, 3, 2, rng)
    a = cards_of(hands[1])[5]
    b = next(c for c in cards_of(hands[2]) if c // 13 == a // 13)
    swapped = list(hands)
    swapped[1] = hands[1] ^ (1 << a) | (1 << b)
    swapped[2] = hands[2] ^ (1 << b) | (1 << a)
    decisions = []
    for hs in (hands, swapped):
        deal = Deal(rules, hs, 2, "hold")
        info = information_state(deal, 0)
        agent = make_agent("pimc:worlds=5", rules, 42)
        decisions.append((info, agent.action_values(info, list(info.legal)).tolist()))
    assert decisions[0][0] == decisions[1][0]  # same information state...
    assert decisions[0][1] == decisions[1][1]  # ...so the same evaluation, whatever the real hands
