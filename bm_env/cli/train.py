"""``bm-train``: self-play PPO on the vector engine.

Examples::

    bm-train --config train_quick
    bm-train --config black_maria_3p --set lr=1e-4 --set num_envs=1024
    bm-train --config my_configs/run.yaml
    bm-train --resume runs/black_maria_3p --set total_decisions=200000000
    bm-train --best-response policy:black_maria_3p --set max_minutes=20
    bm-train --config train_quick --ray local --set ray_actors=2

``--config`` takes a shipped config by name (``bm-eval --list`` names them; ``configs/`` of the
repository) or a YAML file by its path; ``policy:NAME`` a shipped agent, ``policy:PATH`` a checkpoint file.

A run writes its folder (``--run-dir``, default ``runs/<config name>-<date>-<time>``): the resolved
config, training states to resume from, the play checkpoints ``best.pt`` and ``latest.pt``
(``policy:RUN_DIR/best.pt`` plays them), the evaluation history and TensorBoard logs
(``tensorboard --logdir RUN_DIR/tb``). ``--best-response policy:PATH`` trains a fresh agent
against that frozen policy in every other seat and evaluates against it: the score it
reaches in a fixed budget measures how exploitable the policy is. ``--ray ADDRESS`` collects
the rollouts on ``ray_actors`` Ray actors (``local``: a cluster started here; ``auto``: the
running one; or its address); the update, evaluation and checkpoints stay in this process.

Every preset trains on the vector engine, the extension rule systems (kitties, charging,
Cancellation and the rest) included; rules it does not play (an option it has no code for,
card values whose deal scores it cannot carry) are refused with the reason named.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from ..agents import CheckpointError
from ..config import ConfigError
from ..training.config import load_train_config, parse_overrides
from ..training.run_lock import abandon_run_dir, claim_run_dir
from ..training.state import TrainingStateError
from ..vector import UnsupportedRulesError
from .args import Parser, add_version, output_dir


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="bm-train", description=__doc__.split("\n\n")[0],
               formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--config", metavar="NAME|FILE",
                   help="a shipped config by name (e.g. train_quick) or a YAML file; defaults where absent")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one config key (repeatable), e.g. --set lr=1e-4")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its newest training state")
    p.add_argument("--run-dir", metavar="DIR", type=output_dir,
                   help="folder of a new run (default runs/<config name>-<date>-<time>)")
    p.add_argument("--device", choices=["cpu", "cuda"], help="where the networks run (default: the config's; a resumed run keeps its own)")
    p.add_argument("--best-response", metavar="SPEC",
                   help="train against this frozen policy:NAME|PATH in every other seat")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="collect rollouts on Ray actors: 'local' (a cluster started here), 'auto' (the running "
                        "cluster) or HOST:PORT; needs Ray (pip install 'black-maria[ray]')")
    p.add_argument("--quiet", action="store_true", help="no progress bar: one line per evaluation and checkpoint")
    add_version(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from ..training.precision import flush_subnormals
    from ..training.trainer import Trainer  # torch and the engine load only once the arguments are good

    flush_subnormals()
    try:
        if args.resume:
            if args.config or args.best_response or args.run_dir or args.device:
                raise ConfigError("--resume continues a run with its own config, on the device it was made on; "
                                  "do not give --config, --best-response, --run-dir or --device with it")
            overrides = parse_overrides(args.set)
            trainer = Trainer.resume(args.resume, overrides, args.quiet, ray_address=args.ray)
        else:
            extra = list(args.set)
            if args.device:
                extra.append(f"device={args.device}")
            if args.best_response:
                extra += [f"frozen_opponent={args.best_response}", f"eval_opponent={args.best_response}"]
            config = load_train_config(args.config, extra)
            name = os.path.splitext(os.path.basename(args.config))[0] if args.config else "run"
            if args.best_response:
                name += "_best_response"
            run_dir = args.run_dir or os.path.join("runs", f"{name}-{time.strftime('%Y%m%d-%H%M%S')}")
            new_folder = not os.path.exists(run_dir)
            claim_run_dir(run_dir)  # first: a run started at the same moment in the same folder is refused here
            if os.path.isdir(os.path.join(run_dir, "states")):
                raise ConfigError(f"run folder {run_dir!r} already holds a run: continue it with --resume {run_dir}, "
                                  "or give another --run-dir")
            try:
                trainer = Trainer(config, run_dir, args.quiet, ray_address=args.ray)
            except Exception:
                if new_folder:  # a refused run leaves no empty folder behind
                    abandon_run_dir(run_dir)
                raise
    except UnsupportedRulesError as e:
        print(f"bm-train: training runs on the vector engine, which does not play these rules: {e}", file=sys.stderr)
        return 2
    except (ConfigError, TrainingStateError, CheckpointError) as e:
        print(f"bm-train: {e}", file=sys.stderr)
        return 2
    result = trainer.run()
    print(f"{result.stopped}: {result.updates} updates, {result.decisions:,} decisions, "
          f"{result.seconds / 60:.1f} min; run folder {result.run_dir}")
    if result.final_table:
        print(result.final_table)
    print(f"TensorBoard: tensorboard --logdir {os.path.join(result.run_dir, 'tb')}")
    return {"done": 0, "interrupted": 130, "nan": 1}[result.stopped]


if __name__ == "__main__":
    sys.exit(main())
