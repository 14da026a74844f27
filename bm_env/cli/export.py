"""``bm-export``: a policy checkpoint as a model file that runs without black-maria.

Examples::

    bm-export checkpoints/black_maria_3p.pt --onnx black_maria_3p.onnx
    bm-export checkpoints/black_maria_3p.pt --torchscript black_maria_3p.ts.pt --onnx black_maria_3p.onnx

The file takes the int8 observation and action mask of a batch and returns the masked
logits and the greedy action; the rules and observation layout it was made for are inside
(:mod:`bm_env.agents.export`). ONNX needs the export extras (``pip install -e '.[export]'``).
"""

from __future__ import annotations

import argparse
import sys

from ..agents import CheckpointError
from .args import Parser, add_version, output_file


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="bm-export", description=__doc__.split("\n\n")[0],
               formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("checkpoint", metavar="CHECKPOINT.pt", help="a policy checkpoint (what policy:PATH loads)")
    p.add_argument("--onnx", type=output_file, metavar="OUT.onnx", help="write an ONNX model here")
    p.add_argument("--torchscript", type=output_file, metavar="OUT.pt", help="write a TorchScript module here")
    add_version(p)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.onnx is None and args.torchscript is None:
        parser.error("nothing to write: give --onnx OUT.onnx, --torchscript OUT.pt or both")
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
