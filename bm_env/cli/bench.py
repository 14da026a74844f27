"""``bm-bench``: time the engine, OpenSpiel's hearts, the environment, the vector engine, the agents and training.

Examples::

    bm-bench --quick                      # every section, under a minute
    bm-bench --only engine,openspiel      # just these sections
    bm-bench --json results/bench.json    # also write the rows and the machine as JSON

Prints one markdown table. Each section is a module of :mod:`bm_env.bench` (``--list``
names them); a section that fails is reported in the table and the exit status is 1.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
import traceback

from ..bench import SECTIONS, section
from .args import Parser, add_version, comma_list, output_file


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="bm-bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="short runs: all sections in under a minute")
    p.add_argument("--only", action="append", default=[], type=comma_list(s.name for s in SECTIONS),
                   metavar="SECTION[,SECTION]",
                   help=f"run only these sections (repeatable): {', '.join(s.name for s in SECTIONS)}")
    p.add_argument("--json", metavar="PATH", type=output_file,
                   help="also write the results as JSON to PATH (checked for writing before the timings start)")
    p.add_argument("--list", action="store_true", help="list the sections and exit")
    add_version(p)
    return p


def machine() -> dict:
    """What the figures were measured on."""
    import numpy

    info = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "numpy": numpy.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    info["processor"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return info


def _format_value(v) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:,.2f}"
    return f"{int(v):,}"


#: What each comparison is against, for the "vs OpenSpiel" column.
REFERENCES = {
    "openspiel_deals": "OpenSpiel deals/s",
    "openspiel_plain": "OpenSpiel decisions/s without observations",
    "openspiel_observer": "OpenSpiel decisions/s with its observer and legal actions read every decision",
}


def with_ratios(rows: list[dict]) -> list[dict]:
    """Add ``ratio`` to each row compared with an OpenSpiel reference row (``vs`` -> ``ref``) of this run."""
    refs = {r["ref"]: r["value"] for r in rows if r.get("ref") and r.get("value")}
    out = []
    for r in rows:
        ref = refs.get(r.get("vs"))
        out.append({**r, "ratio": round(r["value"] / ref, 2) if ref and r.get("value") else None})
    return out


def markdown_table(rows: list[dict]) -> str:
    lines = ["| section | benchmark | value | unit | vs OpenSpiel | how |", "|---|---|---:|---|---:|---|"]
    for r in rows:
        note = str(r.get("note", "")).replace("|", "\\|")
        ratio = f"{r['ratio']:.2f}x" if r.get("ratio") else ("reference" if r.get("ref") else "")
        lines.append(f"| {r['section']} | {r['name']} | {_format_value(r['value'])} | {r['unit']} | {ratio} | {note} |")
    return "\n".join(lines)


def run_sections(names: list[str], quick: bool) -> tuple[list[dict], list[dict], bool]:
    """Rows of every section named, a summary per section, and whether all of them ran."""
    rows, summary, ok = [], [], True
    for name in names:
        start = time.perf_counter()
        try:
            got = section(name).runner()(quick)
            error = None
        except Exception as e:  # a broken section is reported, the others still run
            got, error, ok = [], f"{type(e).__name__}: {e}", False
            traceback.print_exc(file=sys.stderr)
        seconds = time.perf_counter() - start
        if error:
            rows.append({"section": name, "name": "(failed)", "value": None, "unit": "", "note": error})
        rows.extend({"section": name, **r} for r in got)
        summary.append({"section": name, "seconds": round(seconds, 2), "rows": len(got), "error": error})
        print(f"bm-bench: {name} done in {seconds:.1f} s", file=sys.stderr)
    return rows, summary, ok


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.list:
        for s in SECTIONS:
            print(f"{s.name:10s} {s.about}")
        return 0
    names = list(dict.fromkeys(n for names in args.only for n in names)) or [s.name for s in SECTIONS]
    if "training" in names:  # timed as bm-train runs
        from bm_env.training.precision import flush_subnormals

        flush_subnormals()
    rows, summary, ok = run_sections(names, args.quick)
    rows = with_ratios(rows)
    info = machine()
    print(f"Benchmarks ({'quick' if args.quick else 'full'}) on {info['processor']}, "
          f"Python {info['python']}, numpy {info['numpy']}, {info['date']}\n")
    print("Rates are per CPU-second of one core, so other load on the machine distorts them little "
          "(wall-clock rates are in the JSON). 'vs OpenSpiel' divides by the OpenSpiel row of the same "
          "kind measured in this run: " + "; ".join(f"{k}: {v}" for k, v in REFERENCES.items()) + ".\n")
    print(markdown_table(rows))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"machine": info, "quick": args.quick, "sections": summary, "rows": rows}, f, indent=2)
            f.write("\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
