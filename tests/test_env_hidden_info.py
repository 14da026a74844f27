"""Hidden information: what one player observes cannot depend on what they cannot know."""

import re

import numpy as np
import pytest

from bm_env.black_maria_v0 import raw_env
from bm_env.engine.cards import cards_of
from bm_env.engine.deal import DISCARD, PASS, deal_hands
from bm_env.env.observation import decode, offsets

from kit import cards, names, swap_unseen


def _play(kwargs, hands, dealer, actions, observer):
    """Replay ``actions`` on the given deal; return what ``observer`` sees at each decision and seat 1's rows."""
    e = raw_env(render_mode="ansi", render_seat=observer, **kwargs)
    e.reset(seed=0, options={"hands": hands, "dealer": dealer})
    me = f"player_{observer}"
    seen, others = [], []
    for a in actions:
        o = e.observe(me)
        seen.append((o["observation"].tobytes(), o["action_mask"].tobytes(), dict(e.infos[me]), e.render()))
        others.append(e.observe("player_1")["observation"].tobytes())
        e.step(a)
    o = e.observe(me)
    seen.append((o["observation"].tobytes(), o["action_mask"].tobytes(), dict(e.infos[me]), e.render()))
    return seen, others, e


def _random_actions(kwargs, hands, dealer, count, rng):
    e = raw_env(**kwargs)
    e.reset(seed=0, options={"hands": hands, "dealer": dealer})
    actions = []
    for _ in range(count):
        if e.terminations[e.agent_selection]:
            break
        a = int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])))
        actions.append(a)
        e.step(a)
    return actions, e


@pytest.mark.parametrize("preset,n", [("black_maria", 3), ("black_maria", 4), ("american_hearts", 4), ("omnibus", 5),
                                      ("turbo_hearts", 4), ("booster_nines", 4), ("partnership_hearts", 4)])
def test_observer_cannot_tell_apart_deals_differing_in_others_unplayed_cards(preset, n):
    """Swap two unplayed cards between seats 1 and 2 (same suit, same value, both dealt to them and
    never passed): every legal move stays legal, so the same actions replay, and seat 0 must see
    exactly the same observations, masks, infos and render at every decision."""
    kwargs = dict(rules=preset, num_players=n)
    rng = np.random.default_rng(n)
    checked = 0
    for trial in range(40):
        e0 = raw_env(**kwargs)
        hands = deal_hands(e0.rules, n, 0, rng)
        actions, e = _random_actions(kwargs, hands, 0, int(rng.integers(n * 3, n * 9)), rng)
        swap = swap_unseen(e.rules, e.match.deal, hands, rng)
        if swap is None:
            continue
        x, y, swapped = swap
        a, other_a, _ = _play(kwargs, hands, 0, actions, observer=0)
        b, other_b, _ = _play(kwargs, swapped, 0, actions, observer=0)
        assert a == b, f"seat 0's view depends on where {x} and {y} lie"
        assert other_a != other_b, "seat 1's own view must change (the test would be void otherwise)"
        checked += 1
    assert checked >= 5


def test_received_cards_are_invisible_until_every_player_has_passed():
    """Black Maria passes right: seat 0 receives from seat 1. Two runs differ only in seat 1's picks."""
    kwargs = dict(rules="black_maria", num_players=3)
    rng = np.random.default_rng(1)
    hands = deal_hands(raw_env().rules, 3, 2, rng)  # dealer 2: eldest is seat 0, seat 1 passes second
    views = []
    for pick in (0, -1):
        e = raw_env(**kwargs)
        e.reset(seed=0, options={"hands": hands, "dealer": 2})
        seen = []
        while e.match.deal.phase == PASS:
            seen.append(e.observe("player_0")["observation"].copy())
            legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
            e.step(int(legal[pick if e.agent_selection == "player_1" else 0]))
        views.append((seen, e.observe("player_0")["observation"].copy(), e.information_state("player_0")))
    (seen_a, after_a, info_a), (seen_b, after_b, info_b) = views
    assert len(seen_a) == len(seen_b) == 9
    for va, vb in zip(seen_a, seen_b):
        np.testing.assert_array_equal(va, vb)
    received = offsets(3)["received"]
    assert not any(v[received].any() for v in seen_a)
    assert info_a.received != info_b.received
    assert sorted(np.flatnonzero(after_a[received])) == sorted(info_a.received)
    assert not np.array_equal(after_a, after_b)


