"""reset(options=...): a given deal replays exactly, and rotated it gives every seat every chair."""

import numpy as np
import pytest

from bm_env.black_maria_v0 import env as make_env
from bm_env.black_maria_v0 import raw_env
from bm_env.engine.cards import card_str, cards_of
from bm_env.engine.deal import deal_hands
from bm_env.engine.rules import make_rules

from kit import SUITS, fill_hands


def _hands(n=3, seed=0, preset="black_maria"):
    e = raw_env(rules=preset, num_players=n)
    return deal_hands(e.rules, n, 0, np.random.default_rng(seed))


def test_given_deal_replays_exactly_whatever_the_seed():
    hands = _hands()
    a, b = raw_env(), raw_env()
    a.reset(seed=1, options={"hands": hands, "dealer": 1})
    b.reset(seed=2, options={"hands": [[card_str(c) for c in cards_of(h)] for h in hands], "dealer": 1})
    rng = np.random.default_rng(0)
    while not a.terminations[a.agent_selection]:
        assert a.agent_selection == b.agent_selection
        for s in range(3):
            np.testing.assert_array_equal(a.observe(f"player_{s}")["observation"], b.observe(f"player_{s}")["observation"])
        act = int(rng.choice(np.flatnonzero(a.observe(a.agent_selection)["action_mask"])))
        a.step(act)
        b.step(act)
    assert a.match.completed[0].scores == b.match.completed[0].scores
    assert a.match.deal.dealt == tuple(hands)


@pytest.mark.parametrize("preset,n,rotate", [("black_maria", 3, 1), ("black_maria", 3, 2), ("american_hearts", 4, 3)])
def test_rotated_deal_puts_each_seat_in_the_next_chair(preset, n, rotate):
    """Seat s of the original deal and seat s+rotate of the rotated one hold the same cards and see the same."""
    hands = _hands(n, 5, preset)
    a, b = raw_env(rules=preset, num_players=n), raw_env(rules=preset, num_players=n)
    a.reset(seed=0, options={"hands": hands, "dealer": 0, "pass_direction": "left" if preset != "black_maria" else "right"})
    b.reset(seed=9, options={"hands": hands, "dealer": 0, "rotate": rotate,
                              "pass_direction": "left" if preset != "black_maria" else "right"})
    assert b.match.deal.dealt == tuple(hands[(s - rotate) % n] for s in range(n))
    rng = np.random.default_rng(1)
    while not a.terminations[a.agent_selection]:
        sa = int(a.agent_selection.split("_")[1])
        assert b.agent_selection == f"player_{(sa + rotate) % n}"
        for s in range(n):
            np.testing.assert_array_equal(a.observe(f"player_{s}")["observation"],
                                          b.observe(f"player_{(s + rotate) % n}")["observation"])
        act = int(rng.choice(np.flatnonzero(a.observe(a.agent_selection)["action_mask"])))
        a.step(act)
        b.step(act)
    sa, sb = a.match.completed[0], b.match.completed[0]
    assert [sb.scores[(s + rotate) % n] for s in range(n)] == list(sa.scores)


@pytest.mark.parametrize(
    "options, words",
    [
        ({"hands": [0, 0], "dealer": 0}, ["one hand per seat", "3"]),
        ({"hands": [["QS", "ZZ"], [], []], "dealer": 0}, ["hands'][0]", "QS"]),
        ({"hands": _hands()}, ["dealer"]),
        ({"dealer": 3}, ["dealer", "0..2"]),
        ({"pass_direction": "left"}, ["pass_direction", "right"]),
        ({"rotate": "one"}, ["rotate"]),
    ],
)
def test_bad_reset_options_are_refused_with_what_is_allowed(options, words):
    with pytest.raises(ValueError) as err:
        raw_env().reset(seed=0, options=options)
    for w in words:
        assert w in str(err.value)


def test_hands_that_do_not_make_the_deck_are_refused():
    hands = _hands()
    bad = [hands[0], hands[1], hands[2] ^ (1 << 51) | (1 << 0)]  # A♠ swapped for the removed 2♣
    with pytest.raises(ValueError, match="missing"):
        raw_env().reset(seed=0, options={"hands": bad, "dealer": 0})


