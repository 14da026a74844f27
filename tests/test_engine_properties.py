"""Property tests over seeds and random legal play, for every preset and every player count it allows.

Each property is a plain ``check_*`` function of ``(preset, n, seed)``; hypothesis draws the
seeds. The default run keeps to a few examples per preset and player count (well under a
minute in all); the ``slow`` variants (``pytest -m slow``) run many more.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bm_env.engine.cards import HEARTS, QUEEN_SPADES, SUIT_MASKS, cards_of, mask_of, suit_of
from bm_env.engine.deal import PASS, PLAY, Deal, clone_deal, deal_hands, pass_direction_for
from bm_env.engine.infostate import information_state
from bm_env.engine.match import Match
from bm_env.engine.rules import make_rules
from bm_env.systems.match import match_would_end

from kit import CLASSIC_COUNTS, PRESET_COUNTS

# The deal-level checks below recount the classic rules (CLASSIC_COUNTS); the extension presets (two
# decks, kitty, charging, boosts, teams) have theirs in test_engine_properties_extensions.py. Matches
# run for every preset (PRESET_COUNTS).
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
HEART_MASK = SUIT_MASKS[HEARTS]

#: Sum of the card values of the deck by preset, from the value tables by hand: 43 for the
#: Black Maria scheme, 26 for hearts + QS, 36 Dirty Lady, 13 Slippery Anne, 33 Omnibus
#: (43 - 10), 124 spot, 129 pip spot, 38 Pink Lady (12 hearts + QH 13 + QS 13), -30 Petrone (before
#: clean-trick bonuses). Six players
#: remove every 2, 2H included, which costs the schemes where 2H scores one point.
DECK_POINTS = {
    "black_maria": 43, "black_maria_26": 26, "black_maria_100": 43, "black_maria_spot": 124,
    "dirty_lady": 36, "slippery_anne": 13, "omnibus": 33, "american_hearts": 26,
    "openspiel_hearts": 26, "spot_hearts": 129, "pink_lady": 38, "petrone_black_mariah": -30,
}
SIX_PLAYER_POINTS = {"black_maria": 42, "black_maria_26": 25, "dirty_lady": 35, "slippery_anne": 13, "omnibus": 32}


def deck_points(preset: str, n: int) -> int:
    return SIX_PLAYER_POINTS[preset] if n == 6 else DECK_POINTS[preset]


def property_tests(check, quick: int, slow: int, combos=PRESET_COUNTS):
    """A quick and a ``slow`` test of ``check(preset, n, seed)`` over every preset and player count."""

    def make(examples):
        @pytest.mark.parametrize("preset, n", combos)
        @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                  database=None)
        @given(seed=SEEDS)
        def test(preset, n, seed):
            check(preset, n, seed)

        test.__doc__ = check.__doc__
        return test

    return make(quick), pytest.mark.slow(make(slow))


def random_deal(preset: str, n: int, seed: int) -> Deal:
    """A shuffled deal of the preset, with a dealer and a pass direction drawn from the seed."""
    rules = make_rules(preset, n)
    rng = np.random.default_rng(seed)
    dealer = int(rng.integers(n))
    hands = deal_hands(rules, n, dealer, rng)
    direction = pass_direction_for(rules, int(rng.integers(len(rules.pass_cycle))), rng)
    return Deal(rules, hands, dealer, direction)


# ---------------------------------------------------------------------------
# One deal: legality at every decision, and the finished deal against an independent count.
# ---------------------------------------------------------------------------


def check_legal_actions(deal: Deal) -> None:
    """The legal set of the position to act, against the rules read directly."""
    rules = deal.rules
    p = deal.to_act
    hand = deal.hands[p]
    legal = deal.legal
    assert legal, "the mask is empty while the deal runs"
    assert legal & ~hand == 0, "a legal card is not in the hand"
    mask = deal.legal_mask()
    assert mask.dtype == np.int8 and mask.shape == (rules.num_actions,)
    assert mask_of(np.flatnonzero(mask).tolist()) == legal
    if deal.phase == PASS:
        allowed = hand & ~mask_of(rules.no_pass_cards)
        assert legal == (allowed or hand)
        return
    first_trick = not deal.tricks
    if deal.trick:  # following: the led suit if held, else anything ...
        expected = hand & SUIT_MASKS[deal.led_suit] or hand
        if first_trick and rules.first_trick_no_points:  # ... but no points on the first trick if avoidable
            expected = expected & ~deal.penalty_mask or expected
        assert legal == expected
        return
    # leading
    if first_trick and rules.first_lead == "lowest_club":
        low = deal.deck & SUIT_MASKS[0]
        assert legal == low & -low
        return
    if rules.hearts_lead == "when_broken" and not deal.hearts_broken and hand & ~HEART_MASK:
        only_hearts_and_queen = not hand & ~(HEART_MASK | 1 << QUEEN_SPADES)
        if not (rules.lead_hearts_with_queen_only and only_hearts_and_queen):
            assert legal & HEART_MASK == 0, "an unbroken heart may be led"
    if first_trick and rules.first_lead == "eldest_non_heart" and hand & ~HEART_MASK:
        assert legal & HEART_MASK == 0


def trick_winner(rules, leader: int, cards: tuple[int, ...], k: int) -> int:
    led = suit_of(cards[0])
    hearts = [c for c in cards if suit_of(c) == HEARTS]
    if rules.trumps == "hearts" and hearts:
        best = max(hearts)
    else:
        best = max(c for c in cards if suit_of(c) == led)
    return (leader + cards.index(best)) % k


def check_finished_deal(deal: Deal, preset: str) -> None:
    rules = deal.rules
    k = deal.num_players
    # Every card of the deck ends in exactly one trick; every trick has one card per player.
    played = [c for _, cs, _ in deal.tricks for c in cs]
    assert sorted(played) == cards_of(deal.deck) == cards_of(rules.deck_mask(k))
    assert len(deal.tricks) == rules.hand_size(k)
    assert all(len(cs) == k for _, cs, _ in deal.tricks)
    assert not any(deal.hands) and not deal.trick
    # Winners and captures, counted again from the tricks alone.
    captured = [0] * k
    penalty = [0] * k
    clean = [0] * k
    leader = deal.tricks[0][0]
    for trick_leader, cs, winner in deal.tricks:
        assert trick_leader == leader
        assert winner == trick_winner(rules, trick_leader, cs, k)
        values = [rules.card_values[c] for c in cs]
        captured[winner] += sum(values)
        penalty[winner] += sum(v for v in values if v > 0)
        clean[winner] += not any(values)
        leader = winner
    assert deal.captured == tuple(captured) and deal.clean_tricks == tuple(clean)
    assert sum(deal.tricks_won) == len(deal.tricks)
    # Deal totals: what the card table says, and the moon changes them in the documented way.
    points = deck_points(preset, k)
    positive = sum(v for c, v in enumerate(rules.card_values) if deal.deck >> c & 1 and v > 0)
    bonus = rules.clean_trick_bonus * sum(clean)
    assert sum(captured) == points
    total = sum(deal.scores)
    shooter = [p for p in range(k) if penalty[p] == positive] if positive else []
    if rules.moon == "off" or not shooter:
        assert list(deal.scores) == [captured[p] + rules.clean_trick_bonus * clean[p] for p in range(k)]
        assert total == points + bonus
    elif rules.moon == "shooter_minus":
        assert total == points - 2 * positive
        assert deal.scores[shooter[0]] == captured[shooter[0]] - 2 * positive
    elif rules.moon == "others_plus":
        assert total == points + (k - 2) * positive
        assert deal.scores[shooter[0]] == captured[shooter[0]] - positive
    if preset == "petrone_black_mariah":
        # +3 per trick without a spade honour: the three honours spoil one to three tricks.
        assert sum(clean) in (10, 11, 12) and total == -30 + 3 * sum(clean)


def check_random_deal(preset: str, n: int, seed: int) -> None:
    """Random legal play: legal sets follow the rules, cards are conserved, totals are the table's."""
    deal = random_deal(preset, n, seed)
    chooser = random.Random(seed)
    first_leader = None
    while not deal.is_over:
        check_legal_actions(deal)
        if deal.phase == PLAY and first_leader is None:
            first_leader = deal.to_act
        legal = cards_of(deal.legal)
        deal.step(legal[chooser.randrange(len(legal))])
    assert deal.legal == 0
    rules = deal.rules
    if rules.first_lead.startswith("lowest_club"):
        low = deal.deck & SUIT_MASKS[0]
        assert deal.tricks[0][1][0] == cards_of(low & -low)[0]
    else:
        assert first_leader == deal.eldest
    check_finished_deal(deal, preset)


