"""The belief over the hidden cards: what may hold each card, the labels, the baseline, the training."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bm_env.agents.belief import (BeliefNet, chances, draw_weights, hidden_cards, load_belief, room_chances,
                                  save_belief)
from bm_env.engine.rules import make_rules
from bm_env.env import observation
from bm_env.env.observation import encode
from bm_env.agents.checkpoint import digest
from bm_env.training.belief import collect, main, scores, train

from kit import mid_play_states


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
    p = chances(logits, eligible, torch.randint(1, 9, (4, 2)))
    assert (p[~eligible] == 0).all()
    some = eligible.any(dim=1)
    torch.testing.assert_close(p.sum(dim=1)[some], torch.ones(int(some.sum())))


def test_an_untrained_belief_is_the_uniform_one(positions):
    net = BeliefNet(positions["obs"].shape[1], 3)
    with torch.no_grad():
        p = chances(net(torch.as_tensor(positions["obs"], dtype=torch.float32)), torch.as_tensor(positions["eligible"]),
                    torch.as_tensor(positions["room"])).numpy()
    np.testing.assert_allclose(p, room_chances(positions["eligible"], positions["room"]), atol=1e-6)


def test_draw_weights_are_the_beliefs_chance_over_the_uniform_one(tmp_path, positions):
    rules = make_rules("black_maria")
    torch.manual_seed(0)
    net = BeliefNet(positions["obs"].shape[1], 3, (8,))
    torch.nn.init.normal_(net.body[-1].weight)  # a belief away from the uniform one
    path = tmp_path / "belief.pt"
    save_belief(path, net, rules, ["heuristic"])
    loaded = load_belief(str(path), rules)
    real, info = mid_play_states(rules, 1, seed=3, earliest=4)[0]
    obs = encode(info)
    eligible, room = hidden_cards(info)
    with torch.no_grad():
        p = chances(loaded(torch.as_tensor(obs[None], dtype=torch.float32)), torch.as_tensor(eligible)[None],
                    torch.as_tensor(room)[None])[0].numpy()
    weights = draw_weights(loaded, info, obs, floor=0.0)
    me = info.seats.index(info.seat)
    for r in (1, 2):
        w = weights[info.seats[(me + r) % 3]]
        e = eligible[r - 1]
        np.testing.assert_allclose(w[e] * room_chances(eligible, room)[r - 1][e], p[r - 1][e], rtol=1e-5)
        assert (w[~e] == 1).all()
    assert not np.allclose(p, room_chances(eligible, room))


def test_a_belief_for_other_rules_or_another_file_is_refused(tmp_path):
    net = BeliefNet(observation.size_for(make_rules("black_maria")), 3, (8,))
    path = tmp_path / "belief.pt"
    save_belief(path, net, make_rules("black_maria"), ["heuristic"])
    with pytest.raises(ValueError, match="trained for other rules"):
        load_belief(str(path), make_rules("black_maria", moon="shooter_minus"))
    state = torch.load(path, weights_only=True)
    for name, change, says in (
            ("nan", lambda st: st["state_dict"]["body.0.weight"].__setitem__((0, 0), float("nan")), "do not match their"),
            ("digest", lambda st: st.__setitem__("digest", "0" * 64), "do not match their digest"),
            ("huge", lambda st: st["arch"].__setitem__("hidden", [10**9]), "hidden layers"),
            ("shape", lambda st: st["state_dict"].__setitem__("body.0.bias", torch.zeros(3)), "do not fit its network")):
        bad = {**state, "arch": dict(state["arch"]), "state_dict": dict(state["state_dict"])}
        bad["state_dict"]["body.0.weight"] = bad["state_dict"]["body.0.weight"].clone()
        change(bad)
        torch.save(bad, tmp_path / f"{name}.pt")
        with pytest.raises(ValueError, match=says):
            load_belief(str(tmp_path / f"{name}.pt"), make_rules("black_maria"))
    nan = {**state, "state_dict": {k: v.clone() for k, v in state["state_dict"].items()}}
    nan["state_dict"]["body.0.weight"][0, 0] = float("inf")
    nan["digest"] = digest(nan["state_dict"])  # damage that its digest does not tell
    torch.save(nan, tmp_path / "inf.pt")
    with pytest.raises(ValueError, match="not finite"):
        load_belief(str(tmp_path / "inf.pt"), make_rules("black_maria"))
    with pytest.raises(ValueError, match=r"no shipped belief named 'nobody' \(shipped: black_maria_3p\)"):
        load_belief("nobody", make_rules("black_maria"))
    (tmp_path / "junk.pt").write_bytes(b"junk")
    for bad, says in ((tmp_path / "junk.pt", "damaged or not a belief network file"), (tmp_path, "is not a file"),
                      (tmp_path / "none.pt", "is not a file")):
        with pytest.raises(ValueError, match=says) as err:
            load_belief(str(bad), make_rules("black_maria"))
        assert "\n" not in str(err.value)


def test_training_fits_the_positions_better_than_the_uniform_belief(positions):
    rows = np.arange(len(positions["obs"]))
    net = train(positions, rows, epochs=12, seed=0, lr=3e-3, hidden=(64,))
    with torch.no_grad():
        p = chances(net(torch.as_tensor(positions["obs"], dtype=torch.float32)), torch.as_tensor(positions["eligible"]),
                    torch.as_tensor(positions["room"])).numpy()
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


def test_the_shipped_belief_loads_by_name_and_beats_the_uniform_belief_on_fresh_deals():
    rules = make_rules("black_maria")
    net = load_belief("black_maria_3p", rules)
    data = collect(rules, "heuristic_v1", 6, seed=12345)  # deals it was not trained on (seed 0's)
    with torch.no_grad():
        p = chances(net(torch.as_tensor(data["obs"], dtype=torch.float32)), torch.as_tensor(data["eligible"]),
                    torch.as_tensor(data["room"])).numpy()
    assert scores(p, data["holder"])["log_loss"] < scores(room_chances(data["eligible"], data["room"]),
                                                          data["holder"])["log_loss"]


@pytest.mark.parametrize("args, says", [
    (["--deals", "100000000"], "--deals must be 5 to 50,000"),
    (["--epochs", "0"], "--epochs 1 to 1000"),
    (["--out", "OUTDIR"], "is a directory; give a file name"),
    (["--agent", "bogus"], "--agent: unknown agent 'bogus'"),
    (["--preset", "turbo_hearts"], "invalid choice: 'turbo_hearts'"),
])
def test_the_training_script_refuses_bad_arguments_before_it_plays(capsys, tmp_path, args, says):
    with pytest.raises(SystemExit) as stop:
        main([a.replace("OUTDIR", str(tmp_path)) for a in args] + ["--deals", "5"] * ("--deals" not in args))
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert says in err[-1] and "Traceback" not in "\n".join(err)
