"""The strength tables of the README, docs/agents.md and docs/evaluation.md, written from the evaluations under ``evaluations/``.

Every figure in these tables is read from a ``bm-eval`` run's ``evaluation.json`` kept in
``evaluations/`` (named after its cell, shared by every table that shows the cell), never
typed: ``--run`` plays the cells that have no file yet with the command the cell stands for and
keeps its JSON; the default writes each table between its markers; ``--check`` exits 1 when a
table is not what the files give (the test suite runs it). A cell of a pimc column is several
runs of other board seeds pooled (``bm-eval --pool``), so its core-hours can be spent a run at a
time, and a cell shows only once all its runs are there. The README's cost column comes from
``evaluations/costs.json``, which ``--time`` writes (ms of CPU time per decision, one core, on the
machine it ran on).

    python scripts/strength_table.py --run --workers 2     # play what is missing (long for pimc)
    python scripts/strength_table.py --run --only heuristic__vs__random   # only the runs so named
    python scripts/strength_table.py --time                # the cost column; give it the machine
    python scripts/strength_table.py                       # write the tables
    python scripts/strength_table.py --check               # exit 1 if a table is stale
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

from bm_env.evaluation.combine import load_result, pool  # noqa: E402
from bm_env.engine.rules import PRESETS, make_rules  # noqa: E402
from bm_env.evaluation.statistics import signed  # noqa: E402

EVALUATIONS = os.path.join(ROOT, "evaluations")
README = os.path.join(ROOT, "README.md")
AGENTS_PAGE = os.path.join(ROOT, "docs", "agents.md")
EVALUATION_PAGE = os.path.join(ROOT, "docs", "evaluation.md")


def begin_marker(name: str) -> str:
    return f"<!-- {name}: written by scripts/strength_table.py from evaluations/ -->"


def end_marker(name: str) -> str:
    return f"<!-- end of the {name} -->"


@dataclass(frozen=True)
class Column:
    """Opponents in every other seat, and the board sets (seed, boards) a cell's runs play."""

    title: str
    opponent: str
    runs: tuple[tuple[int, int], ...]
    agent: str | None = None  # the agent the column plays, where it is not the row's


def seated(row: "Row", column: Column) -> "Row":
    """The row as the column plays it: with the column's own agent where it names one."""
    return replace(row, spec=column.agent) if column.agent else row


@dataclass(frozen=True)
class Row:
    preset: str
    players: int
    spec: str
    shown: str  # how the agent is written in the table (markdown)


@dataclass(frozen=True)
class Table:
    """One table: the file and markers it sits between, its columns and rows, and which cells it plays."""

    name: str  # the markers' name: <!-- NAME: written by ... --> ... <!-- end of the NAME -->
    path: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    pimc_rows: tuple[str, ...]  # the agents a pimc column is played for (pimc plays two seats: hours a cell)
    costs: bool  # with the ms/decision column of evaluations/costs.json
    presets: bool  # with the preset column (a table of one preset names it in its heading instead)
    agent_column: bool = True  # without it, each column names its agent in its title


V1_SEED_0 = ((0, 2000),)
# Where pimc plays two seats a run of 150 boards takes a quarter to half an hour of one core: the
# README's column is two runs; docs/agents.md's is 2,000 boards in 14 runs (its first two the same).
PIMC_SEEDS_2_3 = ((2, 150), (3, 150))
PIMC_SEEDS = tuple((seed, 150) for seed in range(2, 15)) + ((15, 50),)
BEST_SEARCH = "pimc:guide=black_maria_3p,guide_playouts=true,read_passes=true"
BATCHED_SEARCH = "search:guide=black_maria_3p,belief=black_maria_3p"
GUIDED = "pimc:guide=black_maria_3p"
GUIDED_PLAYOUTS = "pimc:guide=black_maria_3p,guide_playouts=true"
NETWORKS_4P = tuple(Row(preset, 4, f"policy:{preset}_4p", f"`policy:{preset}_4p`")
                    for preset in ("american_hearts", "petrone_black_mariah", "openspiel_hearts"))

