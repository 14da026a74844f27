"""What a deal scores: each card's value, the bonus for a trick with no valued card (Petrone's
rules), and whether the lowest or the highest total wins."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from ..engine.cards import NUM_CARDS, card_str, parse_card
from ..engine.checks import shown
from .component import Option, RuleSystem

if TYPE_CHECKING:
    from ..engine.rules import Rules


def _values(entries: Mapping[str, int]) -> tuple[int, ...]:
    table = [0] * NUM_CARDS
    for name, v in entries.items():
        table[parse_card(name)] = v
    return tuple(table)


def _hearts(value_of_rank) -> dict[str, int]:
    return {"23456789TJQKA"[r] + "H": value_of_rank(r) for r in range(13)}


_SPADE_HONOURS = {"QS": 13, "KS": 10, "AS": 7}
#: Named card-value tables (points a card scores for whoever takes it).
VALUE_TABLES: dict[str, tuple[int, ...]] = {
    # the British rules: hearts 1, QS 13, KS 10, AS 7 = 43.
    "black_maria": _values({**_hearts(lambda r: 1), **_SPADE_HONOURS}),
    # the 3-7 and 3-4 player rules, Pagat: hearts 1, QS 13 = 26.
    "hearts": _values({**_hearts(lambda r: 1), "QS": 13}),
    # the British rules, Dirty Lady: AH 5, KH 4, QH 3, JH 2, other hearts 1; QS 13.
    "dirty_lady": _values({**_hearts(lambda r: {12: 5, 11: 4, 10: 3, 9: 2}.get(r, 1)), "QS": 13}),
    # the British rules, Slippery Anne: QS 13 only.
    "slippery_anne": _values({"QS": 13}),
    # the British rules and Pagat, Omnibus: black_maria plus JD -10.
    "omnibus": _values({**_hearts(lambda r: 1), **_SPADE_HONOURS, "JD": -10}),
    # the British rules and Pagat, Omnibus option: the 10 of diamonds as the bonus card instead.
    "omnibus_ten_diamonds": _values({**_hearts(lambda r: 1), **_SPADE_HONOURS, "TD": -10}),
    # the 3-4 player rules and Pagat, spot (alternative): hearts 2-10 face value, J Q K 10, A 15; QS 25.
    "spot": _values({**_hearts(lambda r: r + 2 if r <= 8 else (15 if r == 12 else 10)), "QS": 25}),
    # Pagat, Spot Hearts: hearts at pip value (J 11, Q 12, K 13, A 14); QS 25.
    "spot_pip": _values({**_hearts(lambda r: r + 2), "QS": 25}),
    # Bicycle, Domino Hearts: hearts 1 each, the QS not scored = 13.
    "hearts_only": _values(_hearts(lambda r: 1)),
    # Pink Lady, a house rule of Hearts: the QH scores 13 as well as the QS; the other hearts 1 = 38.
    "pink_lady": _values({**_hearts(lambda r: 13 if r == 10 else 1), "QS": 13}),
    # Pagat, Turbo Hearts: hearts 1, QS 13, JD -10 (charges and the TC multiplier are options).
    "turbo": _values({**_hearts(lambda r: 1), "QS": 13, "JD": -10}),
    # Petrone's rules: AS -7, KS -10, QS -13 (clean tricks score via clean_trick_bonus).
    "petrone": _values({"QS": -13, "KS": -10, "AS": -7}),
}


def _problem(r: Rules) -> str | None:
    if len(r.card_values) != NUM_CARDS:
        return f"card_values must be 52 ints, one per card id; got {len(r.card_values)} values"
    not_ints = [f"{card_str(c)}={shown(x)}" for c, x in enumerate(r.card_values)
                if not isinstance(x, int) or isinstance(x, bool)]
    if not_ints:
        return f"card_values must be whole numbers; got {', '.join(not_ints[:4])}"
    return None


SYSTEM = RuleSystem(
    name="scoring",
    options={
        "card_values": Option(tuple, VALUE_TABLES["black_maria"], "points per card id (VALUE_TABLES)"),
        "clean_trick_bonus": Option(int, 0, "Petrone's rules: +3 for each trick with no valued card"),
        "lower_wins": Option(bool, True, "Petrone's rules: the highest total wins; the others the lowest"),
    },
    problem=_problem,
)
