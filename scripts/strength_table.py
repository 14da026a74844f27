"""The README's strength table, written from the evaluations saved under ``evaluations/``.

Every figure in the table is read from a ``bm-eval`` run's ``evaluation.json`` kept in
``evaluations/`` (named after its cell), never typed: ``--run`` plays the cells that have no
file yet with the command the cell stands for and keeps its JSON; the default writes the table
between the README's markers; ``--check`` exits 1 when the README's table is not what the
files give (the test suite runs it). A cell of the pimc column is several runs of other board
seeds pooled (``bm-eval --pool``), so its core-hours can be spent a run at a time, and a cell
shows only once all its runs are there. The cost column comes from ``evaluations/costs.json``,
which ``--time`` writes (ms of CPU time per decision, one core, on the machine it ran on).

    python scripts/strength_table.py --run --workers 2     # play what is missing (long for pimc)
    python scripts/strength_table.py --time                # the cost column; give it the machine
    python scripts/strength_table.py                       # write README.md's table
    python scripts/strength_table.py --check               # exit 1 if README.md's table is stale
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

from bm_env.evaluation.combine import load_result, pool  # noqa: E402

EVALUATIONS = os.path.join(ROOT, "evaluations")
README = os.path.join(ROOT, "README.md")
BEGIN = "<!-- strength table: written by scripts/strength_table.py from evaluations/ -->"
END = "<!-- end of the strength table -->"


@dataclass(frozen=True)
class Column:
    """Opponents in every other seat, and the board sets (seed, boards) a cell's runs play."""

    title: str
    opponent: str
    runs: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Row:
    preset: str
    players: int
    spec: str
    shown: str  # how the agent is written in the table (markdown)


COLUMNS = (
    Column("vs heuristic_v1", "heuristic_v1", ((0, 2000),)),
    # 2,000 boards in 14 runs of a few hours of one core each where pimc plays two seats.
    Column("vs pimc", "pimc", tuple((seed, 150) for seed in range(2, 15)) + ((15, 50),)),
    Column("vs random", "random", ((0, 2000),)),
)
BEST_SEARCH = "pimc:guide=black_maria_3p,guide_playouts=true,read_passes=true"
ROWS = (
    Row("black_maria", 3, "random", "`random`"),
    Row("black_maria", 3, "heuristic_v1", "`heuristic_v1`"),
    Row("black_maria", 3, "heuristic", "`heuristic` (`heuristic_v2`)"),
    Row("black_maria", 3, "pimc", "`pimc` (20 worlds)"),
    Row("black_maria", 3, "policy:black_maria_3p", "[`policy:black_maria_3p`](checkpoints/black_maria_3p.md)"),
    Row("black_maria", 3, BEST_SEARCH, f"`{BEST_SEARCH}`¹"),
    Row("american_hearts", 4, "policy:american_hearts_4p",
        "[`policy:american_hearts_4p`](checkpoints/american_hearts_4p.md)"),
    Row("petrone_black_mariah", 4, "policy:petrone_black_mariah_4p",
        "[`policy:petrone_black_mariah_4p`](checkpoints/petrone_black_mariah_4p.md)"),
    Row("openspiel_hearts", 4, "policy:openspiel_hearts_4p",
        "[`policy:openspiel_hearts_4p`](checkpoints/openspiel_hearts_4p.md)"),
)
# Cells not played: an agent against copies of itself scores the fair share by symmetry, and
# the pimc column is kept to the agents it tells apart (the searches and the black_maria network).
ITSELF = "0 (itself)"
PIMC_ROWS = ("pimc", "policy:black_maria_3p", BEST_SEARCH)


def slug(text: str) -> str:
    return text.replace("policy:", "").replace(":", "-").replace(",", "_").replace("=", "-")


def cell_files(row: Row, column: Column, folder: str = EVALUATIONS) -> list[str]:
    """The JSON files of a cell's runs, one per (seed, boards) of its column."""
    stem = f"{row.preset}_{row.players}p__{slug(row.spec)}__vs__{column.opponent}"
    if len(column.runs) == 1:
        return [os.path.join(folder, f"{stem}.json")]
    return [os.path.join(folder, f"{stem}__seed{seed}.json") for seed, _ in column.runs]


def played(row: Row, column: Column) -> bool:
    """Whether the cell is one the table fills (the others stay empty or say why)."""
    if row.spec == column.opponent:
        return False
    return column.opponent != "pimc" or row.spec in PIMC_ROWS


def bm_eval_args(row: Row, column: Column, seed: int, boards: int) -> list[str]:
    return ["--preset", row.preset, "--players", str(row.players),
            "--agents", row.spec, *[column.opponent] * (row.players - 1), "--boards", str(boards),
            "--seed", str(seed)]


