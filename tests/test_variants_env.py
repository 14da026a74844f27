"""The issue-6 rule systems through ``black_maria_v0.env()`` with the random and heuristic agents.

Every observation must equal ``encode(information_state(...))`` of its seat (the env keeps
it incrementally), the mask the engine's legal actions (extra decision ids included), and
partners get their team's reward.
"""

from __future__ import annotations

import numpy as np
import pytest

from kit import run_api_test
from bm_env.agents.heuristic import HeuristicAgent
from bm_env.agents.random_agent import RandomAgent
from bm_env.black_maria_v0 import env as make_env
from bm_env.observation import encode, size_for
from bm_env.rules import make_rules

CONFIGS = [
    ("cancellation", 6, {}), ("cancellation", 10, {}), ("turbo_hearts", 4, {}), ("booster_nines", 4, {}),
    ("partnership_hearts", 4, {}), ("partnership_hearts", 4, {"teams": "individual", "moon": "shooter_minus"}),
    ("american_hearts", 3, {"kitty": "first_trick"}),
    ("american_hearts", 5, {"kitty": "first_point", "kitty_to_hand": True, "pass_cycle": "five_second"}),
    ("american_hearts", 4, {"pass_cycle": "scatter_and_hold", "optional_pass": True, "moon": "shooter_choice",
                            "sun_points": 52, "queen_when_safe": True}),
]
IDS = [f"{p}-{n}-{'-'.join(kw)}" for p, n, kw in CONFIGS]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_a_deal_through_the_env_with_both_agents(cfg):
    preset, n, kw = cfg
    e = make_env(rules=preset, num_players=n, **kw)
    rules = make_rules(preset, n, **kw)
    assert e.action_space("player_0").n == rules.num_actions
    assert e.observation_space("player_0")["observation"].shape == (size_for(rules),)
    e.reset(seed=7)
    raw = e.unwrapped
    agents = {a: (HeuristicAgent() if i % 2 == 0 else RandomAgent(i)) for i, a in enumerate(e.agents)}
    phases = set()
    rewards = {a: 0.0 for a in e.agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        rewards[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        deal = raw.match.deal
        phases.add(deal.phase)
        state = raw.information_state(agent)
        np.testing.assert_array_equal(obs["observation"], encode(state))
        np.testing.assert_array_equal(obs["action_mask"], deal.legal_mask())
        e.step(agents[agent].act(obs["observation"], obs["action_mask"], state))
    if rules.charging:
        assert "charge" in phases
    if rules.teams != "none":
        assert rewards["player_0"] == rewards["player_2"] and rewards["player_1"] == rewards["player_3"]
    else:
        # Reward "score": minus the deal score of each seat.
        assert [rewards[f"player_{s}"] for s in range(n)] == [-x for x in raw.match.completed[-1].scores]


@pytest.mark.parametrize("cfg", [CONFIGS[0], CONFIGS[2], CONFIGS[7]], ids=[IDS[0], IDS[2], IDS[7]])
def test_pettingzoo_api(cfg):
    preset, n, kw = cfg
    run_api_test(make_env(rules=preset, num_players=n, **kw), num_cycles=300)


def test_two_deck_hands_can_be_given_at_reset():
    clubs, diamonds = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"
    hearts, spades = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
    e = make_env(rules="cancellation", num_players=8)
    e.reset(seed=0, options={"hands": [clubs, diamonds, hearts, spades] * 2, "dealer": 7, "pass_direction": "right"})
    obs = e.observe("player_0")
    assert obs["observation"][:52].sum() == 13 and obs["action_mask"][:13].all()


def test_pimc_refuses_the_new_rule_systems_clearly():
    from bm_env.agents import AgentSpecError, make_agent

    with pytest.raises(AgentSpecError, match="pimc .* does not play rules options \\['charging'"):
        make_agent("pimc", make_rules("turbo_hearts"), 0)
    make_agent("heuristic", make_rules("turbo_hearts"), 0)  # the heuristic plays them


def test_evaluation_boards_carry_the_kitty_and_two_decks():
    from bm_env.agents import make_agent
    from bm_env.evaluation.boards import make_board
    from bm_env.evaluation.play import play_deal

    rules = make_rules("cancellation", 7)
    board = make_board(rules, 0, 3)
    assert len(board.kitty) == 6 and sum(len(h) for h in board.hands) == 98
    assert make_board(rules, 0, 3) == board  # the same board for the same seed and index
    scores = play_deal(rules, board, [make_agent("heuristic", rules, s) for s in range(7)])
    assert sum(scores) == 86  # both decks' 43 points, the kitty's included


def test_heuristic_sheds_points_on_opponents_not_on_its_partner():
    from bm_env.agents.heuristic import HeuristicAgent, View, play_score, tables
    from bm_env.deal import Deal
    from bm_env.infostate import information_state
    from bm_env.cards import mask_of
    from kit import cards

    rules = make_rules("partnership_hearts", first_lead="eldest_any", hearts_lead="any_time")
    hands = [cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC 2D 3D"),
             cards("AC 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2S"),
             cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"),
             cards("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS KC")]
    # P0 leads 2C and P1 (an opponent of P2) wins with AC: P2, void in clubs, sheds its A♥ on it.
    deal = Deal(rules, hands, dealer=3)
    play = [cards("2C")[0], cards("AC")[0]]
    for c in play:
        deal.step(c)
    assert HeuristicAgent().act(None, deal.legal_mask(), information_state(deal, 2)) == cards("AH")[0]
    # The same discard scored on a trick the partner is winning costs more than on an opponent's.
    t = tables(rules, 4)
    hand = mask_of(cards("2H AH"))
    partner = View(t, "play", hand, hand, tuple(cards("QC 3C")), 0, 0, (), 0, partner_best=True)
    opponent = View(t, "play", hand, hand, tuple(cards("QC 3C")), 0, 0, (), 0, partner_best=False)
    assert play_score(partner, cards("AH")[0]) > play_score(opponent, cards("AH")[0])


def test_a_kitty_can_be_given_at_reset():
    from kit import fill_hands

    rules = make_rules("american_hearts", 3, kitty="first_trick")
    hands, kitty = fill_hands(rules, {}, 3, kitty="QS")
    e = make_env(rules=rules)
    e.reset(seed=0, options={"hands": hands, "dealer": 0, "kitty": ["QS"]})
    assert e.unwrapped.match.deal.kitty == tuple(kitty)
    with pytest.raises(ValueError, match="the kitty must hold the 1 cards left over, got 0"):
        e.reset(seed=0, options={"hands": hands, "dealer": 0})
