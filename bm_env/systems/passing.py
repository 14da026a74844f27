"""The pass before the play: how many cards, to whom (a cycle of directions by deal, or drawn per
deal), the cards that may not be passed, the scatter pass and optional passing on (Pagat).

A scatter pass gives one card to each other player (with 3 players passing 4, two to each). With
``optional_pass`` a player may instead pass on, unseen and in the open, the cards passed to
them; it is not offered on scatter deals, where "on" has no one receiver.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from ..engine.actions import PASS_ON
from ..engine.cards import NUM_CARDS
from ..engine.checks import RulesError, shown
from .component import RuleSystem

if TYPE_CHECKING:
    from ..engine.rules import Rules

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
    m = _DIRECTION_RE.match(d)
    if m is None:
        return f"unknown pass direction {shown(d)}; allowed: {DIRECTION_FORMS}"
    k = int(m.group(2) or 1)
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


SYSTEM = RuleSystem(
    name="passing",
    options={"pass_count": int, "pass_count_over_four": (int, type(None)), "pass_cycle": tuple, "pass_order": str,
             "no_pass_cards": tuple, "optional_pass": bool},
    choices={"pass_order": PASS_ORDERS},
    problem=_problem,
    features=_features,
    decisions={"optional_pass": PASS_ON},
)
