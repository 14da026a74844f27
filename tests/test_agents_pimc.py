"""Perfect-information Monte Carlo (bm_env/agents/pimc.py): its parameters, sampled hands that respect
what the seat knows, and no sight of the real hands."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bm_env.agents import AgentSpecError, make_agent
from bm_env.agents.pimc import sample_hidden_hands, world_deal
from bm_env.engine.cards import cards_of, mask_of
from bm_env.engine.deal import Deal, deal_hands
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import make_rules

from kit import mask_and_observation, mid_play_states

BM = make_rules("black_maria")


def test_pimc_spec_sets_its_parameters():
    agent = make_agent("pimc:worlds=3,rollouts=2", make_rules("black_maria"), 0)
    assert (agent.worlds, agent.rollouts) == (3, 2)


def test_pimc_rollout_names_its_playout_player():
    from bm_env.agents.playouts import heuristic_move, heuristic_v1_move

    rules = make_rules("black_maria")
    assert make_agent("pimc", rules, 0).move is heuristic_move
    old = make_agent("pimc:rollout=heuristic_v1", rules, 0)
    assert old.move is heuristic_v1_move and "rollout=heuristic_v1" in old.name
    assert make_agent("heuristic_v1", rules).name == "heuristic_v1"


def test_pimc_refuses_the_new_rule_systems_clearly():
    with pytest.raises(AgentSpecError, match="pimc .* does not play rules options \\['charging'"):
        make_agent("pimc", make_rules("turbo_hearts"), 0)
    make_agent("heuristic", make_rules("turbo_hearts"), 0)  # the heuristic plays them


def some_card_always_beats(own, info, rules=BM):
    """Whether a legal card beats ``own`` by the same amount in each of the 3 worlds a seed-3 ``pimc:worlds=3``
    draws: there the spread is 0 and even a very large ``override_z`` plays that card."""
    legal = list(info.legal)
    gains = make_agent("pimc:worlds=3", rules, 3).world_values(info, legal)
    gains -= gains[:, [legal.index(own)]]
    return bool(((np.ptp(gains, axis=0) == 0) & (gains[0] > 0)).any())


def real_hidden(real, info):
    """The hands (bit masks by match seat) that ``info``'s seat does not see, as ``real`` deals them."""
    return {s: real.hands[real.seats.index(s)] for s in info.seats if s != info.seat}


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


# card_to_play: worlds x cards, higher is better. Card 1 has the best mean in both tables.
NOISY = np.array([[0.0, 3.0], [0.0, -1.0], [0.0, 3.0], [0.0, -1.0]])  # gain 1, standard deviation 2.31, error 1.15
SURE = np.array([[0.0, 1.5], [0.0, 0.5], [0.0, 1.0], [0.0, 1.0]])  # gain 1, standard deviation 0.41, error 0.20


def test_the_search_keeps_the_playout_policys_card_unless_it_is_sure_of_a_better_one():
    from bm_env.agents.pimc import card_to_play

    assert card_to_play(NOISY, own=0, override_z=1.0) == 0  # 1 <= 1 x 1.15
    assert card_to_play(NOISY, own=0, override_z=0.5) == 1  # 1 > 0.5 x 1.15
    assert card_to_play(SURE, own=0, override_z=1.0) == 1  # 1 > 1 x 0.20
    assert card_to_play(SURE, own=0, override_z=12.0) == 0  # 1 <= 12 x 0.20
    assert card_to_play(NOISY, own=0, override_z=0.0) == 1  # 0: the best mean, as a plain search
    assert card_to_play(NOISY, own=None, override_z=1.0) == 1  # no own card (random playouts)
    assert card_to_play(NOISY, own=1, override_z=1.0) == 1