def test_an_unknown_reset_option_is_ignored_with_a_warning_naming_the_known_ones():
    hands = _hands()
    e, plain = raw_env(), raw_env()
    with pytest.warns(UserWarning, match=r"^unknown reset option\(s\) \['hand'\]; known options: \['hands', 'dealer', "
                                         r".*\]; ignored \(strict_options=True refuses them\)$"):
        e.reset(seed=0, options={"hand": 1, "hands": hands, "dealer": 1})
    plain.reset(seed=0, options={"hands": hands, "dealer": 1})
    np.testing.assert_array_equal(e.state(), plain.state())  # the known options still deal the given hands


def test_strict_options_refuse_an_unknown_reset_option_and_change_nothing():
    e = raw_env(strict_options=True)
    e.reset(seed=0)
    before = e.state()
    with pytest.raises(ValueError, match=r"^unknown reset option\(s\) \['hand'\]; known options: \['hands', 'dealer', "
                                         r"'pass_direction', 'rotate', 'kitty'\]$"):
        e.reset(seed=1, options={"hand": 1})
    np.testing.assert_array_equal(e.state(), before)


def test_a_card_twice_in_one_hand_is_named_as_a_duplicate():
    hands = _hands()
    given = [cards_of(h) for h in hands]
    given[0] = given[0][:-1] + [given[0][0]]  # the first card twice, the last one missing
    with pytest.raises(ValueError, match=rf"^options\['hands'\]\[0\] holds {card_str(given[0][0])} more than once; "
                                         "with one deck a card is dealt once$"):
        raw_env().reset(seed=0, options={"hands": given, "dealer": 0})


def test_a_given_deal_keeps_its_pass_direction_across_episodes():
    """american_hearts cycles left, right, across, hold by episode, but a given deal always passes the same way."""
    hands = _hands(4, 2, "american_hearts")
    e = raw_env(rules="american_hearts")
    e.reset(seed=0)
    directions = []
    for rotate in range(4):
        e.reset(options={"hands": hands, "dealer": 0, "rotate": rotate})
        directions.append(e.match.deal.pass_direction)
    assert directions == ["left"] * 4


def test_refused_options_leave_the_episode_untouched():
    e = raw_env()
    e.reset(seed=0)
    deal = e.match.deal
    with pytest.raises(ValueError):
        e.reset(seed=5, options={"dealer": 9})
    assert e.match.deal is deal


def test_two_deck_hands_can_be_given_at_reset():
    e = make_env(rules="cancellation", num_players=8)
    e.reset(seed=0, options={"hands": list(SUITS) * 2, "dealer": 7, "pass_direction": "right"})
    obs = e.observe("player_0")
    assert obs["observation"][:52].sum() == 13 and obs["action_mask"][:13].all()


def test_a_kitty_can_be_given_at_reset():
    rules = make_rules("american_hearts", 3, kitty="first_trick")
    hands, kitty = fill_hands(rules, {}, 3, kitty="QS")
    e = make_env(rules=rules)
    e.reset(seed=0, options={"hands": hands, "dealer": 0, "kitty": ["QS"]})
    assert e.unwrapped.match.deal.kitty == tuple(kitty)
    with pytest.raises(ValueError, match="the kitty must hold the 1 cards left over, got 0"):
        e.reset(seed=0, options={"hands": hands, "dealer": 0})


@pytest.mark.parametrize("preset,players,options", [("american_hearts", 3, {"kitty": "first_trick"}),
                                                    ("black_maria", 3, {})])
def test_a_kitty_without_hands_is_refused_not_ignored(preset, players, options):
    # a deal dealt at random deals its own kitty: a given one would be dropped unnoticed
    e = make_env(rules=make_rules(preset, players, **options))
    with pytest.raises(ValueError, match=r"options\['kitty'\] goes with options\['hands'\]"):
        e.reset(seed=0, options={"kitty": ["QS"]})


def test_a_rotation_with_nothing_to_rotate_is_refused_not_ignored():
    e = make_env(rules="black_maria")
    with pytest.raises(ValueError, match=r"options\['rotate'\] shifts the given hands and dealer"):
        e.reset(seed=0, options={"rotate": 1})
    e.reset(seed=0, options={"rotate": 0})  # no shift asked: nothing to refuse


def test_a_kitty_where_the_rules_have_none_is_refused():
    rules = make_rules("black_maria")
    hands, _ = fill_hands(rules, {}, 3)
    e = make_env(rules=rules)
    with pytest.raises(ValueError, match="kitty"):
        e.reset(seed=0, options={"hands": hands, "dealer": 0, "kitty": ["QS"]})
