"""The rule-based player at the vector engine's games, and a run that starts from another run."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bm_env import make_rules
from bm_env.agents import CheckpointError, heuristic, heuristic_v1
from bm_env.agents.checkpoint import PolicyNet, masked_logits
from bm_env.config import ConfigError
from bm_env.engine.deal import Deal, deal_hands, pass_direction_for
from bm_env.vector import make_engine
from bm_env.training.ppo import policy_and_value
from bm_env.training.rollout import LEARNER, RULE
from bm_env.training.rule_opponent import check_rule_opponent
from bm_env.learner.rule_players import rule_actions
from bm_env.training.state import TrainingStateError
from bm_env.training.trainer import Trainer

from kit import DECISIONS_PER_UPDATE, tiny_config


def tiny(**kw):
    """kit's tiny run, with fewer games against pool snapshots."""
    return tiny_config(**{"pool_share": 0.3, **kw})


@pytest.mark.parametrize("preset", ["black_maria", "american_hearts", "petrone_black_mariah", "openspiel_hearts",
                                    "spot_hearts"])
def test_the_engine_view_chooses_as_the_deal_view_at_every_step(preset):
    """Both players, from the engine's arrays and from the same positions as Deals, over several deals per game."""
    rules = make_rules(preset)
    n, games = rules.num_players, 12
    rng = np.random.default_rng(7)
    dealers = rng.integers(n, size=games)
    hands = [deal_hands(rules, n, int(d), rng) for d in dealers]
    directions = [pass_direction_for(rules, 0, rng) for _ in range(games)]
    refs = [Deal(rules, h, int(d), p) for h, d, p in zip(hands, dealers, directions)]
    engine = make_engine(rules, games, seed=0)
    engine.reset(hands=np.array(hands, dtype=np.uint64), dealers=dealers, pass_directions=directions)
    everyone = np.arange(games)
    ended = 0
    for step in range(150):
        for player in (heuristic, heuristic_v1):
            want = [player.choose(player.view_from_deal(r)) for r in refs]
            assert rule_actions(engine, everyone, player).tolist() == want, f"{player.__name__} step {step}"
        # Half the steps random cards, so the positions are not only the ones the heuristic makes.
        actions = rule_actions(engine, everyone, heuristic_v1) if step % 2 else engine.random_actions(rng)
        done = engine.step(actions)[4]
        state = engine.state()
        for i, ref in enumerate(refs):
            ref.step(int(actions[i]))
            if done[i]:
                ended += 1
                refs[i] = Deal(rules, [int(h) for h in state["hands"][i]], int(state["dealer"][i]),
                               str(state["pass_direction"][i]))
    assert ended >= games  # every game went through a deal end and a new deal's passing


def test_rule_deals_seat_one_learner_and_the_rule_player_elsewhere(tmp_path):
    trainer = Trainer(tiny(rollout_steps=70, pool_share=0.0, rule_opponent="heuristic_v1", rule_share=1.0),
                      str(tmp_path / "run"), quiet=True, log=lambda s: None)
    sp = trainer.selfplay
    assert ((sp.seating == LEARNER).sum(axis=1) == 1).all() and ((sp.seating == RULE).sum(axis=1) == 2).all()
    engine = sp.engine
    seen = []
    real_step = engine.step

    def recording_step(actions):
        rows = np.flatnonzero(sp.seating[np.arange(sp.N), engine.to_act] == RULE)
        seen.append((actions[rows].copy(), rule_actions(engine, rows, heuristic_v1)))
        return real_step(actions)

    engine.step = recording_step
    rollout = sp.collect(trainer.actor, trainer.critic, trainer.pool, trainer.generator, trainer.rng, 0.0, 1.0, 0.95,
                         trainer.device)
    assert all(np.array_equal(got, want) for got, want in seen) and sum(len(g) for g, _ in seen) > 0
    assert 0.2 < len(rollout.batch) / rollout.decisions < 0.5  # the learner's third of the decisions is trained
    assert list(rollout.rule_rewards) == ["heuristic_v1"]
    assert np.isfinite(rollout.rule_rewards["heuristic_v1"]) and np.isnan(rollout.learner_reward)


