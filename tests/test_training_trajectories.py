"""Per-seat trajectories and their targets on small scripted batches, worked by hand."""

import numpy as np
import pytest

from bm_env.training.trajectories import seat_targets


def _entry(t, g, N, n):
    """Index of step ``t`` of game ``g`` in the flat entry space (carried entries first)."""
    return N * n + t * N + g


def test_two_seats_one_game_reward_on_each_seats_own_last_decision():
    # One game, two seats alternating; the deal ends with step 3 (seat 1's card), a new deal starts at step 4.
    N, n, T = 1, 2, 6
    seat = np.array([[0], [1], [0], [1], [0], [1]])
    learner = np.ones((T, N), dtype=bool)
    done = np.array([[0], [0], [0], [1], [0], [0]], dtype=bool)
    rewards = np.zeros((T, N, n))
    rewards[3, 0] = [1.0, -1.0]
    values = np.array([[0.1], [0.2], [0.3], [0.4], [0.5], [0.6]])
    carried = np.zeros((N, n), dtype=bool)
    out = seat_targets(seat, learner, done, rewards, values, carried, np.zeros((N, n)), gamma=1.0, lam=0.5)
    e = lambda t: _entry(t, 0, N, n)  # noqa: E731
    # Seat 0: steps 0 and 2; its reward +1 sits on step 2 (its own last decision), not on step 3.
    assert out.advantages[e(2)] == pytest.approx(1.0 - 0.3)
    assert out.advantages[e(0)] == pytest.approx((0.3 - 0.1) + 0.5 * (1.0 - 0.3))
    # Seat 1: steps 1 and 3; reward -1 on step 3.
    assert out.advantages[e(3)] == pytest.approx(-1.0 - 0.4)
    assert out.advantages[e(1)] == pytest.approx((0.4 - 0.2) + 0.5 * (-1.0 - 0.4))
    # Returns are advantages plus values.
    assert out.returns[e(0)] == pytest.approx(out.advantages[e(0)] + 0.1)
    # Steps 4 and 5 start a new deal that has not ended: no bootstrap across the deal boundary, carried.
    assert not out.trainable[e(4)] and not out.trainable[e(5)]
    assert out.carry.tolist() == [[e(4), e(5)]]
    assert out.trainable[[e(0), e(1), e(2), e(3)]].all()


def test_carried_decision_resolves_in_the_next_rollout_and_bootstraps_earlier_ones():
    # Rollout 2 of the game above: the carried decisions of steps 4 and 5 come in as carried entries.
    N, n, T = 1, 2, 3
    seat = np.array([[0], [1], [0]])
    learner = np.ones((T, N), dtype=bool)
    done = np.array([[0], [1], [0]], dtype=bool)  # the deal ends with seat 1's card at step 1
    rewards = np.zeros((T, N, n))
    rewards[1, 0] = [-0.5, 0.5]
    values = np.array([[0.7], [0.8], [0.9]])
    carried = np.ones((N, n), dtype=bool)
    carried_values = np.array([[0.5, 0.6]])
    out = seat_targets(seat, learner, done, rewards, values, carried, carried_values, gamma=1.0, lam=1.0)
    c0, c1 = 0, 1  # carried entries: game 0 seat 0, game 0 seat 1
    # Seat 0: carried (v .5), step 0 (v .7, its last of the deal: reward -0.5).
    assert out.advantages[_entry(0, 0, N, n)] == pytest.approx(-0.5 - 0.7)
    assert out.advantages[c0] == pytest.approx(-0.5 - 0.5)
    # Seat 1: carried (v .6), step 1 (last, +0.5).
    assert out.advantages[c1] == pytest.approx(0.5 - 0.6)
    assert out.trainable[[c0, c1]].all()
    # Step 2 opens the next deal: carried again.
    assert out.carry[0, 0] == _entry(2, 0, N, n) and out.carry[0, 1] == -1


def test_only_learner_decisions_form_trajectories_and_games_stay_apart():
    # Two games of three seats; in game 1 only seat 2 is the learner (a pool deal).
    N, n, T = 2, 3, 6
    seat = np.array([[0, 1], [1, 2], [2, 0], [0, 1], [1, 2], [2, 0]])
    learner = np.array([[1, 0], [1, 1], [1, 0], [1, 0], [1, 1], [1, 0]], dtype=bool)
    done = np.zeros((T, N), dtype=bool)
    done[5] = True  # both deals end with step 5
    rewards = np.zeros((T, N, n))
    rewards[5, 0] = [0.3, -0.1, -0.2]
    rewards[5, 1] = [0.0, 0.0, 2.0]
    values = np.zeros((T, N))
    out = seat_targets(seat, learner, done, rewards, values, np.zeros((N, n), bool), np.zeros((N, n)), 1.0, 1.0)
    adv = lambda t, g: out.advantages[_entry(t, g, N, n)]  # noqa: E731
    # Game 0: each seat's two decisions get that seat's own reward (values zero, lambda one).
    assert [adv(0, 0), adv(3, 0)] == pytest.approx([0.3, 0.3])
    assert [adv(1, 0), adv(4, 0)] == pytest.approx([-0.1, -0.1])
    assert [adv(2, 0), adv(5, 0)] == pytest.approx([-0.2, -0.2])
    # Game 1: the learner (seat 2) acted at steps 1 and 4; the snapshots' decisions are not trained.
    assert [adv(1, 1), adv(4, 1)] == pytest.approx([2.0, 2.0])
    trained = out.trainable[N * n:].reshape(T, N)
    assert trained[:, 1].tolist() == [False, True, False, False, True, False]
    assert (out.carry == -1).all()
