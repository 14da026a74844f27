"""The pass before the play: how many cards, to whom (a cycle of directions by deal, or drawn per
deal), the cards that may not be passed, the scatter pass and optional passing on (Pagat).

A scatter pass gives one card to each other player (with 3 players passing 4, two to each). With
``optional_pass`` a player may instead pass on, unseen and in the open, the cards passed to
them; it is not offered on scatter deals, where "on" has no one receiver.

In the reference :class:`~bm_env.engine.deal.Deal`, each player in turn from eldest hand picks its
cards one at a time (``Deal.pass_count`` of them; the rules' ``no_pass_cards`` only when nothing
else is left); the cards move only when everyone has passed, so no player sees what it receives
before passing. The direction is a seat offset (``left``, ``right``, ``across``, ``left2``...;
``hold``: no pass) or, for ``scatter``, one offset per pick. A player who passes on keeps its own
stack, and the one coming to it travels on to the next receiver in the direction, so a chain can
bring cards back to their passer. Everyone else reads the deal through its queries
(``pass_picks``, :meth:`~bm_env.Deal.passed_to`, ...).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ...engine.actions import PASS_ON
from ...engine.cards import NUM_CARDS, mask_of
from ...engine.checks import RulesError, shown
from ..component import InfoField, Option, RuleSystem

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...engine.infostate import InfoState
    from ...engine.rules import Rules

PASS_ORDERS = ("cycle", "random")
SCATTER = "scatter"

#: Named pass cycles of Pagat's (a ``pass_cycle`` may be given by one of these names).
PASS_CYCLES: dict[str, tuple[str, ...]] = {
    "american": ("left", "right", "across", "hold"),
    "no_hold": ("left", "right", "across"),
    "scatter_for_hold": ("left", "right", "across", "scatter"),
    "scatter_and_hold": ("left", "right", "across", "scatter", "hold"),
    "three_hold": ("left", "right", "hold"),  # 3 or 5 players
    "three": ("left", "right"),  # 3 or 5 players
    "three_scatter": ("left", "right", "scatter"),  # 3 players passing 4 (two to each)
    "three_scatter_hold": ("left", "right", "scatter", "hold"),
    "five_second": ("left", "right", "left2", "right2", "hold"),
    "five_alternating": ("left", "right", "left2", "hold", "left", "right", "right2", "hold"),
}
_DIRECTION_RE = re.compile(r"^(left|right)([2-9]?)$")  # "left1" is spelt "left"
DIRECTION_FORMS = (
    "left, right, across, hold, scatter (one card to each other player), "
    "or left2..left9 / right2..right9 (the k-th player to that side)"
)


@lru_cache(maxsize=None)  # every deal asks; a regular-expression match each time cost a microsecond
def direction_offset(direction: str, num_players: int) -> int:
    """Seat offset of the receiver for a pass direction at a table of ``num_players``; 0 = hold.

    ``across`` at an odd table (possible only in a tie-break deal among an odd number of
    tied players) and a k-th pass that wraps onto the passer hold: nobody passes.
    """
    if direction == "hold":
        return 0
    if direction == SCATTER:
        raise RulesError("a scatter pass has no single receiver; use scatter_offsets(num_players, count)")
    if direction == "across":
        return num_players // 2 if num_players % 2 == 0 else 0
    m = _DIRECTION_RE.match(direction)
    if m is None:
        raise RulesError(f"unknown pass direction {shown(direction)}; allowed: {DIRECTION_FORMS}")
    k = int(m.group(2) or 1)
    return (k if m.group(1) == "left" else -k) % num_players


def scatter_offsets(num_players: int, count: int) -> tuple[int, ...] | None:
    """Receiver offset of each pick of a scatter pass, or None when ``count`` cannot be scattered evenly.

    Pagat: one card to each other player; with 3 players passing 4, two to each. Picks
    go in blocks: the first ``count / (n-1)`` to the left, the next to the 2nd left, and so on.
    """
    others = num_players - 1
    if others < 1 or count <= 0 or count % others:
        return None
    per = count // others
    return tuple(1 + i // per for i in range(count))


def _direction_problem(d: object, n: int, count: int) -> str | None:
    if not isinstance(d, str):
        return f"pass_cycle entries must be strings ({DIRECTION_FORMS}), got {shown(d)}"
    if d == "across":
        return f"pass_cycle has 'across' but {n} players have nobody across; across needs an even player count" \
            if n % 2 else None
    if d == SCATTER:
        if scatter_offsets(n, count) is None:
            return (f"a scatter pass gives the same number of cards to each of the other {n - 1} players; "
                    f"pass_count {count} is not a positive multiple of {n - 1}")
        return None
    if d == "hold":
        return None
    try:
        direction_offset(d, n)  # names a direction it cannot read
    except RulesError as e:
        return str(e)
    k = int(_DIRECTION_RE.match(d).group(2) or 1)
    if k >= n:
        return f"pass direction {d!r} needs more than {n} players; with {n} players k is at most {n - 1}"
    return None


def _problem(r: Rules) -> str | None:
    n = r.num_players
    if not r.pass_cycle:
        return f"pass_cycle must name at least one direction ({DIRECTION_FORMS})"
    for d in r.pass_cycle:
        problem = _direction_problem(d, n, r.passes_for())
        if problem:
            return problem
    for count_name in ("pass_count", "pass_count_over_four"):
        count = getattr(r, count_name)
        if count is not None and count < 0:
            return f"{count_name}={count} must not be negative"
    hand = r.hand_size()
    if r.passes_for() > hand:
        return f"a pass of {r.passes_for()} cards is larger than a hand of {hand} cards with {n} players"
    for c in r.no_pass_cards:
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < NUM_CARDS:
            return f"no_pass_cards must hold cards (ids 0..51 or strings like 'QS'), got {shown(c)}"
    if r.optional_pass and r.passes_for() == 0:
        return "optional_pass needs a pass (pass_count > 0)"
    return None


def _features(r: Rules) -> tuple[str, ...]:
    return (("scatter",) if SCATTER in r.pass_cycle else ()) + (("optional_pass",) if r.optional_pass else ())


# --- in the observation


def _parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    out: tuple[tuple[str, int, str], ...] = ()
    if "scatter" in feats:
        out += (("scatter_deal", 1, "this deal's pass is a scatter (one card to each other player)"),)
    if "optional_pass" in feats:
        out += (("passed_on", n, "seat r passed on, unseen, the cards passed to them"),)
    return out


def _encode_state(vec: np.ndarray, o: dict[str, slice], info: InfoState, feats: tuple[str, ...], rel) -> None:
    if "scatter" in feats:
        vec[o["scatter_deal"].start] = info.pass_direction == SCATTER and info.pass_count > 0
    if "optional_pass" in feats:
        for s in info.passed_on:
            vec[o["passed_on"].start + rel(s)] = 1


def _record(deal: Deal) -> dict:
    """Who passed on (in the open), where the rules let them."""
    if "optional_pass" not in deal.rules.uses_extensions:
        return {}
    return {"passed_on": [deal.seats[q] for q, on in enumerate(deal.passed_on) if on]}


def _inform(deal: Deal, pos: int | None, seat: int, by_seat) -> dict:
    return {"passed_on": tuple(deal.seats[q] for q, on in enumerate(deal.passed_on) if on)}


SYSTEM = RuleSystem(
    name="passing",
    options={
        "pass_count": Option(int, 3, "every source: cards each player passes"),
        "pass_count_over_four": Option((int, type(None)), None, "the 3-7 player rules: 'more than four players ... "
                                                                "pass only 2'"),
        "pass_cycle": Option(tuple, ("right",), "the British rules right; Pagat left, right, across, hold"),
        "pass_order": Option(str, "cycle", "'cycle' by deal number; 'random': drawn per deal (OpenSpiel's game)",
                             choices=PASS_ORDERS),
        "no_pass_cards": Option(tuple, (), "the British rules, Dirty Lady: Q♠ may not be passed"),
        "optional_pass": Option(bool, False, "Pagat: a player may instead pass on, unseen, the cards passed to them "
                                             "(in the open; not offered on scatter deals, where 'on' has no one "
                                             "receiver)"),
    },
    problem=_problem,
    features=_features,
    decisions={"optional_pass": PASS_ON},
    info_fields={"passed_on": InfoField(tuple[int, ...], (), "seats that passed on, unseen, the cards passed to them "
                                                             "(public)")},
    inform=_inform,
    record_fields=("passed_on",),
    record=_record,
    parts=_parts,
    encode_state=_encode_state,
)


# --- in the reference Deal: part of its implementation, these functions change the deal's state, its
# private lists included (declared in bm_env.engine.deal); nothing else does.


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


def receiving_offsets(direction: str, num_players: int) -> tuple[int, ...]:
    """The seat offsets of the players who receive part of a pass in ``direction`` at a table of
    ``num_players``: every other player for a scatter, else the one the direction names (none on a hold)."""
    if direction == SCATTER:
        return tuple(range(1, num_players))
    offset = direction_offset(direction, num_players)
    return (offset,) if offset else ()
