"""The batched search (``search:guide=...``): its worlds, its values, its choices, its spec.

The worlds are checked against what the seat knows and against the real deal (the seat's own
observation in each world is the one it has in the real deal); the values on a scripted
position whose outcome does not depend on the hidden cards or on how the network plays; the
agent plays whole deals legally in every preset it plays, through the harness's face.
"""

from __future__ import annotations

import numpy as np
import pytest

from bm_env.agents import AgentSpecError, make_agent
from bm_env.engine.cards import QUEEN_SPADES, ACE_SPADES, cards_of, mask_of
from bm_env.engine.deal import Deal
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import direction_offset, make_rules
from bm_env.env.observation import encode
from bm_env.evaluation.boards import make_boards
from bm_env.evaluation.play import play_board
from bm_env.vector import make_engine

from bm_env.agents.pimc import world_deal
from bm_env.agents.worlds import draw_hands, voids_tell_all, world_positions

from kit import CLASSIC_COUNTS, cards, do_passes, mid_play_states, prepass_hands, reference_obs


def tiny_guide(tmp_path, rules, seed=0):
    """A small untrained policy checkpoint for ``rules``: the search's values must not depend on it being good."""
    import torch

    from bm_env.agents.checkpoint import PolicyNet, save_checkpoint
    from bm_env.env import observation

    torch.manual_seed(seed)
    path = tmp_path / f"guide_{rules.num_players}_{abs(hash(rules)) % 10**6}.pt"
    save_checkpoint(path, PolicyNet(observation.size_for(rules), rules.num_actions, hidden=(16,)), rules)
    return str(path)


def mid_play(rules, count, seed):
    """``(deal, info)`` at random points of heuristic play, from the first lead on."""
    return mid_play_states(rules, count, seed, earliest=0)


WORLD_TABLES = CLASSIC_COUNTS[::3] + [("openspiel_hearts", 4)]  # the last draws pimc's way (points barred on trick 1)


def skewed_belief(tmp_path, rules):
    """A belief network file for ``rules`` far from the uniform belief (random output weights)."""
    import torch

    from bm_env.agents.belief import BeliefNet, save_belief
    from bm_env.env import observation

    torch.manual_seed(1)
    net = BeliefNet(observation.size_for(rules), rules.num_players, (16,))
    torch.nn.init.normal_(net.body[-1].weight, std=3.0)
    path = tmp_path / f"belief_{rules.num_players}.pt"
    save_belief(path, net, rules, ["heuristic"])
    return str(path)


@pytest.mark.parametrize("preset,n,weights", [(p, n, "") for p, n in WORLD_TABLES]
                         + [("black_maria", 3, "read_passes"), ("black_maria", 3, "belief"), ("american_hearts", 4, "belief")],
                         ids=[f"{p}-{n}" for p, n in WORLD_TABLES]
                         + ["black_maria-3-read_passes", "black_maria-3-belief", "american_hearts-4-belief"])
def test_worlds_hold_what_the_seat_knows_and_show_it_its_real_observation(tmp_path, preset, n, weights):
    rules = make_rules(preset, n)
    extra = {"": "", "read_passes": ",read_passes=true", "belief": f",belief={skewed_belief(tmp_path, rules)}"}[weights]
    agent = make_agent(f"search:guide={tiny_guide(tmp_path, rules)}{extra}", rules, 1)
    rng = np.random.default_rng(n)
    for real, info in mid_play(rules, 2 if weights == "read_passes" else 4, seed=n):  # reading the passes takes a while
        pos = info.seat
        affinity = agent.world_weights(info, encode(info))
        assert (affinity is None) == (weights == "")
        worlds = world_positions(info, rng, 6, affinity)
        engine = make_engine(rules, len(worlds), seed=0)
        obs, _, to_act = engine.load_positions(worlds)  # also checks each world is a deal of the rules in play
        assert (to_act == pos).all()
        assert (obs == reference_obs(real, pos)).all()  # its hand, pass, the play, the points: all as in the real deal
        offset = direction_offset(real.pass_direction, n) if real.pass_count else 0
        for w in range(len(worlds)):
            hands = [int(h) for h in worlds.hands[w]]
            assert hands[pos] == real.hands[pos]
            assert [int(p) for p in worlds.played[w]] == list(real.played)
            for p in range(n):
                assert hands[p].bit_count() == real.hands[p].bit_count()
                for suit in range(4):
                    if real.voids[p] >> suit & 1:
                        assert not hands[p] & (0x1FFF << 13 * suit), f"seat {p} holds a suit it showed void in"
            for seat, held in info.known_held.items():
                assert hands[seat] & mask_of(held) == mask_of(held)  # the cards it passed, still held
            if offset:
                for p in range(n):  # every pass lands with its receiver, among its cards at the start of play
                    r = (p + offset) % n
                    assert int(worlds.received[w, r]) == int(worlds.passed[w, p])
                    assert int(worlds.passed[w, p]) & ~(hands[r] | int(worlds.played[w, r])) == 0
                    assert int(worlds.passed[w, p]).bit_count() == real.pass_count


