"""Write a shipped agent's model card (checkpoints/NAME.md) and curve (NAME.png) from its run folders and evaluations.

Every card follows one template (:data:`SECTIONS`: intended use, training, evaluation,
behaviour worth knowing, limitations).

    .venv/bin/python scripts/model_card.py black_maria_3p \
        --machine "2 vCPU Intel Xeon (Sapphire Rapids), 24 GB, no GPU; torch 2.13.0+cpu" --auto-precision bf16 \
        --stages runs/black_maria_3p runs/black_maria_3p_stage2 \
        --eval results/final/black_maria_3p-hv1 results/final/black_maria_3p-h ... \
        --behaviour "..." --limitations "..."

Every figure comes from the files: each stage's newest training state (decisions, wall time,
resolved config) and ``evaluations.jsonl``, and each ``bm-eval --out`` folder's
``evaluation.json`` (boards, scores, intervals; folders joined by ``+`` are runs of other seeds pooled in
one row, as ``bm-eval --pool`` pools them). The shipped file is the last stage's
``latest.pt`` (the learning rate has fallen to 0 there).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bm_env.evaluation.combine import load_result, pool  # noqa: E402
from bm_env.training.curve import plot_curve  # noqa: E402
from bm_env.training.rule_opponent import rule_mix  # noqa: E402
from bm_env.training.state import latest_state, load_state  # noqa: E402

AGENTS = {
    "black_maria_3p": "Black Maria with 3 players (preset `black_maria`: pass 3 right, hearts 1, Q♠ 13, K♠ 10, A♠ 7)",
    "american_hearts_4p": ("American Hearts with 4 players (preset `american_hearts`: pass left, right, across, hold; "
                           "2♣ leads; hearts 1, Q♠ 13; shooting the moon)"),
    "petrone_black_mariah_4p": ("Petrone's Black Mariah with 4 players (preset `petrone_black_mariah`: hearts are "
                                "trumps, +3 per clean trick; higher scores win)"),
    "openspiel_hearts_4p": ("Hearts as OpenSpiel's `hearts` game plays it (preset `openspiel_hearts`: 4 players, one "
                            "deal, the pass direction drawn per deal, Q♠ breaks hearts)"),
}

#: The card's sections, in order: every card has each of them.
SECTIONS = ("Intended use", "How it was trained", "Evaluation", "Behaviour worth knowing", "Limitations")


def read_evaluations(run_dir: str) -> list[dict]:
    with open(os.path.join(run_dir, "evaluations.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def stage_facts(run_dir: str) -> dict:
    state = load_state(latest_state(run_dir))
    return {"dir": run_dir, "config": state["config"], "decisions": int(state["decisions"]),
            "minutes": float(state["seconds"]) / 60, "updates": int(state["update"]),
            "evaluations": read_evaluations(run_dir)}


def precision_text(precision: str | None, auto_chose: str) -> str:
    """A stage's precision as configured, with what ``auto`` chose (no key: a run from before the key, fp32)."""
    if precision is None:
        return "fp32"
    return f"auto ({auto_chose} here)" if precision == "auto" else precision


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", choices=sorted(AGENTS))
    ap.add_argument("--stages", nargs="+", required=True, help="the run folders, first stage first")
    ap.add_argument("--eval", nargs="+", required=True,
                    help="bm-eval --out folders of the shipped file, one per row; A+B pools runs of other seeds in one row")
    ap.add_argument("--machine", required=True,
                    help="the machine that trained it, e.g. '2 vCPU AMD EPYC (Zen 3), 24 GB, no GPU; torch 2.13.0+cpu'")
    ap.add_argument("--auto-precision", required=True, choices=["fp32", "bf16"],
                    help="what precision 'auto' chose on that machine (bm_env.training.precision)")
    ap.add_argument("--behaviour", required=True, help="what its play does that a user should know (e.g. its moon rate)")
    ap.add_argument("--limitations", required=True, help="where it is weak or was not measured")
    return ap.parse_args()


def stage_line(i: int, s: dict, auto_precision: str) -> str:
    """The card's line for stage ``i``: its config, time, decisions and settings."""
    c = s["config"]
    name = os.path.basename(s["dir"])
    extra = []
    if c.get("rule_opponent"):
        parts = [f"`{name}` in {share * c['rule_share']:.0%}" for name, share in rule_mix(c["rule_opponent"]).items()]
        extra.append((", ".join(parts[:-1]) + " and " if len(parts) > 1 else "") + parts[-1] + " of the deals")
    if str(c.get("init_from") or "").startswith("policy:"):
        extra.append(f"started from the policy of `{c['init_from'].split(':', 1)[1]}` (critic and optimiser fresh)")
    elif c.get("init_from"):
        extra.append(f"started from stage {i - 1}'s newest training state")
    return (
        f"- Stage {i}: [`configs/{name}.yaml`](../configs/{name}.yaml): "
        f"{s['minutes']:.1f} minutes, {s['updates']:,} updates, {s['decisions']:,} decisions (every seat's); "
        f"lr {c['lr']:g}{' annealed to 0 over ' + format(c['total_decisions'], ',') + ' decisions' if c['anneal_lr'] else ''}, "
        f"entropy {c['ent_coef']:g}, a pool of {c['pool_size']} snapshots in {c['pool_share']:.0%} of the deals"
        + (", " + ", ".join(extra) if extra else "") + f", {c['torch_threads']} torch thread(s), "
        f"precision {precision_text(c.get('precision'), auto_precision)}; "
        f"{s['decisions'] / (s['minutes'] * 60):,.0f} decisions/s on average.")


