"""The env's incremental observation for the extension options (bm_env/env/feature_tracker.py) equals
the reference encoder.

Every preset and option that adds observation parts (kit.EXTENSIONS: charges, kitties,
passing on, scatter, the moon choice and the sun, teams, boosts, two decks) is played at
random through ``raw_env`` (kit.random_walk) and, after every decision, each seat's row is
compared with ``encode(information_state(...))`` and the acting seat's mask with the
engine's legal actions. The chooser takes an extra decision (a charge, passing on, a moon
choice) half the time it is offered, so that the rare events happen often; each case also
asserts that the events it exists for did happen.
"""

from __future__ import annotations

import numpy as np
import pytest

from bm_env.black_maria_v0 import raw_env
from bm_env.engine.cards import NUM_CARDS

from kit import EXTENSIONS, ONLY_QS, assert_rows_match, random_walk


@pytest.mark.parametrize("case", sorted(EXTENSIONS))
def test_feature_observation_equals_encoder_every_step(case):
    preset, n, kw = EXTENSIONS[case]
    rng = np.random.default_rng(len(case))
    deal_run = random_walk(raw_env(rules=preset, num_players=n, **kw), rng, 250, seed=1)
    match_run = random_walk(raw_env(rules=preset, num_players=n, episode="match", **kw), rng, 250, seed=2)
    phases = deal_run["phases"] | match_run["phases"]
    rules = raw_env(rules=preset, num_players=n, **kw).rules
    if rules.charging:
        assert "charge" in phases
    if rules.kitty_to_hand:
        assert "discard" in phases
    if kw.get("card_values") == ONLY_QS and rules.moon == "shooter_choice":
        assert "moon" in phases
    if rules.optional_pass:
        assert deal_run["pass_on"] + match_run["pass_on"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(EXTENSIONS))
def test_feature_observation_over_many_decisions(case):
    preset, n, kw = EXTENSIONS[case]
    rng = np.random.default_rng(100 + len(case))
    random_walk(raw_env(rules=preset, num_players=n, episode="match", **kw), rng, 20_000, seed=3)


def test_cancelled_tricks_left_on_the_table():
    # Seats 0-1, 2-3 and 4-5 hold identical hands, nobody passes, and each seat copies the card
    # before it when it can: whole tricks cancel and wait on the table for the next winner.
    ids = list(range(NUM_CARDS))
    hands = [ids[0:17], ids[0:17], ids[17:34], ids[17:34], ids[34:51], ids[34:51]]
    options = {"hands": hands, "dealer": 5, "kitty": [51, 51]}
    e = raw_env(rules="cancellation", num_players=6, pass_count=0)
    rng = np.random.default_rng(6)
    pending = 0
    for _ in range(4):
        e.reset(seed=7, options=options)
        while not e.terminations[e.agent_selection]:
            assert_rows_match(e, "cancellation")
            deal = e.match.deal
            pending += bool(deal.pending)
            legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
            copy = deal.trick[-1] if deal.trick else -1
            e.step(copy if copy in legal else int(rng.choice(legal)))
        assert_rows_match(e, "cancellation, deal over")
    assert pending > 0


def test_tie_break_deals_among_some_players_with_two_decks():
    # One deal of Cancellation where only the queens score: players on 0 tie and play again among themselves.
    e = raw_env(rules="cancellation", num_players=7, episode="match", match_deals=1, card_values=ONLY_QS)
    seen = random_walk(e, np.random.default_rng(3), 300, seed=4)
    assert seen["tie_break"] > 0


def test_a_renege_in_an_extra_phase_ends_the_deal_and_the_rows_follow():
    e = raw_env(rules="turbo_hearts", illegal_action="renege_penalty", episode="match")
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    while e.match.deal.phase != "charge":
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    assert_rows_match(e, "charging")
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0]))  # a card is no charge
    assert e.match.deals_played == 1
    assert_rows_match(e, "after a renege while charging")
