"""The kitty (Pagat, for 3 or 5 players, and Cancellation): the cards left over after an even deal.

With a kitty no card is removed: the cards are dealt as far as they go, and the rest, face down,
form the kitty. It goes to the taker of the first trick (``kitty='first_trick'``; with two decks,
the first trick that has a winner) or of the first penalty point (``'first_point'``; if nobody
takes one, the last trick's winner), and counts among the taker's cards won, unless
``kitty_to_hand`` (Pagat's method 2): then the taker adds it to its hand and discards as many
cards, face down, which count as won; the deal waits for those discards before the next lead.
Only the taker sees the kitty's cards, and the points of the face-down cards it takes are its
alone until the deal is scored (``Deal.face_down_points``, ``Deal.points_known_to``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...engine.cards import NUM_CARDS, card_str
from ...engine.phases import DISCARD, PLAY
from ..component import Dealing, InfoField, Option, RuleSystem

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...engine.infostate import InfoState
    from ...engine.rules import Rules


KITTIES = ("none", "first_trick", "first_point")


def _problem(r: Rules) -> str | None:
    if r.kitty_to_hand and r.kitty == "none":
        return "kitty_to_hand needs a kitty rule (kitty='first_trick' or 'first_point')"
    return None


def _features(r: Rules) -> tuple[str, ...]:
    return (("kitty",) if r.kitty != "none" else ()) + (("kitty_to_hand",) if r.kitty_to_hand else ())


# --- in a seat's information state


INFO_FIELDS = {
    "kitty_size": InfoField(int, 0, "cards in the kitty (public)"),
    "kitty_taker": InfoField(int | None, None, "seat that took the kitty (public once taken)"),
    "kitty": InfoField(tuple[int, ...], (), "the kitty's cards: known to its taker only, once taken", cards=True),
    "discarded": InfoField(tuple[int, ...], (), "kitty_to_hand: the cards this seat discarded face down", cards=True),
}


def _inform(deal: Deal, pos: int | None, seat: int, by_seat) -> dict:
    taker = deal.kitty_taker
    mine = taker is not None and taker == pos
    return {"kitty_size": len(deal.kitty), "kitty_taker": None if taker is None else deal.seats[taker],
            "kitty": deal.kitty if mine else (), "discarded": deal.kitty_discards if mine else ()}


# --- in the observation


def _parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    if "kitty" not in feats:
        return ()
    return (("kitty_rule", len(KITTIES) - 1, "rule: one-hot kitty to the first trick / first point"),
            ("kitty_to_hand", 1, "rule: the kitty taker adds it to their hand and discards as many"),
            ("kitty_size", 1, "cards in the kitty"),
            ("kitty_taker", n, "one-hot: seat that took the kitty"),
            ("kitty_cards", NUM_CARDS, "the kitty's cards (seen by its taker only)"),
            ("kitty_discarded", NUM_CARDS, "cards I discarded face down after taking the kitty"))


def _encode_rules(vec: np.ndarray, o: dict[str, slice], rules: Rules, feats: tuple[str, ...]) -> None:
    if "kitty" in feats:
        vec[o["kitty_rule"]] = 0
        vec[o["kitty_rule"].start + KITTIES.index(rules.kitty) - 1] = 1
        vec[o["kitty_to_hand"].start] = int(rules.kitty_to_hand)


def _encode_state(vec: np.ndarray, o: dict[str, slice], info: InfoState, feats: tuple[str, ...], rel) -> None:
    if "kitty" not in feats:
        return
    vec[o["kitty_size"].start] = info.kitty_size
    if info.kitty_taker is not None:
        vec[o["kitty_taker"].start + rel(info.kitty_taker)] = 1
    for c in info.kitty:
        vec[o["kitty_cards"].start + c] += 1
    for c in info.discarded:
        vec[o["kitty_discarded"].start + c] += 1



# --- in the reference Deal: part of its implementation, these functions change the deal's state, its
# private lists included (declared in bm_env.engine.deal); nothing else does.


def after_trick(deal: Deal, winner: int, points: int) -> bool:
    """The kitty, not taken yet, goes to ``winner`` if this trick takes it (the first trick, or one
    with ``points`` > 0 penalty points); True when the taker must now discard."""
    if deal.rules.kitty != "first_trick" and points <= 0:
        return False
    deal.kitty_taker = winner
    if deal.rules.kitty_to_hand and deal._hands[winner]:
        for c in deal.kitty:
            deal._add(winner, c)
        deal.discards_left = len(deal.kitty)
        return True
    deal._take_points(winner, deal.kitty)
    return False


def discard(deal: Deal, c: int, bit: int) -> bool:
    """The taker (the position to act) discards ``c`` face down; True once it has discarded as many
    cards as the kitty had."""
    p = deal.to_act
    deal._remove(p, bit)
    deal._kitty_discards.append(c)
    deal._take_points(p, (c,))
    deal.discards_left -= 1
    if deal.discards_left:
        deal.legal = deal._hands[p]
        return False
    return True


def to_last_winner(deal: Deal) -> None:
    """``first_point`` with no point taken in play: the last trick's winner takes the kitty."""
    deal.kitty_taker = deal._last_winner
    deal._take_points(deal._last_winner, deal.kitty)


