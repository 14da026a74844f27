"""``bm-replay``: turn a game record into one self-contained HTML page that steps through it.

Examples::

    bm-replay game.json --html game.html             # a spectator's page: all hands, a view selector
    bm-replay game.json --html seat0.html --seat 0   # only what player_0 may know, nothing else inside

The record is any deal or match record (``bm-play --record``, ``bm-eval --record-games``,
:func:`bm_env.engine.record.write_record`); it is replayed and checked first, and a record that
does not replay is refused with the place where it goes wrong. See
:mod:`bm_env.pictures.replay` for the page and its hidden-information rule.
"""

from __future__ import annotations

import argparse
import sys

from ..engine.record import RecordError, load_record
from ..pictures import write_replay
from .args import Parser, add_version, distinct_outputs, non_negative_int, output_file


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="bm-replay", description=__doc__.split("\n\n")[0],
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("record", metavar="RECORD.json", help="a deal or match record")
    p.add_argument("--html", required=True, type=output_file, metavar="OUT.html",
                   help="the page to write (not the record itself)")
    p.add_argument("--seat", type=non_negative_int, default=None,
                   help="write only this seat's view (the file then holds nothing that seat may not know)")
    add_version(p)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    distinct_outputs(parser, {"RECORD.json": args.record}, {"--html": args.html})
    try:
        rec = load_record(args.record)
    except OSError as e:
        print(f"bm-replay: cannot read {args.record}: {e.strerror or e}", file=sys.stderr)
        return 2
    except RecordError as e:
        print(f"bm-replay: {e}", file=sys.stderr)
        return 2
    try:
        write_replay(args.html, rec, args.seat)
    except RecordError as e:
        print(f"bm-replay: {args.record}: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"bm-replay: cannot write {args.html}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"wrote {args.html}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
