"""The env's incrementally kept observations equal the reference encoder at every decision."""

import numpy as np
import pytest

from bm_env.black_maria_v0 import raw_env
from bm_env.infostate import information_state
from bm_env.observation import decode, encode, features, offsets
from bm_env.rules import PRESETS

CASES = [(p, n) for p, (_, _, counts, _) in PRESETS.items() for n in counts]


def _assert_rows_match(e, where):
    m = e.match
    n = e.rules.num_players
    for s in range(n):
        want = encode(information_state(m.deal, s, m.totals, m.deals_played))
        got = e.observe(f"player_{s}")["observation"]
        if not np.array_equal(want, got):
            o = offsets(n, features(e.rules))
            bad = [name for name, sl in o.items() if not np.array_equal(want[sl], got[sl])]
            pytest.fail(f"{where}: seat {s} differs from encode() in {bad}")


def _random_walk(e, rng, decisions, seed):
    e.reset(seed=seed)
    for i in range(decisions):
        if not e.agents or e.terminations[e.agent_selection]:
            e.reset()
        _assert_rows_match(e, f"decision {i}")
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
    _assert_rows_match(e, "end")


@pytest.mark.parametrize("preset,n", CASES)
def test_incremental_observation_equals_encoder_every_step(preset, n):
    rng = np.random.default_rng(n)
    _random_walk(raw_env(rules=preset, num_players=n), rng, 150, seed=n)
    _random_walk(raw_env(rules=preset, num_players=n, episode="match"), rng, 150, seed=n + 100)


def test_incremental_observation_in_tie_break_deals_and_renege():
    rng = np.random.default_rng(7)
    # Slippery Anne over one deal: two players on 0 tie often, and play a 2-player deal of 26 cards each.
    e = raw_env(rules="slippery_anne", match_deals=1, episode="match")
    _random_walk(e, rng, 600, seed=1)
    e.reset(seed=2)
    tie_break_seen = 0
    while not tie_break_seen:
        e.reset()
        while e.agents and not e.terminations[e.agent_selection]:
            if len(e.match.deal.seats) < 3:
                tie_break_seen += 1
                _assert_rows_match(e, "tie-break deal")
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))
    e = raw_env(rules="black_maria", num_players=5, illegal_action="renege_penalty", episode="match")
    e.reset(seed=3)
    for _ in range(40):
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0]))  # a renege ends the deal
    assert e.match.deals_played == 1
    _assert_rows_match(e, "after a renege")


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
