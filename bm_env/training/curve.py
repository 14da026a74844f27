"""The training curve: evaluation score against decisions trained, with its 95% interval, as a PNG."""

from __future__ import annotations


def plot_curve(evaluations: list[dict], path: str, title: str) -> str:
    """Write the curve of ``evaluations`` (records of ``evaluations.jsonl``) to ``path``; returns ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [e["decisions"] / 1e6 for e in evaluations]
    y = [e["score"] for e in evaluations]
    ci = [e["ci"] for e in evaluations]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.fill_between(x, [a - b for a, b in zip(y, ci)], [a + b for a, b in zip(y, ci)], alpha=0.25, label="95% interval")
    ax.plot(x, y, marker=".", label="score")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    opponent = evaluations[0]["opponent"] if evaluations else "?"
    boards = evaluations[0]["boards"] if evaluations else "?"
    ax.set_xlabel("decisions trained (millions)")
    ax.set_ylabel(f"points/deal better than the fair share\n(vs {opponent}, {boards} boards)")
    ax.set_title(title)
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
