"""The soak command: a CI-sized run over every preset, and proof that its checks can fail."""

import numpy as np

from bm_env import soak
from bm_env.cli.soak import main
from bm_env.engine.deal import Deal
from bm_env.engine.rules import PRESETS, make_rules


def test_ci_sized_soak_plays_every_configuration_without_failures(capsys):
    assert main(["--deals", "3000", "--batch", "256", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    configs = sum(len(p.player_counts) for p in PRESETS.values())
    assert f"over {configs} of {configs} preset/player-count configurations" in out
    assert "0 failure(s)" in out
    # Every configuration went through env(); the vector engine took the rest.
    assert out.count(" env ") == configs
    assert "cancellation           10p env" in out


def test_the_summary_counts_the_configurations_a_short_run_played(capsys):
    assert main(["--deals", "1", "--presets", "black_maria,american_hearts"]) == 0
    out = capsys.readouterr().out
    configs = len(soak.configurations(["black_maria", "american_hearts"]))
    assert "bm-soak: 1 deals" in out and f"over 1 of {configs} preset/player-count configurations" in out


def test_the_split_gives_env_deals_to_every_configuration_and_the_rest_to_the_vector_engine():
    configs = soak.configurations(["black_maria", "turbo_hearts", "cancellation"])
    jobs = soak.plan(configs, 1000, 12)
    env_jobs = [j for j in jobs if j[3] == "env"]
    vector_jobs = [j for j in jobs if j[3] == "vector"]
    assert len(env_jobs) == 11 and sum(j[4] for j in env_jobs) == 12
    assert len(vector_jobs) == 11  # the vector engine plays every configuration
    assert sum(j[4] for j in vector_jobs) == 988


def test_a_wrong_deal_total_is_reported_on_both_engines(monkeypatch):
    rules = make_rules("black_maria")
    monkeypatch.setattr(soak, "allowed_totals", lambda *a: {42})
    res = soak.soak_vector("black_maria", rules, 64, seed=1, batch=32)
    assert res.failures and "add up to 43; the rules allow [42]" in res.messages[0]
    res = soak.soak_env("black_maria", rules, 2, seed=1)
    assert res.failures and "add up to 43; the rules allow [42]" in res.messages[0]


def test_a_mask_that_lets_an_illegal_card_through_is_reported(monkeypatch):
    rules = make_rules("black_maria")
    original = Deal.step

    def lax_step(self, action):  # accepts any card in hand, legal or not
        if self.phase == "play" and 0 <= action < 52 and self.hands[self.to_act] >> action & 1:
            self.legal |= 1 << action
        return original(self, action)

    monkeypatch.setattr(Deal, "step", lax_step)
    res = soak.soak_env("black_maria", rules, 40, seed=3)
    assert res.failures
    assert any("was accepted" in m or "does not replay" in m for m in res.messages)


def test_allowed_totals_follow_the_moon_and_the_clean_trick_bonus():
    bm = make_rules("black_maria")
    values = [v for c, v in enumerate(bm.card_values) if bm.deck_mask() >> c & 1]
    assert soak.allowed_totals(bm, values, 17) == {43}
    assert soak.allowed_totals(bm.replace(moon="others_plus"), values, 17) == {43, 43 + 43}
    petrone = make_rules("petrone_black_mariah")
    pv = [v for c, v in enumerate(petrone.card_values) if petrone.deck_mask() >> c & 1]
    assert soak.allowed_totals(petrone, pv, 13) == {-30 + 3 * k for k in range(14)}
    assert soak.allowed_totals(make_rules("turbo_hearts"), values, 13) is None


def test_a_run_is_reproducible_from_its_seed():
    a = soak.soak(["dirty_lady"], 400, 8, seed=5, batch=64)
    b = soak.soak(["dirty_lady"], 400, 8, seed=5, batch=64)
    assert [(r.deals, r.decisions, r.illegal_tried) for r in a] == [(r.deals, r.decisions, r.illegal_tried) for r in b]
    assert np.sum([r.failures for r in a]) == 0


def test_whole_matches_through_env_are_checked_against_their_records(monkeypatch):
    rules = make_rules("black_maria", match_deals=3)
    checked = []

    def failing_replay(rec):
        checked.append(len(rec["deals"]))
        raise soak.RecordError("tampered")

    monkeypatch.setattr(soak, "replay_match", failing_replay)
    res = soak.soak_env("black_maria", rules, 24, seed=2)  # every fourth deal: 6 deals of matches of 3
    assert checked == [3, 3]
    assert res.failures == 2 and "the match record does not replay: tampered" in res.messages[0]