def test_pimc_plays_the_heuristics_card_where_the_override_cannot_be_sure():
    """Asked to be very sure, pimc plays the heuristic's card (its playout policy's) wherever
    worlds differ; with override_z=0 it plays its best mean, which differs somewhere."""
    from bm_env.agents.playouts import heuristic_card

    differs = checked = 0
    for deal, info in mid_play_states(BM, 30, 5):
        mask = np.zeros(52, dtype=np.int8)
        mask[list(info.legal)] = 1
        if len(info.legal) < 2:
            continue
        own = heuristic_card(info)
        if not some_card_always_beats(own, info):
            checked += 1
            assert make_agent("pimc:worlds=3,override_z=1000", BM, 3).act(None, mask, info) == own
        differs += make_agent("pimc:worlds=3,override_z=0", BM, 3).act(None, mask, info) != own
    assert differs > 0 and checked > 10


def test_pimc_override_z_is_set_by_the_moon_unless_given_and_checked():
    american = make_rules("american_hearts")
    assert (make_agent("pimc", BM, 0).override_for(BM), make_agent("pimc", american, 0).override_for(american)) == (1, 0)
    assert make_agent("pimc:rollout=heuristic_v1", BM, 0).override_for(BM) == 1
    assert make_agent("pimc:override_z=2.5", american, 0).override_for(american) == 2.5
    assert make_agent("pimc:rollout=random", BM, 0).override_for(BM) == 0
    at_least_0 = "override_z must be a number of at least 0, got"
    for spec, words in [("pimc:override_z=-1", at_least_0), ("pimc:override_z=inf", at_least_0),
                        ("pimc:override_z=nan", at_least_0), ("pimc:override_z=high", "must be a number"),
                        ("pimc:rollout=random,override_z=1", "rollout=random has none")]:
        with pytest.raises(AgentSpecError, match=words):
            make_agent(spec, BM, 0)


def network_proposals(rules, network, count, seed):
    """(information state, mask, observation, the network's card) at the decisions of
    :func:`mid_play_states` with a choice."""
    policy = make_agent(f"policy:{network}", rules, 0)
    for _, info in mid_play_states(rules, count, seed):
        if len(info.legal) < 2:
            continue
        mask, obs = mask_and_observation(info)
        yield info, mask, obs, policy.act(obs, mask, info)


def very_sure_search_keeps(own, info, mask, obs, guide, rules=BM):
    """Unless a card beats ``own`` alike in every world, a guided search asked to be very sure plays ``own``;
    True where that was checked."""
    if some_card_always_beats(own, info, rules):
        return False
    assert make_agent(f"pimc:worlds=3,override_z=1000,{guide}", rules, 3).act(obs, mask, info) == own
    return True


def test_a_guided_search_keeps_the_networks_card_unless_it_is_sure_of_a_better_one():
    """``guide``: the network proposes, the search overrides only where sure; asked to be very sure it
    plays the network's card wherever worlds differ; with override_z=0 it plays the plain search's best
    mean (the same worlds: the guide draws nothing), which differs from the network's card somewhere."""
    from kit import SHIPPED_AGENT

    guide = f"guide={SHIPPED_AGENT}"
    checked = overridden = 0
    for info, mask, obs, own in network_proposals(BM, SHIPPED_AGENT, 30, 7):
        checked += very_sure_search_keeps(own, info, mask, obs, guide)
        best = make_agent(f"pimc:worlds=3,override_z=0,{guide}", BM, 3).act(obs, mask, info)
        assert best == make_agent("pimc:worlds=3,override_z=0", BM, 3).act(None, mask, info)
        overridden += best != own
    assert checked > 10 and overridden > 0


def test_a_guided_search_passes_as_its_network_does():
    from kit import SHIPPED_AGENT

    guided = make_agent(f"pimc:guide={SHIPPED_AGENT}", BM, 0)
    assert guided.needs_observation and not make_agent("pimc", BM, 0).needs_observation
    policy, heuristic = make_agent(f"policy:{SHIPPED_AGENT}", BM, 0), make_agent("heuristic", BM, 0)
    rng = np.random.default_rng(5)
    differ = 0
    for i in range(40):  # the first pick of each pass; the network's differs from the heuristic's in about a third
        deal = Deal(BM, deal_hands(BM, 3, i % 3, rng), i % 3, "right")
        info = information_state(deal, deal.seats[deal.to_act])
        mask, obs = mask_and_observation(info)
        assert guided.act(obs, mask, info) == policy.act(obs, mask, info)
        differ += policy.act(obs, mask, info) != heuristic.act(None, mask, info)
    assert differ > 0  # so the pass is the network's, not the heuristic's


