"""Rendering: 'ansi' returns and 'human' prints the table from one seat's point of view."""

from bm_env.black_maria_v0 import raw_env
from bm_env.engine.cards import card_pretty, format_hand
from bm_env.engine.deal import deal_hands

import numpy as np


def _env(**kw):
    e = raw_env(render_mode="ansi", **kw)
    hands = deal_hands(e.rules, 3, 0, np.random.default_rng(0))
    e.reset(seed=0, options={"hands": hands, "dealer": 2})
    return e, hands


def test_ansi_shows_own_hand_sorted_by_suit_with_symbols_and_no_other_hand():
    e, hands = _env(render_seat=1)
    text = e.render()
    own = sorted(c for c in range(52) if hands[1] >> c & 1)
    assert f"Your hand (player_1): {format_hand(own)}" in text
    # suits appear in a fixed order, each once, with its symbol
    line = next(ln for ln in text.splitlines() if ln.startswith("Your hand"))
    symbols = [ch for ch in line if ch in "♠♥♦♣"]
    assert symbols == sorted(set(symbols), key="♠♥♦♣".index)
    assert "[revealed]" not in text
    assert "Waiting for player_0" in text  # dealer 2: eldest hand player_0 passes first


def test_trick_and_scores_appear_as_play_goes_on():
    e, _ = _env(render_seat=0)
    rng = np.random.default_rng(3)
    while e.match.deal.phase == "pass" or not e.match.deal.trick:
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    leader_card = e.match.deal.trick[0]
    text = e.render()
    assert f"Trick: player_{e.match.deal.seats[e.match.deal.leader]}" in text
    assert card_pretty(leader_card) in text
    assert "Scores: player_0 (you): match 0" in text


def test_human_prints(capsys):
    e = raw_env(render_mode="human")
    e.reset(seed=1)
    assert e.render() is None
    assert "Your hand (player_0)" in capsys.readouterr().out
