"""One deal of a Hearts-family game: passing, charging, the tricks, the deal's scores.

This is the reference engine: plain Python over 52-bit masks (see :mod:`bm_env.engine.cards`),
importing only numpy and the standard library, with every rule read from a
:class:`~bm_env.engine.rules.Rules`. Nothing here knows about agents, environments or spaces.

Players of a deal are *positions* ``0..k-1`` clockwise; ``seats[i]`` is the match seat at
position ``i`` (a tie-break deal among some of the players has fewer positions than the
match has seats). At every decision :attr:`Deal.to_act` is the position to act and
:attr:`Deal.legal` the legal actions as a bit mask (:meth:`Deal.legal_mask` as an array);
actions after the 52 card ids are the extra decisions of :mod:`bm_env.engine.actions`.

Phases: ``pass`` (one card per decision, or pass on unseen), ``charge`` (Turbo Hearts),
``play``, ``discard`` (the kitty taker discarding, kitty_to_hand), ``moon`` (the shooter's
choice), ``done``. With two decks (Cancellation) ``hands[p]`` is the set of card ids
``p`` holds and ``hands_twice[p]`` the ids held twice; the single-deck path never touches
``hands_twice``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from .actions import CARD_CHARGE, CHARGE_CARD, CHARGE_DONE, MOON_ADD, MOON_SUBTRACT, PASS_ON
from .cards import (
    ACE_HEARTS,
    ACE_SPADES,
    CLUBS,
    HEARTS,
    JACK_DIAMONDS,
    KING_SPADES,
    NUM_CARDS,
    NUM_RANKS,
    QUEEN_SPADES,
    SPADES,
    SUIT_MASKS,
    TEN_CLUBS,
    card_str,
    cards_of,
    mask_of,
)
from .rules import (MAX_PLAYERS_ONE_DECK, MAX_PLAYERS_TWO_DECKS, SCATTER, Rules, direction_offset, partner_of,
                    scatter_offsets)
from .scoring import deal_scores, moon_shooter

PASS, CHARGE, PLAY, DISCARD, MOON, DONE = "pass", "charge", "play", "discard", "moon", "done"
ILLEGAL_MODES = ("raise", "renege_penalty")

_HEART_MASK = SUIT_MASKS[HEARTS]
_CLUB_MASK = SUIT_MASKS[CLUBS]
_QS_BIT = 1 << QUEEN_SPADES
_HIGH_SPADES = (1 << ACE_SPADES) | (1 << KING_SPADES)
_NINE = 7  # rank index of the nine
_MOON_BITS = (1 << MOON_SUBTRACT) | (1 << MOON_ADD)


class IllegalActionError(ValueError):
    """An action that the rules do not allow at this decision."""


def deal_cards(
    rules: Rules, num_players: int, dealer: int, rng: np.random.Generator
) -> tuple[list, tuple[int, ...]]:
    """Shuffle the deck(s) and deal one card at a time from eldest hand, as far as they go.

    Returns ``(hands, kitty)``: hands as masks with one deck, as sorted card-id tuples
    (a card twice when held twice) with two; the kitty is the cards left over.
    """
    deck, bits = _deck_cards(rules, num_players)
    order = list(range(len(deck)))
    rng.shuffle(order)  # the same draws and order as rng.permutation(len(deck)), and on a list twice as fast
    dealt = len(deck) - len(deck) % num_players
    eldest = (dealer + 1) % num_players
    kitty = tuple(sorted(deck[j] for j in order[dealt:])) if dealt < len(deck) else ()
    if rules.decks == 1:
        hands = [0] * num_players
        for i in range(num_players):
            # The i-th card dealt and every num_players-th after it; distinct bits, so the sum is their union.
            hands[(eldest + i) % num_players] = sum(map(bits.__getitem__, order[i:dealt:num_players]))
        return hands, kitty
    lists: list[list[int]] = [[] for _ in range(num_players)]
    for i, j in enumerate(order[:dealt]):
        lists[(eldest + i) % num_players].append(deck[j])
    return [tuple(sorted(h)) for h in lists], kitty


@lru_cache(maxsize=256)
def _deck_cards(rules: Rules, num_players: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Every card dealt among ``num_players``, each deck's copy listed, and each one's bit
    (cached: a deal starts often)."""
    deck = tuple(cards_of(rules.deck_mask(num_players))) * rules.decks
    return deck, tuple(1 << c for c in deck)


