"""Invariants of random legal play under every issue-6 preset and option, and what may not leak.

For each configuration, hypothesis draws seeds; a seeded chooser plays legal actions. Checked:
masks are never empty and hold only actions of the phase; every copy of every card ends in
exactly one trick or in the kitty's owner's pile (two copies each with two decks); all the
points of the deal are captured by someone; the same seed replays identically; an
observation does not change when cards hidden from its seat move between other players;
the observation decodes back to the information state; the vector engine refuses the options.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bm_env.actions import CHARGE_CARD, CHARGE_DONE, MOON_ADD, MOON_SUBTRACT, PASS_ON
from bm_env.cards import cards_of
from bm_env.deal import CHARGE, DISCARD, DONE, MOON, PASS, PLAY, clone_deal
from bm_env.infostate import information_state
from bm_env.match import Match
from bm_env.observation import decode, encode, size_for
from bm_env.rules import make_rules
from bm_env.vector import check_supported

CONFIGS = [
    ("cancellation", 6, {}), ("cancellation", 7, {}), ("cancellation", 8, {}), ("cancellation", 9, {}),
    ("cancellation", 10, {}),
    ("turbo_hearts", 4, {}), ("booster_nines", 4, {}), ("partnership_hearts", 4, {}),
    ("partnership_hearts", 4, {"teams": "individual", "moon": "shooter_minus"}),
    ("american_hearts", 3, {"kitty": "first_trick"}),
    ("american_hearts", 5, {"kitty": "first_point", "kitty_to_hand": True, "pass_cycle": "five_second"}),
    ("american_hearts", 3, {"pass_count": 4, "pass_cycle": "three_scatter_hold", "optional_pass": True}),
    ("american_hearts", 4, {"pass_cycle": "scatter_and_hold", "optional_pass": True, "moon": "shooter_choice",
                            "sun_points": 52, "queen_when_safe": True, "exact_reset": (100, 50)}),
    ("black_maria", 4, {"moon": "shooter_choice", "queen_when_safe": True}),
]
IDS = [f"{p}-{n}-{'-'.join(kw)}" for p, n, kw in CONFIGS]
PHASE_ACTIONS = {
    PASS: set(range(52)) | {PASS_ON}, CHARGE: set(CHARGE_CARD) | {CHARGE_DONE}, PLAY: set(range(52)),
    DISCARD: set(range(52)), MOON: {MOON_SUBTRACT, MOON_ADD},
}


def rules_of(cfg):
    p, n, kw = cfg
    return make_rules(p, n, **kw)


def play_deal(m: Match, chooser: random.Random, on_step=None):
    """Play the deal in progress to its end; return it."""
    deal = m.deal
    while deal.phase != DONE:
        legal = cards_of(deal.legal)
        assert legal, f"empty mask in phase {deal.phase}"
        assert set(legal) <= PHASE_ACTIONS[deal.phase], (deal.phase, legal)
        if deal.phase == PLAY:
            assert set(legal) <= set(deal.hand_cards(deal.to_act))
        if on_step:
            on_step(deal)
        deal.step(legal[chooser.randrange(len(legal))])
    return deal


def deck_copies(rules, k):
    return Counter(cards_of(rules.deck_mask(k)) * rules.decks)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_copy_ends_in_one_pile_and_every_point_is_taken(cfg, seed):
    rules = rules_of(cfg)
    m = Match(rules, seed)
    deal = play_deal(m, random.Random(seed))
    k = deal.num_players
    piles = Counter(c for _, cs, _ in deal.tricks for c in cs)
    piles.update(deal.kitty_discards if rules.kitty_to_hand and deal.kitty_discards else deal.kitty)
    assert piles == deck_copies(rules, k)
    assert all(h == 0 for h in deal.hands) and all(h == 0 for h in deal.hands2)
    # Every point is captured: the values (after any charges) of all copies, kitty included.
    assert sum(deal.captured) == sum(deal.values[c] * m for c, m in piles.items())
    assert sum(deal.penalty_taken) == deal.penalty_total
    assert sum(deal.tricks_won) == sum(1 for t in deal.tricks)
    assert deal.pending == []
    if rules.booster_nines:
        for i, (_, cs, _) in enumerate(deal.tricks):
            led = cs[0] // 13
            nines = sum(1 for c in cs[:-k] if c // 13 == led and c % 13 == 7) if len(cs) > k else 0
            assert len(cs) == k * (1 + nines) or i == len(deal.tricks) - 1
    if rules.teams == "joint":
        assert deal.scores[0] == deal.scores[2] and deal.scores[1] == deal.scores[3]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_same_seed_same_game(cfg):
    rules = rules_of(cfg)
    runs = []
    for _ in range(2):
        m = Match(rules, 123)
        deal = play_deal(m, random.Random(5))
        runs.append((deal.tricks, deal.scores, deal.kitty, deal.charged))
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


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_observation_does_not_see_other_hands(cfg, seed):
    rules = rules_of(cfg)
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

    play_deal(m, chooser, check)
    assert checked > 0


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_observation_decodes_back_to_the_information_state(cfg, seed):
    rules = rules_of(cfg)
    n = rules.num_players
    m = Match(rules, seed)
    chooser = random.Random(seed)

    def check(deal):
        if chooser.random() > 0.1:
            return
        seat = chooser.randrange(n)
        info = information_state(deal, seat, m.totals, m.deals_played)
        vec = encode(info)
        assert vec.shape == (size_for(rules),) and vec.dtype == np.int8
        d = decode(vec, n, rules)
        rel = lambda s: (s - seat) % n  # noqa: E731
        assert d["hand"] == tuple(sorted(info.hand))
        for s in range(n):
            r = rel(s)
            assert d[f"played_by_seat{r}"] == tuple(sorted(c for p, c in info.plays if p == s))
            assert d[f"trick_card_seat{r}"] == tuple(sorted(c for p, c in info.current_trick if p == s))
        assert d["received"] == tuple(sorted(info.received))
        assert d["extra_phase"] == tuple(int(info.phase == ph) for ph in ("charge", "discard", "moon"))
        if rules.kitty != "none":
            assert d["kitty_size"] == (info.kitty_size,)
            assert d["kitty_cards"] == tuple(sorted(info.kitty))
        if rules.decks == 2:
            assert d["pending_trick_cards"] == tuple(sorted(info.pending))
        if rules.charging:
            for s in range(n):
                charged = d["charged"][4 * rel(s): 4 * rel(s) + 4]
                assert sum(charged) == len(info.charged[s])
        if rules.teams != "none":
            assert d["partner"].index(1) == 2

    play_deal(m, chooser, check)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_vector_engine_plays_the_new_options(cfg):
    check_supported(rules_of(cfg))  # raises UnsupportedRulesError, naming the option, for one it does not play


def test_classic_presets_keep_their_action_space_and_observation_size():
    from bm_env.observation import size
    from bm_env.rules import PRESETS

    for preset, spec in PRESETS.items():
        for n in spec[2]:
            r = make_rules(preset, n)
            if not r.uses_extensions:
                assert r.num_actions == 52 and size_for(r) == size(n)


def test_vector_engine_masks_have_the_extra_action_ids():
    from bm_env.vector import VectorEngine

    assert VectorEngine(make_rules("american_hearts", moon="shooter_choice"), 4).reset()[1].shape == (4, 59)
    assert VectorEngine(make_rules("turbo_hearts"), 4).reset()[1].shape == (4, 57)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), when=st.integers(0, 80))
def test_renege_penalty_in_any_decision_ends_the_deal_and_replays(cfg, seed, when):
    """Under the renege penalty an illegal action (a card or an extra id) ends the deal; the record replays."""
    import json

    from bm_env.record import deal_record, replay_deal

    rules = rules_of(cfg)
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