def cell(row: Row, column: Column, folder: str = EVALUATIONS) -> str:
    """The cell's text: the agent's points/deal better than the fair share ± its 95% interval."""
    if row.spec == column.opponent:
        return ITSELF
    files = cell_files(row, column, folder)
    if not played(row, column) or not all(os.path.exists(f) for f in files):
        return ""
    results = [load_result(f) for f in files]
    for result, (seed, boards), f in zip(results, column.runs, files):
        expected = bm_eval_args(row, column, seed, boards)
        if (result.seed, result.num_boards, list(result.seating)) != (seed, boards, expected[5:5 + row.players]):
            raise ValueError(f"{f}: holds {result.num_boards} boards of seed {result.seed} of seating "
                             f"{result.seating}, not what its name says ({' '.join(expected)})")
    if len(results) == 1:
        advantage, ci = results[0].agents[0].advantage, results[0].agents[0].diff_ci
    else:
        agent = pool(results).agents[0]
        advantage, ci = agent.advantage, agent.advantage_ci
    return f"{advantage:+.2f} ± {ci:.2f}".replace("-", "−")


def costs(folder: str = EVALUATIONS) -> dict[str, float]:
    path = os.path.join(folder, "costs.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)["ms_per_decision"]


def _ms(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.2f}" if value < 10 else f"{value:.0f}"


def table(folder: str = EVALUATIONS) -> str:
    """The table with its header, as the README holds it between the markers."""
    cost = costs(folder)
    lines = ["| preset | agent | ms/decision | " + " | ".join(c.title for c in COLUMNS) + " |",
             "|---|---|---:|" + "---:|" * len(COLUMNS)]
    for row in ROWS:
        cells = [cell(row, column, folder) for column in COLUMNS]
        lines.append(f"| `{row.preset}` {row.players}p | {row.shown} | {_ms(cost.get(row.spec))} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def readme_table(text: str) -> str:
    if BEGIN not in text or END not in text:
        raise ValueError(f"README.md has no strength table markers ({BEGIN} ... {END})")
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def write_readme(path: str = README, folder: str = EVALUATIONS) -> bool:
    """Write the table into the README; returns whether it changed."""
    with open(path) as f:
        text = f.read()
    old = readme_table(text)
    new = table(folder)
    if old == new:
        return False
    head, rest = text.split(BEGIN, 1)
    with open(path, "w") as f:
        f.write(f"{head}{BEGIN}\n{new}\n{END}{rest.split(END, 1)[1]}")
    return True


def missing() -> list[tuple[Row, Column, int, int, str]]:
    """The runs not yet kept: (row, column, seed, boards, file), cheapest columns first."""
    runs = []
    for column in COLUMNS:
        for row in ROWS:
            if played(row, column):
                for (seed, boards), f in zip(column.runs, cell_files(row, column)):
                    if not os.path.exists(f):
                        runs.append((row, column, seed, boards, f))
    searching = ("pimc", BEST_SEARCH)  # tens of ms a decision against a tenth of one
    return sorted(runs, key=lambda r: (r[1].opponent == "pimc", r[0].spec in searching))


def run_missing(workers: int, only: str | None) -> None:
    """Play each missing run with bm-eval and keep its evaluation.json under its cell's name."""
    os.makedirs(EVALUATIONS, exist_ok=True)
    for row, column, seed, boards, f in missing():
        if only and only not in os.path.basename(f):
            continue
        args = [*bm_eval_args(row, column, seed, boards), "--workers", str(workers), "--no-progress"]
        print("bm-eval " + " ".join(args), flush=True)
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([sys.executable, "-m", "bm_env.cli.evaluate", *args, "--out", out], check=True, cwd=ROOT)
            shutil.copyfile(os.path.join(out, "evaluation.json"), f + ".part")
        os.replace(f + ".part", f)  # a run cut short leaves no file that looks finished


def time_agents(deals: int) -> None:
    """ms of CPU time per decision of each row's agent (bm_env.bench.agents.search_times)."""
    from bm_env.bench.agents import search_times
    from bm_env.cli.bench import machine

    ms = {}
    for row in ROWS:
        if row.spec not in ms:
            ms[row.spec] = round(float(search_times(row.spec, row.preset, deals).mean()) * 1000, 3)
            print(f"{row.spec}: {ms[row.spec]} ms", flush=True)
    with open(os.path.join(EVALUATIONS, "costs.json"), "w") as f:
        json.dump({"command": f"python scripts/strength_table.py --time --deals {deals}",
                   "processor": machine()["processor"], "ms_per_decision": ms}, f, indent=1)
        f.write("\n")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--run", action="store_true", help="play the missing runs (bm-eval), then write the table")
    p.add_argument("--only", help="with --run: only the runs whose file name contains this")
    p.add_argument("--workers", type=int, default=1, help="bm-eval's --workers for --run")
    p.add_argument("--time", action="store_true", help="measure the cost column into evaluations/costs.json")
    p.add_argument("--deals", type=int, default=5, help="deals timed per agent with --time")
    p.add_argument("--check", action="store_true", help="exit 1 if README.md's table differs from the files")
    args = p.parse_args()
    for name in ("workers", "deals"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.check:
        with open(README) as f:
            if readme_table(f.read()) != table():
                print("README.md's strength table is not what evaluations/ gives: "
                      "run python scripts/strength_table.py", file=sys.stderr)
                return 1
        return 0
    if args.run:
        run_missing(args.workers, args.only)
    if args.time:
        time_agents(args.deals)
    print("README.md " + ("updated" if write_readme() else "already up to date"))
    left = missing()
    if left:
        print(f"{len(left)} runs not played yet; python scripts/strength_table.py --run plays them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
