"""Matches: length, thresholds, floors, exact resets, tie-breaks, team totals, with outcomes worked out by hand.

Most deals here are *forced* (``kit.play_forced_deal``): eldest hand is given the top cards
of every suit it holds (or, where the 2C holder leads, every club), so it wins every trick
whatever anyone plays, and takes every penalty card. The others then play at random; the
deal's score is known in advance (e.g. 43 to eldest in Black Maria). Passing is played as
the preset says: each player passes cards that the forced hands give its receiver. Others
are kit.SWEEP, where P0 takes every trick.
"""

from __future__ import annotations

import random

import pytest

from bm_env.engine.cards import mask_of, parse_card
from bm_env.engine.deal import PASS
from bm_env.engine.match import Match
from bm_env.env.rewards import deal_rewards
from bm_env.engine.rules import make_rules
from bm_env.systems.match import match_would_end

import kit


def play_cards(m: Match, tricks) -> None:
    for t in tricks:
        for c in t.split():
            m.step(parse_card(c))


@pytest.mark.parametrize("n, deals", [(3, 9), (4, 12)])
@pytest.mark.parametrize("seed", [0, 1])
def test_black_maria_plays_three_deals_per_player(n, deals, seed):
    # The British rules: a multiple of three deals so everyone deals equally; 9 for three players.
    rules = make_rules("black_maria", n)
    assert rules.match_deals == deals
    m = Match(rules, rng=seed)
    kit.play_random_match(m, seed)
    assert m.deals_played == deals
    # The deal moves clockwise: deal d is dealt by first_dealer + d.
    for d, deal in enumerate(m.completed[:deals]):
        assert deal.seats[deal.dealer] == (m.first_dealer + d) % n
    assert m.totals == [sum(deal.scores[s] for deal in m.completed[:deals]) for s in range(n)]
    assert min(m.totals) in [m.totals[w] for w in m.winners]


def test_match_is_not_over_before_the_last_deal():
    m = Match(make_rules("black_maria"), rng=5, first_dealer=2)
    chooser = random.Random(5)
    for _ in range(8):
        kit.play_forced_deal(m, chooser)
    assert m.deals_played == 8 and not m.is_over


def test_tie_break_among_the_tied_down_to_a_two_player_deal():
    """Nine forced deals, eldest taking 43 each time, end three-all; the tie-break repeats.

    First dealer 2, so eldest of deal d is seat d mod 3: seats 0, 1, 2 each take 43 three
    times, 129 each. Tie-break deal 1 (all three, deal number 9, dealer seat 2, eldest
    seat 0): seat 0 takes 43, seats 1 and 2 tie on 0. Tie-break deal 2 (seats 1 and 2,
    deal number 10: the natural dealer seat 0 does not play, so the next seat clockwise,
    1, deals and seat 2 is eldest): a two-player deal of the full deck, 26 cards each;
    seat 2 takes 43, so seat 1 wins.
    """
    m = Match(make_rules("black_maria"), rng=0, first_dealer=2)
    chooser = random.Random(0)
    takers = [kit.play_forced_deal(m, chooser) for _ in range(9)]
    assert takers == [0, 1, 2] * 3
    assert m.totals == [129, 129, 129] and m.deals_played == 9
    assert m.tied == (0, 1, 2) and not m.is_over
    assert m.deal.seats == (0, 1, 2)

    assert kit.play_forced_deal(m, chooser) == 0
    assert m.completed[-1].scores == (43, 0, 0)
    assert m.tied == (1, 2) and not m.is_over

    two = m.deal
    assert two.num_players == 2 and two.seats == (1, 2)
    assert two.seats[two.dealer] == 1 and two.eldest == 1
    assert two.deck == (1 << 52) - 1  # full deck, 2C included
    assert [h.bit_count() for h in two.dealt] == [26, 26]
    assert kit.play_forced_deal(m, chooser) == 2
    assert m.completed[-1].scores == (0, 43)  # by position: seat 1, seat 2

    assert m.winners == (1,)
    assert m.totals == [129, 129, 129]  # tie-break deals do not count towards the totals
    assert m.deals_played == 9 and len(m.completed) == 11


