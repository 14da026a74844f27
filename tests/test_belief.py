"""The belief over the hidden cards: what may hold each card, the labels, the baseline, the training."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bm_env.agents.belief import chances, room_chances
from bm_env.engine.rules import make_rules
from bm_env.training.belief import collect, main, scores, train


@pytest.fixture(scope="module")
def positions():
    return collect(make_rules("black_maria"), "heuristic", 12, seed=0)


def test_every_hidden_card_has_its_real_holder_among_the_seats_that_may_hold_it(positions):
    holder, eligible = positions["holder"], positions["eligible"]
    rows, cards = np.nonzero(holder >= 0)
    assert eligible[rows, holder[rows, cards], cards].all()
    assert not eligible.transpose(0, 2, 1)[holder < 0].any()  # a card whose place the seat knows: no seat
    assert (positions["room"] == np.stack([(holder == r).sum(axis=1) for r in range(2)], axis=1)).all()


def test_the_uniform_belief_shares_each_card_by_room(positions):
    p = room_chances(positions["eligible"], positions["room"])
    hidden = positions["holder"] >= 0
    np.testing.assert_allclose(p.sum(axis=1)[hidden], 1.0)
    assert (p.sum(axis=1)[~hidden] == 0).all()
    rows, cards = np.nonzero(hidden)
    both = positions["eligible"][rows, :, cards].all(axis=1)  # cards either seat may hold: shared by room
    shares = positions["room"] / positions["room"].sum(axis=1, keepdims=True)
    assert both.any() and not both.all()
    np.testing.assert_allclose(p[rows, :, cards][both], shares[rows][both])


def test_chances_put_nothing_on_a_seat_that_may_not_hold_the_card():
    logits = torch.randn(4, 2, 52)
    eligible = torch.rand(4, 2, 52) > 0.5
    p = chances(logits, eligible)
    assert (p[~eligible] == 0).all()
    some = eligible.any(dim=1)
    torch.testing.assert_close(p.sum(dim=1)[some], torch.ones(int(some.sum())))


def test_training_fits_the_positions_better_than_the_uniform_belief(positions):
    rows = np.arange(len(positions["obs"]))
    net = train(positions, rows, epochs=12, seed=0, lr=3e-3, hidden=(64,))
    with torch.no_grad():
        p = chances(net(torch.as_tensor(positions["obs"], dtype=torch.float32)),
                    torch.as_tensor(positions["eligible"])).numpy()
    fitted = scores(p, positions["holder"])
    uniform = scores(room_chances(positions["eligible"], positions["room"]), positions["holder"])
    assert fitted["log_loss"] < uniform["log_loss"] - 0.03


def test_scores_of_a_sure_and_right_belief_are_perfect():
    holder = np.full((1, 52), -1)
    holder[0, [3, 50]] = [1, 0]
    p = np.zeros((1, 2, 52))
    p[0, 1, 3] = p[0, 0, 50] = 1
    s = scores(p, holder)
    assert s["log_loss"] == pytest.approx(0) and s["accuracy"] == 1 and s["honours"] == 1 and s["cards"] == 2


def test_the_training_script_prints_every_belief_it_scores(capsys, tmp_path):
    assert main(["--agent", "heuristic", "--deals", "5", "--epochs", "1", "--read-positions", "2",
                 "--out", str(tmp_path / "b.pt")]) == 0
    out = capsys.readouterr().out
    for row in ("| uniform |", "| network |", "read_passes |"):
        assert row in out
    assert (tmp_path / "b.pt").is_file()
