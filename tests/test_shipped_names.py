"""Shipped agents and configs by name: found in a checkout and in an installed package, refused when unknown."""

from __future__ import annotations

import pytest

import bm_env.package_data as package_data
from bm_env.agents import AgentSpecError, make_agent, parse_spec
from bm_env.agents.shipped import shipped_agents, shipped_spec
from bm_env.cli.evaluate import EvalConfig
from bm_env.cli.evaluate import main as bm_eval
from bm_env.config import ConfigError, config_file, load_config
from bm_env.engine.rules import make_rules
from bm_env.cli.train import main as bm_train

from kit import ROOT

SHIPPED_NAMES = sorted(p.stem for p in (ROOT / "checkpoints").glob("*.pt"))


def test_a_shipped_agent_is_named_without_a_path():
    assert sorted(shipped_agents()) == SHIPPED_NAMES and "black_maria_3p" in SHIPPED_NAMES
    assert parse_spec("policy:black_maria_3p") == ("policy", {"path": str(ROOT / "checkpoints" / "black_maria_3p.pt")})
    assert parse_spec("pimc:guide=black_maria_3p")[1]["guide"] == str(ROOT / "checkpoints" / "black_maria_3p.pt")
    assert shipped_spec("black_maria", 3) == "policy:black_maria_3p"
    assert shipped_spec("black_maria", 4) is None  # no agent ships for four players


def test_a_checkpoint_path_is_still_a_path(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert parse_spec("policy:checkpoints/black_maria_3p.pt,greedy=false") == (
        "policy", {"path": "checkpoints/black_maria_3p.pt", "greedy": False})
    assert parse_spec("policy:run.pt")[1]["path"] == "run.pt"  # a suffix makes a path, found or not
    assert type(make_agent("policy:checkpoints/black_maria_3p.pt", make_rules("black_maria"), 0)).__name__ == "PolicyAgent"


@pytest.mark.parametrize("spec, name", [("policy:black_maria", "black_maria"), ("pimc:guide=nope", "nope")])
def test_an_unknown_name_is_refused_with_the_shipped_names_on_one_line(spec, name):
    with pytest.raises(AgentSpecError) as e:
        parse_spec(spec)
    message = str(e.value)
    assert "\n" not in message
    assert f"no shipped agent named {name!r} (shipped: {', '.join(SHIPPED_NAMES)}); give a checkpoint file" in message


def test_bm_eval_refuses_an_unknown_agent_name(capsys):
    assert bm_eval(["--agents", "policy:black_maria_3", "heuristic", "heuristic", "--boards", "1"]) == 2
    assert "no shipped agent named 'black_maria_3' (shipped: american_hearts_4p, black_maria_3p" in capsys.readouterr().err


def test_bm_eval_list_names_the_shipped_agents_and_configs(capsys):
    assert bm_eval(["--list"]) == 0
    out = capsys.readouterr().out
    assert f"shipped agents (policy:NAME): {', '.join(SHIPPED_NAMES)}" in out
    assert "train_quick" in out and "heuristic = heuristic_v2" in out
    assert bm_eval(["--list", "--boards", "3"]) == 2
    assert "--list lists what there is and plays nothing, so --boards would be ignored" in capsys.readouterr().err


def test_a_shipped_config_is_named_without_a_path(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # not the repository: the name finds the file anyway
    assert config_file("train_quick") == ROOT / "configs" / "train_quick.yaml"
    assert load_config(EvalConfig, "eval_heuristic_vs_random").agents == ["heuristic", "random", "random"]
    (tmp_path / "mine.yaml").write_text("boards: 3\nagents: [random, random, random]\n")
    assert load_config(EvalConfig, "mine.yaml").boards == 3  # a path, relative to the working folder


def test_an_unknown_config_name_is_refused_with_the_shipped_names(capsys):
    with pytest.raises(ConfigError, match=r"no shipped config named 'train_quik' \(shipped: american_hearts_4p, .*"
                                          r"train_quick\); give a config file by its path, e.g. ./train_quik.yaml"):
        config_file("train_quik")
    assert bm_train(["--config", "train_quik"]) == 2
    assert "bm-train: no shipped config named 'train_quik'" in capsys.readouterr().err


def _installed(monkeypatch, site, with_data: bool):
    """Make package_data look at a package installed in ``site`` (a site-packages folder)."""
    package = site / "bm_env"
    package.mkdir(parents=True)
    if with_data:
        (package / "checkpoints").mkdir()
        (package / "checkpoints" / "mine_3p.pt").write_bytes(b"")
    monkeypatch.setattr(package_data, "__file__", str(package / "package_data.py"))
    monkeypatch.setattr(package_data.resources, "files", lambda name: site / name)


def test_an_installed_package_finds_its_own_data(monkeypatch, tmp_path):
    _installed(monkeypatch, tmp_path / "site-packages", with_data=True)
    assert package_data.shipped_folder("checkpoints") == tmp_path / "site-packages" / "bm_env" / "checkpoints"
    assert list(shipped_agents()) == ["mine_3p"]


def test_an_installed_package_never_takes_a_stray_folder_beside_it(monkeypatch, tmp_path):
    site = tmp_path / "site-packages"
    _installed(monkeypatch, site, with_data=False)
    (site / "checkpoints").mkdir()  # another distribution's top-level folder
    (site / "checkpoints" / "black_maria_3p.pt").write_bytes(b"")
    assert package_data.shipped_folder("checkpoints") is None
    with pytest.raises(AgentSpecError, match=r"no shipped agent named 'black_maria_3p' \(shipped: none are installed\)"):
        parse_spec("policy:black_maria_3p")
    (site / "pyproject.toml").write_text('[project]\nname = "another-project"\n')
    assert package_data.shipped_folder("checkpoints") is None  # a pyproject.toml, but not this project's


def test_training_names_a_shipped_agent_as_the_command_line_does():
    from bm_env.training.config import load_train_config

    config = load_train_config("best_response_from_policy", ["frozen_opponent=policy:black_maria_3p"])
    assert config.init_from == "policy:black_maria_3p"
    with pytest.raises(ConfigError, match=r"key 'frozen_opponent': no shipped agent named 'black_maria_2p' \(shipped: "):
        load_train_config(None, ["frozen_opponent=policy:black_maria_2p"])


def test_bm_play_watch_says_it_watches_the_shipped_agent():
    import io

    from bm_env.cli.play import main as bm_play

    out = io.StringIO()
    assert bm_play(["--watch", "--delay", "0", "--seed", "1"], io.StringIO(""), out) == 0
    assert out.getvalue().startswith("Watching policy:black_maria_3p (the shipped agent for these rules) in every seat.")
