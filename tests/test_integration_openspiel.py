"""The OpenSpiel bridge (bm_env.integrations.openspiel) against OpenSpiel's own ``hearts``.

Marker ``openspiel``: needs ``.venv-openspiel`` (scripts/setup_extra_env.sh openspiel openspiel).
The replay test is also a conformance test of the ``openspiel_hearts`` preset: at every
decision of OpenSpiel's games the replayed deal has exactly OpenSpiel's legal actions, and at
the end exactly its points.
"""

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bm_env.engine.cards import NUM_CARDS, card_str
from bm_env.engine.deal import DONE, IllegalActionError
from bm_env.engine.infostate import information_state
from bm_env.env.observation import encode

pytestmark = pytest.mark.openspiel
pyspiel = pytest.importorskip("pyspiel")

from bm_env.integrations.openspiel import (  # noqa: E402  (after the skip: pyspiel is optional)
    DIRECTIONS, card_from_openspiel, card_to_openspiel, deal_from_openspiel, make_bot,
)

ROOT = Path(__file__).resolve().parent.parent
GAME = pyspiel.load_game("hearts")
SHIPPED = ROOT / "checkpoints" / "openspiel_hearts_4p.pt"


def chance(state, rng):
    outcomes = state.chance_outcomes()
    state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])


def test_card_ids_map_one_to_one_and_name_the_same_cards():
    assert sorted(card_from_openspiel(a) for a in range(NUM_CARDS)) == list(range(NUM_CARDS))
    state = GAME.new_initial_state()
    state.apply_action(0)  # no pass: from here on OpenSpiel names actions as cards
    for a in range(NUM_CARDS):
        assert card_to_openspiel(card_from_openspiel(a)) == a
        assert state.action_to_string(0, a) == card_str(card_from_openspiel(a))  # "QS", "TC"...


def _moon_seeker(state, rng):
    """Player 0 plays its highest card, the others their lowest: a moon now and then."""
    legal = state.legal_actions()
    if state.current_player() == 0:
        return max(legal, key=lambda a: a // 4)
    return min(legal, key=lambda a: a // 4)


def _random(state, rng):
    legal = state.legal_actions()
    return legal[int(rng.integers(len(legal)))]


def test_replayed_deals_have_openspiels_legal_actions_at_every_decision_and_its_points_at_the_end():
    rng = np.random.default_rng(0)
    directions, moons = set(), 0
    for game in range(240):
        choose = _moon_seeker if game % 2 else _random
        state = GAME.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                chance(state, rng)
                continue
            deal = deal_from_openspiel(state)
            assert deal.current_seat == state.current_player()
            assert sorted(card_to_openspiel(c) for c in deal.legal_actions()) == sorted(state.legal_actions())
            state.apply_action(choose(state, rng))
        deal = deal_from_openspiel(state)
        assert deal.phase == DONE
        points = [26 - r for r in state.returns()]
        assert list(deal.scores) == points
        directions.add(deal.pass_direction)
        moons += sorted(points) == [0, 26, 26, 26]
    assert directions == set(DIRECTIONS)
    assert moons > 0  # the moon rule was compared too


def test_a_deal_is_replayed_only_once_dealt_and_only_with_openspiels_default_rules():
    state = GAME.new_initial_state()
    state.apply_action(1)
    for a in range(10):
        state.apply_action(a)
    with pytest.raises(ValueError, match="the deal is not complete: 11 of OpenSpiel's 53 chance outcomes"):
        deal_from_openspiel(state)
    other = pyspiel.load_game("hearts(jd_bonus=true)").new_initial_state()
    with pytest.raises(ValueError, match="'jd_bonus': True.*is not the 'openspiel_hearts' preset"):
        deal_from_openspiel(other)


def test_the_bot_sees_what_its_player_may_know_and_nothing_else():
    """OpenSpiel's resampling gives states with the same information for a player and other
    hidden hands; where such a state is a legal history, the player's view is the same."""
    rng = np.random.default_rng(1)
    sampler = random.Random(1).random
    compared = differed = 0
    for _ in range(30):
        state = GAME.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                chance(state, rng)
                continue
            p = state.current_player()
            if rng.random() < 0.2:
                deal = deal_from_openspiel(state)
                other_state = state.resample_from_infostate(p, sampler)
                try:
                    other = deal_from_openspiel(other_state)
                except IllegalActionError:
                    other = None  # OpenSpiel's resampling ignores shown voids: not a legal history here
                if other is not None:
                    compared += 1
                    differed += other.hands != deal.hands
                    view = encode(information_state(deal, p))
                    assert np.array_equal(view, encode(information_state(other, p)))
            state.apply_action(_random(state, rng))
    assert compared >= 20 and differed >= compared // 2


@pytest.mark.parametrize("spec", [f"policy:{SHIPPED}", "heuristic"])
def test_bots_play_whole_games_of_openspiel_hearts_with_legal_cards(spec):
    rng = np.random.default_rng(2)
    for game in range(4):
        seat = game % 4
        bot = make_bot(spec, seat, seed=game)
        state = GAME.new_initial_state()
        played = 0
        while not state.is_terminal():
            if state.is_chance_node():
                chance(state, rng)
                continue
            if state.current_player() == seat:
                action = bot.step(state)
                assert action in state.legal_actions()
                played += 1
            else:
                action = _random(state, rng)
            state.apply_action(action)
        assert played >= 13
    bots = [make_bot(spec, 0, seed=1)] + [pyspiel.make_uniform_random_bot(p, p) for p in (1, 2, 3)]
    returns = pyspiel.evaluate_bots(GAME.new_initial_state(), bots, 5)
    assert sum(26 - r for r in returns) in (26, 78)  # 26 points taken, or a moon (the others +26)


def test_a_bot_is_refused_for_a_seat_openspiel_does_not_have():
    with pytest.raises(ValueError, match="player_id must be 0..3, got 4"):
        make_bot("heuristic", 4)


def test_the_example_seats_the_shipped_agent_against_openspiels_bots():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "openspiel_hearts.py"), "--deals", "3",
                          "--opponent", "random"], capture_output=True, text=True, check=True).stdout
    assert "3 deals x 4 seats" in out and "better than the fair share" in out
