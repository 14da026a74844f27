"""Passing in a :class:`~bm_env.engine.deal.Deal`: the direction, the picks, and the cards moving.

Each player in turn from eldest hand picks its cards one at a time (``Deal.pass_count`` of
them; the rules' ``no_pass_cards`` only when nothing else is left); the cards move only
when everyone has passed, so no player sees what it receives before passing. The
direction is a seat offset (``left``, ``right``, ``across``, ``left2``...; ``hold``: no
pass) or, for ``scatter`` (Pagat), one offset per pick. With ``optional_pass``
(Pagat) a player may instead *pass on*, unseen, the cards passed to it: its own
stack stays and the one coming to it travels on to the next receiver in the direction,
so a chain can bring cards back to their passer. Not offered on scatter deals, where
"on" has no one receiver.

Part of the deal's implementation: these functions change the deal's state, its private
lists included (declared in ``bm_env.engine.deal``); everyone else reads the deal through its
queries (``pass_picks``, :meth:`~bm_env.Deal.passed_to`, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import PASS_ON
from .cards import mask_of
from .rules import SCATTER, direction_offset, scatter_offsets

if TYPE_CHECKING:
    from .deal import Deal


def setup(deal: Deal, direction: str) -> None:
    """Set the deal's fixed passing facts for ``direction`` (its mutable passing state is
    set with the rest of the deal's state)."""
    rules = deal.rules
    k = deal.num_players
    deal.pass_direction = direction
    deal.no_pass_mask = mask_of(rules.no_pass_cards)
    deal.pick_offsets = None  # scatter: receiver offset of each pick
    if direction == SCATTER:
        deal.pass_offset = 0
        deal.pick_offsets = scatter_offsets(k, rules.passes_for(k))
        deal.pass_count = len(deal.pick_offsets) if deal.pick_offsets else 0
    else:
        deal.pass_offset = direction_offset(direction, k)
        deal.pass_count = rules.passes_for(k) if deal.pass_offset else 0
    deal.can_pass_on = rules.optional_pass and deal.pick_offsets is None


def legal(deal: Deal, p: int) -> int:
    """Cards ``p`` may pick now (the rules' unpassable cards only when nothing else is left), and
    "pass on" before the first pick where the rules offer it."""
    hand = deal._hands[p]
    allowed = hand & ~deal.no_pass_mask
    out = allowed if allowed else hand
    if deal.can_pass_on and not deal._pass_picks[p]:
        out |= 1 << PASS_ON
    return out


def pick(deal: Deal, c: int, bit: int) -> bool:
    """The position to act picks card ``c`` (bit ``bit``) to pass, or passes on (``c == PASS_ON``).

    True after the last pick of the last player: the cards have moved, passing is over.
    """
    p = deal.to_act
    if c == PASS_ON:
        deal._passed_on[p] = True
    else:
        if deal.two_decks:
            deal._remove(p, bit)
        else:
            deal._hands[p] ^= bit
        picks = deal._pass_picks[p] + (c,)
        deal._pass_picks[p] = picks
        if len(picks) < deal.pass_count:
            deal.legal = legal(deal, p)
            return False
    if not deal._next_in_round(legal):
        return False
    _move(deal)
    return True


def _move(deal: Deal) -> None:
    """Everyone has passed: the cards move now, and only now."""
    k = deal.num_players
    picks = deal._pass_picks
    incoming: list[list[int]] = [[] for _ in range(k)]
    if deal.pick_offsets is not None:
        for q in range(k):
            for c, off in zip(picks[q], deal.pick_offsets):
                incoming[(q + off) % k].append(c)
    else:
        off = deal.pass_offset
        passed_on = deal._passed_on
        for q in range(k):
            if passed_on[q]:
                continue
            # Passing on forwards the stack unseen; a chain can bring the cards back to q.
            r = (q + off) % k
            while passed_on[r] and r != q:
                r = (r + off) % k
            deal._pass_receiver[q] = r
            incoming[r].extend(picks[q])
    for r in range(k):
        cards = incoming[r]
        if deal.two_decks:
            for c in cards:
                deal._add(r, c)
        m = mask_of(cards)
        if not deal.two_decks:
            deal._hands[r] |= m
        deal._received[r] = m
        deal._received_cards[r] = tuple(sorted(cards))


# ---------------------------------------------------------------------------- queries


def target(deal: Deal, p: int, pick_index: int = 0) -> int:
    """Position that the ``pick_index``-th card ``p`` passes goes to by the direction (scatter:
    each pick its own receiver), before any passing on."""
    off = deal.pass_offset if deal.pick_offsets is None else deal.pick_offsets[pick_index]
    return (p + off) % deal.num_players


def passed_to(deal: Deal, p: int) -> tuple[tuple[int, int], ...]:
    """``(card, position)`` for each card ``p`` picked to pass, in the order picked: the position
    the direction sends it to until the cards move, then the one that received it (passing on
    can send a stack further)."""
    picks = deal._pass_picks[p]
    k = deal.num_players
    if deal.pick_offsets is not None:
        return tuple((c, (p + off) % k) for c, off in zip(picks, deal.pick_offsets))
    to = deal._pass_receiver[p] if deal.passes_revealed else (p + deal.pass_offset) % k
    return tuple((c, to) for c in picks)


def received_from(deal: Deal, p: int) -> int | None:
    """Position whose passed cards ``p`` received; None before the cards move, on a hold or
    scatter deal, or when no stack came to ``p``."""
    if deal.pick_offsets is not None or not deal.passes_revealed or not deal.pass_count:
        return None
    picks, receiver = deal._pass_picks, deal._pass_receiver
    return next((q for q in range(deal.num_players) if picks[q] and receiver[q] == p), None)
