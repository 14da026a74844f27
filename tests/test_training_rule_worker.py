"""The rule-based player's worker processes: the same cards as in the trainer's process, the same run, clear ends."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest
import torch

from bm_env import make_rules
from bm_env.agents import heuristic, heuristic_v1
from bm_env.vector import VectorEngine
from training.rule_opponent import rule_actions
from training.rule_worker import RuleWorkers
from training.trainer import Trainer

from kit import DECISIONS_PER_UPDATE, tiny_config, trainer_weights


@pytest.mark.parametrize("preset, player", [("black_maria", heuristic_v1), ("american_hearts", heuristic),
                                            ("petrone_black_mariah", heuristic_v1)])
def test_workers_choose_the_cards_of_the_trainers_process(preset, player):
    rules = make_rules(preset)
    engine = VectorEngine(rules, 40, seed=5)
    engine.reset()
    rng = np.random.default_rng(5)
    workers = RuleWorkers(rules, player, 2)
    try:
        for step in range(60):
            # every game, a few (fewer than the three parts: some parts empty) and none
            for games in (np.arange(40), rng.choice(40, size=2, replace=False), np.arange(0)):
                assert workers.actions(engine, games).tolist() == rule_actions(engine, games, player).tolist(), step
            engine.step(rule_actions(engine, np.arange(40), player) if step % 2 else engine.random_actions(rng))
        processes = [p for p, _ in workers._workers]
        assert len(processes) == 2 and all(p.is_alive() for p in processes)
    finally:
        workers.close()
    assert not any(p.is_alive() for p in processes)


def test_a_run_is_the_same_with_and_without_workers(tmp_path, monkeypatch):
    decided = []
    real = RuleWorkers.actions
    monkeypatch.setattr(RuleWorkers, "actions", lambda self, engine, games: decided.append(len(games)) or real(
        self, engine, games))
    weights = []
    for count in (0, 1):
        config = tiny_config(total_decisions=3 * DECISIONS_PER_UPDATE, rule_opponent="heuristic_v1", rule_share=0.5,
                             pool_share=0.3, rule_workers=count)
        trainer = Trainer(config, str(tmp_path / str(count)), quiet=True)
        trainer.run()
        assert (trainer.selfplay.rule_workers is None) == (count == 0)
        if count:  # the run ended its worker
            assert trainer.selfplay.rule_workers._workers == []
        weights.append(trainer_weights(trainer))
    assert sum(decided) > 0  # the run with a worker used it
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])


def test_a_worker_ignores_ctrl_c_and_its_end_is_reported():
    rules = make_rules("black_maria")
    engine = VectorEngine(rules, 8, seed=1)
    engine.reset()
    games = np.arange(8)
    workers = RuleWorkers(rules, heuristic_v1, 1)
    try:
        want = rule_actions(engine, games, heuristic_v1).tolist()
        assert workers.actions(engine, games).tolist() == want
        process = workers._workers[0][0]
        os.kill(process.pid, signal.SIGINT)  # Ctrl-C reaches every process of the terminal; the trainer handles it
        assert workers.actions(engine, games).tolist() == want
        process.kill()
        process.join()
        with pytest.raises(RuntimeError, match=r"rule player 1 \(a worker process of the rule-based player\) ended, "
                                               r"exit code -9; set rule_workers: 0"):
            workers.actions(engine, games)
    finally:
        workers.close()
