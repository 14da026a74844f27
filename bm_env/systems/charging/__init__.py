"""Charging (Pagat, Turbo Hearts): after the pass, each player from eldest hand in turn charges
(exposes) any of A♥ Q♠ J♦ 10♣ that it holds, one card per decision, then ends its charging
(``CHARGE_DONE``).

docs/rules.md reads Pagat's "one of" as "any of". A charged A♥ doubles every heart, a charged Q♠
or J♦ counts double. In play, a charged card may not lead, nor follow in, the first trick of its
suit unless nothing else is legal (discarding it on another suit is allowed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...engine.actions import CARD_CHARGE, CHARGEABLE, CHARGE_CARD, CHARGE_DONE
from ...engine.cards import (ACE_HEARTS, HEARTS, JACK_DIAMONDS, NUM_RANKS, QUEEN_SPADES, SUIT_MASKS, SUIT_NAMES,
                             card_str, cards_of)
from ...engine.phases import CHARGE
from ..component import Bounds, InfoField, Option, RuleSystem

if TYPE_CHECKING:
    from ...engine.deal import Deal
    from ...engine.infostate import InfoState
    from ...engine.rules import Rules


def chargeable(rules: Rules) -> tuple[int, ...]:
    """The cards a player may charge under ``rules`` (none where charging is not played)."""
    return CHARGEABLE if rules.charging else ()


# --- in a seat's information state


def charged(deal: Deal) -> tuple[int, ...]:
    """The cards each position of ``deal`` charged, as masks (public)."""
    return tuple(deal._charged)


def _inform(deal: Deal, pos: int | None, seat: int, by_seat) -> dict:
    return {"charged": by_seat([tuple(cards_of(m)) for m in deal._charged], ())}


# --- in the observation


def _parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    if "charging" not in feats:
        return ()
    return (("charged", len(CHARGEABLE) * n, "seat r charged A♥, Q♠, J♦, 10♣ (index 4r + j)"),)


def _encode_state(vec: np.ndarray, o: dict[str, slice], info: InfoState, feats: tuple[str, ...], rel) -> None:
    if "charging" in feats:
        for s, cards in enumerate(info.charged):
            for c in cards:
                vec[o["charged"].start + len(CHARGEABLE) * rel(s) + CHARGEABLE.index(c)] = 1



def _explain(deal: Deal, p: int, hand: int, action: int, name) -> str | None:
    """Charging: only a chargeable card held, or the end; in play, a charged card kept from its suit's first trick."""
    if deal.phase == CHARGE:
        if action == CHARGE_DONE or action not in CHARGE_CARD:
            chargeable = " ".join(name(c) for c in CARD_CHARGE)
            return f"only charging a card you hold of {chargeable}, or ending charging, is a decision now"
        if deal._charged[p] >> CHARGE_CARD[action] & 1:
            return "it is charged already"
        return "it is not in your hand"
    if deal._charged[p] >> action & 1:
        return (f"it is charged: it may not be played to the first trick led in {SUIT_NAMES[action // NUM_RANKS]} "
                "while another card can be")
    return None


# --- in a game record


def _record(deal: Deal) -> dict:
    return {"charged": [[card_str(c) for c in cards_of(m)] for m in deal._charged]}


def _replay_charges(replay, record_ends: bool) -> None:
    """Each player's recorded charges, then the end of its charging."""
    deal = replay.deal
    charged = [replay.cards(c, f"charged[{i}]") for i, c in enumerate(replay.rec.get("charged", []))]
    while deal.phase == CHARGE:
        pos = deal.to_act
        mine = deal._charged[pos]
        todo = [c for c in (charged[pos] if pos < len(charged) else []) if not mine >> c & 1]
        if not todo and replay.renege_due(CHARGE):
            replay.apply(replay.extra[2], "renege")
            return
        if todo and todo[0] not in CARD_CHARGE:
            raise replay.error(f"charged[{pos}]: {card_str(todo[0])} cannot be charged")
        replay.apply(CARD_CHARGE[todo[0]] if todo else CHARGE_DONE, f"charged[{pos}]")


# --- in the reference Deal: part of its implementation, these functions change the deal's state, its
# private lists included (declared below and in bm_env.engine.deal); nothing else does.


_HEART_CARDS = tuple(cards_of(SUIT_MASKS[HEARTS]))