test_random_deals, test_random_deals_slow = property_tests(check_random_deal, quick=60, slow=1000, combos=CLASSIC_COUNTS)


# ---------------------------------------------------------------------------
# Hidden information: a player's view does not depend on how the unseen cards lie.
# ---------------------------------------------------------------------------


def hidden_from(deal: Deal, pos: int) -> tuple[dict[int, int], list[int]]:
    """Per other position, the cards it holds that ``pos`` cannot place; and what ``pos`` can place.

    ``pos`` knows its own hand, every card played, and (once the cards have moved) the cards
    it passed that the receiver still holds. During passing the others' picks are hidden too,
    but they are kept where they are here.
    """
    k = deal.num_players
    known = [0] * k
    if deal.phase != PASS and deal.pass_count:
        recv = (pos + deal.pass_offset) % k
        known[recv] = mask_of(deal.pass_picks[pos]) & deal.hands[recv]
    return {q: deal.hands[q] & ~known[q] for q in range(k) if q != pos}, known


def reshuffle(free: dict[int, int], voids: list[int], rng: random.Random) -> dict[int, int]:
    """Deal the cards of ``free`` again among its positions: same counts, nobody gets a suit it showed void in."""
    pool = [c for m in free.values() for c in cards_of(m)]
    for _ in range(20):
        rng.shuffle(pool)
        room = {q: m.bit_count() for q, m in free.items()}
        new = dict.fromkeys(free, 0)

        def choices(c):
            return [q for q in room if room[q] and not voids[q] >> suit_of(c) & 1]

        for c in sorted(pool, key=lambda c: len(choices(c))):
            options = choices(c)
            if not options:
                break
            q = rng.choice(options)
            new[q] |= 1 << c
            room[q] -= 1
        else:
            return new
    return dict(free)  # the true lie of the cards is always consistent


