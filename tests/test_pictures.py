"""Pictures of a position: the SVG, its rgb_array pixels, and hidden information in both."""

import xml.etree.ElementTree as ET
from dataclasses import replace

import numpy as np
import pytest
from pettingzoo.test import render_test

from bm_env.black_maria_v0 import raw_env
from bm_env.engine.cards import card_str
from bm_env.engine.deal import deal_hands
from bm_env.pictures import revealed, save_svg, table_svg
from bm_env.pictures.svg import canvas_size

from kit import PRESET_COUNTS, swap_unseen

SVG = "{http://www.w3.org/2000/svg}"


def _played(rules, n, steps, seed=0, **kw):
    """An environment after ``steps`` random legal decisions (fewer if the deal ends first)."""
    e = raw_env(rules=rules, num_players=n, **kw)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if e.terminations[e.agent_selection]:
            break
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    return e


def _elements(svg, cls):
    """(data-seat, data-card or data-value) of the SVG elements whose class list holds ``cls``."""
    root = ET.fromstring(svg)
    out = []
    for el in root.iter():
        if cls in el.get("class", "").split():
            out.append((int(el.get("data-seat")), el.get("data-card") or el.get("data-value")))
    return out




@pytest.mark.parametrize("preset,n", PRESET_COUNTS)
def test_every_preset_and_player_count_draws_a_valid_picture(preset, n):
    e = _played(preset, n, 4 * n + 3, seed=n)
    for reveal in (False, True):
        svg = e.render_svg(1, reveal)
        root = ET.fromstring(svg)  # well-formed XML
        assert (int(root.get("width")), int(root.get("height"))) == canvas_size(n)
        assert root.get("data-view") == ("all" if reveal else "1")
    seats = [s for s, _ in _elements(e.render_svg(0, True), "match-score")]
    assert sorted(seats) == list(range(n))  # every seat has its panel


def test_picture_shows_own_hand_trick_and_scores_from_the_information_state():
    e = _played("black_maria", 3, 13, seed=4)  # passing done, a trick under way
    deal = e.match.deal
    assert deal.phase == "play" and deal.trick
    info = e.information_state("player_0")
    svg = e.render_svg(0)
    assert sorted(c for _, c in _elements(svg, "hand-card")) == sorted(card_str(c) for c in info.hand)
    assert {s for s, _ in _elements(svg, "hand-card")} == {0}
    assert _elements(svg, "trick-card") == [(s, card_str(c)) for s, c in info.current_trick]
    assert sorted(_elements(svg, "hand-count")) == [(s, str(info.hand_sizes[s])) for s in (1, 2)]
    assert sorted(_elements(svg, "deal-points")) == [(s, str(info.points_taken[s])) for s in range(3)]
    # All hands shown: every seat's cards, and no face-down count.
    shown = e.render_svg(0, reveal=True)
    assert not _elements(shown, "hand-count")
    assert "card-back" not in shown
    for pos, s in enumerate(deal.seats[1:], 1):
        assert f'class="hand-text" data-seat="{s}"' in shown


def test_the_cards_to_play_are_raised_and_the_finished_deal_shows_its_scores():
    e = _played("american_hearts", 4, 30, seed=2)
    seat = e.match.deal.current_seat
    svg = e.render_svg(seat)
    legal = {card_str(c) for c in e.information_state(f"player_{seat}").legal}
    root = ET.fromstring(svg)
    raised = {el.get("data-card") for el in root.iter() if "legal" in el.get("class", "").split()}
    assert raised == legal and legal
    done = _played("american_hearts", 4, 400, seed=2)
    assert done.match.deal.is_over
    scores = dict(_elements(done.render_svg(0), "deal-score"))
    assert scores == {s: str(x) for s, x in enumerate(done.match.deal.scores)}


def test_rgb_array_is_the_svg_rasterised_and_passes_pettingzoo_render_test(tmp_path):
    e = _played("black_maria", 3, 10, render_mode="rgb_array", render_seat=2)
    a = e.render()
    assert a.dtype == np.uint8 and a.shape == canvas_size(3)[::-1] + (3,)
    assert len(np.unique(a.reshape(-1, 3), axis=0)) > 20  # a picture, not a blank canvas
    # Red suits are drawn red: some pixels are strongly red.
    assert ((a[..., 0] > 150) & (a[..., 1] < 90) & (a[..., 2] < 90)).sum() > 100
    revealed_view = raw_env(render_mode="rgb_array", render_reveal=True)
    revealed_view.reset(seed=0)
    assert revealed_view.render().shape == a.shape
    render_test(lambda render_mode: raw_env(render_mode=render_mode))
    save_svg(tmp_path / "t.svg", e.information_state("player_2"))
    assert (tmp_path / "t.svg").read_text(encoding="utf-8") == e.render_svg(2)


def test_big_tables_get_a_bigger_canvas_and_a_bad_reveal_is_refused():
    e = _played("cancellation", 10, 25, render_mode="rgb_array")
    assert e.render().shape == (830, 1200, 3)
    info = e.information_state("player_0")
    everything = revealed(e.match.deal, 10)
    with pytest.raises(ValueError, match="one hand and one pick list per seat"):
        table_svg(info, replace(everything, hands=everything.hands[:9]))


def _views(preset, n, hands, actions, observer):
    """``observer``'s SVG at every decision and its pixels at the end, replaying ``actions`` on ``hands``."""
    e = raw_env(rules=preset, num_players=n, render_mode="rgb_array", render_seat=observer)
    e.reset(seed=0, options={"hands": hands, "dealer": 0})
    seen, everything = [], []
    for a in actions:
        seen.append(e.render_svg(observer))
        everything.append(e.render_svg(observer, reveal=True))
        e.step(a)
    seen.append(e.render_svg(observer))
    return seen, everything, e.render()


@pytest.mark.parametrize("preset,n", [("black_maria", 3), ("american_hearts", 4), ("omnibus", 5)])
def test_a_seat_picture_cannot_tell_apart_deals_differing_in_others_unplayed_cards(preset, n):
    """The swap of kit.swap_unseen: seat 0's SVG at every decision and its rgb_array must not change,
    while the all-hands picture must."""
    rng = np.random.default_rng(10 + n)
    checked = 0
    for _ in range(30):
        e = raw_env(rules=preset, num_players=n)
        hands = deal_hands(e.rules, n, 0, rng)
        e.reset(seed=0, options={"hands": hands, "dealer": 0})
        actions = []
        for _ in range(int(rng.integers(n * 3, n * 8))):
            a = int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])))
            actions.append(a)
            e.step(a)
        swap = swap_unseen(e.rules, e.match.deal, hands, rng)
        if swap is None:
            continue
        x, y, swapped = swap
        a_views, a_all, a_rgb = _views(preset, n, hands, actions, 0)
        b_views, b_all, b_rgb = _views(preset, n, swapped, actions, 0)
        assert a_views == b_views, f"seat 0's picture depends on where {card_str(x)} and {card_str(y)} lie"
        np.testing.assert_array_equal(a_rgb, b_rgb)
        assert a_all != b_all  # the spectator's picture does show the swap: the test is not void
        checked += 1
    assert checked >= 3
