"""The env's incrementally kept observations (bm_env/env/tracker.py) equal the reference encoder at every
decision, under every preset; tests/test_env_feature_tracker.py adds the extension options."""

import numpy as np
import pytest

from bm_env.black_maria_v0 import raw_env
from bm_env.env.observation import decode

from kit import PRESET_COUNTS, assert_rows_match, random_walk

@pytest.mark.parametrize("preset,n", PRESET_COUNTS)
def test_incremental_observation_equals_encoder_every_step(preset, n):
    rng = np.random.default_rng(n)
    random_walk(raw_env(rules=preset, num_players=n), rng, 150, seed=n)
    random_walk(raw_env(rules=preset, num_players=n, episode="match"), rng, 150, seed=n + 100)


def test_incremental_observation_in_tie_break_deals_and_renege():
    rng = np.random.default_rng(7)
    # Slippery Anne over one deal: two players on 0 tie often, and play a 2-player deal of 26 cards each.
    e = raw_env(rules="slippery_anne", match_deals=1, episode="match")
    random_walk(e, rng, 600, seed=1)
    e.reset(seed=2)
    tie_break_seen = 0
    while not tie_break_seen:
        e.reset()
        while e.agents and not e.terminations[e.agent_selection]:
            if len(e.match.deal.seats) < 3:
                tie_break_seen += 1
                assert_rows_match(e, "tie-break deal")
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))
    e = raw_env(rules="black_maria", num_players=5, illegal_action="renege_penalty", episode="match")
    e.reset(seed=3)
    for _ in range(40):
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0]))  # a renege ends the deal
    assert e.match.deals_played == 1
    assert_rows_match(e, "after a renege")


def test_observation_decodes_back_to_the_information_state():
    e = raw_env(rules="black_maria", num_players=4, episode="match")
    e.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(30):  # past the 12 pass picks, into the play phase of the first deal
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    seat = 2
    info = e.information_state(f"player_{seat}")
    d = decode(e.observe(f"player_{seat}")["observation"], 4)
    rel = lambda s: (s - seat) % 4  # noqa: E731
    assert d["hand"] == tuple(sorted(info.hand))
    assert d["received"] == tuple(sorted(info.received))
    for r in range(4):
        assert d[f"played_by_seat{r}"] == tuple(sorted(c for s, c in info.plays if rel(s) == r))
        assert d[f"trick_card_seat{r}"] == tuple(sorted(c for s, c in info.current_trick if rel(s) == r))
    for r in range(1, 4):
        assert d[f"passed_to_seat{r}"] == tuple(sorted(c for c, to in info.passed if rel(to) == r))
    assert d["points_taken"] == tuple(info.points_taken[(seat + r) % 4] for r in range(4))
    assert d["tricks_played"] == (len(info.tricks),)
    assert d["phase"] == (0, 1)
    assert d["dealer"][rel(info.dealer)] == 1 and sum(d["dealer"]) == 1