@lru_cache(maxsize=256)
def _single_deck_penalties(values: tuple[int, ...], deck: int) -> tuple[int, int, int]:
    """Penalty-card mask, valued-card mask and penalty total of a one-deck deal (cached per rules and deck)."""
    penalty = mask_of(c for c in range(NUM_CARDS) if values[c] > 0) & deck
    valued = mask_of(c for c in range(NUM_CARDS) if values[c] != 0)
    return penalty, valued, sum(values[c] for c in cards_of(penalty))


def deal_hands(rules: Rules, num_players: int, dealer: int, rng: np.random.Generator) -> list[int]:
    """The hands of :func:`deal_cards` (masks; rules with a kitty or two decks need :func:`deal_cards`)."""
    if rules.decks != 1 or rules.kitty_size(num_players):
        raise ValueError("these rules deal a kitty or two decks; use deal_cards(), which returns (hands, kitty)")
    return deal_cards(rules, num_players, dealer, rng)[0]


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
        kitty: Sequence[int] = (),
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
        self.two_decks = rules.decks == 2
        masks, doubles = _hand_masks(rules, hands)
        self.kitty = tuple(sorted(map(int, kitty))) if kitty else ()
        _check_hands(rules, masks, doubles, self.kitty)
        if not 0 <= dealer < k:
            raise ValueError(f"dealer must be a position in 0..{k - 1}, got {dealer}")
        self.dealer = dealer
        self.eldest = (dealer + 1) % k
        self.dealt = tuple(masks)
        self.dealt_twice = tuple(doubles)
        self.hands = list(masks)
        self.hands_twice = list(doubles)  # ids held twice (two decks only)
        self.deck = 0  # ids dealt to the hands (the kitty apart)
        for m in masks:
            self.deck |= m
        self.values = rules.card_values
        self.no_pass_mask = mask_of(rules.no_pass_cards)
        self._set_penalties()

        self.pass_direction = pass_direction
        self.pick_offsets: tuple[int, ...] | None = None  # scatter: receiver offset of each pick
        if pass_direction == SCATTER:
            self.pass_offset = 0
            self.pick_offsets = scatter_offsets(k, rules.passes_for(k))
            self.pass_count = len(self.pick_offsets) if self.pick_offsets else 0
        else:
            self.pass_offset = direction_offset(pass_direction, k)
            self.pass_count = rules.passes_for(k) if self.pass_offset else 0
        self.can_pass_on = rules.optional_pass and self.pick_offsets is None
        self.pass_picks: list[list[int]] = [[] for _ in range(k)]
        self.passed_on = [False] * k  # optional passing: passed on, unseen, what they received
        self.pass_receiver = [(q + self.pass_offset) % k for q in range(k)]  # final holder of q's pass
        self.received = [0] * k
        self.received_cards: list[tuple[int, ...]] = [()] * k

        self.charged = [0] * k  # Turbo Hearts: cards each position charged (public)
        self.ten_clubs_taker: int | None = None
        self.kitty_taker: int | None = None
        self.kitty_discards: list[int] = []  # kitty_to_hand: cards the taker discarded face down
        self.discards_left = 0
        self.pending: list[tuple[int, ...]] = []  # Cancellation: tricks left on the table
        self.last_winner: int | None = None
        self.suits_led = 0  # union of SUIT_MASKS of the suits led so far (charging)
        self.first_of_suit = False  # the trick in progress is the first led in its suit
        self.trick_len = k
        self.boosts = 0  # Booster Nines: rounds still owed to the trick in progress
        self.moon_shot: tuple[int, int] | None = None
        self.moon_choice: str | None = None
        self._num_actions = rules.num_actions
        self._charging = rules.charging
        self._booster = rules.booster_nines
        self._plain_tricks = rules.trumps == "none" and rules.decks == 1 and not rules.booster_nines
        self._follow_filtered = rules.charging or rules.queen_when_safe  # charges or the queen narrow the follow set

        self.played = [0] * k  # cards each position has played this deal
        self.voids = [0] * k  # suits (bits 0..3) each position has shown void in
        self.captured = [0] * k  # sum of card values taken
        self.penalty_taken = [0] * k
        self.clean_tricks = [0] * k
        self.tricks_won = [0] * k
        # (leader, cards from leader, winner); winner None for a Cancellation trick left on the table
        self.tricks: list[tuple[int, tuple[int, ...], int | None]] = []
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
            self._after_passing()

    def _set_penalties(self) -> None:
        """Penalty cards and their total over every copy in the deal (kitty included)."""
        values = self.values
        if not self.two_decks and not self.kitty:
            self.penalty_mask, self.valued_mask, self.penalty_total = _single_deck_penalties(values, self.deck)
            return
        copies = [0] * NUM_CARDS
        for m in self.hands:
            for c in cards_of(m):
                copies[c] += 1
        for m in self.hands_twice:
            for c in cards_of(m):
                copies[c] += 1
        for c in self.kitty:
            copies[c] += 1
        self.penalty_mask = mask_of(c for c in range(NUM_CARDS) if values[c] > 0 and copies[c])
        self.valued_mask = mask_of(c for c in range(NUM_CARDS) if values[c] != 0)
        self.penalty_total = sum(values[c] * copies[c] for c in range(NUM_CARDS) if values[c] > 0)

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
        return np.unpackbits(bits, bitorder="little")[: self.rules.num_actions].view(np.int8)

    def legal_actions(self) -> list[int]:
        return cards_of(self.legal)

    @property
    def passes_revealed(self) -> bool:
        """Whether the passed cards have moved (they move only when every player has passed)."""
        return self.phase != PASS

    def hand_cards(self, p: int) -> list[int]:
        """Cards position ``p`` holds, ascending, a card twice when held twice."""
        if not self.two_decks:
            return cards_of(self.hands[p])
        return sorted(cards_of(self.hands[p]) + cards_of(self.hands_twice[p]))

    def hand_count(self, p: int) -> int:
        return bin(self.hands[p]).count("1") + (bin(self.hands_twice[p]).count("1") if self.two_decks else 0)

    # ------------------------------------------------------------------ stepping

    def step(self, action: int) -> None:
        """Apply the action of the position to act."""
        if type(action) is not int:  # the common case, a plain int, skips this
            if isinstance(action, bool) or not isinstance(action, np.integer):
                raise IllegalActionError(
                    f"action {action!r} is outside the action space 0..{self._num_actions - 1}")
            action = int(action)
        # One test for the common case, a legal action: a finished deal has no legal action.
        bit = 1 << action if 0 <= action < self._num_actions else 0
        if not self.legal & bit:
            if self.phase == DONE:
                raise IllegalActionError("the deal is over; no more actions are taken")
            if not bit:
                raise IllegalActionError(
                    f"action {action!r} is outside the action space 0..{self._num_actions - 1}")
            self._illegal(action)
            return
        phase = self.phase
        if phase == PLAY:
            self._play(action, bit)
        elif phase == PASS:
            self._pass_pick(action, bit)
        elif phase == CHARGE:
            self._charge(action)
        elif phase == DISCARD:
            self._discard(action, bit)
        else:
            self._moon(action)

    def _illegal(self, action: int) -> None:
        from .actions import action_str
        from .explain import why_illegal

        p = self.to_act
        what = {PASS: "pass", PLAY: "play", CHARGE: "choose", DISCARD: "discard", MOON: "choose"}[self.phase]
        legal = cards_of(self.legal)
        sep = " " if legal[-1] < NUM_CARDS else ", "  # extra decisions have names with spaces
        reason = why_illegal(self, action)
        msg = (f"player_{self.seats[p]} may not {what} {action_str(action)}: {reason}; "
               f"legal: {sep.join(action_str(c) for c in legal)}")
        if self.on_illegal == "raise":
            raise IllegalActionError(msg)
        # The British rules' renege penalty: the offender takes every penalty point of the deal, the deal ends.
        # It answers an illegal action in every decision (a charge, a discard, a moon choice too).
        self.renege = (p, action, self.phase)
        if self.rules.lower_wins:
            penalty = self.penalty_total
        else:
            penalty = sum(self.values[c] for c in cards_of(self.deck) if self.values[c] < 0)
        offenders = {p, partner_of(p)} if self.rules.teams == "joint" else {p}  # a team scores jointly
        self.scores = tuple(penalty if q in offenders else 0 for q in range(self.num_players))
        self.phase = DONE
        self.legal = 0

    def _remove(self, p: int, bit: int) -> None:
        if self.two_decks and self.hands_twice[p] & bit:
            self.hands_twice[p] ^= bit
        else:
            self.hands[p] ^= bit

    def _add(self, p: int, c: int) -> None:
        bit = 1 << c
        if self.hands[p] & bit:
            if not self.two_decks or self.hands_twice[p] & bit:
                raise AssertionError(f"position {p} would hold {card_str(c)} more often than the decks have it")
            self.hands_twice[p] |= bit
        else:
            self.hands[p] |= bit

    # ------------------------------------------------------------------ passing

    def _pass_legal(self, p: int) -> int:
        hand = self.hands[p]
        allowed = hand & ~self.no_pass_mask
        legal = allowed if allowed else hand
        if self.can_pass_on and not self.pass_picks[p]:
            legal |= 1 << PASS_ON
        return legal

    def _pass_pick(self, c: int, bit: int) -> None:
        p = self.to_act
        if c == PASS_ON:
            self.passed_on[p] = True
        else:
            if self.two_decks:
                self._remove(p, bit)
            else:
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
        self._move_passes()
        self._after_passing()

    def _move_passes(self) -> None:
        """Everyone has passed: the cards move now, and only now."""
        k = self.num_players
        incoming: list[list[int]] = [[] for _ in range(k)]
        if self.pick_offsets is not None:
            for q in range(k):
                for c, off in zip(self.pass_picks[q], self.pick_offsets):
                    incoming[(q + off) % k].append(c)
        else:
            off = self.pass_offset
            for q in range(k):
                if self.passed_on[q]:
                    continue
                # Passing on forwards the stack unseen; a chain can bring the cards back to q.
                r = (q + off) % k
                while self.passed_on[r] and r != q:
                    r = (r + off) % k
                self.pass_receiver[q] = r
                incoming[r].extend(self.pass_picks[q])
        for r in range(k):
            cards = incoming[r]
            if self.two_decks:
                for c in cards:
                    self._add(r, c)
            m = mask_of(cards)
            if not self.two_decks:
                self.hands[r] |= m
            self.received[r] = m
            self.received_cards[r] = tuple(sorted(cards))

    def _after_passing(self) -> None:
        if self.rules.charging:
            self.phase = CHARGE
            self.to_act = self.eldest
            self.legal = self._charge_legal(self.eldest)
        else:
            self._start_play()

    # ------------------------------------------------------------------ charging (Turbo Hearts)

    def _charge_legal(self, p: int) -> int:
        legal = 1 << CHARGE_DONE
        free = self.hands[p] & ~self.charged[p]
        for c, a in CARD_CHARGE.items():
            if free >> c & 1:
                legal |= 1 << a
        return legal

    def _charge(self, action: int) -> None:
        p = self.to_act
        if action != CHARGE_DONE:
            self.charged[p] |= 1 << CHARGE_CARD[action]
            self.legal = self._charge_legal(p)
            return
        nxt = (p + 1) % self.num_players
        if nxt != self.eldest:
            self.to_act = nxt
            self.legal = self._charge_legal(nxt)
            return
        charged = 0
        for m in self.charged:
            charged |= m
        values = list(self.values)
        if charged >> ACE_HEARTS & 1:  # a charged A♥ doubles every heart
            for c in cards_of(_HEART_MASK):
                values[c] *= 2
        for c in (QUEEN_SPADES, JACK_DIAMONDS):  # a charged Q♠ or J♦ counts double
            if charged >> c & 1:
                values[c] *= 2
        self.values = tuple(values)
        self._set_penalties()
        self._start_play()

    # ------------------------------------------------------------------ play

    def _start_play(self) -> None:
        self.phase = PLAY
        lead = self.rules.first_lead
        if lead.startswith("lowest_club"):
            lowest = self.deck & _CLUB_MASK  # the kitty apart: the lowest club present leads (Pagat)
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
                legal = hand & _CLUB_MASK
            else:
                if lead == "eldest_non_heart":
                    legal = hand & ~_HEART_MASK or hand
                else:
                    legal = hand
                legal = self._hearts_rule(hand, legal)
                legal = self._first_trick_rule(legal)
        else:
            legal = self._hearts_rule(hand, hand)
        if self._charging:
            legal = self._charged_rule(p, legal, leading=True)
        return legal

    def _hearts_rule(self, hand: int, legal: int) -> int:
        """Remove heart leads while hearts are unbroken, where the rules say so."""
        if self.rules.hearts_lead == "any_time" or self.hearts_broken:
            return legal
        non_hearts = legal & ~_HEART_MASK
        if not non_hearts:
            return legal  # only hearts: a heart may be led by necessity (the British rules)
        if self.rules.lead_hearts_with_queen_only and not hand & ~(_HEART_MASK | _QS_BIT):
            return legal  # Pagat: holding only hearts and Q♠, a heart may be led
        return non_hearts

    def _first_trick_rule(self, legal: int) -> int:
        if self.rules.first_trick_no_points and not self.tricks:
            clean = legal & ~self.penalty_mask
            if clean:
                return clean
        return legal

    def _charged_rule(self, p: int, legal: int, leading: bool) -> int:
        """Turbo Hearts: a charged card may not be played the first time its suit is led, unless forced."""
        mine = self.charged[p] & self.hands[p]
        if not mine:
            return legal
        if leading:
            blocked = mine & ~self.suits_led
        elif self.first_of_suit:
            blocked = mine & SUIT_MASKS[self.led_suit]
        else:
            return legal
        return legal & ~blocked or legal

    def _follow_legal(self, p: int) -> int:
        hand = self.hands[p]
        follow = hand & SUIT_MASKS[self.led_suit]
        legal = follow if follow else hand
        if not self.tricks:
            legal = self._first_trick_rule(legal)
        if self._follow_filtered:
            if self._charging:
                legal = self._charged_rule(p, legal, leading=False)
            if self.rules.queen_when_safe and legal & _QS_BIT:
                # Pagat: Q♠ must go as soon as it is safe: when discarding, or on a spade
                # trick once A♠ or K♠ has been played to it.
                if not follow or (self.led_suit == SPADES and self.played_in_trick & _HIGH_SPADES):
                    legal = _QS_BIT
        return legal

    @property
    def played_in_trick(self) -> int:
        return mask_of(self.trick)

    def _play(self, c: int, bit: int) -> None:
        p = self.to_act
        if self.two_decks and self.hands_twice[p] & bit:
            self.hands_twice[p] ^= bit
        else:
            self.hands[p] ^= bit
        self.played[p] |= bit
        trick = self.trick
        suit = c // NUM_RANKS
        if not trick:
            self.led_suit = suit
            if self._charging:
                self.first_of_suit = not self.suits_led & SUIT_MASKS[suit]
                self.suits_led |= SUIT_MASKS[suit]
        elif suit != self.led_suit:
            self.voids[p] |= 1 << self.led_suit
        trick.append(c)
        if suit == HEARTS or (c == QUEEN_SPADES and self.rules.queen_breaks_hearts):
            # A heart can only be played as a discard or as a lead by necessity; the British rules say
            # both break hearts, so "discarded on another suit" and "any heart played" coincide.
            self.hearts_broken = True
        k = self.num_players
        if self._booster and suit == self.led_suit and c % NUM_RANKS == _NINE:
            self.boosts += 1  # Pagat: a nine led or following suit adds a round
        nxt = (p + 1) % k
        if len(trick) >= self.trick_len:
            if not self.boosts or not self.hands[nxt]:  # a nine in the last trick boosts nothing
                self._finish_trick()
                return
            self.boosts -= 1
            self.trick_len += k
        self.to_act = nxt
        if self._follow_filtered:
            self.legal = self._follow_legal(nxt)
            return
        hand = self.hands[nxt]
        follow = hand & SUIT_MASKS[self.led_suit]
        legal = follow if follow else hand
        if not self.tricks:
            legal = self._first_trick_rule(legal)
        self.legal = legal

    def _trick_winner(self, trick: list[int]) -> int | None:
        """Position of the trick's winner, or None when every led-suit card is cancelled."""
        led = self.led_suit
        if self.rules.trumps == "hearts":
            trumps = [c for c in trick if c // NUM_RANKS == HEARTS]
            if trumps:
                return (self.leader + trick.index(max(trumps))) % self.num_players
        followers = [c for c in trick if c // NUM_RANKS == led]
        if self.two_decks:
            # Cancellation: identical cards cancel for winning; the highest card left wins.
            followers = [c for c in followers if trick.count(c) == 1]
            if not followers:
                return None
        return (self.leader + trick.index(max(followers))) % self.num_players

    def _collect(self, winner: int, cards: Sequence[int]) -> int:
        """``winner`` takes ``cards`` as one trick; returns the penalty points in it."""
        values = self.values
        pts = 0
        pen = 0
        valued = False
        for c in cards:
            v = values[c]
            if v:
                valued = True
                pts += v
                if v > 0:
                    pen += v
            if c == TEN_CLUBS:
                self.ten_clubs_taker = winner
        self.captured[winner] += pts
        self.penalty_taken[winner] += pen
        self.tricks_won[winner] += 1
        if not valued:
            self.clean_tricks[winner] += 1
        return pen

    def _take_kitty(self, winner: int) -> bool:
        """The kitty goes to ``winner``; True when they must now discard (kitty_to_hand)."""
        self.kitty_taker = winner
        if self.rules.kitty_to_hand and self.hands[winner]:
            for c in self.kitty:
                self._add(winner, c)
            self.discards_left = len(self.kitty)
            return True
        self._take_points(winner, self.kitty)
        return False

    def _take_points(self, p: int, cards: Sequence[int]) -> None:
        """Cards added to ``p``'s captured cards outside a trick (kitty, discards)."""
        for c in cards:
            v = self.values[c]
            self.captured[p] += v
            if v > 0:
                self.penalty_taken[p] += v
            if c == TEN_CLUBS:
                self.ten_clubs_taker = p

    def _finish_trick(self) -> None:
        trick = self.trick
        if self._plain_tricks:
            led = self.led_suit
            best = trick[0]  # the lead: the highest card of its suit wins (a plain loop beats max() over a generator)
            for c in trick:
                if c > best and c // NUM_RANKS == led:
                    best = c
            winner = (self.leader + trick.index(best)) % self.num_players
        else:
            winner = self._trick_winner(trick)
            self.trick_len = self.num_players
            self.boosts = 0
        self.tricks.append((self.leader, tuple(trick), winner))
        self.trick = []
        self.led_suit = -1
        if winner is None:
            # Cancellation: the trick stays on the table and the same player leads again.
            self.pending.append(tuple(trick))
            if self.hands[self.leader]:
                self.to_act = self.leader
                self.legal = self._lead_legal(self.leader)
                return
            # A last trick with no winner goes to the winner of the trick before.
            winner = self.last_winner if self.last_winner is not None else self.leader
            pen = 0
            for cards in self.pending:
                pen += self._collect(winner, cards)
            self.pending = []
        else:
            pen = self._collect(winner, trick)
            if self.pending:
                for cards in self.pending:
                    pen += self._collect(winner, cards)
                self.pending = []
        self.last_winner = winner
        self.leader = winner
        if self.kitty and self.kitty_taker is None and (self.rules.kitty == "first_trick" or pen > 0):
            if self._take_kitty(winner):
                self.phase = DISCARD
                self.to_act = winner
                self.legal = self.hands[winner]
                return
        if self.hands[winner]:
            self.to_act = winner
            self.legal = self._lead_legal(winner)
            return
        self._end()

    def _discard(self, c: int, bit: int) -> None:
        p = self.to_act
        self._remove(p, bit)
        self.kitty_discards.append(c)
        self._take_points(p, (c,))
        self.discards_left -= 1
        if self.discards_left:
            self.legal = self.hands[p]
            return
        self.phase = PLAY
        self.legal = self._lead_legal(p)

    def _end(self) -> None:
        if self.kitty and self.kitty_taker is None:
            # first_point with no point taken in play: the last trick's winner takes the kitty.
            self.kitty_taker = self.last_winner
            self._take_points(self.last_winner, self.kitty)
        self.moon_shot = moon_shooter(self.rules, self.penalty_taken, self.penalty_total, self.tricks_won)
        if self.rules.moon_choice and self.moon_shot is not None:
            self.phase = MOON
            self.to_act = self.moon_shot[0]
            self.legal = _MOON_BITS
            return
        self._score()

    def _moon(self, action: int) -> None:
        self.moon_choice = "subtract" if action == MOON_SUBTRACT else "add"
        self._score()

    def _score(self) -> None:
        self.phase = DONE
        self.legal = 0
        multipliers = None
        if self.rules.ten_clubs_multiplier and self.ten_clubs_taker is not None:
            t = self.ten_clubs_taker
            charged_tc = any(m >> TEN_CLUBS & 1 for m in self.charged)
            multipliers = [1] * self.num_players
            multipliers[t] = 4 if charged_tc else 2
        self.scores = deal_scores(
            self.rules, self.captured, self.penalty_taken, self.penalty_total, self.clean_tricks,
            self.totals_before, self.deals_before, tricks_won=self.tricks_won, multipliers=multipliers,
            moon_choice=self.moon_choice,
        )


def _hand_masks(rules: Rules, hands: Sequence[int | Sequence[int]]) -> tuple[list[int], list[int]]:
    """Hands as (ids held, ids held twice) masks; a hand is a mask or a sequence of card ids."""
    masks, doubles = [], []
    for i, h in enumerate(hands):
        if isinstance(h, (int, np.integer)):
            masks.append(int(h))
            doubles.append(0)
            continue
        once = twice = 0
        for c in h:
            bit = 1 << int(c)
            if twice & bit or (once & bit and rules.decks == 1):
                raise ValueError(
                    f"card {card_str(int(c))} appears too often in the hand of position {i} "
                    f"({rules.decks} deck(s) in play)"
                )
            if once & bit:
                twice |= bit
            else:
                once |= bit
        masks.append(once)
        doubles.append(twice)
    return masks, doubles


def _check_hands(rules: Rules, masks: list[int], doubles: list[int], kitty: tuple[int, ...]) -> None:
    k = len(masks)
    top = MAX_PLAYERS_ONE_DECK if rules.decks == 1 else MAX_PLAYERS_TWO_DECKS
    if not 2 <= k <= top:
        raise ValueError(f"a deal has 2 to {top} players, got {k} hands")
    if kitty and rules.kitty == "none":
        raise ValueError("these rules have no kitty (kitty='none'), but a kitty was given")
    if (kitty or rules.kitty != "none") and len(kitty) != rules.kitty_size(k):
        raise ValueError(f"the kitty must hold the {rules.kitty_size(k)} cards left over, got {len(kitty)}")
    expected = rules.deck_mask(k)
    if rules.decks == 1:
        seen = 0
        for i, m in enumerate(masks):
            if m & seen:
                dup = cards_of(m & seen)
                raise ValueError(f"card(s) {' '.join(card_str(c) for c in dup)} dealt twice (again to position {i})")
            seen |= m
        for c in kitty:
            if seen >> c & 1:
                raise ValueError(f"card {card_str(c)} is both in a hand and in the kitty")
            seen |= 1 << c
        if seen != expected:
            missing = cards_of(expected & ~seen)
            extra = cards_of(seen & ~expected)
            deck = "full deck (kitty rule)" if rules.kitty != "none" else f"deck of deck table {rules.deck_table!r}"
            raise ValueError(
                f"hands do not make the {k}-player {deck}: "
                f"missing {[card_str(c) for c in missing]}, not in that deck {[card_str(c) for c in extra]}"
            )
    else:
        counts = [0] * NUM_CARDS
        for m in masks + doubles:
            for c in cards_of(m):
                counts[c] += 1
        for c in kitty:
            counts[c] += 1
        wrong = [f"{card_str(c)} x{counts[c]}" for c in range(NUM_CARDS) if counts[c] != (2 if expected >> c & 1 else 0)]
        if wrong:
            raise ValueError(f"hands and kitty must hold every card exactly twice (two decks); wrong counts: {wrong}")
    sizes = [m.bit_count() + d.bit_count() for m, d in zip(masks, doubles)]
    if len(set(sizes)) != 1:
        raise ValueError(f"hands must all be the same size, got sizes {sizes}")


def clone_deal(deal: Deal) -> Deal:
    """An independent copy of a deal in progress (search players play copies out)."""
    new = object.__new__(Deal)
    new.__dict__.update(deal.__dict__)
    for name in ("hands", "hands_twice", "received", "received_cards", "played", "voids", "captured", "penalty_taken",
                 "clean_tricks", "tricks_won", "tricks", "trick", "passed_on", "pass_receiver", "charged",
                 "kitty_discards", "pending"):
        setattr(new, name, list(getattr(deal, name)))
    new.pass_picks = [list(p) for p in deal.pass_picks]
    return new