def test_worlds_are_drawn_afresh_and_the_real_hands_are_not_read():
    rules = make_rules("black_maria")
    real, info = mid_play(rules, 1, seed=4)[0]
    hands = world_positions(info, np.random.default_rng(0), 20).hands
    assert len({tuple(int(h) for h in row) for row in hands}) > 1
    assert not all(tuple(int(h) for h in row) == real.hands for row in hands)


@pytest.mark.parametrize("preset,n", [(p, n) for p, n in CLASSIC_COUNTS if voids_tell_all(make_rules(p, n))][::2])
def test_hands_drawn_by_the_voids_replay_every_past_card_legally(preset, n):
    rules = make_rules(preset, n)
    rng = np.random.default_rng(1)
    drawn = 0
    for _, info in mid_play(rules, 6, seed=n + 1):
        hands = draw_hands(info, rng, 10)
        if hands is None:
            continue
        for row in hands:
            world_deal(info, {s: int(row[info.seats.index(s)]) for s in info.seats if s != info.seat})
            drawn += 1
    assert drawn >= 30


def test_hands_drawn_by_the_voids_are_uniform():
    """No void shown: each hidden card lies with each other player in proportion to the cards it holds."""
    rules = make_rules("american_hearts")
    real, info = next((d, i) for d, i in mid_play(rules, 20, seed=7) if not any(i.voids) and len(i.unseen) > 20)
    hands = draw_hands(info, np.random.default_rng(0), 4000)
    others = [p for p in range(4) if p != info.seat]
    room = np.array([info.hand_sizes[p] - len(info.known_held.get(p, ())) for p in others], dtype=float)
    for c in info.unseen:
        share = np.array([((hands[:, p] >> np.uint64(c)) & np.uint64(1)).mean() for p in others])
        np.testing.assert_allclose(share, room / room.sum(), atol=0.035)


def scripted_position(rules):
    """Black Maria, 3 players, seat 0 last to play to the 16th of 17 tricks: seat 1 has led K♠ and seat 2 put
    3♠ on it; seat 0 holds Q♠ and A♠, and the last cards of the others are 2♥ and 3♥, one each.

    Seat 1 led and won the first 15 tricks with its top diamonds and clubs. Q♠ gives the trick (23) to seat 1,
    which leads a heart to the last trick, where A♠ is thrown away: seat 0 takes 0 more. A♠ takes K♠ (10 + 7)
    and leads Q♠ to the last trick, which nobody can beat: 13 + 2 hearts more, 32 in all. The same in every
    world and whoever plays: the search must value Q♠ at 0 and A♠ at -32 (lower scores win)."""
    one = cards("AD KD QD JD TD 9D 8D 7D AC KC QC JC TC 9C 8C KS 2H")
    zero_rest = cards("QS AS 6D 5D 4D 3D 2D 7C 6C 5C 4C 3C 4H 5H 6H 7H 8H")
    two_rest = cards("3S 3H 2S 4S 5S 6S 7S 8S 9S TS JS 9H TH JH QH KH AH")
    final = [mask_of(zero_rest), mask_of(one), mask_of(two_rest)]
    offset = direction_offset("right", 3)
    before, picks = prepass_hands(final, offset, 3)
    deal = Deal(rules, before, 0, "right")
    from bm_env.engine.cards import card_str

    do_passes(deal, {p: " ".join(card_str(c) for c in picks[p]) for p in range(3)})
    keep = {0: {QUEEN_SPADES, ACE_SPADES}, 2: set(cards("3S 3H"))}
    for lead in one[:15]:
        deal.step(lead)
        for p in (2, 0):
            legal = cards_of(deal.legal)
            free = [c for c in legal if c not in keep.get(p, ())]
            deal.step(min(free))
    assert len(deal.tricks) == 15 and all(w == 1 for _, _, w in deal.tricks)
    deal.step(cards("KS")[0])
    deal.step(cards("3S")[0])
    return deal