def legal(deal: Deal, p: int) -> int:
    """``p`` may charge any chargeable card it holds and has not charged, or end its charging."""
    out = 1 << CHARGE_DONE
    free = deal._hands[p] & ~deal._charged[p]
    for c, a in CARD_CHARGE.items():
        if free >> c & 1:
            out |= 1 << a
    return out


def charge(deal: Deal, action: int) -> bool:
    """The position to act charges a card, or ends its charging; True after the last player's end."""
    p = deal.to_act
    if action != CHARGE_DONE:
        deal._charged[p] |= 1 << CHARGE_CARD[action]
        deal.legal = legal(deal, p)
        return False
    return deal._next_in_round(legal)


def charged_values(deal: Deal) -> tuple[int, ...]:
    """The card values once every player has charged."""
    charged = 0
    for m in deal._charged:
        charged |= m
    values = list(deal.values)
    if charged >> ACE_HEARTS & 1:  # a charged A♥ doubles every heart
        for c in _HEART_CARDS:
            values[c] *= 2
    for c in (QUEEN_SPADES, JACK_DIAMONDS):  # a charged Q♠ or J♦ counts double
        if charged >> c & 1:
            values[c] *= 2
    return tuple(values)


def note_lead(deal: Deal, suit: int) -> None:
    """A trick is led in ``suit``: is it the first trick of that suit?"""
    cards = SUIT_MASKS[suit]
    deal._first_of_suit = not deal._suits_led & cards
    deal._suits_led |= cards


def lead_filter(deal: Deal, p: int, legal_cards: int) -> int:
    """``legal_cards`` less ``p``'s charged cards of a suit not led yet: no charged card leads the first trick
    of its suit, unless nothing else is left."""
    mine = deal._charged[p] & deal._hands[p]
    if not mine:
        return legal_cards
    return legal_cards & ~(mine & ~deal._suits_led) or legal_cards


def follow_filter(deal: Deal, p: int, legal_cards: int, follow: int) -> int:
    """``legal_cards`` less ``p``'s charged cards of the led suit on its first trick: no charged card follows
    there, unless nothing else is left (discarding it on another suit is allowed)."""
    mine = deal._charged[p] & deal._hands[p]
    if not mine or not deal._first_of_suit:
        return legal_cards
    return legal_cards & ~(mine & SUIT_MASKS[deal.led_suit]) or legal_cards


def start_charging(deal: Deal) -> bool:
    """After the pass: the charging round, from the eldest hand."""
    deal.phase = CHARGE
    deal.to_act = deal.eldest
    deal.legal = legal(deal, deal.eldest)
    return True


def step_charge(deal: Deal, action: int, bit: int) -> None:
    """A charging decision; after the last player's end, the charged values count and the play starts."""
    if charge(deal, action):
        deal.values = charged_values(deal)
        deal._set_penalties()
        deal._start_play()


SYSTEM = RuleSystem(
    name="charging",
    options={
        "charging": Option(bool, False, "Pagat, Turbo Hearts: after the pass, each player from eldest in turn "
                                        "charges any of A♥ Q♠ J♦ 10♣ held (docs/rules.md's 'any of'; Pagat says "
                                        "'one of'), then ends. A charged card may not lead, nor follow in, the first "
                                        "trick of its suit unless nothing else is legal; discarding it on another "
                                        "suit is allowed"),
    },
    features=lambda r: ("charging",) if r.charging else (),
    decisions={"charging": CHARGE_DONE},
    bounds=lambda r: Bounds(card_factor=2) if r.charging else None,  # a charged card counts double
    parts=_parts,
    encode_state=_encode_state,
    changes_in_play=True,
    info_fields={"charged": InfoField(tuple[tuple[int, ...], ...], (), "cards each match seat charged (public)",
                                      cards=True)},
    inform=_inform,
    deal_hooks={"after_passing": start_charging, "lead_filter": lead_filter, "follow_filter": follow_filter,
                "on_lead": note_lead},
    deal_values={"_suits_led": (0, "Charging: the cards of every suit led so far."),
                 "_first_of_suit": (False, "Charging: the trick in progress is the first led in its suit.")},
    deal_lists={"_charged": (0, "Charging: the cards each position charged, a mask (public).")},
    phases={CHARGE: step_charge},
    explain=_explain,
    record_fields=("charged",),
    record=_record,
    replay={CHARGE: _replay_charges},
)
