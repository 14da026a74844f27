"""bm-train: a short run, resume after a kill, checkpoint safety, config errors, best response."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

from bm_env import make_rules
from bm_env.agents.checkpoint import load_checkpoint
from bm_env.config import ConfigError
from bm_env.vector import make_engine
from bm_env.training.config import TrainConfig, config_from_dict, load_train_config
from bm_env.training.rollout import hidden_cards
from bm_env.training.state import TrainingStateError, latest_state, list_states, load_state, to_arrays, to_tensors
from bm_env.training.trainer import Trainer

from kit import DECISIONS_PER_UPDATE, ROOT, TINY_TRAINING, tiny_config, trainer_weights

def test_short_run_evaluates_and_writes_loadable_checkpoints(tmp_path):
    config = tiny_config(total_decisions=3 * DECISIONS_PER_UPDATE, eval_every=3, eval_boards=2, final_eval_boards=2)
    result = Trainer(config, str(tmp_path), quiet=True, log=lambda s: None).run()
    assert result.stopped == "done" and result.updates == 3 and result.decisions == 3 * DECISIONS_PER_UPDATE
    assert len(result.evaluations) == 1 and np.isfinite(result.evaluations[0]["score"])
    assert "2 x random" in result.final_table and "2 x heuristic" in result.final_table
    for name in ("best.pt", "latest.pt"):
        net, meta = load_checkpoint(tmp_path / name, make_rules("black_maria"))
        assert meta["step"] > 0 and meta["config"]["hidden"] == [32]
    assert [os.path.basename(p) for p in list_states(str(tmp_path))] == [f"state_00000{u}.pt" for u in (1, 2, 3)]
    assert (tmp_path / "config.yaml").exists() and (tmp_path / "evaluations.jsonl").exists()
    assert any(f.startswith("events") for f in os.listdir(tmp_path / "tb"))


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="torch sees no CUDA device (checked on a lent GPU: docs/training.md#speed)"))])
def test_resume_gives_the_weights_of_an_uninterrupted_run(tmp_path, device):
    whole = Trainer(tiny_config(device=device, total_decisions=4 * DECISIONS_PER_UPDATE), str(tmp_path / "a"), quiet=True)
    whole.run()
    part = Trainer(tiny_config(device=device, total_decisions=2 * DECISIONS_PER_UPDATE), str(tmp_path / "b"), quiet=True)
    part.run()
    resumed = Trainer.resume(str(tmp_path / "b"), {"total_decisions": 4 * DECISIONS_PER_UPDATE}, quiet=True)
    assert resumed.update_index == 2 and len(resumed.pool) == 2 and resumed.device.type == device
    resumed.run()
    a, b = trainer_weights(whole), trainer_weights(resumed)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    # The runs really moved: the weights differ from the state after two updates (states load on the CPU).
    early = load_state(list_states(str(tmp_path / "b"))[0])
    assert not torch.equal(early["actor"]["body.0.weight"], a["actor.body.0.weight"].cpu())


def _bm_train(*args: str) -> list[str]:
    return [sys.executable, "-m", "bm_env.cli.train", *args]


def test_a_killed_run_resumes_to_the_same_weights(tmp_path):
    # The killed run has no end of its own (lr annealing is off, so the budget changes nothing learned);
    # it is killed once its second state is written and resumed with the uninterrupted run's budget.
    sets = [f"--set={k}={v}" for k, v in {**TINY_TRAINING, "epochs": 6}.items()]
    budget = f"--set=total_decisions={12 * DECISIONS_PER_UPDATE}"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    subprocess.run(_bm_train(*sets, budget, "--run-dir", str(tmp_path / "whole"), "--quiet"), check=True, env=env,
                   capture_output=True, timeout=300)
    proc = subprocess.Popen(_bm_train(*sets, "--set=total_decisions=1000000000", "--run-dir", str(tmp_path / "killed"),
                                      "--quiet"), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while not (tmp_path / "killed" / "states" / "state_000002.pt").exists():
        assert time.time() < deadline and proc.poll() is None, "the run did not reach its second checkpoint"
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert load_state(latest_state(str(tmp_path / "killed")))["update"] < 12  # killed well before the end
    done = subprocess.run(_bm_train("--resume", str(tmp_path / "killed"), budget, "--quiet"), env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    a = load_state(latest_state(str(tmp_path / "whole")))
    b = load_state(latest_state(str(tmp_path / "killed")))
    assert a["update"] == b["update"] == 12
    for net in ("actor", "critic"):
        assert all(torch.equal(a[net][k], b[net][k]) for k in a[net])


def test_ctrl_c_saves_the_state_and_stops(tmp_path):
    proc = subprocess.Popen(_bm_train(*[f"--set={k}={v}" for k, v in {**TINY_TRAINING, "checkpoint_every": 1000,
                                                                         "total_decisions": 10 ** 9}.items()],
                                      "--run-dir", str(tmp_path), "--quiet"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while not (tmp_path / "tb").exists():
        assert time.time() < deadline and proc.poll() is None
        time.sleep(0.05)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in out and list_states(str(tmp_path))
    assert load_state(latest_state(str(tmp_path)))["update"] >= 1


def test_a_run_folder_has_one_owner_and_a_killed_owner_leaves_it_free(tmp_path, capsys):
    from bm_env.cli.train import main
    from bm_env.training.run_lock import claim_run_dir

    run = tmp_path / "run"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\n"
                               "from bm_env.training.run_lock import claim_run_dir\n"
                               f"claim_run_dir({str(run)!r}); print('held', flush=True); time.sleep(120)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        sets = [f"--set={k}={v}" for k, v in TINY_TRAINING.items()]
        assert main([*sets, "--run-dir", str(run), "--quiet"]) == 2  # a second fresh run in the folder
        err = capsys.readouterr().err
        assert err == (f"bm-train: run folder {str(run)!r} is in use by another bm-train process (pid {holder.pid}); "
                       "wait for it to end, or give another --run-dir\n")
        (run / "states").mkdir()
        (run / "states" / "state_000001.pt").write_bytes(b"not read: the folder is refused first")
        assert main(["--resume", str(run)]) == 2  # a resume of the folder another process trains in
        assert f"is in use by another bm-train process (pid {holder.pid})" in capsys.readouterr().err
    finally:
        holder.kill()
        holder.wait()
    claim_run_dir(str(run))  # the killed owner's lock went with it


def test_flipped_bytes_in_a_state_are_damage_and_a_resume_names_the_intact_older_states(tmp_path):
    Trainer(tiny_config(total_decisions=3 * DECISIONS_PER_UPDATE), str(tmp_path), quiet=True).run()
    first, second, newest = list_states(str(tmp_path))
    weight = load_state(newest)["actor"]["body.0.weight"]
    raw = bytearray(open(newest, "rb").read())
    at = raw.find(weight.numpy().tobytes()[:256])
    assert at > 0
    raw[at + 8:at + 72] = bytes(b ^ 0xFF for b in raw[at + 8:at + 72])
    open(newest, "wb").write(bytes(raw))
    with pytest.raises(TrainingStateError, match="is damaged: its contents do not match the digest"):
        load_state(newest)
    with pytest.raises(TrainingStateError) as e:
        Trainer.resume(str(tmp_path))
    assert f"the intact older state(s) {first!r}, {second!r} can be resumed from: move {newest!r} out of" in str(e.value)
    os.rename(newest, tmp_path / "damaged.pt")
    assert Trainer.resume(str(tmp_path)).update_index == 2


def test_a_kill_while_writing_a_state_leaves_the_previous_one_whole(tmp_path, monkeypatch):
    trainer = Trainer(tiny_config(total_decisions=DECISIONS_PER_UPDATE), str(tmp_path), quiet=True)
    trainer.run()
    before = latest_state(str(tmp_path))

    def dies_half_way(obj, f, *a, **kw):
        f.write(b"PK\x03\x04 half a file")
        raise KeyboardInterrupt  # as a kill would end the write

    monkeypatch.setattr(torch, "save", dies_half_way)
    trainer.update_index += 1
    with pytest.raises(KeyboardInterrupt):
        trainer.save()
    assert list_states(str(tmp_path)) == [before]
    assert not [f for f in os.listdir(tmp_path / "states") if f.endswith(".tmp")]
    assert load_state(before)["update"] == 1


def test_damaged_and_mismatched_states_are_refused(tmp_path):
    Trainer(tiny_config(total_decisions=DECISIONS_PER_UPDATE), str(tmp_path), quiet=True).run()
    path = latest_state(str(tmp_path))
    data = load_state(path)
    with open(path, "r+b") as f:
        f.truncate(1000)
    with pytest.raises(TrainingStateError, match="damaged or not a training state"):
        Trainer.resume(str(tmp_path))
    data["layout_version"] = -1
    torch.save(data, path)
    with pytest.raises(TrainingStateError, match="observation layout -1"):
        Trainer.resume(str(tmp_path))
    with pytest.raises(TrainingStateError, match="holds no training state"):
        Trainer.resume(str(tmp_path / "tb"))
    with pytest.raises(TrainingStateError, match="does not exist"):
        Trainer.resume(str(tmp_path / "nowhere"))


def test_resume_may_change_the_budget_but_not_what_is_learned(tmp_path):
    Trainer(tiny_config(total_decisions=DECISIONS_PER_UPDATE), str(tmp_path), quiet=True).run()
    with pytest.raises(ConfigError, match=r"may change only .*not \['lr'\]"):
        Trainer.resume(str(tmp_path), {"lr": 1.0})
    with pytest.raises(TrainingStateError, match="saved by a run without Ray: resume it without --ray"):
        Trainer.resume(str(tmp_path), ray_address="local")


@pytest.mark.parametrize("extra", [["--device", "cpu"], ["--run-dir", "elsewhere"], ["--config", "configs/train_quick.yaml"]])
def test_resume_refuses_what_would_change_the_run_in_one_line(extra, tmp_path, capsys):
    from bm_env.cli.train import main

    assert main(["--resume", str(tmp_path), *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "do not give --config, --best-response, --run-dir or --device with it" in err


def test_the_ray_backend_is_optional_and_its_errors_say_what_to_do(tmp_path, monkeypatch, capsys):
    from bm_env.cli.train import main

    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    assert main(["--ray", "local", "--run-dir", str(tmp_path / "run")]) == 2
    assert "--ray needs Ray, which is not installed here: pip install 'black-maria[ray]'" in capsys.readouterr().err
    with pytest.raises(ConfigError, match=r"num_envs \(16\) must be a multiple of ray_actors \(3\)"):
        Trainer(tiny_config(ray_actors=3), str(tmp_path / "run"), ray_address="local")


def test_a_nan_loss_stops_the_run_and_keeps_the_last_good_state(tmp_path):
    messages = []
    trainer = Trainer(tiny_config(total_decisions=2 * DECISIONS_PER_UPDATE), str(tmp_path), quiet=True, log=messages.append)
    trainer.run()
    good = latest_state(str(tmp_path))
    with torch.no_grad():
        trainer.critic.body[0].weight.fill_(float("nan"))
    trainer.config.total_decisions = 4 * DECISIONS_PER_UPDATE
    result = trainer.run()
    assert result.stopped == "nan"
    assert "the loss became nan" in messages[-1] and good in messages[-1]
    assert latest_state(str(tmp_path)) == good and load_state(good)["update"] == 2


@pytest.mark.parametrize("override, words", [
    ("max_minutes=.nan", "key 'max_minutes' must be a number above 0 or null, got nan"),
    ("max_minutes=.inf", "key 'max_minutes' must be a number above 0 or null, got inf"),
    ("lr=.nan", "key 'lr' must be a number above 0 and at most 1, got nan"),
    ("lr=0", "key 'lr' must be a number above 0 and at most 1, got 0"),
    ("ent_coef=.nan", "key 'ent_coef' must be a number of at least 0, got nan"),
    ("vf_coef=-.inf", "key 'vf_coef' must be a number of at least 0, got -inf"),
    ("target_kl=.nan", "key 'target_kl' must be a number above 0 or null, got nan"),
    ("gamma=.nan", "key 'gamma' must be a number from 0 to 1, got nan"),
    ("clip=.inf", "key 'clip' must be a number from 1e-06 to 10, got inf"),
    ("eval_workers=1000", "key 'eval_workers' must be a whole number from 1 to 256, got 1000"),
    ("hidden=[10000000]", "key 'hidden' must be a list of 1 to 16 widths, each a whole number from 1 to 8192"),
    ("critic_hidden=[]", "key 'critic_hidden' must be a list of 1 to 16 widths"),
    ("hidden=[8000,8000]", "key 'hidden' must give a network of at most 50,000,000 parameters; [8000, 8000] "
                           "gives 64,008,000"),
    ("anneal_lr=yes", "key 'anneal_lr' must be true or false, got str 'yes'"),
])
def test_every_number_of_a_config_is_checked_nan_and_infinities_refused(override, words):
    with pytest.raises(ConfigError, match=re.escape(words)):
        load_train_config(None, [override])


def test_max_minutes_nan_is_refused_by_bm_train_in_one_line(tmp_path, capsys):
    from bm_env.cli.train import main

    assert main(["--run-dir", str(tmp_path / "run"), "--set", "max_minutes=.nan"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "key 'max_minutes' must be a number above 0 or null, got nan" in err
    assert not (tmp_path / "run" / "states").exists()


def test_config_errors_name_the_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("preset: black_maria\nlearning_rate: 0.1\n")
    with pytest.raises(ConfigError, match=r"unknown key\(s\) \['learning_rate'\]"):
        load_train_config(str(bad))
    with pytest.raises(ConfigError, match="key 'epochs' must be int"):
        load_train_config(None, ["epochs=two"])
    with pytest.raises(ConfigError, match="key 'pool_share' must be a number from 0 to 1"):
        load_train_config(None, ["pool_share=1.5"])
    with pytest.raises(ConfigError, match="must be key=value"):
        load_train_config(None, ["lr"])
    with pytest.raises(ConfigError, match="rules of the config: .*moon"):
        tiny_config(rules={"moon": "sideways"}).make_rules()
    with pytest.raises(ConfigError, match="'frozen_opponent' must be an agent spec 'policy:PATH'"):
        tiny_config(frozen_opponent="heuristic")
    with pytest.raises(ConfigError, match="key 'eval_boards' must be at least 1 while 'eval_every' is 5"):
        tiny_config(eval_every=5, eval_boards=0)
    tiny_config(eval_every=0, eval_boards=0)  # no evaluations: no boards needed
    out = subprocess.run(_bm_train("--config", str(bad)), capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "learning_rate" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("opponent, message", [
    ("heuristc", "unknown agent 'heuristc'"),
    ("pimc:worlds=0", "worlds"),
])
def test_a_bad_eval_opponent_is_refused_before_training(opponent, message, tmp_path):
    with pytest.raises(ConfigError, match=rf"key 'eval_opponent': .*{message}"):
        Trainer(tiny_config(eval_every=1, eval_opponent=opponent), str(tmp_path), quiet=True)


def test_rules_the_vector_engine_does_not_play_are_refused_by_name_leaving_no_folder(tmp_path):
    # Hearts worth 100 each: deal scores beyond what the engine's int16 scores carry.
    hearts = ", ".join(f"{r}H: 100" for r in "23456789TJQKA")
    out = subprocess.run(_bm_train("--set", f"rules={{card_values: {{{hearts}}}, match_deals: 1}}"), capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 2 and "could reach 2600" in out.stderr and "Traceback" not in out.stderr
    assert list((tmp_path / "runs").iterdir()) == []  # the run folder it made for itself is gone again


def test_a_run_refused_while_it_is_built_keeps_a_folder_the_user_made(tmp_path, capsys):
    from bm_env.cli.train import main

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    refused = ["--set", "init_from=policy:" + str(tmp_path / "nowhere.pt"), "--quiet"]
    assert main(["--run-dir", str(mine), *refused]) == 2
    assert (mine / "notes.txt").read_text() == "keep me"
    assert main(["--run-dir", str(tmp_path / "new"), *refused]) == 2
    assert not (tmp_path / "new").exists()


def test_best_response_trains_one_seat_against_the_frozen_policy(tmp_path):
    Trainer(tiny_config(total_decisions=DECISIONS_PER_UPDATE), str(tmp_path / "base"), quiet=True).run()
    frozen = f"policy:{tmp_path / 'base' / 'latest.pt'}"
    trainer = Trainer(tiny_config(total_decisions=DECISIONS_PER_UPDATE, frozen_opponent=frozen, eval_opponent=frozen),
                      str(tmp_path / "br"), quiet=True)
    assert len(trainer.pool) == 1
    assert ((trainer.selfplay.seating == -1).sum(axis=1) == 1).all()  # one learner seat in every game
    rollout = trainer.selfplay.collect(trainer.actor, trainer.critic, trainer.pool, trainer.generator, trainer.rng,
                                       1.0, 1.0, 0.95, trainer.device)
    assert 0.2 < len(rollout.batch) / rollout.decisions < 0.5  # about a third of the decisions are the learner's


def test_hidden_cards_are_every_hand_from_the_acting_seat():
    rules = make_rules("black_maria")
    engine = make_engine(rules, 8, seed=1)
    engine.reset()
    rng = np.random.default_rng(0)
    for _ in range(7):
        engine.step(engine.random_actions(rng))
    bits = hidden_cards(engine).reshape(8, 6, 52)
    state = engine.state()
    for g in range(8):
        for k in range(3):
            seat = (state["to_act"][g] + k) % 3
            hand = int(state["hands"][g, seat])
            assert [c for c in range(52) if bits[g, k, c]] == [c for c in range(52) if hand >> c & 1]
            picked = int(state["passed"][g, seat])
            assert [c for c in range(52) if bits[g, 3 + k, c]] == [c for c in range(52) if picked >> c & 1]


def test_engine_state_round_trip_continues_identically():
    rules = make_rules("american_hearts")
    a = make_engine(rules, 16, seed=5)
    a.reset()
    rng = np.random.default_rng(1)
    for _ in range(40):
        a.step(a.random_actions(rng))
    b = make_engine(rules, 16, seed=99)
    b.reset()
    b.set_state(a.get_state())
    for _ in range(200):  # past several deal ends: the dealt-ahead deals and the generator carry over
        actions = a.random_actions(rng)
        for x, y in zip(a.step(actions), b.step(actions)):
            assert np.array_equal(x, y)
    with pytest.raises(ValueError, match="other rules or another batch size"):
        make_engine(rules, 8).set_state(a.get_state())


def test_state_arrays_survive_a_weights_only_file_bit_for_bit(tmp_path):
    masks = np.array([[0, 1, 2**63 + 5], [2**64 - 1, 2**51, 7]], dtype=np.uint64)  # card masks use all 64 bits
    state = {"hands": masks, "scores": [np.arange(3, dtype=np.int32)], "seed": 4}
    path = tmp_path / "s.pt"
    torch.save(to_tensors(state), path)
    back = to_arrays(torch.load(path, weights_only=True))
    assert back["hands"].dtype == np.uint64 and np.array_equal(back["hands"], masks)
    assert back["scores"][0].dtype == np.int32 and back["seed"] == 4
    if hasattr(torch, "uint64"):  # states written as uint64 tensors (torch 2.3+) still load
        assert np.array_equal(to_arrays({"hands": torch.from_numpy(masks)})["hands"], masks)


def test_every_config_key_is_documented():
    import dataclasses
    doc = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    table = doc.split("## Config keys", 1)[1]
    missing = [f.name for f in dataclasses.fields(TrainConfig) if f"`{f.name}`" not in table]
    assert not missing, f"docs/training.md does not document {missing}"


@pytest.mark.slow
def test_a_minute_of_training_learns_to_beat_random_players(tmp_path):
    # An untrained policy plays about as well as random players (score near 0); a million
    # decisions of self-play are enough to beat them by a wide margin (about +11 here).
    config = config_from_dict({**TrainConfig().to_dict(), "num_envs": 256, "total_decisions": 1_000_000,
                               "eval_every": 0, "final_eval_boards": 0, "torch_threads": 1, "seed": 7}, "test")
    trainer = Trainer(config, str(tmp_path), quiet=True, log=lambda s: None)
    trainer.run()
    from bm_env.evaluation import evaluate

    res = evaluate(trainer.rules, [f"policy:{tmp_path / 'latest.pt'}", "random", "random"], 50, seed=3, workers=1,
                   progress=False)
    assert res.agents[0].advantage - res.agents[0].diff_ci > 5.0


@pytest.mark.parametrize("amx, avx512_bf16, expected", [
    (True, False, "bf16"), (False, True, "bf16"), (False, False, "fp32"), (None, None, "fp32"),
])
def test_auto_precision_is_bf16_where_the_cpu_has_bf16_units(monkeypatch, amx, avx512_bf16, expected):
    """AMX tiles or AVX-512 BF16 give bf16; neither, or a torch that cannot tell (None: no probe), fp32."""
    from bm_env.training import precision
    for probe, has in (("_is_amx_tile_supported", amx), ("_is_avx512_bf16_supported", avx512_bf16)):
        if has is None:
            monkeypatch.delattr(torch.cpu, probe, raising=False)
        else:
            # raising=False: an older torch (the oldest supported) may lack the probe.
            monkeypatch.setattr(torch.cpu, probe, lambda has=has: has, raising=False)
    cpu = torch.device("cpu")
    assert precision.resolve("auto", cpu) == expected
    assert precision.resolve("fp32", cpu) == "fp32" and precision.resolve("bf16", cpu) == "bf16"


@pytest.mark.parametrize("version, device, expected", [
    ("2.13.0+cpu", "cpu", True), ("2.4.0", "cpu", True), ("2.3.1", "cpu", False), ("2.1.2+cpu", "cpu", False),
    ("2.1.2", "cuda", True), ("2.13.0", "meta", False),
])
def test_fused_adam_only_where_this_torch_has_the_kernel(monkeypatch, version, device, expected):
    from bm_env.training import ppo
    monkeypatch.setattr(torch, "__version__", version)
    assert ppo.fused_adam_available(torch.device(device)) is expected


def test_a_state_saved_with_another_adam_kernel_resumes_with_this_torchs(tmp_path):
    """A state written where fused Adam did not exist (torch < 2.4) resumes fused here, and the other way round:
    loading the optimiser must not carry the saved kernel choice to a torch that may lack it."""
    run = Trainer(tiny_config(total_decisions=DECISIONS_PER_UPDATE), str(tmp_path / "a"), quiet=True)
    run.run()
    path = latest_state(str(tmp_path / "a"))
    data = load_state(path)
    saved = data["optimizer"]["param_groups"][0]["fused"]
    assert saved is (True if run.fused_adam else None)
    data["optimizer"]["param_groups"][0]["fused"] = None if run.fused_adam else True  # the other torch's choice
    torch.save(data, path)
    resumed = Trainer.resume(str(tmp_path / "a"), {"total_decisions": 2 * DECISIONS_PER_UPDATE}, quiet=True)
    assert all(g["fused"] == (resumed.fused_adam or None) for g in resumed.optimizer.param_groups)
    resumed.run()
    assert resumed.update_index == 2


def test_flush_subnormals_reaches_every_torch_thread_of_a_training_process(tmp_path):
    """A fresh process, as `bm-train` is: Adam's decayed moments must not run at subnormal speed.

    1e-39 is subnormal in float32; on the 2 torch threads a million-element product is split
    between them, so a thread that kept them would leave non-zeros.
    """
    script = (
        "import sys, torch; sys.path.insert(0, 'tests'); from kit import tiny_config; "
        "from bm_env.training.precision import flush_subnormals; from bm_env.training.trainer import Trainer; "
        f"flush_subnormals(); Trainer(tiny_config(torch_threads=2), {str(tmp_path)!r}, quiet=True); "
        "print(int((torch.full((1 << 20,), 1e-39) * 1.0).count_nonzero()), torch.get_num_threads())"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "2"]


def test_a_trainer_leaves_the_process_subnormals_alone(tmp_path):
    """A library class must not change how the rest of a user's process does arithmetic."""
    Trainer(tiny_config(total_decisions=2 * DECISIONS_PER_UPDATE), str(tmp_path), quiet=True).run()
    assert float(torch.tensor([1e-39]) * 1.0) != 0.0


def test_bm_train_flushes_subnormals_before_it_builds_the_trainer(tmp_path, monkeypatch):
    from bm_env.cli import train as cli
    from bm_env.training import precision, trainer

    calls = []
    monkeypatch.setattr(precision, "flush_subnormals", lambda: calls.append("flush"))
    monkeypatch.setattr(trainer, "Trainer", lambda *a, **k: calls.append("trainer") or _Stopped())
    assert cli.main(["--run-dir", str(tmp_path / "run"), "--quiet"]) == 130
    assert calls == ["flush", "trainer"]


class _Stopped:
    """A trainer that ends at once, as if interrupted."""

    def run(self):
        from bm_env.training.trainer import TrainResult

        return TrainResult("run", 0, 0, 0.0, "interrupted", [])
