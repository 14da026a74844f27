"""The vector engine started at positions in play (``load_positions``) against the reference engine.

Reference deals are played at random to a random point of the play (often in the middle of a
trick), loaded into the engine, and both are stepped with the same random legal cards to the
deal's end, acting players, masks, observations and final scores compared at every step; a game
the engine calls settled (``settled_scores``) must end with the scores it gave then.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from bm_env.engine.deal import PLAY, Deal, deal_cards, pass_direction_for
from bm_env.engine.rules import make_rules
from bm_env.env.observation import features, offsets
from bm_env.vector import make_engine
from bm_env.vector.positions import positions_of

from kit import CLASSIC_COUNTS, choose_legal, reference_obs


def deals_in_play(rules, count: int, seed: int) -> list[Deal]:
    """``count`` reference deals played at random past their passes to a random trick, every other one on to a
    random card after its lead (mid-trick)."""
    rng = np.random.default_rng(seed)
    n = rules.num_players
    out = []
    while len(out) < count:
        dealer = int(rng.integers(n))
        hands, kitty = deal_cards(rules, n, dealer, rng)
        d = Deal(rules, hands, dealer, pass_direction_for(rules, int(rng.integers(8)), rng), kitty=kitty)
        stop = int(rng.integers(rules.hand_size(n))) * n + (1 + int(rng.integers(n - 1)) if len(out) % 2 else 0)
        while d.phase != PLAY or sum(m.bit_count() for m in d.played) < stop:
            if d.phase != PLAY and d.phase != "pass":
                break
            d.step(int(rng.choice(d.legal_actions())))
        if d.phase == PLAY:
            out.append(d)
    return out


def play_on_side_by_side(rules, refs: list[Deal], seed: int) -> int:
    """Load ``refs`` into an engine and step both to every deal's end; returns how many games were settled
    before their end."""
    n = rules.num_players
    parts = offsets(n, features(rules))
    eng = make_engine(rules, len(refs), seed=seed)
    obs, mask, to_act = eng.load_positions(positions_of(refs))
    rng = np.random.default_rng(seed)
    live = np.ones(len(refs), dtype=bool)
    settled_at = {}  # game -> its scores the first time the engine called it settled
    steps = 0
    while live.any():
        settled, scores = eng.settled_scores()
        for i in np.flatnonzero(live & settled):
            settled_at.setdefault(int(i), tuple(scores[i]))
        for i in np.flatnonzero(live):
            ref = refs[i]
            where = f"game {i} after {steps} steps"
            assert to_act[i] == ref.to_act, f"{where}: to_act"
            assert np.array_equal(mask[i], ref.legal_mask()), f"{where}: mask"
            want = reference_obs(ref, ref.to_act)
            bad = [k for k, sl in parts.items() if not np.array_equal(obs[i][sl], want[sl])]
            assert not bad, f"{where}: observation differs in {bad}"
        actions = choose_legal(mask, rng)
        obs, mask, to_act, _, done, final = eng.step(actions)
        steps += 1
        for i in np.flatnonzero(live):
            refs[i].step(int(actions[i]))
            assert done[i] == refs[i].is_over, f"game {i}: done"
            if done[i]:
                assert tuple(final[i]) == refs[i].scores, f"game {i}: scores {final[i]} vs {refs[i].scores}"
                assert settled_at.get(int(i), refs[i].scores) == refs[i].scores, f"game {i}: settled scores"
                live[i] = False
    return len(settled_at)


@pytest.mark.parametrize("preset,n", CLASSIC_COUNTS, ids=[f"{p}-{n}" for p, n in CLASSIC_COUNTS])
def test_positions_in_play_go_on_as_in_the_reference(preset, n):
    rules = make_rules(preset, n)
    refs = deals_in_play(rules, 8, seed=n * 100 + len(preset))
    assert any(r.trick for r in refs) and any(not r.trick for r in refs)  # mid-trick and between tricks
    play_on_side_by_side(rules, refs, seed=1)


def test_games_are_settled_before_their_end_with_the_scores_they_end_with():
    rules = make_rules("black_maria")
    assert play_on_side_by_side(rules, deals_in_play(rules, 40, seed=9), seed=2) >= 5


def test_a_loaded_game_deals_again_when_its_deal_ends():
    rules = make_rules("black_maria")
    refs = deals_in_play(rules, 4, seed=3)
    eng = make_engine(rules, 4, seed=0)
    eng.load_positions(positions_of(refs))
    rng = np.random.default_rng(0)
    ended = np.zeros(4, dtype=bool)
    while not ended.all():
        live = ~ended
        ended |= eng.step(eng.random_actions(rng))[4] & live
    state = eng.state()
    assert (state["dealer"][ended] == (positions_of(refs).dealer[ended] + 1) % 3).all()
    assert (state["deal_number"] >= 1).all()


def test_bad_positions_are_refused():
    rules = make_rules("black_maria")
    p = positions_of(deals_in_play(rules, 2, seed=5))
    eng = make_engine(rules, 2, seed=0)
    with pytest.raises(ValueError, match=r"positions.hands is \(1, 3\), expected \(2, 3\)"):
        eng.load_positions(p.take([0]))
    doubled = dataclasses.replace(p, hands=p.hands.copy())
    doubled.hands[1, 0] |= doubled.hands[1, 1]
    with pytest.raises(ValueError, match="game 1: the position is not a deal of these rules in play"):
        eng.load_positions(doubled)
    with pytest.raises(ValueError, match="deal 0 is in phase 'pass'"):
        positions_of([Deal(rules, deal_cards(rules, 3, 0, np.random.default_rng(0))[0], 0, "right")])
    turbo = make_rules("turbo_hearts")
    with pytest.raises(ValueError, match="classic rules only"):
        make_engine(turbo, 2, seed=0).load_positions(p)
