"""Invariants of random legal play under every extension preset and option (kit.EXTENSIONS), and
what may not leak; tests/test_engine_properties.py has those of the classic presets.

For each configuration, hypothesis draws seeds; a seeded chooser plays legal actions
(kit.play_random_deal, which checks that masks are never empty and hold only actions of the
phase). Checked: every copy of every card ends in exactly one trick or in the kitty's
owner's pile (two copies each with two decks); all the points of the deal are captured by
someone; the same seed replays identically; an observation does not change when cards
hidden from its seat move between other players; a renege in any decision ends the deal
and its record replays.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bm_env.engine.cards import cards_of
from bm_env.engine.deal import DONE, clone_deal
from bm_env.engine.infostate import information_state
from bm_env.engine.match import Match
from bm_env.env.observation import encode
from bm_env.systems import charging, domino

from kit import EXTENSIONS, extension_rules, play_random_deal

NAMES = list(EXTENSIONS)


def deck_copies(rules, k):
    return Counter(cards_of(rules.deck_mask(k)) * rules.decks)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_copy_ends_in_one_pile_and_every_point_is_taken(name, seed):
    rules = extension_rules(name)
    m = Match(rules, seed)
    deal = play_random_deal(m, random.Random(seed))
    k = deal.num_players
    piles = Counter(c for _, cs, _ in deal.tricks for c in cs)
    if rules.domino:  # the stock's cards were drawn and played, or kept with the last hand
        piles.update(c for p in range(k) for c in cards_of(domino.kept(deal, p)))
    else:
        piles.update(deal.kitty_discards if rules.kitty_to_hand and deal.kitty_discards else deal.kitty)
    assert piles == deck_copies(rules, k)
    assert all(h == 0 for h in deal.hands) and all(h == 0 for h in deal.hands_twice)
    # Every point is captured: the values (after any charges) of all copies, kitty included.
    assert sum(deal.captured) == sum(deal.values[c] * m for c, m in piles.items())
    assert sum(deal.penalty_taken) == deal.penalty_total
    assert sum(deal.tricks_won) == sum(1 for t in deal.tricks)
    assert deal.pending == ()
    if rules.booster_nines:
        for i, (_, cs, _) in enumerate(deal.tricks):
            led = cs[0] // 13
            nines = sum(1 for c in cs[:-k] if c // 13 == led and c % 13 == 7) if len(cs) > k else 0
            assert len(cs) == k * (1 + nines) or i == len(deal.tricks) - 1
    if rules.teams == "joint":
        assert deal.scores[0] == deal.scores[2] and deal.scores[1] == deal.scores[3]


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_game(name):
    rules = extension_rules(name)
    runs = []
    for _ in range(2):
        m = Match(rules, 123)
        deal = play_random_deal(m, random.Random(5))
        runs.append((deal.tricks, deal.scores, deal.kitty, charging.charged(deal)))
    assert runs[0] == runs[1]


def _swap_hidden(deal, seat_pos, rng):
    """Move one card between two other players' hands (or a hand and the untaken kitty), in place."""
    k = deal.num_players
    others = [p for p in range(k) if p != seat_pos and deal.hand_count(p)]
    info = information_state(deal, deal.seats[seat_pos])
    known = Counter(c for cs in info.known_held.values() for c in cs)
    if deal.kitty and deal.kitty_taker is None and others and rng.random() < 0.5:
        # A hand card and a face-down kitty card trade places.
        a = rng.choice(others)
        ca, i = rng.choice(deal.hand_cards(a)), rng.randrange(len(deal.kitty))
        if known[ca] or ca == deal.kitty[i]:
            return False
        try:
            deal._remove(a, 1 << ca)
            deal._add(a, deal.kitty[i])
        except AssertionError:
            return False
        deal.kitty = tuple(sorted(deal.kitty[:i] + (ca,) + deal.kitty[i + 1:]))
        return True
    if len(others) < 2:
        return False
    a, b = rng.sample(others, 2)
    ca, cb = rng.choice(deal.hand_cards(a)), rng.choice(deal.hand_cards(b))
    if ca == cb or known[ca] or known[cb]:
        return False
    try:
        deal._remove(a, 1 << ca)
        deal._remove(b, 1 << cb)
        deal._add(a, cb)
        deal._add(b, ca)
    except AssertionError:
        return False
    return True


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_observation_does_not_see_other_hands(name, seed):
    rules = extension_rules(name)
    m = Match(rules, seed)
    chooser = random.Random(seed)
    checked = 0

    steps = 0

    def check(deal):
        nonlocal checked, steps
        steps += 1
        if steps % 4:
            return
        for pos in range(deal.num_players):
            if pos == deal.to_act:
                continue  # the actor's legal cards would differ; its hand is its own
            seat = deal.seats[pos]
            before = encode(information_state(deal, seat, m.totals, m.deals_played))
            other = clone_deal(deal)
            if _swap_hidden(other, pos, chooser):
                after = encode(information_state(other, seat, m.totals, m.deals_played))
                np.testing.assert_array_equal(before, after)
                checked += 1

    play_random_deal(m, chooser, check)
    assert checked > 0


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), when=st.integers(0, 80))
def test_renege_penalty_in_any_decision_ends_the_deal_and_replays(name, seed, when):
    """Under the renege penalty an illegal action (a card or an extra id) ends the deal; the record replays."""
    import json

    from bm_env.engine.record import deal_record, replay_deal

    rules = extension_rules(name)
    m = Match(rules, seed, on_illegal="renege_penalty")
    deal = m.deal
    chooser = random.Random(seed)
    for _ in range(when):
        if deal.phase == DONE:
            break
        legal = cards_of(deal.legal)
        deal.step(legal[chooser.randrange(len(legal))])
    if deal.phase == DONE:
        return
    illegal = [a for a in range(rules.num_actions) if not deal.legal >> a & 1]
    p, phase = deal.to_act, deal.phase
    a = illegal[chooser.randrange(len(illegal))]
    deal.step(a)
    assert deal.phase == DONE and deal.renege == (p, a, phase)
    team = 2 if rules.teams == "joint" else 1  # joint partners share the penalty
    assert deal.scores[p] == deal.penalty_total and sum(deal.scores) == team * deal.penalty_total
    rec = json.loads(json.dumps(deal_record(deal)))
    assert replay_deal(rec).scores == deal.scores
