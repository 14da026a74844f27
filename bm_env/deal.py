"""One deal of a Hearts-family game: the passing phase, the tricks, the deal's scores.

This is the reference engine: plain Python over 52-bit masks (see :mod:`bm_env.cards`),
importing only numpy and the standard library, with every rule read from a
:class:`~bm_env.rules.Rules`. Nothing here knows about agents, environments or spaces.

Players of a deal are *positions* ``0..k-1`` clockwise; ``seats[i]`` is the match seat at
position ``i`` (a tie-break deal among some of the players has fewer positions than the
match has seats). At every decision :attr:`Deal.to_act` is the position to act and
:attr:`Deal.legal` the legal actions as a bit mask (:meth:`Deal.legal_mask` as an array).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .cards import (
    HEARTS,
    NUM_CARDS,
    NUM_RANKS,
    QUEEN_SPADES,
    SUIT_MASKS,
    card_str,
    cards_of,
    mask_of,
)
from .rules import Rules, direction_offset
from .scoring import deal_scores

PASS, PLAY, DONE = "pass", "play", "done"
ILLEGAL_MODES = ("raise", "renege_penalty")

_HEART_MASK = SUIT_MASKS[HEARTS]
_CLUB_MASK = SUIT_MASKS[0]
_QS_BIT = 1 << QUEEN_SPADES


class IllegalActionError(ValueError):
    """An action that the rules do not allow at this decision."""


def deal_hands(rules: Rules, num_players: int, dealer: int, rng: np.random.Generator) -> list[int]:
    """Shuffle the deck for ``num_players`` and deal it one card at a time from eldest hand."""
    deck = cards_of(rules.deck_mask(num_players))
    order = rng.permutation(len(deck))
    hands = [0] * num_players
    eldest = (dealer + 1) % num_players
    for i, j in enumerate(order):
        hands[(eldest + i) % num_players] |= 1 << deck[j]
    return hands


def pass_direction_for(rules: Rules, deal_number: int, rng: np.random.Generator | None) -> str:
    """The pass direction of a deal: the cycle by deal number, or drawn from it (``pass_order='random'``)."""
    if rules.pass_order == "random":
        if rng is None:
            raise ValueError("pass_order='random' needs a generator to draw the pass direction from")
        return rules.pass_cycle[int(rng.integers(len(rules.pass_cycle)))]
    return rules.pass_cycle[deal_number % len(rules.pass_cycle)]


class Deal:
    """The state of one deal, advanced by :meth:`step` one decision at a time."""

    def __init__(
        self,
        rules: Rules,
        hands: Sequence[int | Sequence[int]],
        dealer: int,
        pass_direction: str = "hold",
        seats: Sequence[int] | None = None,
        totals_before: Sequence[int] | None = None,
        deals_before: int = 0,
        on_illegal: str = "raise",
    ) -> None:
        k = len(hands)
        if on_illegal not in ILLEGAL_MODES:
            raise ValueError(f"on_illegal={on_illegal!r} is not allowed; allowed: {list(ILLEGAL_MODES)}")
        self.rules = rules
        self.num_players = k
        self.seats = tuple(range(k)) if seats is None else tuple(seats)
        self.on_illegal = on_illegal
        self.totals_before = tuple(totals_before) if totals_before is not None else (0,) * k
        self.deals_before = deals_before
        masks = [h if isinstance(h, int) else mask_of(h) for h in hands]
        _check_hands(rules, masks)
        if not 0 <= dealer < k:
            raise ValueError(f"dealer must be a position in 0..{k - 1}, got {dealer}")
        self.dealer = dealer
        self.eldest = (dealer + 1) % k
        self.dealt = tuple(masks)
        self.hands = list(masks)
        self.deck = 0
        for m in masks:
            self.deck |= m
        self.values = rules.card_values
        self.penalty_mask = mask_of(c for c in range(NUM_CARDS) if self.values[c] > 0) & self.deck
        self.valued_mask = mask_of(c for c in range(NUM_CARDS) if self.values[c] != 0)
        self.penalty_total = sum(self.values[c] for c in cards_of(self.penalty_mask))
        self.no_pass_mask = mask_of(rules.no_pass_cards)

        self.pass_direction = pass_direction
        self.pass_offset = direction_offset(pass_direction, k)
        self.pass_count = rules.passes_for(k) if self.pass_offset else 0
        self.pass_picks: list[list[int]] = [[] for _ in range(k)]
        self.received = [0] * k

        self.played = [0] * k  # cards each position has played this deal
        self.voids = [0] * k  # suits (bits 0..3) each position has shown void in
        self.captured = [0] * k  # sum of card values taken
        self.penalty_taken = [0] * k
        self.clean_tricks = [0] * k
        self.tricks_won = [0] * k
        self.tricks: list[tuple[int, tuple[int, ...], int]] = []  # (leader, cards from leader, winner)
        self.trick: list[int] = []
        self.leader = self.eldest
        self.led_suit = -1
        self.hearts_broken = False
        self.scores: tuple[int, ...] | None = None
        self.renege: tuple[int, int, str] | None = None  # (position, card, phase) under the renege penalty

        if self.pass_count:
            self.phase = PASS
            self.to_act = self.eldest
            self.legal = self._pass_legal(self.eldest)
        else:
            self._start_play()

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.phase == DONE

    @property
    def current_seat(self) -> int:
        """Match seat of the position to act (meaningless once the deal is over)."""
        return self.seats[self.to_act]

    def legal_mask(self) -> np.ndarray:
        """Legal actions of the position to act as an int8 vector over the action space."""
        bits = np.frombuffer(self.legal.to_bytes(8, "little"), dtype=np.uint8)
        return np.unpackbits(bits, bitorder="little")[: self.rules.num_actions].astype(np.int8)

    def legal_actions(self) -> list[int]:
        return cards_of(self.legal)

    @property
    def passes_revealed(self) -> bool:
        """Whether the passed cards have moved (they move only when every player has passed)."""
        return self.phase != PASS

    # ------------------------------------------------------------------ stepping

    def step(self, action: int) -> None:
        """Apply the action of the position to act."""
        if self.phase == DONE:
            raise IllegalActionError("the deal is over; no more actions are taken")
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < self.rules.num_actions:
            raise IllegalActionError(
                f"action {action!r} is outside the action space 0..{self.rules.num_actions - 1}"
            )
        action = int(action)
        bit = 1 << action
        if not self.legal & bit:
            self._illegal(action)
            return
        if self.phase == PASS:
            self._pass_pick(action, bit)
        else:
            self._play(action, bit)

    def _illegal(self, action: int) -> None:
        p = self.to_act
        what = "pass" if self.phase == PASS else "play"
        msg = (
            f"player_{self.seats[p]} may not {what} {card_str(action)}; "
            f"legal: {' '.join(card_str(c) for c in cards_of(self.legal))}"
        )
        if self.on_illegal == "raise":
            raise IllegalActionError(msg)
        # Seed 000's renege penalty: the offender takes every penalty point of the deal, the deal ends.
        self.renege = (p, action, self.phase)
        if self.rules.lower_wins:
            penalty = self.penalty_total
        else:
            penalty = sum(self.values[c] for c in cards_of(self.deck) if self.values[c] < 0)
        self.scores = tuple(penalty if q == p else 0 for q in range(self.num_players))
        self.phase = DONE
        self.legal = 0

    def _pass_legal(self, p: int) -> int:
        hand = self.hands[p]
        allowed = hand & ~self.no_pass_mask
        return allowed if allowed else hand

    def _pass_pick(self, c: int, bit: int) -> None:
        p = self.to_act
        self.hands[p] ^= bit
        picks = self.pass_picks[p]
        picks.append(c)
        if len(picks) < self.pass_count:
            self.legal = self._pass_legal(p)
            return
        nxt = (p + 1) % self.num_players
        if nxt != self.eldest:
            self.to_act = nxt
            self.legal = self._pass_legal(nxt)
            return
        # Everyone has passed: the cards move now, and only now.
        k = self.num_players
        for q in range(k):
            r = (q + self.pass_offset) % k
            m = mask_of(self.pass_picks[q])
            self.received[r] = m
            self.hands[r] |= m
        self._start_play()

    def _start_play(self) -> None:
        self.phase = PLAY
        lead = self.rules.first_lead
        if lead.startswith("lowest_club"):
            lowest = self.deck & _CLUB_MASK
            lowest &= -lowest
            self.leader = next(q for q in range(self.num_players) if self.hands[q] & lowest)
        else:
            self.leader = self.eldest
        self.to_act = self.leader
        self.legal = self._lead_legal(self.leader)

    def _lead_legal(self, p: int) -> int:
        rules = self.rules
        hand = self.hands[p]
        if not self.tricks:
            lead = rules.first_lead
            if lead == "lowest_club":
                low = self.deck & _CLUB_MASK
                return low & -low
            if lead == "lowest_club_any_club":
                return hand & _CLUB_MASK
            if lead == "eldest_non_heart":
                legal = hand & ~_HEART_MASK or hand
            else:
                legal = hand
            legal = self._hearts_rule(hand, legal)
            return self._first_trick_rule(legal)
        return self._hearts_rule(hand, hand)

    def _hearts_rule(self, hand: int, legal: int) -> int:
        """Remove heart leads while hearts are unbroken, where the rules say so."""
        if self.rules.hearts_lead == "any_time" or self.hearts_broken:
            return legal
        non_hearts = legal & ~_HEART_MASK
        if not non_hearts:
            return legal  # only hearts: a heart may be led by necessity (seed 000)
        if self.rules.lead_hearts_with_queen_only and not hand & ~(_HEART_MASK | _QS_BIT):
            return legal  # seed 003: holding only hearts and Q♠, a heart may be led
        return non_hearts

    def _first_trick_rule(self, legal: int) -> int:
        if self.rules.first_trick_no_points and not self.tricks:
            clean = legal & ~self.penalty_mask
            if clean:
                return clean
        return legal

    def _play(self, c: int, bit: int) -> None:
        p = self.to_act
        self.hands[p] ^= bit
        self.played[p] |= bit
        trick = self.trick
        suit = c // NUM_RANKS
        if not trick:
            self.led_suit = suit
        elif suit != self.led_suit:
            self.voids[p] |= 1 << self.led_suit
        trick.append(c)
        if suit == HEARTS or (c == QUEEN_SPADES and self.rules.queen_breaks_hearts):
            # A heart can only be played as a discard or as a lead by necessity; seed 000 says
            # both break hearts, so "discarded on another suit" and "any heart played" coincide.
            self.hearts_broken = True
        k = self.num_players
        if len(trick) < k:
            nxt = (p + 1) % k
            self.to_act = nxt
            hand = self.hands[nxt]
            follow = hand & SUIT_MASKS[self.led_suit]
            legal = follow if follow else hand
            if not self.tricks:
                legal = self._first_trick_rule(legal)
            self.legal = legal
            return
        self._finish_trick()

    def _finish_trick(self) -> None:
        trick = self.trick
        k = self.num_players
        best = trick[0]
        if self.rules.trumps == "hearts":
            trumps = [c for c in trick if c // NUM_RANKS == HEARTS]
            best = max(trumps) if trumps else max(c for c in trick if c // NUM_RANKS == self.led_suit)
        else:
            best = max(c for c in trick if c // NUM_RANKS == self.led_suit)
        winner = (self.leader + trick.index(best)) % k
        values = self.values
        pts = 0
        pen = 0
        valued = False
        for c in trick:
            v = values[c]
            if v:
                valued = True
                pts += v
                if v > 0:
                    pen += v
        self.captured[winner] += pts
        self.penalty_taken[winner] += pen
        self.tricks_won[winner] += 1
        if not valued:
            self.clean_tricks[winner] += 1
        self.tricks.append((self.leader, tuple(trick), winner))
        self.trick = []
        self.led_suit = -1
        self.leader = winner
        if self.hands[winner]:
            self.to_act = winner
            self.legal = self._lead_legal(winner)
            return
        self.phase = DONE
        self.legal = 0
        self.scores = deal_scores(
            self.rules, self.captured, self.penalty_taken, self.penalty_total, self.clean_tricks,
            self.totals_before, self.deals_before,
        )


def _check_hands(rules: Rules, masks: list[int]) -> None:
    k = len(masks)
    if not 2 <= k <= 7:
        raise ValueError(f"a deal has 2 to 7 players, got {k} hands")
    seen = 0
    for i, m in enumerate(masks):
        if m & seen:
            dup = cards_of(m & seen)
            raise ValueError(f"card(s) {' '.join(card_str(c) for c in dup)} dealt twice (again to position {i})")
        seen |= m
    expected = rules.deck_mask(k)
    if seen != expected:
        missing = cards_of(expected & ~seen)
        extra = cards_of(seen & ~expected)
        raise ValueError(
            f"hands do not make the {k}-player deck of deck table {rules.deck_table!r}: "
            f"missing {[card_str(c) for c in missing]}, not in that deck {[card_str(c) for c in extra]}"
        )
    sizes = {bin(m).count("1") for m in masks}
    if len(sizes) != 1:
        raise ValueError(f"hands must all be the same size, got sizes {[bin(m).count('1') for m in masks]}")


def clone_deal(deal: Deal) -> Deal:
    """An independent copy of a deal in progress (search players play copies out)."""
    new = object.__new__(Deal)
    new.__dict__.update(deal.__dict__)
    for name in ("hands", "received", "played", "voids", "captured", "penalty_taken", "clean_tricks",
                 "tricks_won", "tricks", "trick"):
        setattr(new, name, list(getattr(deal, name)))
    new.pass_picks = [list(p) for p in deal.pass_picks]
    return new