def test_values_on_a_scripted_position_are_the_hand_worked_outcomes(tmp_path):
    rules = make_rules("black_maria")
    deal = scripted_position(rules)
    info = information_state(deal, 0)
    assert set(info.unseen) <= set(cards("2H 3H")) and deal.captured[0] == 0
    agent = make_agent(f"search:guide={tiny_guide(tmp_path, rules)},worlds=4", rules, 0)
    found = agent.search([info], encode(info)[None], deal.legal_mask()[None])
    legal = np.flatnonzero(~np.isnan(found.values[0]))
    assert sorted(legal) == sorted([QUEEN_SPADES, ACE_SPADES])
    assert found.values[0, QUEEN_SPADES] == 0 and found.values[0, ACE_SPADES] == -32
    assert found.errors[0, QUEEN_SPADES] == 0 and found.errors[0, ACE_SPADES] == 0
    assert found.choices[0] == QUEEN_SPADES  # whatever the untrained guide proposed: a sure gain of 32
    assert agent.act(encode(info), deal.legal_mask(), info) == QUEEN_SPADES
    assert agent.explain().values == {QUEEN_SPADES: 0.0, ACE_SPADES: -32.0}


def test_the_search_keeps_the_guides_card_unless_another_is_surely_better(tmp_path):
    rules = make_rules("black_maria")
    agent = make_agent(f"search:guide={tiny_guide(tmp_path, rules)},worlds=6", rules, 3)
    sure = make_agent(f"search:guide={tiny_guide(tmp_path, rules)},worlds=6,override_z=1000", rules, 3)
    states = mid_play(rules, 4, seed=11)
    infos = [info for _, info in states]
    obs = np.stack([encode(i) for i in infos])
    masks = np.stack([d.legal_mask() for d, _ in states])
    found, kept = agent.search(infos, obs, masks), sure.search(infos, obs, masks)
    np.testing.assert_array_equal(found.values, kept.values)  # the same seed: the same worlds and playouts
    for i in range(len(infos)):
        row = found.values[i]
        if np.isnan(row).all():
            assert found.choices[i] == found.guide[i]
            continue
        best = np.nanargmax(row)
        assert found.choices[i] in (best, found.guide[i])
        if found.choices[i] != found.guide[i]:  # overridden: better by more than one standard error of the gain
            assert row[found.choices[i]] > row[found.guide[i]]
        spread_free = found.errors[i, best] == 0 and found.errors[i, found.guide[i]] == 0
        if not spread_free:
            assert kept.choices[i] == kept.guide[i]  # 1000 standard errors: never sure enough


def test_seeded_searches_repeat_and_other_seeds_differ(tmp_path):
    rules = make_rules("black_maria")
    guide = tiny_guide(tmp_path, rules)
    states = mid_play(rules, 3, seed=2)
    infos = [info for _, info in states]
    args = (infos, np.stack([encode(i) for i in infos]), np.stack([d.legal_mask() for d, _ in states]))
    runs = [make_agent(f"search:guide={guide},worlds=3,playouts=sampled", rules, s).search(*args) for s in (7, 7, 8)]
    np.testing.assert_array_equal(runs[0].values, runs[1].values)
    np.testing.assert_array_equal(runs[0].choices, runs[1].choices)
    assert not np.array_equal(runs[0].values, runs[2].values, equal_nan=True)
    again = make_agent(f"search:guide={guide},worlds=3", rules, 7)
    first = again.search(*args).values
    again.reset(7)
    np.testing.assert_array_equal(again.search(*args).values, first)