README_TABLE = Table(
    "strength table", README,
    columns=(Column("vs heuristic_v1", "heuristic_v1", V1_SEED_0), Column("vs pimc", "pimc", PIMC_SEEDS_2_3),
             Column("vs random", "random", V1_SEED_0)),
    rows=(Row("black_maria", 3, "random", "`random`"),
          Row("black_maria", 3, "heuristic_v1", "`heuristic_v1`"),
          Row("black_maria", 3, "heuristic", "`heuristic` (`heuristic_v2`)"),
          Row("black_maria", 3, "pimc", "`pimc` (20 worlds)"),
          Row("black_maria", 3, "policy:black_maria_3p", "[`policy:black_maria_3p`](checkpoints/black_maria_3p.md)"),
          Row("black_maria", 3, BEST_SEARCH, f"`{BEST_SEARCH}`¹"),
          Row("black_maria", 3, BATCHED_SEARCH, f"`{BATCHED_SEARCH}`²"),
          *(Row(r.preset, 4, r.spec, f"[{r.shown}](checkpoints/{r.spec[7:]}.md)") for r in NETWORKS_4P)),
    pimc_rows=("pimc", "policy:black_maria_3p", BEST_SEARCH, BATCHED_SEARCH), costs=True, presets=True)

# docs/agents.md: every cell of the README and the columns and agents it leaves out.
BLACK_MARIA_TABLE = Table(
    "black_maria table", AGENTS_PAGE,
    columns=(Column("vs 2 × heuristic_v1", "heuristic_v1", V1_SEED_0),
             Column("vs 2 × heuristic", "heuristic", V1_SEED_0),
             Column("vs 2 × pimc", "pimc", PIMC_SEEDS), Column("vs 2 × random", "random", V1_SEED_0)),
    rows=(Row("black_maria", 3, "random", "`random`"),
          Row("black_maria", 3, "heuristic_v1", "`heuristic_v1`"),
          Row("black_maria", 3, "heuristic", "`heuristic`"),
          Row("black_maria", 3, "pimc", "`pimc`"),
          Row("black_maria", 3, "policy:black_maria_3p", "`policy:black_maria_3p`"),
          Row("black_maria", 3, GUIDED, f"`{GUIDED}`"),
          Row("black_maria", 3, GUIDED_PLAYOUTS, "the same, `guide_playouts=true`"),
          Row("black_maria", 3, BEST_SEARCH, "the same, `read_passes=true` as well")),
    pimc_rows=("pimc", "policy:black_maria_3p", GUIDED, GUIDED_PLAYOUTS, BEST_SEARCH), costs=False, presets=False)

FOUR_PLAYER_TABLE = Table(
    "four-player table", AGENTS_PAGE,
    columns=(Column("vs 3 × heuristic_v1", "heuristic_v1", V1_SEED_0),
             Column("vs 3 × heuristic", "heuristic", V1_SEED_0), Column("vs 3 × random", "random", V1_SEED_0)),
    rows=tuple(row for network in NETWORKS_4P
               for row in (Row(network.preset, 4, "heuristic", "`heuristic`"), network)),
    pimc_rows=(), costs=False, presets=True)

# docs/evaluation.md: both rule-based players at every preset's default player count, 500 boards a cell.
RULE_PLAYERS_TABLE = Table(
    "rule-based players table", EVALUATION_PAGE,
    columns=(Column("heuristic vs heuristic_v1", "heuristic_v1", ((0, 500),)),
             Column("heuristic vs random", "random", ((0, 500),)),
             Column("heuristic_v1 vs random", "random", ((0, 500),), agent="heuristic_v1")),
    rows=tuple(Row(preset, make_rules(preset).num_players, "heuristic", "") for preset in PRESETS),
    pimc_rows=(), costs=False, presets=True, agent_column=False)

TABLES = (README_TABLE, BLACK_MARIA_TABLE, FOUR_PLAYER_TABLE, RULE_PLAYERS_TABLE)
# Cells not played: an agent against copies of itself scores the fair share by symmetry, and
# a pimc column is kept to the agents it tells apart (the searches and the black_maria network).
ITSELF = "0 (itself)"


def slug(text: str) -> str:
    return text.replace("policy:", "").replace(":", "-").replace(",", "_").replace("=", "-")


def cell_files(row: Row, column: Column, folder: str = EVALUATIONS) -> list[str]:
    """The JSON files of a cell's runs, one per (seed, boards) of its column."""
    stem = f"{row.preset}_{row.players}p__{slug(row.spec)}__vs__{column.opponent}"
    if column.runs == V1_SEED_0:
        return [os.path.join(folder, f"{stem}.json")]
    # A pooled column's runs are 150 boards (50 for the last); other single runs name their boards.
    return [os.path.join(folder, f"{stem}__seed{seed}.json" if len(column.runs) > 1 else
                         f"{stem}__seed{seed}_{boards}.json") for seed, boards in column.runs]


