"""``bm-export``: a policy checkpoint as a model file that runs without black-maria.

Examples::

    bm-export black_maria_3p --onnx black_maria_3p.onnx
    bm-export runs/mine/best.pt --torchscript mine.ts.pt --onnx mine.onnx

An output that is the checkpoint itself, or both outputs in one file, is refused before
anything is written.

The file takes the int8 observation and action mask of a batch and returns the masked
logits and the greedy action; the rules and observation layout it was made for are inside
(:mod:`bm_env.agents.export`). ONNX needs the export extras (``pip install 'black-maria[export]'``).
"""

from __future__ import annotations

import argparse
import sys

from ..agents import CheckpointError
from ..agents.shipped import checkpoint_path
from .args import Parser, add_version, distinct_outputs, output_file


def _checkpoint(text: str) -> str:
    """The checkpoint file of a shipped agent's name, or the path given (:mod:`bm_env.agents.shipped`)."""
    try:
        return checkpoint_path(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="bm-export", description=__doc__.split("\n\n")[0],
               formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("checkpoint", type=_checkpoint, metavar="NAME|CHECKPOINT.pt",
                   help="a shipped agent's name or a policy checkpoint file (what policy:NAME|PATH loads)")
    p.add_argument("--onnx", type=output_file, metavar="OUT.onnx", help="write an ONNX model here")
    p.add_argument("--torchscript", type=output_file, metavar="OUT.ts.pt",
                   help="write a TorchScript module here (not the checkpoint itself)")
    add_version(p)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.onnx is None and args.torchscript is None:
        parser.error("nothing to write: give --onnx OUT.onnx, --torchscript OUT.ts.pt or both")
    distinct_outputs(parser, {"CHECKPOINT": args.checkpoint}, {"--torchscript": args.torchscript, "--onnx": args.onnx})
    from ..agents.export import ExportError, export_onnx, export_torchscript  # torch loads only once the arguments are good

    jobs = [(path, write) for path, write in ((args.torchscript, export_torchscript), (args.onnx, export_onnx)) if path]
    for path, write in jobs:
        try:
            write(args.checkpoint, path)
        except (CheckpointError, ExportError) as e:
            print(f"bm-export: {e}", file=sys.stderr)
            return 2
        except OSError as e:
            print(f"bm-export: cannot write {path}: {e.strerror or e}", file=sys.stderr)
            return 2
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