def check_hidden_information(preset: str, n: int, seed: int) -> None:
    """At random points of a random deal, reshuffling what a seat cannot see leaves its view unchanged."""
    deal = random_deal(preset, n, seed)
    chooser = random.Random(seed)
    total = sum(h.bit_count() for h in deal.hands) + deal.pass_count * n
    stops = {chooser.randrange(total) for _ in range(3)}
    step = 0
    while not deal.is_over:
        if step in stops:
            for pos in range(n):
                compare_views(deal, pos, chooser)
        legal = cards_of(deal.legal)
        deal.step(legal[chooser.randrange(len(legal))])
        step += 1


def compare_views(deal: Deal, pos: int, chooser: random.Random) -> None:
    seat = deal.seats[pos]
    view = information_state(deal, seat)
    free, known = hidden_from(deal, pos)
    hidden = 0
    for m in free.values():
        hidden |= m
    if deal.phase == PASS:
        for q in free:
            hidden |= mask_of(deal.pass_picks[q])
    assert mask_of(view.unseen) == hidden, "InfoState.unseen is not what this seat cannot place"
    assert {s: mask_of(cs) for s, cs in view.known_held.items()} == {
        deal.seats[q]: m for q, m in enumerate(known) if m
    }
    new = reshuffle(free, deal.voids, chooser)
    other = clone_deal(deal)
    other._hands = [deal.hands[q] if q == pos else new[q] | known[q] for q in range(deal.num_players)]
    assert information_state(other, seat) == view
    # The comparison can see a difference: a seat whose own hand changed sees a different state.
    for q in free:
        if new[q] != free[q]:
            assert information_state(other, deal.seats[q]) != information_state(deal, deal.seats[q])
            break


test_hidden_information, test_hidden_information_slow = property_tests(
    check_hidden_information, quick=20, slow=300, combos=CLASSIC_COUNTS)


# ---------------------------------------------------------------------------
# Whole matches: determinism, end rules, winners.
# ---------------------------------------------------------------------------


def run_match(rules, seed: int):
    m = Match(rules, rng=seed)
    chooser = random.Random(seed)
    actions = []
    while not m.is_over:
        assert m.deal.legal, "the mask is empty while the match runs"
        legal = cards_of(m.deal.legal)
        a = legal[chooser.randrange(len(legal))]
        actions.append(a)
        m.step(a)
    return m, actions


def check_match(preset: str, n: int, seed: int) -> None:
    """The same seed gives the same match; the match ends by its rule, and the best total wins."""
    rules = make_rules(preset, n)
    m, actions = run_match(rules, seed)
    again, actions_again = run_match(rules, seed)
    assert actions == actions_again
    assert again.totals == m.totals and again.winners == m.winners and again.first_dealer == m.first_dealer
    assert [d.dealt for d in again.completed] == [d.dealt for d in m.completed]
    counted = [d for d in m.completed if len(d.seats) == n][: m.deals_played]
    assert [sum(d.scores[s] for d in counted) for s in range(n)] == m.totals
    # The end rule fires after the last counted deal and not before.
    for i in range(1, m.deals_played):
        partial = [sum(d.scores[s] for d in counted[:i]) for s in range(n)]
        if match_would_end(rules, partial, i):
            # only a tie for the best total, played on by everyone, lets the match go on
            best = min(partial) if rules.lower_wins else max(partial)
            assert rules.tie_break == "all_players" and partial.count(best) > 1
            assert rules.match_floor is None or min(partial) > rules.match_floor
    assert match_would_end(rules, m.totals, m.deals_played)
    best = min(m.totals) if rules.lower_wins else max(m.totals)
    if len(m.completed) == m.deals_played:  # no tie-break deals
        assert m.winners == tuple(s for s in range(n) if m.totals[s] == best)
    else:
        assert all(m.totals[w] == best for w in m.winners)
    if preset in ("black_maria", "dirty_lady", "slippery_anne", "omnibus"):
        assert m.deals_played == 3 * n


test_matches, test_matches_slow = property_tests(check_match, quick=6, slow=60)


def test_same_seed_same_deal():
    rules = make_rules("black_maria")
    a = deal_hands(rules, 3, 0, np.random.default_rng(11))
    b = deal_hands(rules, 3, 0, np.random.default_rng(11))
    assert a == b and a != deal_hands(rules, 3, 0, np.random.default_rng(12))
    # Dealt one at a time from eldest hand: every hand has 17 cards.
    assert [h.bit_count() for h in a] == [17, 17, 17]