def test_a_mix_of_rule_players_seats_each_by_its_share_for_whole_deals(tmp_path):
    """With {heuristic_v1: 0.75, random: 0.25} each rule deal has one of them in every seat but the learner's, drawn by
    the shares; the heuristic's cards are its own choices, the random player's legal, and both rewards are reported."""
    trainer = Trainer(tiny(num_envs=400, rollout_steps=70, pool_share=0.0, rule_share=1.0,
                           rule_opponent={"heuristic_v1": 0.75, "random": 0.25}), str(tmp_path / "run"), quiet=True, log=lambda s: None)
    sp = trainer.selfplay
    codes = sp.seating[sp.seating != LEARNER].reshape(sp.N, 2)
    assert (codes[:, 0] == codes[:, 1]).all() and set(np.unique(codes).tolist()) == {RULE, RULE - 1}
    share = (codes[:, 0] == RULE).mean()
    assert 0.68 < share < 0.82, share  # 400 draws of 0.75: about 2 standard errors (0.022) either way is 0.70..0.80
    engine = sp.engine
    random_cards = []
    real_step = engine.step

    def recording_step(actions):
        who = sp.seating[np.arange(sp.N), engine.to_act]
        heur = np.flatnonzero(who == RULE)
        assert np.array_equal(actions[heur], rule_actions(engine, heur, heuristic_v1))
        rand = np.flatnonzero(who == RULE - 1)
        random_cards.append(actions[rand].copy())
        assert sp.mask[rand, actions[rand]].all()
        return real_step(actions)

    engine.step = recording_step
    rollout = sp.collect(trainer.actor, trainer.critic, trainer.pool, trainer.generator, trainer.rng, 0.0, 1.0, 0.95,
                         trainer.device)
    assert len(np.unique(np.concatenate(random_cards))) > 30  # the random seats spread over the deck
    assert sorted(rollout.rule_rewards) == ["heuristic_v1", "random"]
    assert all(np.isfinite(v) for v in rollout.rule_rewards.values())
    # A seating changes only where a deal ended, and the new one is again one learner and one player's seats.
    codes = sp.seating[sp.seating != LEARNER].reshape(sp.N, 2)
    assert (codes[:, 0] == codes[:, 1]).all() and ((sp.seating == LEARNER).sum(axis=1) == 1).all()


