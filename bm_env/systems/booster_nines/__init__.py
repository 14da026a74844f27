"""Booster Nines (Pagat): nines that make a trick longer. Pagat defines it without trumps.

Each nine of the led suit played to a trick (the lead included, and in the rounds it has already
added) adds a round: once everyone has played, the trick goes round the table again, for each
nine owed, unless the hands are empty after this round (a nine in the last trick boosts
nothing). The highest card of the led suit over all its rounds wins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...engine.cards import NUM_RANKS
from ..component import InfoField, Option, RuleSystem

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...engine.infostate import InfoState
    from ...engine.rules import Rules


def _problem(r: Rules) -> str | None:
    if r.booster_nines and r.trumps != "none":
        return "booster_nines is defined without trumps (Pagat); use trumps='none'"
    return None


# --- in the observation


def _parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    if "booster_nines" not in feats:
        return ()
    return (("booster_nines", 1, "rule: a nine of the led suit adds a round to the trick"),
            ("boosts_owed", 1, "rounds still to be added to the current trick"))


def _encode_rules(vec: np.ndarray, o: dict[str, slice], rules: Rules, feats: tuple[str, ...]) -> None:
    if "booster_nines" in feats:
        vec[o["booster_nines"].start] = 1


def _encode_state(vec: np.ndarray, o: dict[str, slice], info: InfoState, feats: tuple[str, ...], rel) -> None:
    if "booster_nines" in feats:
        vec[o["boosts_owed"].start] = info.boosts_owed



# --- in the reference Deal: part of its implementation, these functions change the deal's state, its
# private lists included (declared below and in bm_env.engine.deal); nothing else does.


_NINE = 7  # rank index of the nine


def count_nine(deal: Deal, c: int, suit: int) -> None:
    """Card ``c`` of ``suit`` was played to the trick: a nine of the led suit owes a round."""
    if suit == deal.led_suit and c % NUM_RANKS == _NINE:
        deal.boosts += 1


def add_round(deal: Deal, nxt: int) -> bool:
    """Everyone has played to the trick: if a round is owed, it goes round again from ``nxt``,
    unless the hands are empty (True when it does)."""
    if not deal.boosts or not deal._hands[nxt]:
        return False
    deal.boosts -= 1
    deal.trick_len += deal.num_players
    return True


def end_trick(deal: Deal) -> None:
    """The trick is won: the next one starts owing nothing."""
    deal.trick_len = deal.num_players
    deal.boosts = 0


SYSTEM = RuleSystem(
    name="booster_nines",
    options={
        "booster_nines": Option(bool, False, "Pagat, Booster Nines: each nine of the led suit (boost rounds "
                                             "included) adds a round to the trick, unless the hands are empty after "
                                             "this round"),
    },
    problem=_problem,
    features=lambda r: ("booster_nines",) if r.booster_nines else (),
    parts=_parts,
    encode_rules=_encode_rules,
    encode_state=_encode_state,
    changes_in_play=True,
    info_fields={"boosts_owed": InfoField(int, 0, "rounds still to be added to the trick in progress (public)")},
    inform=lambda deal, pos, seat, by_seat: {"boosts_owed": deal.boosts},
    deal_hooks={"on_card": count_nine, "trick_full": add_round, "trick_end": end_trick},
    deal_values={"boosts": (0, "Booster Nines: rounds still owed to the trick in progress.")},
)
