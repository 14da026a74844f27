"""Domino Hearts (Bicycle): six cards each, the rest a face-down stock drawn from to follow suit.

Each player is dealt six cards from the whole deck; the rest, face down, is the stock. A player
who cannot follow the suit led draws from the top of the stock, one card at a time, until they
hold a card of that suit (and must then follow with it); once the stock is empty, a player who
cannot follow may discard. Players drop out as their cards run out, and the tricks go on among
those who still hold cards; if a trick's winner has played their last card, the first player
still in, to their left, leads. When only one player still holds cards, they keep the rest: the
cards in their hand and whatever is left of the stock count as taken by them (Bicycle: "the last
survivor must keep all the cards remaining in his hand"; Hoyle's wording has them pick up the
stock too). Where the last trick empties every hand with cards still in the stock, this project
reads the rest as going to that trick's winner. Hearts count one each, the Q♠ nothing (Bicycle:
"usually not scored"); there is no pass.

Drawing is no decision: the deal draws for the player when it is their turn to follow. How many
cards each player has drawn is public; which cards, their own.

The vector engine does not play it (``vector=False``): the hands change size at every draw, the
number of tricks and of cards in a trick differ from game to game, and a draw loops per game
until a card of the led suit comes, none of which the batched kernels' fixed tricks and
lock-step turns can hold without a per-game loop that would undo their purpose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...engine.cards import NUM_CARDS, SUIT_MASKS, card_str, cards_of
from ..component import Dealing, InfoField, Option, RuleSystem

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...engine.infostate import InfoState
    from ...engine.rules import Rules

#: Cards dealt to each hand (Bicycle).
HAND = 6


def _problem(r: Rules) -> str | None:
    if not r.domino:
        return None
    if r.passes_for() and any(d != "hold" for d in r.pass_cycle):
        return "domino has no pass (Bicycle's Domino Hearts); use pass_count=0"
    if r.first_lead.startswith("lowest_club"):
        return ("domino: the lowest club may lie in the stock; use first_lead 'eldest_any' or 'eldest_non_heart' "
                "(Bicycle: the player to the dealer's left leads)")
    if r.clean_trick_bonus:
        return "domino scores the cards taken (Bicycle); clean_trick_bonus is not played with it"
    return None


_NOT_WITH = "is not supported with domino (no source combines them)"


# --- in the reference Deal: part of its implementation, these functions change the deal's state, its
# private lists included (declared below and in bm_env.engine.deal); nothing else does.


def stock_left(deal: Deal) -> tuple[int, ...]:
    """The cards still in the stock, the top first."""
    return deal.kitty[deal.stock_drawn:]


def drew(deal: Deal, p: int) -> int:
    """The cards position ``p`` drew from the stock this deal, as a mask (``p``'s own knowledge)."""
    return deal._drew[p]


def out_from(deal: Deal, p: int) -> int | None:
    """The first trick position ``p``, out of cards, plays no part in; None while it holds cards."""
    return deal._out_from[p]


def kept(deal: Deal, p: int) -> int:
    """The cards position ``p`` kept as the last player holding cards (0 for the others, and until the deal ends)."""
    return deal._kept[p]


def draw_to_follow(deal: Deal, p: int) -> None:
    """``p``, about to follow without a card of the led suit, draws from the stock until it holds one."""
    led = SUIT_MASKS[deal.led_suit]
    stock = deal.kitty
    while not deal._hands[p] & led and deal.stock_drawn < len(stock):
        bit = 1 << stock[deal.stock_drawn]
        deal.stock_drawn += 1
        deal._hands[p] |= bit
        deal._drew[p] |= bit


def next_in(deal: Deal, q: int) -> int:
    """The first position from ``q`` clockwise that still holds cards (``q`` itself where none does)."""
    k = deal.num_players
    for i in range(k):
        if deal._hands[(q + i) % k]:
            return (q + i) % k
    return q


def count_players(deal: Deal, suit: int) -> None:
    """A trick is led: everyone who still holds cards plays to it, the leader having played."""
    leader = deal.leader
    deal.trick_len = 1 + sum(1 for q, hand in enumerate(deal._hands) if hand and q != leader)


def note_last_card(deal: Deal, c: int, suit: int) -> None:
    """A card is played: with it the player's last, they play to no trick after this one."""
    p = deal.to_act
    if not deal._hands[p]:
        deal._out_from[p] = len(deal._tricks) + 1


def positions_of(deal: Deal, t: int, leader: int, cards) -> tuple[int, ...]:
    """The positions that played trick ``t``: each still in at that trick, clockwise from its leader."""
    k = deal.num_players
    out = []
    q = leader
    while len(out) < len(cards):
        out_from = deal._out_from[q]
        if out_from is None or out_from > t:
            out.append(q)
        q = (q + 1) % k
    return tuple(out)


def after_trick(deal: Deal, winner: int, points: int) -> bool:
    """The trick is won: with one player (or none) left holding cards the deal ends; a winner who played its last
    card hands the lead to the first player still in, to its left."""
    holding = sum(1 for hand in deal._hands if hand)
    if holding <= 1:
        deal._end()
        return True
    if deal._hands[winner]:
        return False
    leader = next_in(deal, (winner + 1) % deal.num_players)
    deal.leader = deal.to_act = leader
    deal.legal = deal._lead_legal(leader)
    return True


def keep_rest(deal: Deal) -> None:
    """The tricks are over: the last player holding cards keeps them and what is left of the stock (none holding
    any: the last trick's winner takes the stock)."""
    keeper = next((q for q, hand in enumerate(deal._hands) if hand), deal.leader)
    rest = deal._hands[keeper]
    for c in stock_left(deal):
        rest |= 1 << c
    deal.stock_drawn = len(deal.kitty)
    deal._hands[keeper] = 0
    deal._kept[keeper] = rest
    deal._take_points(keeper, cards_of(rest), face_down=False)


# --- in a seat's information state


INFO_FIELDS = {
    "stock_size": InfoField(int, 0, "cards left in the stock (public)"),
    "drawn": InfoField(tuple[int, ...], (), "cards each match seat has drawn from the stock this deal (public)"),
    "drew": InfoField(tuple[int, ...], (), "the cards this seat drew from the stock this deal (its own)", cards=True),
}


def _inform(deal: Deal, pos: int | None, seat: int, by_seat) -> dict:
    return {"stock_size": len(deal.kitty) - deal.stock_drawn,
            "drawn": by_seat([m.bit_count() for m in deal._drew]),
            "drew": tuple(cards_of(deal._drew[pos])) if pos is not None else ()}


# --- in the observation


def _parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    if "domino" not in feats:
        return ()
    return (("stock_size", 1, "cards left in the stock"),
            ("drawn", n, "cards seat r has drawn from the stock this deal"),
            ("cards_held", n, "cards seat r holds (public: what was dealt, drawn and played is)"),
            ("drew", NUM_CARDS, "cards I drew from the stock this deal"))


def _encode_state(vec: np.ndarray, o: dict[str, slice], info: InfoState, feats: tuple[str, ...], rel) -> None:
    if "domino" not in feats:
        return
    vec[o["stock_size"].start] = info.stock_size
    for s in info.seats:
        vec[o["drawn"].start + rel(s)] = info.drawn[s]
        vec[o["cards_held"].start + rel(s)] = info.hand_sizes[s]
    for c in info.drew:
        vec[o["drew"].start + c] = 1


# --- in a game record: the stock, in the order it lies (the draws follow from the play)


def _record(deal: Deal) -> dict:
    return {"stock": [card_str(c) for c in deal.kitty]}


SYSTEM = RuleSystem(
    name="domino",
    options={
        "domino": Option(bool, False, "Bicycle, Domino Hearts: six cards each, the rest a face-down stock; a player "
                                      "who cannot follow suit draws from it until able to, and once it is empty "
                                      "may discard; players drop out as their cards run out, the last one keeps "
                                      "the rest", added=True),
    },
    problem=_problem,
    features=lambda r: ("domino",) if r.domino else (),
    excludes={"two_decks": f"decks=2 {_NOT_WITH}", "kitty": f"a kitty {_NOT_WITH} (the stock is the rest)",
              "charging": f"charging {_NOT_WITH}", "booster_nines": f"booster_nines {_NOT_WITH}",
              "teams": f"teams {_NOT_WITH}"},
    vector=False,
    dealing=lambda r: Dealing(full_deck=True, hand_size=HAND, stock=True) if r.domino else None,
    parts=_parts,
    encode_state=_encode_state,
    changes_in_play=True,
    info_fields=INFO_FIELDS,
    inform=_inform,
    deal_hooks={"on_lead": count_players, "on_card": note_last_card, "next_player": next_in,
                "before_follow": draw_to_follow, "trick_positions": positions_of, "trick_won": after_trick,
                "after_tricks": keep_rest, "taken_apart": lambda deal: tuple(c for m in deal._kept for c in cards_of(m))},
    deal_values={"stock_drawn": (0, "Domino Hearts: cards drawn from the stock so far (the stock is "
                                    "``kitty[stock_drawn:]``).")},
    deal_lists={"_drew": (0, "Domino Hearts: the cards each position drew from the stock, a mask."),
                "_out_from": (None, "Domino Hearts: the first trick a position, out of cards, plays no part in; "
                                    "None while it holds cards."),
                "_kept": (0, "Domino Hearts: the cards the last player holding cards kept, a mask.")},
    record_fields=("stock",),
    record=_record,
    apart_field="stock",
)
