"""Hidden information as a property: whatever lies where a seat cannot see, its view is the same.

A seeded random deal of any preset (and of every extension option, kit.EXTENSIONS) is played
to a random point before its tricks are over. For one seat, the card ids none of whose copies
it has seen (kit.unseen_cards: the other seats' unplayed hands and picks, the kitty it has not
taken, another taker's face-down discards) are relabelled by a random permutation, of any
values and suits, and the deal is rebuilt and played again with the actions relabelled the
same way (a relabelling under which some action is no longer legal is not a deal the seat
could be in, and is drawn again). At every decision the seat's observation, action mask,
info and text render must be byte-identical in both deals, and at the end its SVG and its
``bm-replay --seat`` page; the records, which hold every hand, must differ.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bm_env.black_maria_v0 import raw_env
from bm_env.engine.deal import DONE, MOON, Deal, clone_deal, deal_cards
from bm_env.engine.record import deal_record
from bm_env.engine.rules import PRESETS, make_rules
from bm_env.pictures.replay import replay_html

from kit import (EXTENSIONS, PRESET_COUNTS, hand_sizes_along, relabelled, relabelled_actions, replays_legally,
                 unseen_cards)

#: Every preset (at a player count it allows, drawn) and every extension configuration.
PRESET_CASES = {p: (p, [n for q, n in PRESET_COUNTS if q == p], {}) for p in PRESETS}
EXTENSION_CASES = {name: (p, [n], options) for name, (p, n, options) in EXTENSIONS.items()}
#: The fast suite's cases: every preset, and the extension configurations with a kitty.
QUICK_CASES = {**PRESET_CASES, **{name: case for name, case in EXTENSION_CASES.items()
                                  if make_rules(case[0], case[1][0], **case[2]).kitty_size()}}
#: Relabellings drawn before giving up on a point of a deal (a late point leaves few legal ones).
DRAWS = 40


def _played_deal(rules, rng: np.random.Generator, stop: int):
    """A random deal with a random pass direction, and random legal actions: as many as ``stop``
    says, at most until just before the tricks end (then the moon and the scores show what was
    hidden)."""
    n = rules.num_players
    dealer = int(rng.integers(n))
    hands, kitty = deal_cards(rules, n, dealer, rng)
    direction = rules.pass_cycle[int(rng.integers(len(rules.pass_cycle)))]
    deal = Deal(rules, hands, dealer, direction, kitty=kitty)
    decisions = sum(deal.hand_count(p) for p in range(n)) + n * deal.pass_count + len(kitty)
    actions = []
    for _ in range(stop % (decisions + 1)):
        a = int(rng.choice(np.flatnonzero(deal.legal_mask())))
        after = clone_deal(deal)
        after.step(a)
        if after.phase in (MOON, DONE):
            break
        deal = after
        actions.append(a)
    return deal, actions


def _relabelling(deal: Deal, seat: int, actions, rng: np.random.Generator):
    """A permutation of the cards ``seat`` has not seen that keeps every action legal and moves
    some card, as ``(hands, kitty, actions)``; None if none was drawn. The first draws permute
    them all, the later ones two to four of them, which a late point more often allows."""
    unseen = unseen_cards(deal, seat)
    original = (*relabelled(deal, {}), actions)
    sizes = hand_sizes_along(deal, *original)
    for draw in range(DRAWS):
        ids = unseen if draw < DRAWS // 2 else list(rng.choice(unseen, size=min(len(unseen), 2 + draw % 3),
                                                                 replace=False))
        relabel = dict(zip(ids, (int(c) for c in rng.permutation(ids))))
        found = (*relabelled(deal, relabel), relabelled_actions(actions, relabel))
        if found != original and replays_legally(deal, *found, sizes=sizes):
            return found
    return None


def _views(rules, hands, kitty, dealer, direction, actions, seat):
    """What ``seat`` is shown at every decision of ``actions`` on the deal, its SVG at the end, its
    replay page; and the deal's record."""
    e = raw_env(rules=rules, render_mode="ansi", render_seat=seat)
    options = {"hands": hands, "dealer": dealer, "pass_direction": direction}
    if rules.kitty_size(len(hands)):
        options["kitty"] = kitty
    e.reset(seed=0, options=options)
    me = f"player_{seat}"
    seen = []
    for a in actions + [None]:
        o = e.observe(me)
        seen.append((o["observation"].tobytes(), o["action_mask"].tobytes(), repr(e.infos[me]), e.render()))
        if a is not None:
            e.step(a)
    record = deal_record(e.match.deal)
    return seen, e.render_svg(seat), replay_html(record, seat=seat).encode(), record


def check_views_ignore_unseen_cards(case, seed: int, stop: int, observer: int) -> None:
    """Relabelling the cards a seat has not seen, whatever their values, leaves everything it is
    shown byte-identical: observation, mask, info and text at every decision, SVG, replay page."""
    preset, counts, options = case
    n = counts[seed % len(counts)]
    rules = make_rules(preset, n, **options)
    rng = np.random.default_rng(seed)
    deal, actions = _played_deal(rules, rng, stop)
    seat = observer % n
    found = _relabelling(deal, seat, actions, rng)
    assume(found is not None)
    hands, kitty, moved = found
    a_seen, a_svg, a_page, a_record = _views(rules, *relabelled(deal, {}), deal.dealer, deal.pass_direction, actions,
                                             seat)
    b_seen, b_svg, b_page, b_record = _views(rules, hands, kitty, deal.dealer, deal.pass_direction, moved, seat)
    assert a_record != b_record, "the relabelling moved no card (the test would be void)"
    for i, (a, b) in enumerate(zip(a_seen, b_seen)):
        for what, x, y in zip(("observation", "action mask", "info", "text render"), a, b):
            assert x == y, f"{preset} ({n}): seat {seat}'s {what} at decision {i} depends on cards it has not seen"
    assert a_svg == b_svg, f"{preset} ({n}): seat {seat}'s SVG depends on cards it has not seen"
    assert a_page == b_page, f"{preset} ({n}): seat {seat}'s bm-replay page depends on cards it has not seen"


def _property(cases: dict, examples: int):
    @pytest.mark.parametrize("name", list(cases))
    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(seed=st.integers(0, 2**32 - 1), stop=st.integers(1, 10**6), observer=st.integers(0, 9))
    def test(name, seed, stop, observer):
        check_views_ignore_unseen_cards(cases[name], seed, stop, observer)

    test.__doc__ = check_views_ignore_unseen_cards.__doc__
    return test


test_a_seat_sees_the_same_whatever_lies_where_it_cannot_see = _property(QUICK_CASES, 3)
test_a_seat_sees_the_same_whatever_lies_where_it_cannot_see_slow = pytest.mark.slow(
    _property({**PRESET_CASES, **EXTENSION_CASES}, 25))