def test_a_guide_that_is_not_a_checkpoint_is_refused(tmp_path):
    from bm_env.agents import CheckpointError

    with pytest.raises(CheckpointError, match="does not exist"):
        make_agent(f"pimc:guide={tmp_path / 'missing.pt'}", BM, 0)


@pytest.mark.parametrize("preset", ["black_maria", "american_hearts", "petrone_black_mariah", "partnership_hearts",
                                    "omnibus", "spot_hearts", "black_maria_100"])
def test_a_world_played_on_shows_the_guide_the_observation_of_the_real_deal(preset):
    """In a world holding the real hands, the guide's observation (encode_in_world, from the seat's observation
    where the search began) is exactly the real deal's, then and after more cards: the pass, which world deals
    lack, is the seat's own; the rules (trumps, bonuses, partners, a match's scores) come along unchanged."""
    from bm_env.env.observation import encode, encode_in_world

    rules = make_rules(preset)
    checked = 0
    for real, info in mid_play_states(rules, 8, 11):
        seat = info.seat
        world = world_deal(info, real_hidden(real, info))
        template = encode(info)
        assert np.array_equal(encode_in_world(template, world, seat), template)
        h = make_agent("heuristic", rules)
        while not real.is_over:
            card = h.act(None, real.legal_mask(), information_state(real, real.seats[real.to_act]))
            real.step(card)
            world.step(card)
            if not real.is_over and real.seats[real.to_act] == seat:
                assert np.array_equal(encode_in_world(template, world, seat), encode(information_state(real, seat)))
                checked += 1
    assert checked > 20


def test_the_world_observation_refuses_rules_it_does_not_rewrite():
    from bm_env.env.observation import encode_in_world

    rules = make_rules("turbo_hearts")
    deal = Deal(rules, deal_hands(rules, 4, 0, np.random.default_rng(0)), 0, "left")
    with pytest.raises(ValueError, match="charging"):
        encode_in_world(np.zeros(8, dtype=np.int8), deal, 0)


def test_guided_playouts_play_this_seat_by_the_network_and_the_others_by_the_heuristic():
    """The batched, lockstep playouts end every world as finishing it one deal at a time does."""
    from bm_env.agents.playouts import heuristic_move
    from bm_env.engine.deal import clone_deal
    from bm_env.env.observation import encode, encode_in_world
    from kit import SHIPPED_AGENT

    agent = make_agent(f"pimc:worlds=4,guide={SHIPPED_AGENT},guide_playouts=true", BM, 0)
    network = make_agent(f"policy:{SHIPPED_AGENT}", BM, 0)
    rng = np.random.default_rng(0)
    for _, info in mid_play_states(BM, 6, 13):
        worlds = [world_deal(info, sample_hidden_hands(info, rng)) for _ in range(4)]
        batched, single = [clone_deal(w) for w in worlds], [clone_deal(w) for w in worlds]
        agent._guided_playouts(batched, info)
        pos = info.seats.index(info.seat)
        for d in single:
            while not d.is_over:
                if d.to_act == pos:
                    d.step(network.act(encode_in_world(encode(info), d, info.seat), d.legal_mask(), None))
                else:
                    d.step(heuristic_move(d, rng))
        assert [d.scores for d in batched] == [d.scores for d in single]
        assert all(d.is_over for d in batched)


def test_guide_playouts_need_a_guide():
    with pytest.raises(AgentSpecError, match="no guide was given"):
        make_agent("pimc:guide_playouts=true", BM, 0)
    assert not make_agent("pimc", BM, 0).guide_playouts