def test_trained_decisions_carry_the_networks_own_log_probabilities_and_values(tmp_path):
    """The rollout runs the policy and critic on the learner's decisions alone; every trained one, whatever the deal's
    cast, must keep the log-probability and value the networks give its own observation (PPO's ratio starts at 1)."""
    trainer = Trainer(tiny(num_envs=48, pool_share=0.3, rule_opponent="heuristic_v1", rule_share=0.4, precision="fp32"),
                      str(tmp_path / "run"), quiet=True, log=lambda s: None)
    sp = trainer.selfplay
    snapshot = PolicyNet.from_arch(trainer.actor.arch)  # a different network, so pool seats choose otherwise
    trainer.pool.append(snapshot.eval())
    sp.draw_seatings(np.arange(sp.N), trainer.rng, 1, 0.3)
    assert {LEARNER, RULE, 0} <= set(np.unique(sp.seating).tolist())
    for _ in range(2):  # the second batch also holds decisions carried over from the first rollout
        batch = sp.collect(trainer.actor, trainer.critic, trainer.pool, trainer.generator, trainer.rng, 0.3, 1.0, 0.95,
                           trainer.device).batch
        with torch.no_grad():
            logits, values = policy_and_value(trainer.actor, trainer.critic, batch.obs.float(), batch.hidden, "fp32")
        logp = torch.log_softmax(masked_logits(logits, batch.mask), dim=1).gather(1, batch.actions[:, None]).squeeze(1)
        assert batch.mask.gather(1, batch.actions[:, None]).all()
        torch.testing.assert_close(batch.logp, logp, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(batch.values, values, atol=1e-5, rtol=1e-5)


def test_rule_opponent_config_errors_say_what_is_allowed():
    with pytest.raises(ConfigError, match="'rule_share' is 0.2, but no 'rule_opponent'"):
        tiny(rule_share=0.2)
    with pytest.raises(ConfigError, match="together at most 1, got 0.8 \\+ 0.3"):
        tiny(rule_opponent="heuristic", rule_share=0.8)
    with pytest.raises(ConfigError, match=r"names 'pimc'; the players are \['heuristic', 'heuristic_v1', 'heuristic_v2', 'random'\]"):
        tiny(rule_opponent="pimc", rule_share=0.5)
    with pytest.raises(ConfigError, match=r"shares of the rule deals must sum to 1, got 0.9 \(heuristic: 0.6, random: 0.3\)"):
        tiny(rule_opponent={"heuristic": 0.6, "random": 0.3}, rule_share=0.5)
    with pytest.raises(ConfigError, match="the share of 'random' must be a positive number, got 0"):
        tiny(rule_opponent={"heuristic": 1.0, "random": 0}, rule_share=0.5)
    with pytest.raises(ConfigError, match="empty mapping"):
        tiny(rule_opponent={}, rule_share=0.5)
    with pytest.raises(ConfigError, match="extension engine .*charging, ten_clubs_multiplier"):
        check_rule_opponent({"heuristic": 0.5, "random": 0.5}, make_rules("turbo_hearts"))
    assert check_rule_opponent("random", make_rules("turbo_hearts")) == {"random": 1.0}


def test_a_run_started_from_another_takes_its_networks_and_pool(tmp_path):
    first = Trainer(tiny(total_decisions=2 * DECISIONS_PER_UPDATE), str(tmp_path / "a"), quiet=True)
    first.run()
    logs = []
    second = Trainer(tiny(total_decisions=DECISIONS_PER_UPDATE, init_from=str(tmp_path / "a"), lr=1e-4, rule_opponent="heuristic",
                          rule_share=0.2), str(tmp_path / "b"), quiet=True, log=logs.append)
    for mine, theirs in ((second.actor, first.actor), (second.critic, first.critic)):
        assert all(torch.equal(a, b) for a, b in zip(mine.state_dict().values(), theirs.state_dict().values()))
    assert len(second.pool) == 2 and second.update_index == 0 and second.decisions == 0
    assert all(g["lr"] == 1e-4 for g in second.optimizer.param_groups)
    assert "starting from" in logs[0] and f"{2 * DECISIONS_PER_UPDATE:,} decisions" in logs[0]
    assert second.run().decisions == DECISIONS_PER_UPDATE
    with pytest.raises(TrainingStateError, match="does not fit this config's networks"):
        Trainer(tiny(init_from=str(tmp_path / "a"), hidden=[48]), str(tmp_path / "c"), quiet=True, log=logs.append)
    with pytest.raises(TrainingStateError, match="other rules"):
        Trainer(tiny(init_from=str(tmp_path / "a"), preset="spot_hearts"), str(tmp_path / "d"), quiet=True)


def test_a_run_started_from_a_play_checkpoint_takes_its_policy_alone(tmp_path):
    """init_from: policy:PATH loads the play checkpoint's policy; critic, optimiser and pool start as a fresh run's."""
    first = Trainer(tiny(total_decisions=2 * DECISIONS_PER_UPDATE), str(tmp_path / "a"), quiet=True)
    first.run()
    fresh = Trainer(tiny(seed=1), str(tmp_path / "fresh"), quiet=True)
    logs = []
    second = Trainer(tiny(seed=1, total_decisions=DECISIONS_PER_UPDATE, init_from=f"policy:{tmp_path / 'a' / 'latest.pt'}"),
                     str(tmp_path / "b"), quiet=True, log=logs.append)
    assert all(torch.equal(a, b) for a, b in zip(second.actor.state_dict().values(), first.actor.state_dict().values()))
    assert all(torch.equal(a, b) for a, b in zip(second.critic.state_dict().values(), fresh.critic.state_dict().values()))
    assert not any(torch.equal(a, b) for a, b in zip(second.critic.state_dict().values(), first.critic.state_dict().values())
                   if a.dim() == 2)
    assert second.pool == [] and second.optimizer.state_dict()["state"] == {}
    assert "starting from the policy of" in logs[0]
    assert second.run().decisions == DECISIONS_PER_UPDATE
    with pytest.raises(TrainingStateError, match=r"does not fit this config's policy network: its widths are \[32\], key 'hidden' is \[48\]"):
        Trainer(tiny(init_from=f"policy:{tmp_path / 'a' / 'latest.pt'}", hidden=[48]), str(tmp_path / "c"), quiet=True)
    with pytest.raises(CheckpointError, match="init_from: checkpoint .* was made for other rules"):
        Trainer(tiny(init_from=f"policy:{tmp_path / 'a' / 'latest.pt'}", preset="spot_hearts"), str(tmp_path / "d"), quiet=True)
    with pytest.raises(CheckpointError, match="init_from: checkpoint .*nowhere.pt' does not exist"):
        Trainer(tiny(init_from=f"policy:{tmp_path / 'nowhere.pt'}"), str(tmp_path / "e"), quiet=True)


def test_random_players_sit_at_the_extension_rules_games(tmp_path):
    """The random player needs only the legal masks, so it trains against rules the rule-based players cannot read."""
    trainer = Trainer(tiny(preset="turbo_hearts", pool_share=0.0, rule_opponent="random", rule_share=0.5,
                           total_decisions=DECISIONS_PER_UPDATE), str(tmp_path), quiet=True, log=lambda s: None)
    assert set(np.unique(trainer.selfplay.seating).tolist()) == {LEARNER, RULE}
    assert trainer.run().decisions == DECISIONS_PER_UPDATE
