"""The searched pass of a guided pimc (bm_env/agents/pass_search.py, ``pass_worlds``): deals drawn at the pass
from what the seat knows, the network's likeliest passes, values that see what a pass does, and the network's
pass kept unless the search is sure."""

from __future__ import annotations

import numpy as np
import pytest

from bm_env.agents import AgentSpecError, make_agent
from bm_env.agents.pass_search import deal_at_pass, likeliest_passes, pass_values, picks_until
from bm_env.agents.playouts import heuristic_move
from bm_env.engine.cards import cards_of, mask_of, parse_card
from bm_env.engine.deal import PASS, PLAY, Deal, deal_hands
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import make_rules

from kit import SHIPPED_AGENT, mask_and_observation

BM = make_rules("black_maria")
GUIDE = f"guide={SHIPPED_AGENT}"


def first_picks(count, seed, rules=BM, direction="right"):
    """(deal, information state) of the seat to make its first pick, in ``count`` dealt deals; in every
    other one the eldest has picked before it."""
    rng = np.random.default_rng(seed)
    n = rules.num_players
    out = []
    for i in range(count):
        deal = Deal(rules, deal_hands(rules, n, i % n, rng), i % n, direction)
        for _ in range(i % 2 * rules.passes_for(n)):  # the eldest's picks first, in every other deal
            deal.step(heuristic_move(deal, None))
        out.append((deal, information_state(deal, deal.seats[deal.to_act])))
    return out


@pytest.mark.parametrize("preset", ["black_maria", "american_hearts", "petrone_black_mariah"])
def test_a_deal_at_the_pass_holds_the_seats_hand_and_shares_the_rest_out_as_dealt(preset):
    rules = make_rules(preset)
    rng = np.random.default_rng(1)
    direction = "right" if rules.num_players == 3 else "left"
    for real, info in first_picks(6, 2, rules, direction):
        pos = info.seats.index(info.seat)
        mine = real.dealt[pos]
        worlds = [deal_at_pass(info, rng) for _ in range(5)]
        for world in worlds:
            assert world.phase == PASS and world.to_act == world.eldest and not any(world.pass_picks)
            assert world.hands[pos] == mine
            assert [bin(h).count("1") for h in world.hands] == [bin(h).count("1") for h in real.dealt]
            assert world.deck == real.deck  # every card of the deal once: the others' hands split the rest
            assert (world.seats, world.dealer, world.pass_direction) == (real.seats, real.dealer, real.pass_direction)
        assert len({w.hands for w in worlds}) == 5  # drawn, not the real deal: five different deals
    with pytest.raises(ValueError, match="while passing"):
        deal_at_pass(information_state(Deal(BM, deal_hands(BM, 3, 0, rng), 0, "hold"), 0), rng)


def test_the_likeliest_pass_of_one_is_the_networks_greedy_pass_and_the_others_differ_and_are_less_likely():
    policy = make_agent(f"policy:{SHIPPED_AGENT}", BM, 0)
    rng = np.random.default_rng(3)
    for real, info in first_picks(12, 4):
        pos = info.seats.index(info.seat)
        greedy = []
        deal = real
        while deal.phase == PASS and deal.to_act == pos:  # the network asked pick by pick in the real deal
            mask, obs = mask_and_observation(information_state(deal, info.seat))
            greedy.append(policy.act(obs, mask))
            deal.step(greedy[-1])
        here = deal_at_pass(info, rng)
        picks_until(here, pos, heuristic_move, rng)
        assert likeliest_passes(policy, info, here, 1) == [tuple(greedy)]
        passes = likeliest_passes(policy, info, here, 6)
        assert len(passes) == 6 and len({frozenset(p) for p in passes}) == 6
        assert all(len(p) == BM.passes_for(3) and set(p) <= set(info.hand) for p in passes)


