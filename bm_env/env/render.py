"""The table as text, from one seat's point of view.

It reads an :class:`~bm_env.engine.infostate.InfoState` only, so it can show nothing that seat
may not know; other hands appear only when the caller passes them in ``reveal``. The
environment's ``render()`` and the terminal game both use it.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from ..engine.actions import CHARGE_CARD, action_str
from ..engine.cards import NUM_CARDS, SUIT_SYMBOLS, card_pretty, format_hand
from ..engine.infostate import InfoState


def seat_name(seat: int, me: int | None = None) -> str:
    return f"player_{seat}" + (" (you)" if seat == me else "")


def cards_text(cards: Sequence[int]) -> str:
    return " ".join(card_pretty(c) for c in cards) if cards else "-"


def action_pretty(action: int) -> str:
    """A card as ``Q♠``, an extra decision by name, its card with a suit symbol (``charge Q♠``)."""
    if action < NUM_CARDS:
        return card_pretty(action)
    if action in CHARGE_CARD:
        return f"charge {card_pretty(CHARGE_CARD[action])}"
    return action_str(action)


def actions_text(actions: Sequence[int]) -> str:
    """Legal actions: cards as ``Q♠``, extra decisions by name (``charge Q♠``, ``end charging``)."""
    return ", ".join(action_pretty(a) for a in actions) if actions else "-"


_VERBS = {"pass": "pass", "play": "play", "charge": "charge", "discard": "discard", "moon": "choose the moon scoring"}


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
        k = len(info.seats)  # a boosted trick (Booster Nines) goes round the table more than once
        order = [info.seats[(info.seats.index(leader) + i) % k] for i in range(len(cards))]
        shown = ", ".join(f"{seat_name(s, me)} {card_pretty(c)}" for s, c in zip(order, cards))
        won = "no winner: the cards stay on the table" if winner is None else f"won by {seat_name(winner, me)}"
        lines.append(f"Last trick ({len(info.tricks)}): {shown} -> {won}")
    if info.pending:
        lines.append(f"On the table for the next winner: {cards_text(info.pending)}")
    if info.partner is not None:
        lines.append(f"Your partner: {seat_name(info.partner)}")
    if any(info.charged):
        shown = ", ".join(f"{seat_name(s, me)} {cards_text(cs)}" for s, cs in enumerate(info.charged) if cs)
        lines.append(f"Charged: {shown}")
    if info.kitty_size:
        taker = "not taken yet" if info.kitty_taker is None else f"taken by {seat_name(info.kitty_taker, me)}"
        lines.append(f"Kitty: {info.kitty_size} card(s), {taker}" + (f": {cards_text(info.kitty)}" if info.kitty else ""))
    if info.discarded:
        lines.append(f"You discarded face down: {cards_text(info.discarded)}")
    if info.passed_on:
        lines.append("Passed on unseen: " + ", ".join(seat_name(s, me) for s in info.passed_on))
    if info.phase == "play":
        lines.append(f"Trick: {trick_text(info)}")
    if info.passed:
        receivers = sorted({to for _, to in info.passed})
        to = ", ".join(seat_name(s) for s in receivers)
        lines.append(f"You passed to {to}: {cards_text([c for c, _ in info.passed])}")
    if info.received:
        sender = seat_name(info.received_from) if info.received_from is not None else "the other players"
        lines.append(f"You received from {sender}: {cards_text(info.received)}")
    if info.deal_scores is not None:
        lines.append("Deal scores: " + " | ".join(f"{seat_name(s, me)} {info.deal_scores[s]}" for s in info.seats))
    if me in info.seats:
        lines.append(f"Your hand ({seat_name(me)}): {format_hand(info.hand) or '-'}")
    if info.to_act is not None:
        if info.to_act == me:
            lines.append(f"Your turn to {_VERBS.get(info.phase, info.phase)}; legal: {actions_text(info.legal)}")
        else:
            lines.append(f"Waiting for {seat_name(info.to_act)}")
    for s, hand in sorted((reveal or {}).items()):
        if s != me:
            lines.append(f"[revealed] {seat_name(s)}: {format_hand(hand) or '-'}")
    return "\n".join(lines)
