"""A golden playthrough: one seeded deal through the environment, written out as text.

It shows a reviewer exactly what a game looks like from the agents' side (who acts, the
legal actions, the action taken, the observation decoded part by part at the first pass pick
and the first card played, the rewards) and, checked into ``tests/golden/``, pins that behaviour: the test regenerates it
and compares. ``python -m bm_env.env.playthrough PRESET SEED`` prints one.
"""

from __future__ import annotations

import random

from ..black_maria_v0 import raw_env
from ..engine.actions import action_str
from .observation import decode


_CARD_PLANES = ("hand", "received", "passed_to_seat", "played_by_seat", "trick_card_seat")


def _describe(vec, rules) -> list[str]:
    lines = []
    for name, value in decode(vec, rules.num_players, rules).items():
        if name in ("card_values", "no_pass_cards"):
            continue  # constant rule tables: shown once in the header instead
        if name.rstrip("0123456789") in _CARD_PLANES:
            value = " ".join(action_str(c) for c in value) or "-"
        lines.append(f"    {name}: {value}")
    return lines


def playthrough(preset: str = "black_maria", seed: int = 0, num_players: int | None = None) -> str:
    """The text of one deal of ``preset`` played by a seeded random chooser."""
    env = raw_env(rules=preset, num_players=num_players)
    env.reset(seed=seed)
    rules = env.rules
    chooser = random.Random(seed)
    values = {action_str(c): v for c, v in enumerate(rules.card_values) if v}
    out = [f"playthrough of {preset}, {rules.num_players} players, seed {seed}",
           f"card values: {values}"]
    for s in range(rules.num_players):
        out.append(f"player_{s} dealt: {' '.join(action_str(c) for c in env.match.deal.hand_cards(s))}")
    decision = 0
    play_shown = False
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            out.append(f"{agent}: reward {reward}, info {info}")
            env.step(None)
            continue
        legal = [int(a) for a in obs["action_mask"].nonzero()[0]]
        action = legal[chooser.randrange(len(legal))]
        phase = env.match.deal.phase
        if decision == 0 or (phase == "play" and not play_shown):
            play_shown = phase == "play"
            out.append(f"  observation of {agent} before decision {decision}:")
            out.extend(_describe(obs["observation"], rules))
        out.append(f"{decision:3d} {agent} {phase}: legal {' '.join(action_str(a) for a in legal)} -> {action_str(action)}")
        deal = env.match.deal
        tricks_before = len(deal.tricks)
        env.step(action)
        decision += 1
        if len(deal.tricks) > tricks_before:
            leader, cards, winner = deal.tricks[-1]
            taker = "nobody yet (cancelled)" if winner is None else f"player_{deal.seats[winner]}"
            out.append(f"    trick {len(deal.tricks)}: {' '.join(action_str(c) for c in cards)} -> {taker}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import sys

    args = sys.argv[1:]
    print(playthrough(args[0] if args else "black_maria", int(args[1]) if len(args) > 1 else 0), end="")
