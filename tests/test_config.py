"""Typed YAML configs: bm-eval reads them, and a malformed one is refused with a clear message."""

import dataclasses

import pytest
import yaml

from bm_env.cli.evaluate import EvalConfig, main
from bm_env.config import ConfigError, load_config
from bm_env.training.config import load_train_config

from kit import ROOT

CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_load(path):
    """Each config in configs/ is an evaluation config (agents or a league) or a training config."""
    keys = set(yaml.safe_load(path.read_text(encoding="utf-8")))
    if keys <= {f.name for f in dataclasses.fields(EvalConfig)} and keys & {"agents", "league"}:
        config = load_config(EvalConfig, path)
        assert config.agents or config.league
    else:
        load_train_config(str(path)).make_rules()


def _write(tmp_path, text):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return path


def test_unknown_key_is_named_with_the_allowed_keys(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown key\(s\) \['bords'\]; allowed keys: \['preset'"):
        load_config(EvalConfig, _write(tmp_path, "bords: 10\n"))


def test_wrong_type_and_bad_yaml_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="key 'boards' must be int, got str"):
        load_config(EvalConfig, _write(tmp_path, "boards: many\n"))
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(EvalConfig, _write(tmp_path, "agents: [random\n"))
    with pytest.raises(ConfigError, match="must be a mapping"):
        load_config(EvalConfig, _write(tmp_path, "- random\n"))
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(EvalConfig, tmp_path / "missing.yaml")


def test_bm_eval_runs_from_a_config_and_the_command_line_wins(tmp_path, capsys):
    path = _write(tmp_path, "preset: american_hearts\nagents: [heuristic, random, random, random]\nboards: 3\n"
                            "rules: {moon: others_plus}\n")
    assert main(["--config", str(path), "--boards", "2", "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "preset american_hearts, 4 players, overrides {'moon': 'others_plus'}" in out
    assert "2 boards x 4 rotations = 8 deals" in out  # --boards 2 beat the file's 3


def test_bm_eval_refuses_a_bad_rules_override_in_a_config(tmp_path, capsys):
    path = _write(tmp_path, "agents: [random, random, random]\nrules: {moon: sometimes}\n")
    assert main(["--config", str(path)]) == 2
    assert "moon='sometimes' is not allowed" in capsys.readouterr().err


def test_a_binary_file_is_not_a_config(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_bytes(b"\x00\xff\xfe")
    with pytest.raises(ConfigError, match=r"c.yaml: not a text file \(a config is UTF-8 YAML\)$"):
        load_config(EvalConfig, path)


def test_a_key_given_twice_is_refused_in_every_yaml_the_project_reads(tmp_path):
    path = _write(tmp_path, "agents: [random, random, random]\nboards: 10\nboards: 20\n")
    with pytest.raises(ConfigError, match=r"c.yaml: line 3: key 'boards' is given twice \(first on line 2\)"):
        load_config(EvalConfig, path)
    path = _write(tmp_path, "rules: {moon: off, moon: shooter_minus}\n")
    with pytest.raises(ConfigError, match="key 'moon' is given twice"):
        load_train_config(str(path))
    with pytest.raises(ConfigError, match="key 'moon' is given twice"):
        load_train_config(None, ["rules={moon: off, moon: off}"])


def test_yes_no_on_off_are_words_not_booleans(tmp_path):
    """YAML 1.1 reads ``moon: off`` as False; the project's loader reads it as the rules value 'off'."""
    path = _write(tmp_path, "preset: american_hearts\nrules: {moon: off}\n")
    assert load_train_config(str(path)).make_rules().moon == "off"
    path = _write(tmp_path, "agents: [random, random, random]\nrules: {moon: on}\n")
    assert load_config(EvalConfig, path).rules == {"moon": "on"}  # then refused by the rules, naming moon's values
    assert load_train_config(None, ["critic_state=false"]).critic_state is False
