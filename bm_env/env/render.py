"""The table as text, from one seat's point of view.

It reads an :class:`~bm_env.infostate.InfoState` only, so it can show nothing that seat
may not know; other hands appear only when the caller passes them in ``reveal``. The
environment's ``render()`` and the terminal game both use it.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from ..cards import SUIT_SYMBOLS, card_pretty, format_hand
from ..infostate import InfoState


def seat_name(seat: int, me: int | None = None) -> str:
    return f"player_{seat}" + (" (you)" if seat == me else "")


def cards_text(cards: Sequence[int]) -> str:
    return " ".join(card_pretty(c) for c in cards) if cards else "-"


def trick_text(info: InfoState) -> str:
    """The trick being played, e.g. ``"player_1 Q♠, player_2 3♠ (♠ led)"``."""
    if not info.current_trick:
        return "(no card played yet)"
    plays = ", ".join(f"{seat_name(s, info.seat)} {card_pretty(c)}" for s, c in info.current_trick)
    return f"{plays} ({SUIT_SYMBOLS[info.led_suit]} led)"


def render_table(info: InfoState, reveal: Mapping[int, Sequence[int]] | None = None) -> str:
    """A multi-line picture of the table as ``info.seat`` sees it; ``reveal`` maps seats to hands to show."""
    me = info.seat
    n = len(info.match_scores)
    lines = [
        f"{n} players | deal {info.deals_played + 1} | dealer {seat_name(info.dealer)} | "
        f"pass {info.pass_count} {info.pass_direction if info.pass_count else '(hold)'} | phase {info.phase} | "
        f"hearts {'broken' if info.hearts_broken else 'not broken'}",
    ]
    score_parts = []
    for s in range(n):
        part = f"{seat_name(s, me)}: match {info.match_scores[s]}, this deal {info.points_taken[s]}"
        if s not in info.seats:
            part += " (sits out this deal)"
        score_parts.append(part)
    lines.append("Scores: " + " | ".join(score_parts))
    if info.tricks:
        leader, cards, winner = info.tricks[-1]
        k = len(cards)
        order = [info.seats[(info.seats.index(leader) + i) % k] for i in range(k)]
        shown = ", ".join(f"{seat_name(s, me)} {card_pretty(c)}" for s, c in zip(order, cards))
        lines.append(f"Last trick ({len(info.tricks)}): {shown} -> won by {seat_name(winner, me)}")
    if info.phase == "play":
        lines.append(f"Trick: {trick_text(info)}")
    if info.passed:
        to = info.passed[0][1]
        lines.append(f"You passed to {seat_name(to)}: {cards_text([c for c, _ in info.passed])}")
    if info.received:
        lines.append(f"You received from {seat_name(info.received_from)}: {cards_text(info.received)}")
    if info.deal_scores is not None:
        lines.append("Deal scores: " + " | ".join(f"{seat_name(s, me)} {info.deal_scores[s]}" for s in info.seats))
    if me in info.seats:
        lines.append(f"Your hand ({seat_name(me)}): {format_hand(info.hand) or '-'}")
    if info.to_act is not None:
        if info.to_act == me:
            verb = "pass" if info.phase == "pass" else "play"
            lines.append(f"Your turn to {verb}; legal: {cards_text(info.legal)}")
        else:
            lines.append(f"Waiting for {seat_name(info.to_act)}")
    for s, hand in sorted((reveal or {}).items()):
        if s != me:
            lines.append(f"[revealed] {seat_name(s)}: {format_hand(hand) or '-'}")
    return "\n".join(lines)