def test_black_maria_26_first_to_50_and_ties_play_on():
    """The 3-7 player rules: play until someone reaches 50; lowest wins; a tie for lowest plays on.

    Forced deals, eldest taking all 26: seats 0, 1, 2, 0 give 52/26/26 after four deals:
    the match would end, but seats 1 and 2 tie for lowest, so a fifth deal is played
    (eldest seat 1 takes 26): 52/52/26, seat 2 wins.
    """
    m = Match(make_rules("black_maria_26"), rng=1, first_dealer=2)
    chooser = random.Random(1)
    expected = [[26, 0, 0], [26, 26, 0], [26, 26, 26], [52, 26, 26]]
    for totals in expected:
        kit.play_forced_deal(m, chooser)
        assert m.totals == totals and not m.is_over
    assert kit.play_forced_deal(m, chooser) == 1
    assert m.totals == [52, 52, 26]
    assert m.winners == (2,) and m.deals_played == 5


def _petrone_match(totals_before):
    """A petrone match whose next deal is the scripted PETRONE_DEAL (scores 0, -17, 3, 17 by seat)."""
    d = kit.PETRONE_DEAL
    m = Match(make_rules("petrone_black_mariah"), rng=0, first_dealer=d.dealer)
    m.totals = list(totals_before)
    final = [mask_of(kit.cards(h)) for h in d.hands]
    # Petrone passes 3 to the right every deal: choose the passes that end in the script's hands.
    before, picks = kit.prepass_hands(final, offset=3, count=3)
    deal = m.start_deal(hands=before)
    assert deal.pass_direction == "right"
    while deal.phase == PASS:
        m.step(picks[deal.to_act][len(deal.pass_picks[deal.to_act])])
    assert deal.hands == tuple(final)
    play_cards(m, d.tricks)
    assert deal.scores == (0, -17, 3, 17)
    return m


@pytest.mark.parametrize(
    "before, after, winners",
    [
        ((0, 0, 0, 0), (0, -17, 3, 17), None),  # nobody at 50 or -50: play on
        ((20, 10, 30, 33), (20, -7, 33, 50), (3,)),  # seat 3 reaches exactly 50: first to 50 wins
        ((0, 0, 48, 40), (0, -17, 51, 57), (3,)),  # two pass 50 in the same deal: the higher wins
        ((0, 0, 47, 33), (0, -17, 50, 50), None),  # they tie on 50: play on to break the tie
        ((10, -40, 0, 0), (10, -57, 3, 17), (3,)),  # seat 1 falls to -57: the match ends, highest wins
        ((22, -40, 19, 5), (22, -57, 22, 22), (0, 2, 3)),  # ... and a tie for highest shares the victory
    ],
)
def test_petrone_first_to_50_and_the_minus_50_end(before, after, winners):
    m = _petrone_match(before)
    assert tuple(m.totals) == after
    assert m.winners == winners
    assert m.is_over == (winners is not None)


@pytest.mark.parametrize("reset, after, over", [
    # Pagat: "if your score is exactly 100 points at the end of a hand, it is reduced to 50".
    ((100, 50), [50, 10, 46, 56], False),
    ((100, 0), [0, 10, 46, 56], False),
    (None, [100, 10, 46, 56], True),
])
def test_exact_reset(reset, after, over):
    """Totals 74/10/20/30, then a forced moon by seat 1 scored "others +26": seat 0 lands on 100."""
    rules = make_rules("american_hearts", moon="others_plus", exact_reset=reset)
    m = Match(rules, rng=0, first_dealer=0)
    m.totals = [74, 10, 20, 30]
    assert kit.play_forced_deal(m, random.Random(0)) == 1
    assert m.completed[-1].scores == (26, 0, 26, 26)
    assert m.totals == after
    assert m.is_over == over
    if over:
        assert m.winners == (1,)


def test_exact_hundred_resets_to_fifty_or_zero():
    for reset, expected in (((100, 50), 50), ((100, 0), 0)):
        rules = kit.sweep_rules(moon="off", exact_reset=reset)
        m = Match(rules, 0, first_dealer=3)
        m.totals = [74, 10, 20, 30]
        m.start_deal(kit.SWEEP, 3, "hold")
        kit.play_sweep(m.deal)  # P0 takes 26 (no moon rule): 74 + 26 = 100 exactly
        m.finish_deal()
        assert m.totals == [expected, 10, 20, 30] and not m.is_over
    # Passing 100 is no reset: 80 + 26 = 106 ends the match, P1 wins with 10.
    m = Match(kit.sweep_rules(moon="off", exact_reset=(100, 50)), 0, first_dealer=3)
    m.totals = [80, 10, 20, 30]
    m.start_deal(kit.SWEEP, 3, "hold")
    kit.play_sweep(m.deal)
    m.finish_deal()
    assert m.totals == [106, 10, 20, 30] and m.winners == (1,)


