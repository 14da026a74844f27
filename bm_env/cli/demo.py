"""``bm-demo``: the project's main job in one command.

It plays one deal on the chosen rules (default: Black Maria, three players) with the
built-in agents and prints it trick by trick, then runs a duplicate tournament of the
built-in agents and prints its table. Every hand is shown: this is a demonstration for a
person watching, not an observation any agent receives.
"""

from __future__ import annotations

import sys

import numpy as np

from ..agents import AgentSpecError, CheckpointError, make_agent
from ..engine.cards import card_pretty, cards_of, format_hand
from ..engine.match import Match
from ..engine.rules import PRESETS, RulesError, make_rules
from ..evaluation import league
from ..evaluation.play import agent_action
from .args import Parser, add_version, non_negative_int, positive_int


def play_demo_deal(rules, agent_specs: list[str], seed: int, out=None) -> tuple[int, ...]:
    """Play and print one deal (to ``out``, default standard output); return its scores by seat."""
    out = out or sys.stdout
    n = rules.num_players
    agents = [make_agent(spec, rules=rules, seed=seed + i) for i, spec in enumerate(agent_specs)]
    match = Match(rules, np.random.default_rng(seed), first_dealer=0)
    deal = match.deal
    print(f"One deal of {n}-player rules, dealer player_0, pass {deal.pass_direction} "
          f"({deal.pass_count} cards). All hands shown.", file=out)
    for s in range(n):
        print(f"  player_{s} ({agents[s].name:>9}): {format_hand(cards_of(deal.dealt[s]))}", file=out)
    shown_passes = False
    tricks_shown = 0
    while not deal.is_over:
        deal.step(agent_action(agents[deal.current_seat], deal, match.totals, match.deals_played))
        if deal.phase != "pass" and not shown_passes and deal.pass_count:
            shown_passes = True
            for s in range(n):
                if deal.passed_on[s]:
                    print(f"  player_{s} passes on, unseen, the cards passed to it", file=out)
                    continue
                by_receiver: dict[int, list[int]] = {}  # scatter: the picks go to different players
                for c, to in deal.passed_to(s):
                    by_receiver.setdefault(to, []).append(c)
                sent = ", ".join(" ".join(card_pretty(c) for c in picks) + f" to player_{to}"
                                 for to, picks in by_receiver.items())
                print(f"  player_{s} passes {sent}", file=out)
        while tricks_shown < len(deal.tricks):
            leader, cards, winner = deal.tricks[tricks_shown]
            tricks_shown += 1
            played = "  ".join(f"p{(leader + i) % n}:{card_pretty(c):>3}" for i, c in enumerate(cards))
            points = sum(rules.card_values[c] for c in cards)
            print(f"  trick {tricks_shown:2d}: {played}   -> player_{winner}"
                  + (f" takes {points} point{'s' if abs(points) != 1 else ''}" if points else ""), file=out)
    print("  deal scores: " + ", ".join(f"player_{s} {x}" for s, x in enumerate(deal.scores)), file=out)
    return deal.scores


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="bm-demo", description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="black_maria", help=f"one of {', '.join(PRESETS)}")
    parser.add_argument("--players", type=positive_int, default=None, help="player count (default: the preset's)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the deal, the boards and the agents")
    parser.add_argument("--boards", type=non_negative_int, default=12,
                        help="boards per seating in the tournament (0: skip it)")
    parser.add_argument("--agents", nargs="+", default=["random", "heuristic", "pimc:worlds=8"],
                        help="agent specs of the tournament, at least two, none repeated (see bm-eval)")
    add_version(parser)
    args = parser.parse_args(argv)
    if args.boards and (len(args.agents) < 2 or len(set(args.agents)) != len(args.agents)):
        parser.error(f"--agents: the tournament needs at least two agent specs, none repeated (a '#tag' tells two "
                     f"of one kind apart: random random#b), got {args.agents}")
    try:
        rules = make_rules(args.preset, args.players)
        for spec in args.agents:  # a bad spec is refused before the demo deal, not after it
            make_agent(spec, rules=rules, seed=args.seed)
    except (RulesError, AgentSpecError, CheckpointError) as e:
        parser.error(str(e))
    n = rules.num_players
    specs = ["heuristic"] + ["random"] * (n - 1)
    play_demo_deal(rules, specs, args.seed)
    if args.boards:
        print(f"\nTournament on {args.boards} boards per seating: every pair of agents plays both ways round "
              "(one against copies of the other), every board at every rotation of the seats.")
        result = league(rules, args.agents, num_boards=args.boards, seed=args.seed)
        print(result.to_markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