@pytest.mark.parametrize("option", ["infer=true", "surprise=0.2", "candidates=4", "pass_worlds=64", "pass_candidates=8"])
def test_options_measured_not_to_help_are_not_offered(option):
    """docs/agents.md "What we tried" keeps their figures: inferring worlds from the play and searching the pass."""
    with pytest.raises(AgentSpecError, match=rf"agent 'pimc' has no parameter '{option.split('=')[0]}' \(allowed: "):
        make_agent(f"pimc:{option}", BM, 0)


def test_with_a_moon_a_guided_search_plays_its_best_mean_unless_override_z_is_given():
    """In openspiel_hearts (a moon) the guide's card is thrown away by default (override_z 0: the plain
    search's best mean on the same worlds); given override_z, the network's card is kept where not sure."""
    from kit import ROOT

    rules = make_rules("openspiel_hearts")
    network = ROOT / "checkpoints" / "openspiel_hearts_4p.pt"
    guide = f"guide={network}"
    assert make_agent(f"pimc:{guide}", rules, 0).override_for(rules) == 0
    assert make_agent(f"pimc:{guide},override_z=1", rules, 0).override_for(rules) == 1
    differ = checked = 0
    for info, mask, obs, own in network_proposals(rules, network, 16, 23):
        default = make_agent(f"pimc:worlds=3,{guide}", rules, 3).act(obs, mask, info)
        assert default == make_agent("pimc:worlds=3", rules, 3).act(None, mask, info)
        checked += very_sure_search_keeps(own, info, mask, obs, guide, rules)
        differ += default != own
    assert differ > 0 and checked > 5


@settings(max_examples=300, deadline=None)
@given(weights=st.lists(st.integers(1, 17), min_size=1, max_size=6), seed=st.integers(0, 2**32 - 1))
def test_the_seat_order_draws_as_numpys_weighted_choice_without_replacement(weights, seed):
    """_draw_order replaces rng.choice(n, n, replace=False, p=w / w.sum()), which pimc called per card placed:
    the same order from the same draws, the generator left in the same state, so seeded searches play as before."""
    from bm_env.agents.pimc import _draw_order

    ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
    w = np.array(weights, dtype=float)
    assert _draw_order(weights, ours) == numpys.choice(len(w), size=len(w), replace=False, p=w / w.sum()).tolist()
    assert ours.bit_generator.state == numpys.bit_generator.state


class _HighDraws:
    """A generator whose every uniform draw is just below 1, the largest a double in [0, 1) rounds up from."""

    def random(self, size):
        return np.full(size, 0.99999998)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, int])
def test_a_draw_near_one_takes_the_last_weighted_position_whatever_the_weights_type(dtype):
    """The belief's weights are float32 scalars; a draw just below 1 must still land on a position, not past the
    last one (which in float32 arithmetic it did)."""
    from bm_env.agents.pimc import _draw_order

    weights = [dtype(w) for w in (3.787906, 1.8711644)] if dtype is not int else [4, 2]
    assert _draw_order(weights, _HighDraws()) == [1, 0]


def hall_over_suits(count, cap, eligible):
    """Hall's condition as first written: every non-empty set of suits fits in the room of the seats that may
    hold one of them."""
    for suits in range(1, 16):
        need = sum(count[s] for s in range(4) if suits >> s & 1)
        seats = 0
        for s in range(4):
            if suits >> s & 1:
                seats |= eligible[s]
        if need > sum(c for i, c in enumerate(cap) if seats >> i & 1):
            return False
    return True


@settings(max_examples=500, deadline=None)
@given(count=st.lists(st.integers(0, 6), min_size=4, max_size=4),
       cap=st.lists(st.integers(0, 8), min_size=1, max_size=4), data=st.data())
def test_halls_condition_over_sets_of_seats_agrees_with_it_over_sets_of_suits(count, cap, data):
    from bm_env.agents.pimc import _feasible

    full = (1 << len(cap)) - 1
    eligible = data.draw(st.lists(st.integers(0, full), min_size=4, max_size=4))
    assert _feasible(count, cap, eligible) == hall_over_suits(count, cap, eligible)
