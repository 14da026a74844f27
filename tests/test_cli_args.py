"""Every command-line tool refuses bad numbers and unwritable outputs while parsing: one line, exit 2."""

from __future__ import annotations

import argparse
import io
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bm_env import __version__
from bm_env.cli import args as cli_args
from bm_env.cli import bench, demo, evaluate, export, play, replay, soak
from bm_env.cli import train as train_cli

TOOLS = {"bm-eval": evaluate.main, "bm-demo": demo.main, "bm-bench": bench.main, "bm-soak": soak.main,
         "bm-play": lambda argv: play.main(argv, io.StringIO(""), io.StringIO()), "bm-replay": replay.main,
         "bm-train": train_cli.main, "bm-export": export.main}
AGENTS = ["--agents", "random", "random", "random"]


def refused(tool, argv, capsys):
    with pytest.raises(SystemExit) as e:
        TOOLS[tool](argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{tool}: error: ") and err.endswith(f"(see {tool} --help)\n")
    return err


@pytest.mark.parametrize("tool, argv, message", [
    ("bm-eval", ["--boards", "0"] + AGENTS, "argument --boards: must be a whole number of at least 1, got '0'"),
    ("bm-eval", ["--boards", "-5"] + AGENTS, "argument --boards: must be a whole number of at least 1, got '-5'"),
    ("bm-eval", ["--workers", "0"] + AGENTS, "argument --workers: must be a whole number from 1 to 256, got '0'"),
    ("bm-eval", ["--workers", "-3"] + AGENTS, "argument --workers: must be a whole number from 1 to 256"),
    ("bm-eval", ["--workers", "1000"] + AGENTS, "argument --workers: must be a whole number from 1 to 256, got '1000'"),
    ("bm-eval", ["--seed", "-1"] + AGENTS, "argument --seed: must be a whole number of at least 0, got '-1'"),
    ("bm-eval", ["--matches", "-1"] + AGENTS, "argument --matches: must be a whole number of at least 0"),
    ("bm-eval", ["--boards", "many"] + AGENTS, "argument --boards: expected a whole number, got 'many'"),
    ("bm-eval", ["--boards", "2000", "--out", "/proc/foo"] + AGENTS, "argument --out: cannot write /proc/foo: /proc"),
    ("bm-eval", ["--boards", "2000", "--record-games", "/proc/foo"] + AGENTS,
     "argument --record-games: cannot write /proc/foo: /proc"),
    ("bm-play", ["--seed", "-5"], "argument --seed: must be a whole number of at least 0, got '-5'"),
    ("bm-demo", ["--boards", "-1"], "argument --boards: must be a whole number of at least 0, got '-1'"),
    ("bm-demo", ["--seed", "-1"], "argument --seed: must be a whole number of at least 0"),
    ("bm-bench", ["--json", "/proc/bench.json"], "argument --json: cannot write /proc/bench.json"),
    ("bm-export", ["checkpoints/black_maria_3p.pt", "--onnx", "/proc/x.onnx"], "argument --onnx: cannot write /proc/x.onnx"),
    ("bm-soak", ["--deals", "0"], "argument --deals: must be a whole number of at least 1"),
    ("bm-soak", ["--presets", "bridge"], "argument --presets: unknown name(s) ['bridge']; allowed: black_maria, "),
    ("bm-soak", ["--presets", "black_maria,"], "argument --presets: 'black_maria,' has an empty name"),
    ("bm-soak", ["--deals", "10", "--env-deals", "11"], "--env-deals 11 is more than --deals 10"),
    ("bm-soak", ["--batch", "1000000000"], "argument --batch: must be a whole number from 1 to 65536, got '1000000000'"),
    ("bm-bench", ["--only", ","], "argument --only: ',' has an empty name; give names separated by commas"),
    ("bm-bench", ["--only", ""], "argument --only: '' has an empty name"),
    ("bm-bench", ["--only", "engine,bogus"], "argument --only: unknown name(s) ['bogus']; allowed: "),
    ("bm-play", ["--watch", "--delay", "1e300"], "argument --delay: must be a number from 0 to 60, got '1e300'"),
    ("bm-play", ["--watch", "--delay", "1e9"], "argument --delay: must be a number from 0 to 60, got '1e9'"),
    ("bm-play", ["--watch", "--delay", "nan"], "argument --delay: must be a number from 0 to 60, got 'nan'"),
    ("bm-demo", ["--agents", "random", "random"], "--agents: the tournament needs at least two agent specs, none "
                                                  "repeated"),
    ("bm-demo", ["--agents", "random"], "--agents: the tournament needs at least two agent specs"),
    ("bm-export", ["checkpoints/black_maria_3p.pt", "--torchscript", "checkpoints/black_maria_3p.pt"],
     "--torchscript checkpoints/black_maria_3p.pt is the input CHECKPOINT checkpoints/black_maria_3p.pt: writing it "
     "would destroy the input"),
    ("bm-export", ["checkpoints/black_maria_3p.pt", "--torchscript", "checkpoints/../checkpoints/black_maria_3p.pt"],
     "would destroy the input"),
    ("bm-export", ["checkpoints/black_maria_3p.pt", "--onnx", "m.x", "--torchscript", "m.x"],
     "--torchscript and --onnx are the same file m.x: give each its own file name"),
    ("bm-replay", ["tests/golden/x.json", "--html", "tests/golden/x.json"],
     "--html tests/golden/x.json is the input RECORD.json tests/golden/x.json: writing it would destroy the input"),
    ("bm-replay", ["g.json", "--html", "g.html", "--seat", "-1"], "argument --seat: must be a whole number of at least 0"),
])
def test_bad_arguments_are_one_line_errors(tool, argv, message, capsys):
    assert message in refused(tool, argv, capsys)


def test_an_existing_file_is_not_an_output_folder(tmp_path, capsys):
    f = tmp_path / "report.md"
    f.write_text("x")
    assert f"argument --out: {f} exists and is not a folder" in refused("bm-eval", ["--out", str(f)] + AGENTS, capsys)


def test_config_file_values_are_checked_like_the_command_line(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text("agents: [random, random, random]\nboards: -5\n")
    assert "boards: must be a whole number of at least 1, got -5" in refused("bm-eval", ["--config", str(path)], capsys)
    path.write_text("agents: [random, random, random]\nout: /proc/foo\n")
    assert "cannot write /proc/foo" in refused("bm-eval", ["--config", str(path)], capsys)
    path.write_text("agents: [random, random, random]\nrecord_games: /proc/foo\n")
    assert "record-games: cannot write /proc/foo" in refused("bm-eval", ["--config", str(path)], capsys)


@pytest.mark.parametrize("pool", [["random"], ["random", "random"], ["random", "random", "heuristic"]])
def test_a_league_of_one_or_with_a_repeat_is_refused_before_any_game(pool, capsys):
    assert evaluate.main(["--league", *pool, "--boards", "1"]) == 2
    err = capsys.readouterr().err
    assert "--league needs at least two agent specs, none repeated" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv, words", [
    (["--record-max", "3"] + AGENTS, "--record-max limits --record-games, which is not given"),
    (["--league", "random", "heuristic", "--matches", "2"], "--matches plays whole matches of an --agents seating"),
])
def test_an_option_that_would_be_ignored_is_refused(argv, words, capsys):
    assert evaluate.main(argv + ["--boards", "1"]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_a_bad_demo_agent_is_refused_before_the_demo_deal(capsys):
    err = refused("bm-demo", ["--agents", "bogus", "heuristic"], capsys)
    assert "unknown agent 'bogus' in spec 'bogus'" in err
    assert "trick" not in capsys.readouterr().out


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_every_tool_has_version_and_help_without_markup(tool, capsys):
    with pytest.raises(SystemExit) as e:
        TOOLS[tool](["--version"])
    assert e.value.code == 0 and capsys.readouterr().out == f"{tool} (black-maria) {__version__}\n"
    with pytest.raises(SystemExit):
        TOOLS[tool](["--help"])
    text = capsys.readouterr().out
    assert "``" not in text and ":func:" not in text and ":mod:" not in text and tool in text


def test_installed_script_fails_in_one_line():
    done = subprocess.run([sys.executable, "-m", "bm_env.cli.evaluate", "--boards", "0"] + AGENTS,
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_plain_drops_rest_markup():
    assert cli_args.plain("``bm-eval``: see :func:`bm_env.agents.make_agent` and :mod:`~bm_env.soak`::") == \
        "bm-eval: see bm_env.agents.make_agent and soak::"


def test_output_paths(tmp_path):
    assert cli_args.output_file(str(tmp_path / "new" / "game.json")) == str(tmp_path / "new" / "game.json")
    assert not (tmp_path / "new").exists()  # checked, not created: nothing is written before the work
    assert cli_args.output_dir(str(tmp_path / "out")) == str(tmp_path / "out")
    for bad, message in [("", "give a file name"), (str(tmp_path), "is a directory")]:
        with pytest.raises(argparse.ArgumentTypeError, match=message):
            cli_args.output_file(bad)


def test_converters_accept_values_already_read():
    assert cli_args.positive_int(3) == 3 and cli_args.non_negative_int("0") == 0
    for bad in (True, 0, "1.5"):
        with pytest.raises(argparse.ArgumentTypeError):
            cli_args.positive_int(bad)
    for bad in ("-1", "nan", "inf", "x", float("nan"), float("inf"), True):
        with pytest.raises(argparse.ArgumentTypeError):
            cli_args.float_range(0, 60)(bad)
    for bad in (7.7, "7.7", float("nan")):
        with pytest.raises(argparse.ArgumentTypeError, match="expected a whole number"):
            cli_args.positive_int(bad)


def test_an_output_that_is_a_hard_link_to_the_input_is_refused(tmp_path, capsys):
    record = tmp_path / "g.json"
    record.write_text("{}")
    (tmp_path / "link.html").hardlink_to(record)
    err = refused("bm-replay", [str(record), "--html", str(tmp_path / "link.html")], capsys)
    assert "writing it would destroy the input" in err and record.read_text() == "{}"


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.floats(), st.integers(-10**30, 10**30), st.text(max_size=8), st.booleans(), st.none()))
def test_a_number_is_taken_only_when_finite_of_its_type_and_in_range(value):
    """Whatever the value (text or already read), a converter returns a number in range or refuses it in one sentence."""
    for text in (value, str(value)):
        try:
            x = cli_args.float_range(0, 60)(text)
        except argparse.ArgumentTypeError as e:
            assert str(e).startswith("must be a number from 0 to 60, got ")
        else:
            assert isinstance(x, float) and math.isfinite(x) and 0 <= x <= 60
        try:
            n = cli_args.workers(text)
        except argparse.ArgumentTypeError as e:
            assert str(e).startswith(("must be a whole number from 1 to 256, got ", "expected a whole number, got "))
        else:
            assert type(n) is int and 1 <= n <= 256 and not isinstance(text, (bool, float))