def played(table: Table, row: Row, column: Column) -> bool:
    """Whether the cell is one the table fills (the others stay empty or say why)."""
    if row.spec == column.opponent:
        return False
    return column.opponent != "pimc" or row.spec in table.pimc_rows


def bm_eval_args(row: Row, column: Column, seed: int, boards: int) -> list[str]:
    return ["--preset", row.preset, "--players", str(row.players),
            "--agents", row.spec, *[column.opponent] * (row.players - 1), "--boards", str(boards),
            "--seed", str(seed)]


def cell(row: Row, column: Column, folder: str = EVALUATIONS) -> str:
    """The cell's text: the agent's points/deal better than the fair share ± its 95% interval ("" until played)."""
    if row.spec == column.opponent:
        return ITSELF
    files = cell_files(row, column, folder)
    if not all(os.path.exists(f) for f in files):
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
    return f"{signed(advantage)} ± {ci:.2f}".replace("-", "−")


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


def table(which: Table = README_TABLE, folder: str = EVALUATIONS) -> str:
    """The table with its header, as its file holds it between the markers."""
    cost = costs(folder) if which.costs else {}
    head = (["preset"] * which.presets + ["agent"] * which.agent_column + ["ms/decision"] * which.costs
            + [c.title for c in which.columns])
    align = ["---"] * (which.presets + which.agent_column) + ["---:"] * (which.costs + len(which.columns))
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    for row in which.rows:
        cells = [f"`{row.preset}` {row.players}p"] * which.presets + [row.shown] * which.agent_column
        cells += [_ms(cost.get(row.spec))] * which.costs
        for column in which.columns:
            r = seated(row, column)
            cells.append(cell(r, column, folder) if played(which, r, column) or r.spec == column.opponent else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def written_table(text: str, name: str) -> str:
    """The table between the markers of ``name`` in a file's text."""
    begin, end = begin_marker(name), end_marker(name)
    if begin not in text or end not in text:
        raise ValueError(f"no markers of the {name} ({begin} ... {end})")
    return text.split(begin, 1)[1].split(end, 1)[0].strip("\n")


def write_table(which: Table, path: str | None = None, folder: str = EVALUATIONS) -> bool:
    """Write the table between its markers in its file (or ``path``); returns whether it changed."""
    path = path or which.path
    with open(path) as f:
        text = f.read()
    new = table(which, folder)
    if written_table(text, which.name) == new:
        return False
    begin, end = begin_marker(which.name), end_marker(which.name)
    head, rest = text.split(begin, 1)
    with open(path, "w") as f:
        f.write(f"{head}{begin}\n{new}\n{end}{rest.split(end, 1)[1]}")
    return True


def stale_tables(folder: str = EVALUATIONS) -> list[Table]:
    """The tables whose file does not hold what the saved evaluations give."""
    stale = []
    for which in TABLES:
        with open(which.path) as f:
            if written_table(f.read(), which.name) != table(which, folder):
                stale.append(which)
    return stale


def missing() -> list[tuple[Row, Column, int, int, str]]:
    """The runs not yet kept, each once however many tables show it: (row, column, seed, boards, file), cheapest first."""
    runs = {}
    for which in TABLES:
        for column in which.columns:
            for row in map(lambda r: seated(r, column), which.rows):
                if played(which, row, column):
                    for (seed, boards), f in zip(column.runs, cell_files(row, column)):
                        if not os.path.exists(f):
                            runs.setdefault(f, (row, column, seed, boards, f))
    return sorted(runs.values(), key=lambda r: (r[1].opponent == "pimc", r[0].spec.startswith("pimc")))


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
    for row in README_TABLE.rows:
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
    p.add_argument("--check", action="store_true", help="exit 1 if a table differs from what the files give")
    args = p.parse_args()
    for name in ("workers", "deals"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.check:
        for which in stale_tables():
            print(f"{os.path.relpath(which.path, ROOT)}'s {which.name} is not what evaluations/ gives: "
                  "run python scripts/strength_table.py", file=sys.stderr)
        return 1 if stale_tables() else 0
    if args.run:
        run_missing(args.workers, args.only)
    if args.time:
        time_agents(args.deals)
    for which in TABLES:
        print(f"{os.path.relpath(which.path, ROOT)}, {which.name}: "
              + ("updated" if write_table(which) else "already up to date"))
    left = missing()
    if left:
        print(f"{len(left)} runs not played yet; python scripts/strength_table.py --run plays them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