@pytest.mark.parametrize("tie_break", ["shared", "all_players", "tied_players"])
def test_tie_rules_after_a_single_deal(tie_break):
    """American Hearts over one deal, moon off: eldest (seat 1) takes 26, the other three tie on 0."""
    rules = make_rules("american_hearts", moon="off", match_end="deals", match_deals=1, tie_break=tie_break)
    m = Match(rules, rng=0, first_dealer=0)
    assert kit.play_forced_deal(m, random.Random(0)) == 1
    assert m.totals == [0, 26, 0, 0]
    if tie_break == "shared":
        assert m.winners == (0, 2, 3)
    elif tie_break == "all_players":
        # Play on with a normal deal among everyone; the end rule is checked again after it.
        assert not m.is_over and m.deal.seats == (0, 1, 2, 3)
    else:
        # A deal among the three tied players, with the 3-player deck (no 2D).
        assert not m.is_over and m.tied == (0, 2, 3)
        assert m.deal.seats == (0, 2, 3) and m.deal.num_players == 3
        assert not m.deal.deck >> parse_card("2D") & 1


def test_openspiel_hearts_is_one_deal_with_a_random_pass_direction():
    seen = set()
    for seed in range(12):
        m = Match(make_rules("openspiel_hearts"), rng=seed)
        seen.add(m.deal.pass_direction)
        kit.play_random_match(m, seed)
        assert m.deals_played == 1 and len(m.completed) == 1
        assert m.totals == list(m.completed[0].scores)
    assert seen == {"left", "right", "across", "hold"}


def test_american_pass_cycle_by_deal_number():
    m = Match(make_rules("american_hearts"), rng=3)
    kit.play_random_match(m, 3)
    cycle = ("left", "right", "across", "hold")
    assert [d.pass_direction for d in m.completed] == [cycle[i % 4] for i in range(len(m.completed))]
    assert max(m.totals) >= 100


def test_threshold_reached_and_passed():
    reached = make_rules("black_maria", match_end="threshold_reached", match_threshold=100)
    passed = make_rules("black_maria", match_end="threshold_passed", match_threshold=100)
    assert match_would_end(reached, [100, 0, 0], 1)
    assert not match_would_end(passed, [100, 0, 0], 1)
    assert match_would_end(passed, [101, 0, 0], 1)


def test_match_rejections():
    rules = make_rules("black_maria")
    with pytest.raises(ValueError, match=r"first_dealer must be a seat in 0\.\.2, got 3"):
        Match(rules, rng=0, first_dealer=3)
    m = Match(rules, rng=0)
    with pytest.raises(ValueError, match=r"pass direction 'left' is not in this game's cycle \['right'\]"):
        m.start_deal(pass_direction="left")
    m.tied = (1, 2)
    with pytest.raises(ValueError, match=r"dealer seat 0 does not play this deal \(seats \[1, 2\]\)"):
        m.start_deal(dealer=0)


def test_individual_partnership_match_is_won_by_the_lower_team_total():
    # Pagat's example: you 105, partner 34, opponents 78 and 69: your team wins 139 to 147.
    rules = kit.sweep_rules("partnership_hearts", teams="individual", moon="shooter_minus")
    m = Match(rules, 0, first_dealer=3)
    m.totals = [131, 78, 34, 69]
    m.start_deal(kit.SWEEP, 3, "hold")
    kit.play_sweep(m.deal)  # P0 shoots the moon alone: -26 -> 105
    m.finish_deal()
    assert m.totals == [105, 78, 34, 69]
    assert m.side_totals() == (139, 147) and m.winners == (0, 2)
    # Rewards: a player's reward is their team's deal score (partners' sum), sign flipped.
    assert deal_rewards(rules, (5, 13, 8, 0)) == (-13.0, -13.0, -13.0, -13.0)
