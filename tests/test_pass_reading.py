"""What a received pass says about the other hands (bm_env/agents/pass_reading.py), and pimc's read_passes."""

from __future__ import annotations

import numpy as np
import pytest

from bm_env.agents import AgentSpecError, make_agent
from bm_env.agents.pass_reading import MIN_KEPT, affinities, original_hand, pass_marginals
from bm_env.agents.pimc import sample_hidden_hands, sample_worlds
from bm_env.agents.playouts import heuristic_move
from bm_env.engine.cards import mask_of, parse_card
from bm_env.engine.deal import PLAY, Deal, deal_hands
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import make_rules

from kit import play_agents

BM = make_rules("black_maria")
HONOURS = [parse_card(c) for c in ("QS", "KS", "AS")]


def heuristic_deals(rules, count, seed, tricks):
    """(dealt hands, deal, information state of position 0) after ``tricks`` tricks of heuristic play, every
    seat passing as the heuristic (as pimc does)."""
    rng = np.random.default_rng(seed)
    n = rules.num_players
    out = []
    for i in range(count):
        direction = rules.pass_cycle[i % len(rules.pass_cycle)]
        dealt = deal_hands(rules, n, i % n, rng)
        deal = Deal(rules, dealt, i % n, direction)
        h = make_agent("heuristic", rules)
        play_agents(deal, [h] * n, upto=lambda d: d.phase == PLAY and len(d.tricks) >= tricks and d.to_act == 0)
        out.append((dealt, deal, information_state(deal, deal.seats[0])))
    return out


@pytest.mark.parametrize("preset", ["black_maria", "american_hearts"])
def test_the_hand_as_dealt_is_rebuilt_from_the_information_state(preset):
    rules = make_rules(preset)
    for dealt, _, info in heuristic_deals(rules, 8, 1, 4):
        assert original_hand(info) == dealt[0]


@pytest.mark.parametrize("preset", ["black_maria", "american_hearts"])
def test_the_counts_are_chances_of_where_each_card_lies_when_play_starts(preset):
    rules = make_rules(preset)
    n = rules.num_players
    read = 0
    for _, deal, info in heuristic_deals(rules, 6, 2, 0):
        marginals = pass_marginals(info, heuristic_move, np.random.default_rng(0), kept=60)
        if info.pass_direction == "hold":
            assert marginals is None
            continue
        read += 1
        assert marginals is not None and set(marginals) == set(info.seats) - {info.seat}
        table = np.stack(list(marginals.values()))
        mine = mask_of(info.hand)
        for c in range(52):
            held = table[:, c].sum()
            if mine >> c & 1 or not rules.deck_mask(n) >> c & 1:
                assert held == 0
            else:
                assert held == pytest.approx(1.0)
        for c, to in info.passed:  # this seat's own pass lies with its receiver in every kept deal
            assert marginals[to][c] == 1.0
        for s, row in marginals.items():  # every kept deal gives each seat its whole hand
            assert row.sum() == pytest.approx(rules.hand_size(n))
    assert read >= 4


def test_the_passes_place_the_unseen_spade_honours_with_their_holder():
    """Uniform worlds put a hidden spade honour with either other player at about even odds; against heuristic
    passers the passes place it with its real holder far more often (nearly always on these deals)."""
    right = total = 0
    for _, deal, info in heuristic_deals(BM, 15, 3, 0):
        marginals = pass_marginals(info, heuristic_move, np.random.default_rng(1), kept=100)
        for c in set(HONOURS) & set(info.unseen):
            total += 1
            right += marginals[deal.seats[holder(deal, c)]][c] > 0.5
    assert total >= 10 and right >= 0.8 * total


def test_no_pass_to_read_or_too_few_deals_kept_gives_uniform_worlds():
    rng = np.random.default_rng(0)
    hold = Deal(BM, deal_hands(BM, 3, 0, rng), 0, "hold")
    assert pass_marginals(information_state(hold, 0), heuristic_move, rng) is None
    passing = Deal(BM, deal_hands(BM, 3, 0, rng), 0, "right")
    assert pass_marginals(information_state(passing, 0), heuristic_move, rng) is None
    _, _, info = heuristic_deals(BM, 1, 4, 0)[0]
    assert pass_marginals(info, heuristic_move, rng, draws=MIN_KEPT - 1) is None  # cannot keep enough


def test_even_chances_draw_the_uniform_worlds_exactly():
    """Affinities from chances equal to each seat's share are all 1, and then the draw is the one without them."""
    _, _, info = heuristic_deals(BM, 1, 5, 3)[0]
    marginals = pass_marginals(info, heuristic_move, np.random.default_rng(0), kept=50)
    even = {}
    hidden = np.stack(list(marginals.values())).sum(axis=0) > 0
    hidden[[c for c, _ in info.passed]] = False
    for s, row in marginals.items():
        share = row[hidden].mean()
        even[s] = np.where(hidden, share, row)
    weights = affinities(even, info)
    for row in weights.values():
        assert np.allclose(row, 1.0)
    assert sample_hidden_hands(info, np.random.default_rng(7), weights) == sample_hidden_hands(info, np.random.default_rng(7))


def holder(deal, c):
    """The position holding card ``c`` in ``deal``."""
    return next(p for p, h in enumerate(deal.hands) if h >> c & 1)


def test_worlds_read_from_the_passes_hold_the_hidden_honours_where_they_are_more_often():
    right = {False: 0, True: 0}
    for _, deal, info in heuristic_deals(BM, 12, 6, 3):
        weights = affinities(pass_marginals(info, heuristic_move, np.random.default_rng(2), kept=100), info)
        for read in (False, True):
            for w in sample_worlds(info, np.random.default_rng(3), 20, affinity=weights if read else None):
                assert information_state(w, info.seat).hand == info.hand
                for c in set(HONOURS) & set(info.unseen):
                    right[read] += holder(w, c) == holder(deal, c)
    assert right[True] > 1.3 * right[False]


def test_read_passes_is_an_option_of_pimc_that_needs_a_policy_that_passes():
    with pytest.raises(AgentSpecError, match="rollout=random makes none"):
        make_agent("pimc:rollout=random,read_passes=true", BM, 0)
    agent = make_agent("pimc:read_passes=true,worlds=4", BM, 0)
    assert agent.read_passes and "read_passes=true" in agent.name
    assert "read_passes" not in make_agent("pimc", BM, 0).name


def test_a_search_reading_the_passes_plays_legal_cards_and_repeats_itself_by_seed():
    games = []
    for _ in range(2):
        rng = np.random.default_rng(8)
        deal = Deal(BM, deal_hands(BM, 3, 0, rng), 0, "right")
        searcher = make_agent("pimc:read_passes=true,worlds=3", BM, 9)
        h = make_agent("heuristic", BM)
        play_agents(deal, [searcher, h, h])  # the deal refuses an illegal card
        games.append(deal.scores)
    assert games[0] == games[1]
