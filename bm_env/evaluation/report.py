"""Writing an evaluation: a markdown table, a JSON file and a PNG chart with error bars."""

from __future__ import annotations

import json
import os

from .harness import EvalResult
from .provenance import describe
from .statistics import signed


def _fmt(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}" if x == x and abs(x) != float("inf") else "n/a"


def to_markdown(result: EvalResult) -> str:
    """The results table, with the run's facts (boards, games, seed, board set) under it.

    Every figure of the table has one sign, positive = better than the fair share, whichever way
    the rules count (by seat too); the raw mean scores, whose direction depends on the rules,
    stay in ``evaluation.json``.
    """
    seat_cols = list(result.agents[0].by_seat) if result.agents else []
    sign = -1.0 if result.lower_wins else 1.0
    head = ["agent", "seats", "better than fair share", "95% CI"] + [f"as {c}" for c in seat_cols]
    with_matches = result.matches > 0
    if with_matches:
        head += ["match wins", "fair"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for a in result.agents:
        row = [a.label, str(a.seats_in_seating), signed(a.advantage), f"±{_fmt(a.diff_ci)}"]
        row += [signed(sign * (a.by_seat[c] - result.fair_share)) for c in seat_cols]
        if with_matches:
            row += [f"{a.match_win_rate:.1%}", f"{a.match_fair_rate:.1%}"]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    resolved = [f"{a.label.split('#', 1)[0]} is {a.spec}" for a in result.agents if a.label.split("#", 1)[0] != a.spec]
    better = "lower" if result.lower_wins else "higher"
    lines.append(
        (f"Agents by fixed name: {'; '.join(dict.fromkeys(resolved))}. " if resolved else "")
        + f"{result.num_boards} boards x {len(result.seating)} rotations = {result.games} deals; "
        f"board set v{result.board_set_version}, seed {result.seed}; points/deal better than the fair share "
        f"({result.fair_share:.2f} points/deal; {better} scores win these rules), positive = better, as a whole "
        f"and by seat; mean scores in evaluation.json; intervals over boards (95%, t)"
        + (f"; {result.matches} matches x {len(result.seating)} rotations" if with_matches else "")
        + f"; {result.seconds:.0f} s on {result.workers} worker(s); code: {describe(result.code)}."
    )
    return "\n".join(lines)


def write_chart(result: EvalResult, path: str) -> None:
    """Bar chart of each agent's difference from the fair share with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [a.label for a in result.agents]
    fig, ax = plt.subplots(figsize=(max(4.0, 1.6 * len(labels)), 3.6))
    ax.bar(labels, [a.advantage for a in result.agents], yerr=[a.diff_ci for a in result.agents], capsize=6,
           color=["tab:green" if a.advantage > 0 else "tab:red" for a in result.agents])
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("points/deal better than fair share")
    ax.set_title(f"{' vs '.join(result.seating)}: {result.num_boards} boards, 95% CI", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_report(result: EvalResult, out_dir: str, stem: str = "evaluation", replays: str = "") -> dict[str, str]:
    """Write ``stem.md``, ``stem.json`` (with per-board means) and ``stem.png`` into ``out_dir``;
    ``replays`` is a markdown section linking recorded games (:mod:`.replays`), put after the table."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {ext: os.path.join(out_dir, f"{stem}.{ext}") for ext in ("md", "json", "png")}
    with open(paths["md"], "w") as f:
        f.write(to_markdown(result) + "\n" + (f"\n{replays}\n" if replays else ""))
    with open(paths["json"], "w") as f:
        json.dump(result.to_dict(with_boards=True), f, indent=1)
    write_chart(result, paths["png"])
    return paths