#: Two tables in the fast suite; every classic preset and player count behind ``slow``.
PLAYED = [pytest.param(p, n, marks=() if (p, n) in (("black_maria", 3), ("american_hearts", 4)) else pytest.mark.slow,
                       id=f"{p}-{n}") for p, n in CLASSIC_COUNTS]


@pytest.mark.parametrize("preset,n", PLAYED)
def test_search_plays_legal_deals_in_every_classic_preset(tmp_path, preset, n):
    rules = make_rules(preset, n)
    guide = tiny_guide(tmp_path, rules)
    search = make_agent(f"search:guide={guide},worlds=1", rules, 0)
    others = [make_agent("heuristic", rules, s) for s in range(1, n)]
    board = make_boards(rules, 1, 5)[0]
    searched = []

    class Watch:  # the harness's face: act(observation, mask, info), explain()
        needs_observation = True
        name = search.name

        def act(self, observation, mask, info):
            card = search.act(observation, mask, info)
            assert mask[card] == 1
            thought = search.explain()
            if thought is not None:
                assert set(thought.values) == set(np.flatnonzero(mask)) and card in thought.values
                searched.append(card)
            return card

    deal = play_board(rules, board, [Watch()] + others)
    assert deal.is_over and searched


def test_search_refuses_what_it_does_not_play(tmp_path):
    bm = make_rules("black_maria")
    guide = tiny_guide(tmp_path, bm)
    with pytest.raises(AgentSpecError, match=r"search plays the classic rules only.*charging"):
        make_agent(f"search:guide={guide}", make_rules("turbo_hearts"), 0)
    with pytest.raises(AgentSpecError, match="search needs a guide network"):
        make_agent("search:worlds=4", bm, 0)
    with pytest.raises(AgentSpecError, match=r"worlds must be a whole number from 1 to 1024"):
        make_agent(f"search:guide={guide},worlds=5000", bm, 0)
    with pytest.raises(AgentSpecError, match=r"playouts='best'; allowed: \['greedy', 'sampled'\]"):
        make_agent(f"search:guide={guide},playouts=best", bm, 0)
    with pytest.raises(AgentSpecError, match="override_z must be a number of at least 0, got 'nan'"):
        make_agent(f"search:guide={guide},override_z=nan", bm, 0)
    with pytest.raises(AgentSpecError, match="belief and read_passes both weight the worlds' draw"):
        make_agent(f"search:guide={guide},read_passes=true,belief={skewed_belief(tmp_path, bm)}", bm, 0)
    with pytest.raises(AgentSpecError, match="trained for other rules"):
        make_agent(f"search:guide={tiny_guide(tmp_path, make_rules('american_hearts'))},"
                   f"belief={skewed_belief(tmp_path, bm)}", make_rules("american_hearts"), 0)
    with pytest.raises(AgentSpecError, match="is not a belief network file"):
        make_agent(f"search:guide={guide},belief={guide}", bm, 0)
    from bm_env.agents import CheckpointError

    with pytest.raises(CheckpointError, match="other rules"):
        make_agent(f"search:guide={guide}", make_rules("american_hearts"), 0)


def test_the_playout_network_gives_the_checkpoints_logits(tmp_path):
    import torch

    from bm_env.agents.checkpoint import masked_logits

    rules = make_rules("american_hearts")
    agent = make_agent(f"search:guide={tiny_guide(tmp_path, rules)}", rules, 0)
    engine = make_engine(rules, 64, seed=0)
    obs, mask, _ = engine.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        obs, mask, *_ = engine.step(engine.random_actions(rng))
    with torch.no_grad():
        dense = masked_logits(agent.net(torch.as_tensor(obs, dtype=torch.float32)), torch.as_tensor(mask != 0)).numpy()
    np.testing.assert_allclose(agent._logits(obs, mask)[mask != 0], dense[mask != 0], atol=1e-4)
    assert (agent._logits(obs, mask)[mask == 0] < -1e30).all()
