"""``bm-eval``: measure agents on a fixed set of boards with every seat rotation.

Examples::

    bm-eval --preset black_maria --agents heuristic random random --boards 2000 --out results/h_vs_random
    bm-eval --preset american_hearts --agents pimc heuristic heuristic heuristic --boards 200
    bm-eval --preset black_maria --league random heuristic pimc:worlds=10 --boards 100

``--config FILE`` reads the same settings from a YAML file, or a shipped config by name
(``--config eval_heuristic_vs_random``; ``configs/`` of the repository; keys:
``preset``, ``players``, ``rules``, ``agents`` or ``league``, ``boards``, ``seed``,
``matches``, ``workers``, ``out``, ``record_games``, ``record_max``); options given on the
command line override it.

``--agents`` takes one spec per seat (see :mod:`bm_env.agents`); the seating is played in
all its rotations on every board. ``--league`` plays every pair of the pool instead and
prints a rating table. Results go to stdout as a markdown table and, with ``--out``, to
``evaluation.md``, ``evaluation.json`` and ``evaluation.png`` in that folder.

``--compare NEW OLD`` and ``--pool DIR ...`` play nothing and take no other option: the
first pairs the first agent of two earlier ``--out`` folders of the same boards and
opponents, board by board; the second gives every agent's figures over the boards of
several runs of one seating on other seeds (:mod:`bm_env.evaluation.combine`).

``--list`` prints the agent specs, the shipped agents (``policy:NAME``) and the shipped
configs (``--config NAME``), and plays nothing.

``--record-games DIR`` (with ``--agents``) records up to ``--record-max`` games, those of
the boards with the largest swings for the first agent, with the agents' thoughts: a JSON
record and an HTML replay each (:mod:`bm_env.evaluation.replays`); the report links them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict, dataclass, field

from ..agents import AgentSpecError, CheckpointError
from ..config import ConfigError, load_config
from ..engine.rules import PRESETS, RulesError, make_rules
from .args import MAX_WORKERS, Parser, add_version, non_negative_int, output_dir, positive_int, recheck, workers


@dataclass
class EvalConfig:
    """What a ``bm-eval`` config file may hold."""

    preset: str = "black_maria"
    players: int | None = None
    rules: dict = field(default_factory=dict)  # rules option overrides
    agents: list[str] | None = None
    league: list[str] | None = None
    boards: int = 200
    seed: int = 0
    matches: int = 0
    workers: int | None = None
    out: str | None = None
    record_games: str | None = None
    record_max: int = 6


def _override(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"rule override {text!r} must be option=value, e.g. moon=shooter_minus")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


#: Games ``--record-games`` records unless ``--record-max`` says otherwise.
RECORD_MAX = 6


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="bm-eval", description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default=None, metavar="NAME|FILE",
                   help="these settings from a shipped config by name (--list names them) or a YAML file")
    p.add_argument("--preset", default="black_maria", help=f"rules preset; one of {', '.join(PRESETS)}")
    p.add_argument("--players", type=positive_int, default=None, help="player count (default: the preset's)")
    p.add_argument("--rule", type=_override, action="append", default=[], metavar="OPTION=VALUE",
                   help="override a rules option (repeatable), e.g. --rule moon=shooter_minus")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--agents", nargs="+", metavar="SPEC", help="one agent spec per seat, e.g. heuristic random random")
    who.add_argument("--league", nargs="+", metavar="SPEC", help="a pool of agent specs to rate against each other")
    who.add_argument("--compare", nargs=2, metavar=("NEW", "OLD"),
                     help="pair the first agent of two --out folders of the same boards, board by board; plays nothing")
    who.add_argument("--pool", nargs="+", metavar="DIR",
                     help="every agent's figures over the boards of several --out folders of one seating; plays nothing")
    p.add_argument("--boards", type=positive_int, default=200, help="boards to play (each at every rotation); default 200")
    p.add_argument("--seed", type=non_negative_int, default=0, help="seed of the board set; default 0")
    p.add_argument("--matches", type=non_negative_int, default=0, help="also play this many whole matches per rotation")
    p.add_argument("--workers", type=workers, default=None,
                   help=f"worker processes, 1 to {MAX_WORKERS} (default: all cores)")
    p.add_argument("--out", type=output_dir, default=None,
                   help="folder for evaluation.md/.json/.png (checked for writing before the evaluation starts)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--record-games", type=output_dir, default=None, metavar="DIR",
                   help="record the games of the boards with the largest swings (JSON and HTML replay) here "
                        "(checked for writing before the evaluation starts)")
    p.add_argument("--record-max", type=positive_int, default=RECORD_MAX, metavar="N",
                   help="record at most N games with --record-games (a board's rotations in turn); default 6")
    who.add_argument("--list", action="store_true",
                     help="list the agent specs, the shipped agents and the shipped configs; plays nothing")
    add_version(p)
    return p


def listing() -> str:
    """What ``--list`` prints: the agent specs, the aliases, the shipped agents and configs, one kind a line."""
    from ..agents import ALIASES, SPEC_FORMS
    from ..agents.shipped import shipped_agents
    from ..config import shipped_configs

    aliases = ", ".join(f"{alias} = {name}" for alias, name in ALIASES.items())
    agents, configs = shipped_agents(), shipped_configs()
    where = next(iter(agents.values())).parent if agents else None
    return "\n".join([
        f"agent specs: {SPEC_FORMS}",
        f"aliases (reports record the fixed name): {aliases}",
        f"shipped agents (policy:NAME): {', '.join(agents) or 'none installed'}" + (f" (in {where})" if where else ""),
        f"shipped configs (--config NAME): {', '.join(configs) or 'none installed'}",
    ])


#: Settings a config file may give, checked as their command-line options are.
CHECKS = {"players": positive_int, "boards": positive_int, "seed": non_negative_int, "matches": non_negative_int,
          "workers": workers, "out": output_dir, "record_games": output_dir, "record_max": positive_int}


def main(argv: list[str] | None = None) -> int:
    """The command; Ctrl-C stops the workers and ends it with one line and exit status 130."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("\nbm-eval: interrupted; nothing was written", file=sys.stderr)
        return 130


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.compare or args.pool or args.list:
        alone = "compare" if args.compare else "pool" if args.pool else "list"
        given = [f"--{name.replace('_', '-')}" for name, value in vars(args).items()
                 if name not in (alone, "no_progress") and value != parser.get_default(name)]
        if given:
            what = "lists what there is" if args.list else "reads finished evaluations"
            print(f"bm-eval: --{alone} {what} and plays nothing, so {', '.join(given)} would be ignored; give it alone",
                  file=sys.stderr)
            return 2
        if args.list:
            print(listing())
            return 0
        return _combine(args.compare, args.pool)
    overrides = dict(args.rule)
    if args.config:
        try:
            config = load_config(EvalConfig, args.config)
        except ConfigError as e:
            print(f"bm-eval: {e}", file=sys.stderr)
            return 2
        if config.agents and config.league:
            print(f"bm-eval: {args.config}: give 'agents' or 'league', not both", file=sys.stderr)
            return 2
        # The file gives the defaults; whatever the command line says explicitly wins.
        given_agents, given_league = args.agents, args.league
        parser.set_defaults(**{k: v for k, v in asdict(config).items() if k not in ("rules", "agents", "league")})
        args = parser.parse_args(argv)
        if not given_agents and not given_league:
            args.agents, args.league = config.agents, config.league
        overrides = {**config.rules, **dict(args.rule)}
        recheck(parser, args, CHECKS)
    if not args.agents and not args.league:
        print("bm-eval: give --agents (one spec per seat) or --league (a pool), on the command line or in --config",
              file=sys.stderr)
        return 2
    if args.record_games and not args.agents:
        print("bm-eval: --record-games records the games of an --agents seating; a --league has none", file=sys.stderr)
        return 2
    if args.record_max != RECORD_MAX and not args.record_games:
        print("bm-eval: --record-max limits --record-games, which is not given; add --record-games DIR or drop it",
              file=sys.stderr)
        return 2
    if args.league and args.matches:
        print("bm-eval: --matches plays whole matches of an --agents seating; a --league rates single deals",
              file=sys.stderr)
        return 2
    if args.league and (len(args.league) < 2 or len(set(args.league)) != len(args.league)):
        print(f"bm-eval: --league needs at least two agent specs, none repeated (a '#tag' tells two of one kind "
              f"apart), got {args.league}", file=sys.stderr)
        return 2
    try:
        rules = make_rules(args.preset, args.players, **overrides)
    except RulesError as e:
        print(f"bm-eval: {e}", file=sys.stderr)
        return 2
    try:
        return _run(args, rules, overrides)
    except (AgentSpecError, CheckpointError) as e:  # the harness builds every agent before the first game
        print(f"bm-eval: {e}", file=sys.stderr)
        return 2