def test_render_shows_other_hands_only_on_request():
    e = raw_env(render_mode="ansi", render_seat=0)
    e.reset(seed=2)
    text = e.render()
    assert "[revealed]" not in text
    e.render_reveal = True
    revealed = e.render()
    assert "[revealed] player_1" in revealed and "[revealed] player_2" in revealed


def test_state_holds_every_hand_but_observe_does_not():
    e = raw_env()
    e.reset(seed=3)
    st = e.state()
    deal = e.match.deal
    for s in range(3):
        assert sorted(np.flatnonzero(st[52 * s:52 * (s + 1)])) == cards_of(deal.hands[s])
    obs0 = e.observe("player_0")["observation"]
    assert sorted(np.flatnonzero(obs0[:52])) == cards_of(deal.hands[0])
    others = deal.hands[1] | deal.hands[2]
    # No 52-card plane of seat 0's observation holds another seat's cards at this point (nothing played yet).
    card_planes = [sl for name, sl in offsets(3).items() if sl.stop - sl.start == 52 and name not in ("no_pass_cards", "card_values")]
    assert len(card_planes) == 10  # hand, received, played and trick card of 3 seats, passed to 2 seats
    for sl in card_planes:
        plane = set(np.flatnonzero(obs0[sl]))
        assert not plane & set(cards_of(others))
    assert e.state_space.contains(st)


def _deal_points_shown(svg: str, seat: int) -> int:
    return int(re.search(rf'class="deal-points" data-seat="{seat}" data-value="(-?\d+)"', svg).group(1))


def test_the_kittys_points_are_its_takers_alone_until_the_deal_is_scored():
    """Cancellation, seed 0, lowest legal card each time: an all-clubs first trick goes to player_3
    with the kitty, 3♥ and 9♥ (2 points). player_3 counts them at once; the others see 0 for it,
    in the information state, the observation, the text and the picture, until the deal's end."""
    e = raw_env(rules="cancellation", episode="deal")
    e.reset(seed=0)
    deal = e.match.deal
    while deal.kitty_taker is None:
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert names(deal.kitty) == "3H 9H" and deal.kitty_taker == 3 and deal.tricks[0][1] == (0, 1, 5, 6, 0, 1)
    rules = e.rules
    for seat, shown in [(3, 2), (4, 0), (0, 0)]:
        assert e.information_state(f"player_{seat}").points_taken[3] == shown
        points = decode(e.observe(f"player_{seat}")["observation"], 6, rules)["points_taken"]
        assert points[(3 - seat) % 6] == shown
        assert f"player_3{' (you)' if seat == 3 else ''}: match 0, this deal {shown}" in e.render_text(seat)
        assert _deal_points_shown(e.render_svg(seat), 3) == shown
    assert _deal_points_shown(e.render_svg(4, reveal=True), 3) == 2  # a spectator sees every point
    while not e.terminations[e.agent_selection]:
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    taken = deal.captured
    assert all(e.information_state(f"player_{s}").points_taken == taken for s in range(6))


def test_face_down_discards_are_their_takers_points_alone():
    """kitty_to_hand, 3 players, seed 3, lowest legal card each time: player_2 wins the first trick
    (no points) and takes the kitty, 8♦, into its hand; it discards T♥ face down (1 point). Only
    player_2's own view counts that point before the deal is scored."""
    e = raw_env(rules="american_hearts", num_players=3, kitty="first_trick", kitty_to_hand=True, episode="deal")
    e.reset(seed=3)
    deal = e.match.deal
    while deal.phase != DISCARD:
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert deal.kitty_taker == 2 and names(deal.kitty) == "8D" and deal.captured == (0, 0, 0)
    e.step(cards("TH")[0])
    assert deal.captured == (0, 0, 1)
    for seat, shown in [(2, 1), (0, 0), (1, 0)]:
        assert e.information_state(f"player_{seat}").points_taken[2] == shown
        points = decode(e.observe(f"player_{seat}")["observation"], 3, e.rules)["points_taken"]
        assert points[(2 - seat) % 3] == shown