def take_after_trick(deal: Deal, winner: int, points: int) -> bool:
    """The kitty, not taken yet, goes to ``winner`` if this trick takes it; with ``kitty_to_hand`` the taker
    then discards (True: the deal waits for the discards)."""
    if not deal.kitty or deal.kitty_taker is not None or not after_trick(deal, winner, points):
        return False
    deal.phase = DISCARD
    deal.to_act = winner
    deal.legal = deal._hands[winner]
    return True


def take_at_end(deal: Deal) -> None:
    """A kitty nobody took in play goes to the last trick's winner."""
    if deal.kitty and deal.kitty_taker is None:
        to_last_winner(deal)


def taken_apart(deal: Deal) -> tuple[int, ...]:
    """The kitty once taken, or where its taker added it to its hand, the cards it discarded."""
    if deal.kitty_taker is None:
        return ()
    return tuple(deal._kitty_discards) if deal.rules.kitty_to_hand and deal._kitty_discards else deal.kitty


def step_discard(deal: Deal, action: int, bit: int) -> None:
    """A discard of the kitty's taker; after the last one, the taker leads."""
    p = deal.to_act
    if discard(deal, action, bit):
        deal.phase = PLAY
        deal.legal = deal._lead_legal(p)


# --- in a game record


def _record(deal: Deal) -> dict:
    return {"kitty": [card_str(c) for c in deal.kitty], "kitty_discards": [card_str(c) for c in deal.kitty_discards]}


def _replay_discards(replay, record_ends: bool) -> None:
    """The kitty taker's recorded discards; where the record ends (``record_ends``), an unfinished one may stop
    among them."""
    deal = replay.deal
    discards = replay.cards(replay.rec.get("kitty_discards", []), "kitty_discards")
    while deal.phase == DISCARD:
        done = len(deal.kitty_discards)
        if done >= len(discards) and replay.renege_due(DISCARD):
            replay.apply(replay.extra[2], "renege")
            return
        if done >= len(discards) and record_ends and replay.rec.get("scores") is None:
            return
        if done >= len(discards):
            raise replay.error(f"kitty_discards: {len(discards)} recorded, the kitty taker discards {len(deal.kitty)}")
        replay.apply(discards[done], f"kitty_discards[{done}]")


def _explain(deal: Deal, p: int, hand: int, action: int, name) -> str:
    """The taker discards cards it holds, one at a time."""
    if not 0 <= action < NUM_CARDS:
        return "it is not a decision of the discard phase; give a card"
    return "it is not in your hand" if not hand >> action & 1 else "it may not be discarded now"


SYSTEM = RuleSystem(
    name="kitty",
    options={
        "kitty": Option(str, "none", "Pagat (3 or 5 players, Cancellation): deal as far as the cards go; the rest to"
                                     " the taker of the first trick (the first trick that has a winner, with two "
                                     "decks) or of the first penalty point (if nobody takes one, the last trick's "
                                     "winner). With a kitty no card is removed; its cards are seen by its taker only",
                        choices=KITTIES),
        "kitty_to_hand": Option(bool, False, "Pagat, method 2: the kitty's taker adds it to their hand and discards "
                                             "as many"),
    },
    problem=_problem,
    features=_features,
    dealing=lambda r: Dealing(full_deck=True) if r.kitty != "none" else None,
    parts=_parts,
    encode_rules=_encode_rules,
    encode_state=_encode_state,
    changes_in_play=True,
    info_fields=INFO_FIELDS,
    inform=_inform,
    deal_hooks={"trick_won": take_after_trick, "after_tricks": take_at_end, "taken_apart": taken_apart},
    phases={DISCARD: step_discard},
    explain=_explain,
    record_fields=("kitty", "kitty_discards"),
    record=_record,
    apart_field="kitty",
    replay={DISCARD: _replay_discards},
)