def test_a_pass_of_the_spade_honours_is_worth_more_than_one_of_small_clubs_to_a_hand_that_cannot_guard_them():
    """Hand-worked: A♠ K♠ Q♠ with no other spade are 30 points waiting for the first spade lead; passed, the
    hand keeps nothing above a heart. Over 60 deals the search values that pass far above 3♣ 4♣ 5♣."""
    hand = mask_of(parse_card(c) for c in "AS KS QS 3C 4C 5C 6C 6D 7D 8D 9D 2H 3H 4H 5H 6H 7H".split())
    rest = np.random.default_rng(5).permutation(cards_of(BM.deck_mask(3) & ~hand)).tolist()
    deal = Deal(BM, [hand, mask_of(rest[:17]), mask_of(rest[17:])], 2, "right")
    info = information_state(deal, deal.seats[0])
    assert deal.to_act == 0 and info.seat == deal.seats[0]
    honours, clubs = (tuple(parse_card(c) for c in picks.split()) for picks in ("AS KS QS", "3C 4C 5C"))
    rng = np.random.default_rng(6)
    worlds = [deal_at_pass(info, rng) for _ in range(60)]
    values = pass_values(info, [honours, clubs], worlds, heuristic_move, rng)
    assert values.shape == (60, 2) and (values <= 0).all()  # points are bad in Black Maria: values are minus points
    assert values[:, 0].mean() > values[:, 1].mean() + 5


def test_a_guided_search_passes_the_networks_pass_unless_sure_of_a_better_one():
    """Asked to be very sure, the searched pass is the network's wherever the passes' values spread over the
    deals; with override_z=0 it is the best mean, which is another pass somewhere."""
    policy = make_agent(f"policy:{SHIPPED_AGENT}", BM, 0)
    kept = changed = 0
    for real, info in first_picks(10, 6):
        mask, obs = mask_and_observation(info)
        sure = make_agent(f"pimc:{GUIDE},pass_worlds=8,pass_candidates=4,override_z=1000", BM, 3)
        first = sure.act(obs, mask, info)
        kept += first == policy.act(obs, mask)
        best = make_agent(f"pimc:{GUIDE},pass_worlds=8,pass_candidates=4,override_z=0", BM, 3)
        changed += set(best.searched_pass(info)) != set(sure._pass_plan)
    assert kept >= 9 and changed > 0


def test_a_searched_pass_is_picked_card_by_card_as_planned_and_never_reads_the_other_hands():
    rng = np.random.default_rng(8)
    picked = []
    for hands_seed in (0, 1):  # the same hand for the seat, two different deals of the rest
        hand = deal_hands(BM, 3, 1, np.random.default_rng(9))[1]
        others = [c for c in range(52) if BM.deck_mask(3) >> c & 1 and not hand >> c & 1]
        others = np.random.default_rng(hands_seed).permutation(others).tolist()
        deal = Deal(BM, [mask_of(others[:17]), hand, mask_of(others[17:])], 0, "right")
        agent = make_agent(f"pimc:{GUIDE},pass_worlds=8,pass_candidates=4", BM, 3)
        while deal.phase == PASS:
            if deal.to_act != 1:
                deal.step(heuristic_move(deal, rng))
                continue
            info = information_state(deal, deal.seats[1])
            mask, obs = mask_and_observation(info)
            deal.step(agent.act(obs, mask, info))
        assert deal.phase == PLAY
        picked.append(tuple(c for c, _ in deal.passed_to(1)))
        assert picked[-1] == agent._pass_plan
    assert picked[0] == picked[1]


def test_pass_worlds_need_a_guide_and_numbers_in_range():
    from bm_env.agents import PimcAgent

    for spec, words in [("pimc:pass_worlds=8", "no guide was given"),
                        (f"pimc:{GUIDE},pass_worlds=0", "pass_worlds must be a whole number from 1 to 10000, got .0."),
                        (f"pimc:{GUIDE},pass_worlds=8,pass_candidates=0", "pass_candidates must be a whole number from 1 to 1000, got .0.")]:
        with pytest.raises(AgentSpecError, match=words):
            make_agent(spec, BM, 0)
    with pytest.raises(ValueError, match="pass_worlds must be >= 0"):
        PimcAgent(pass_worlds=-1, guide=str(SHIPPED_AGENT), rules=BM)
    agent = make_agent(f"pimc:{GUIDE},pass_worlds=8", BM, 0)
    assert "pass_worlds=8,pass_candidates=8" in agent.name


def test_a_searched_pass_refuses_picks_it_did_not_plan():
    real, info = first_picks(1, 10)[0]
    agent = make_agent(f"pimc:{GUIDE},pass_worlds=4,pass_candidates=2", BM, 0)
    mask, obs = mask_and_observation(info)
    card = agent.act(obs, mask, info)
    other = next(c for c in info.hand if c != card)
    real.step(other)
    later = information_state(real, info.seat)
    mask, obs = mask_and_observation(later)
    with pytest.raises(ValueError, match="picked by the agent that searched it"):
        agent.act(obs, mask, later)
