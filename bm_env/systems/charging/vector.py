"""Charging on the vector engine: the charging round after the pass, the charged cards' doubled values, and the
rule that keeps a charged card out of the first trick of its suit.

Its state per game: the cards each seat charged, the same as one word of bits for the observation (bit 4s + j,
twice 4n apart, for seat s and CHARGEABLE[j]), the suits led so far, whether the trick on is the first of its
suit, and the cards a charge made count double. The deal's penalty points in play (the engine's, for the
moon) grow by the doubled ones when charging ends.
"""

from __future__ import annotations

import numpy as np

from ...engine.actions import CHARGE_CARD, CHARGE_DONE, CHARGE_IDS, CHARGEABLE
from ...engine.cards import ACE_HEARTS, HEARTS, JACK_DIAMONDS, QUEEN_SPADES, SUIT_MASKS
from ...engine.phases import CHARGE
from ...vector.feature_encoder import PHASE_CODES, unpack_planes
from ...vector.kernel import Kernel, Phase
from ...vector.suit_chunks import mask_sum
from . import SYSTEM

CHARGING = PHASE_CODES.index(CHARGE)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_HEARTS = np.uint64(SUIT_MASKS[HEARTS])
#: Pagat: a charged Q♠ or J♦ counts double (a charged A♥ doubles every heart).
_DOUBLED_ALONE = np.uint64((1 << QUEEN_SPADES) | (1 << JACK_DIAMONDS))


class ChargingKernel(Kernel):
    """Charging for many games (see the module docstring)."""

    name = SYSTEM.name
    state_arrays = ("charged", "charged_word", "suits_led", "first_of_suit", "doubled")

    def __init__(self, rules) -> None:
        super().__init__()
        n = self.n = rules.num_players  # at most 7: charging is a one-deck rule
        # By seat and charge id - 52: the bits of charged_word it sets (none for the end of charging).
        self.charge_bits = np.array([[(1 << 4 * s + j) | (1 << 4 * s + j + 4 * n) for j in range(4)] + [0]
                                     for s in range(n)], dtype=np.uint64)
        self.chargeable = np.array([1 << c for c in CHARGEABLE] + [0], dtype=np.uint64)  # by charge id - 52
        self.charge_mask = np.uint64((1 << 4 * n) - 1)
        self.named_first_lead = rules.first_lead == "lowest_club"  # the first lead named stands, charged or not
        self.phases = {CHARGE: Phase(self.charge, self.legal, "choose")}
        self.hooks = {"allocate": self.allocate, "start_deals": self.start_deals, "after_passing": self.start,
                      "on_lead": self.note_lead, "play_filter": self.keep_charged_back,
                      "card_points": self.doubled_points, "arrays": self.arrays, "encode": self.encode,
                      "state": self.state}

    def allocate(self, e) -> None:
        n, N = e.n, e.num_envs
        self.charged = np.zeros((n, N), dtype=np.uint64)
        self.charged_word, self.suits_led, self.doubled = (np.zeros(N, dtype=np.uint64) for _ in range(3))
        self.first_of_suit = np.zeros(N, dtype=bool)

    def start_deals(self, e, games, leftover, directions) -> None:
        self.charged[:, games] = 0
        for a in (self.charged_word, self.suits_led, self.doubled, self.first_of_suit):
            a[games] = 0

    def start(self, e, games) -> np.ndarray:
        """After the pass: the charging round, from the eldest hand."""
        e._set_phase(games, CHARGING)
        e._give_turn(games, e.eldest[games])
        return np.ones(games.size, dtype=bool)

    def legal(self, e, games, hand) -> np.ndarray:
        """Any chargeable card held and not charged yet, or the end of charging."""
        free = hand & ~self.charged[e.to_act[games], games]
        legal = np.full(games.size, np.uint64(1 << CHARGE_DONE))
        for a, c in CHARGE_CARD.items():
            legal |= ((free >> np.uint64(c)) & _ONE) << np.uint64(a)
        return legal

    def charge(self, e, games, c, card, seat) -> None:
        """Charges (a card exposed) and ends of charging; after the last seat, play begins."""
        j = c - CHARGE_IDS[0]  # 0..3 a card, 4 the end of charging
        self.charged.reshape(-1)[seat * e.num_envs + games] |= self.chargeable[j]
        self.charged_word[games] |= self.charge_bits[seat, j]
        done = c == CHARGE_DONE
        nxt = e._next_seat[seat]
        last = done & (nxt == e.eldest[games])
        e._give_turn(games, np.where(done & ~last, nxt, seat))
        if last.any():
            g = games[last]
            charged = self.charged_cards(g)
            doubled = charged & _DOUBLED_ALONE
            doubled |= np.where((charged >> np.uint64(ACE_HEARTS)) & _ONE != 0, _HEARTS, _ZERO)
            self.doubled[g] = doubled
            e.deal_penalty[g] += mask_sum(e.penalty_table, doubled & np.uint64(e.deck))
            e._start_play(g)

    def charged_cards(self, games) -> np.ndarray:
        """The cards charged in each of ``games``, by any seat."""
        return np.bitwise_or.reduce(self.charged[:, games], axis=0)

    def note_lead(self, e, leading, suit) -> None:
        """A trick is led: is it the first of its suit?"""
        cards = e.suit_masks[suit]
        self.first_of_suit = np.where(leading, (self.suits_led & cards) == 0, self.first_of_suit)
        self.suits_led |= cards * leading

    def keep_charged_back(self, e, hand, legal, following) -> np.ndarray:
        """No charged card leads, nor follows in, the first trick of its suit, unless nothing else is legal
        (discarding it on another suit is allowed)."""
        mine = self.charged[e.to_act, e._g] & hand
        blocked = np.where(following, np.where(self.first_of_suit, mine & e.suit_masks[e.led], _ZERO),
                           mine & ~self.suits_led)
        if self.named_first_lead:  # the named first lead stands
            blocked = np.where(following | (e.tricks > 0), blocked, _ZERO)
        free = legal & ~blocked
        return np.where(free != 0, free, legal)

    def doubled_points(self, e, games, cards) -> tuple[np.ndarray, np.ndarray]:
        """The cards a charge doubled count once more."""
        doubled = cards & self.doubled[games]
        return mask_sum(e.value_table, doubled), mask_sum(e.penalty_table, doubled)

    def arrays(self, e) -> dict[str, np.ndarray]:
        return {"charged_word": self.charged_word}

    def encode(self, enc, tail, parts, s, me) -> None:
        word = (s["charged_word"] >> (4 * me).astype(np.uint64)) & self.charge_mask
        tail[:, parts["charged"]] = unpack_planes(word, 4 * self.n)

    def state(self, e) -> dict[str, np.ndarray]:
        return {"charged": np.ascontiguousarray(self.charged.T)}


def kernel(rules) -> ChargingKernel:
    """The charging kernel under ``rules``."""
    return ChargingKernel(rules)