def evaluation_row(folders: str, n_opp: int) -> str:
    """The evaluation table's row of one ``bm-eval --out`` folder, or of several joined by '+'
    (runs of the same seating on other seeds, pooled: ``bm-eval --pool``)."""
    results = [load_result(folder) for folder in folders.split("+")]
    opponent = results[0].seating[1]
    if len(results) == 1:
        r, me = results[0], results[0].agents[0]
        boards, mean, ci, fair, advantage, advantage_ci = (f"{r.num_boards:,}", me.mean, me.ci, r.fair_share,
                                                          me.advantage, me.diff_ci)
    else:
        p = pool(results)
        me = p.agents[0]
        boards = f"{p.boards:,} (seeds {', '.join(map(str, p.seeds))}, pooled)"
        mean, ci, fair, advantage, advantage_ci = me.mean, me.ci, p.fair_share, me.advantage, me.advantage_ci
    return (f"| {n_opp} × {opponent} | {boards} | {mean:.2f} ± {ci:.2f} | {fair:.2f} | "
            f"**{advantage:+.2f} ± {advantage_ci:.2f}** |")


def card_lines(name: str, stages: list[dict], evals: list[str], machine: str, auto_precision: str,
               behaviour: str, limitations: str) -> list[str]:
    """The card in the template every shipped agent's card follows (:data:`SECTIONS`)."""
    preset = stages[0]["config"]["preset"]
    n_opp = {"black_maria": 2}.get(preset, 3)
    lines = [f"# {name}", "", f"A policy network for {AGENTS[name]}, trained by self-play with `bm-train`.", "",
             "## Intended use", "",
             f"An opponent or a baseline for {preset}: `policy:{name}` in `bm-eval`, `bm-play`, `make_agent`, "
             "`SingleAgentEnv(opponents=...)` (greedy; `,greedy=false` samples from its masked softmax), or the guide "
             f"of a search (`pimc:guide={name}`). It plays these rules only; loading it for others is refused.", "",
             "## How it was trained", "", "```bash"]
    for s in stages:
        lines.append(f"bm-train --config configs/{os.path.basename(s['dir'])}.yaml --run-dir {s['dir']} --quiet")
    lines += ["```", ""]
    lines += [stage_line(i, s, auto_precision) for i, s in enumerate(stages, 1)]
    total_d = sum(s["decisions"] for s in stages)
    total_m = sum(s["minutes"] for s in stages)
    lines += ["", f"In all **{total_m:.1f} minutes** of wall time and **{total_d:,} decisions**. Policy MLP "
              f"{stages[-1]['config']['hidden']}, separate critic {stages[-1]['config']['critic_hidden']} that also sees "
              "every hand (training only). The shipped file is the last stage's `latest.pt`. Machine: "
              f"{machine}.", "",
              f"![training curve]({name}.png)", "",
              "The curve: the score against the evaluation opponent during training (200 boards of board set 12345, "
              "every rotation, 95% interval), the stages one after the other.", "",
              "## Evaluation", "",
              f"`bm-eval --preset {preset} --agents policy:{name} B{' B' * (n_opp - 1)} --boards K`, board set v1, "
              "every board at every rotation of the seats; points per deal better than the fair share (positive is "
              "better), with its 95% interval over boards.", "",
              "| opponents | boards | agent's mean score/deal | fair share | better than fair share |",
              "|---|---:|---:|---:|---:|"]
    lines += [evaluation_row(folder, n_opp) for folder in evals]
    lines += ["", "## Behaviour worth knowing", "", behaviour, "", "## Limitations", "", limitations, ""]
    return lines


def main() -> None:
    args = parse_args()
    stages = [stage_facts(d) for d in args.stages]
    lines = card_lines(args.name, stages, args.eval, args.machine, args.auto_precision, args.behaviour,
                       args.limitations)
    out = os.path.join("checkpoints", f"{args.name}.md")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    curve, offset = [], 0
    for s in stages:
        curve += [{**e, "decisions": e["decisions"] + offset} for e in s["evaluations"]]
        offset += s["decisions"]
    plot_curve(curve, os.path.join("checkpoints", f"{args.name}.png"), f"{args.name}: every stage")
    print(f"wrote {out} and checkpoints/{args.name}.png")


if __name__ == "__main__":
    main()