def _combine(compared: list[str] | None, pooled: list[str] | None) -> int:
    from ..evaluation.combine import compare, load_result, pool

    try:
        combined = compare(*map(load_result, compared)) if compared else pool([load_result(p) for p in pooled])
    except ValueError as e:
        print(f"bm-eval: {e}", file=sys.stderr)
        return 2
    print(combined.to_markdown())
    return 0


def _run(args: argparse.Namespace, rules, overrides: dict) -> int:
    from ..evaluation import evaluate, league, to_markdown, write_report

    if args.league:
        res = league(rules, args.league, args.boards, args.seed, args.workers, not args.no_progress)
        text = res.to_markdown()
        print(text)
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "league.md"), "w") as f:
                f.write(text + "\n")
            with open(os.path.join(args.out, "league.json"), "w") as f:
                json.dump(res.__dict__, f, indent=1)
        return 0
    if len(args.agents) != rules.num_players:
        print(f"bm-eval: --agents needs one spec per seat: {rules.num_players} for {args.preset} with "
              f"{rules.num_players} players, got {len(args.agents)}", file=sys.stderr)
        return 2
    res = evaluate(rules, args.agents, args.boards, args.seed, args.workers, args.matches, not args.no_progress)
    print(f"preset {args.preset}, {rules.num_players} players" + (f", overrides {overrides}" if overrides else ""))
    print(to_markdown(res))
    replays = ""
    if args.record_games:
        from ..evaluation.replays import record_swings, replays_markdown

        games = record_swings(rules, res, args.record_games, args.record_max)
        replays = replays_markdown(games, args.out)
        print("\n" + replays_markdown(games))
    if args.out:
        paths = write_report(res, args.out, replays=replays)
        print("wrote " + ", ".join(paths.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
