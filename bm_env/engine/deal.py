"""One deal of a Hearts-family game: passing, charging, the tricks, the deal's scores.

This is the reference engine: plain Python over 52-bit masks (see :mod:`bm_env.engine.cards`),
importing only numpy and the standard library, with every rule read from a
:class:`~bm_env.engine.rules.Rules`. Nothing here knows about agents, environments or spaces.

Players of a deal are *positions* ``0..k-1`` clockwise; ``seats[i]`` is the match seat at
position ``i`` (a tie-break deal among some of the players has fewer positions than the
match has seats). At every decision ``Deal.to_act`` is the position to act and
``Deal.legal`` the legal actions as a bit mask (:meth:`~bm_env.Deal.legal_mask` as an array);
actions after the 52 card ids are the extra decisions of :mod:`bm_env.engine.actions`.

Phases: ``pass`` (one card per decision, or pass on unseen), ``charge`` (Turbo Hearts),
``play``, ``discard`` (the kitty taker discarding, kitty_to_hand), ``moon`` (the shooter's
choice), ``done``. With two decks (Cancellation) ``hands[p]`` is the set of card ids
``p`` holds and ``hands_twice[p]`` the ids held twice; the single-deck path never touches
``hands_twice``.

:class:`Deal` holds the phases in order and the tricks; the mechanics of the other rule
systems are in their modules of :mod:`bm_env.systems`, beside each system's options, which
the deal calls at the hook points :data:`~bm_env.systems.component.DEAL_HOOKS` names:
:mod:`~bm_env.systems.passing` (passing, scatter, passing on), :mod:`~bm_env.systems.charging`,
:mod:`~bm_env.systems.ten_clubs`, :mod:`~bm_env.systems.kitty`, :mod:`~bm_env.systems.two_decks`
(Cancellation), :mod:`~bm_env.systems.booster_nines` and :mod:`~bm_env.systems.domino`. A
deal's state is declared field by field in ``Deal._FIXED_FIELDS``, ``Deal._STATE_VALUES``
and ``Deal._STATE_LISTS`` (with the systems' own, their ``deal_values`` and ``deal_lists``);
:func:`clone_deal` copies what the declaration says. Other modules read it through its read face, which hands out only
immutable values (ints, strings, tuples): the lists stay private.
"""

from __future__ import annotations

import operator
from functools import lru_cache
from typing import NamedTuple, Sequence

import numpy as np

from . import checks
from .cards import (
    CLUBS,
    HEARTS,
    NUM_CARDS,
    NUM_RANKS,
    QUEEN_SPADES,
    SUIT_MASKS,
    TEN_CLUBS,
    card_str,
    cards_of,
    mask_of,
)
from ..systems import SYSTEMS, deal_hooks, dealing, passing, ten_clubs
from ..systems import two_decks as cancellation
from ..systems.table import MAX_PLAYERS_ONE_DECK, MAX_PLAYERS_TWO_DECKS
from .phases import CHARGE, DISCARD, DONE, MOON, PASS, PLAY
from ..systems.moon import moon_shooter
from ..systems.teams import scoring_units
from .rules import Rules
from .scoring import deal_scores

ILLEGAL_MODES = ("raise", "renege_penalty")

_HEART_MASK = SUIT_MASKS[HEARTS]
_CLUB_MASK = SUIT_MASKS[CLUBS]
_QS_BIT = 1 << QUEEN_SPADES


class IllegalActionError(ValueError):
    """An action that the rules do not allow at this decision."""


def deal_cards(
    rules: Rules, num_players: int, dealer: int, rng: np.random.Generator
) -> tuple[list, tuple[int, ...]]:
    """Shuffle the deck(s) and deal one card at a time from eldest hand, a hand's size each.

    Returns ``(hands, kitty)``: hands as masks with one deck, as sorted card-id tuples
    (a card twice when held twice) with two; the kitty is the cards left apart: sorted, or a
    stock's in the order they lie, the top first (:class:`~bm_env.systems.component.Dealing`).
    """
    shape = _shape(rules, num_players)
    deck, bits, dealt = shape.deck, shape.bits, shape.dealt
    order = list(range(len(deck)))
    rng.shuffle(order)  # the same draws and order as rng.permutation(len(deck)), and on a list twice as fast
    eldest = (dealer + 1) % num_players
    rest = [deck[j] for j in order[dealt:]]
    kitty = tuple(rest if shape.stock else sorted(rest))
    if shape.copies == 1:
        hands = [0] * num_players
        for i in range(num_players):
            # The i-th card dealt and every num_players-th after it; distinct bits, so the sum is their union.
            hands[(eldest + i) % num_players] = sum(map(bits.__getitem__, order[i:dealt:num_players]))
        return hands, kitty
    lists: list[list[int]] = [[] for _ in range(num_players)]
    for i, j in enumerate(order[:dealt]):
        lists[(eldest + i) % num_players].append(deck[j])
    return [tuple(sorted(h)) for h in lists], kitty


class _Shape(NamedTuple):
    """How a rules object deals among some players (:func:`_shape`)."""

    deck: tuple[int, ...]  # every card dealt, each copy listed
    bits: tuple[int, ...]  # each one's bit
    dealt: int  # the cards the hands take
    apart: int  # the cards left apart (a kitty, a stock)
    expected: int  # the cards dealt, as a mask
    copies: int  # copies of each card
    stock: bool  # the cards left apart are a stock, kept in order
    full_deck: bool  # no card removed


@lru_cache(maxsize=256)
def _shape(rules: Rules, num_players: int) -> _Shape:
    """How ``rules`` deal among ``num_players`` (cached: a deal starts often, and is checked against it)."""
    how = dealing(rules)
    expected = rules.deck_mask(num_players)
    deck = tuple(cards_of(expected)) * how.copies
    dealt = rules.hand_size(num_players) * num_players
    return _Shape(deck, tuple(1 << c for c in deck), dealt, len(deck) - dealt, expected, how.copies, how.stock,
                  how.full_deck)


@lru_cache(maxsize=256)
def _single_deck_penalties(values: tuple[int, ...], deck: int) -> tuple[int, int]:
    """Penalty-card mask and penalty total of a one-deck deal (cached per rules and deck)."""
    penalty = mask_of(c for c in range(NUM_CARDS) if values[c] > 0) & deck
    return penalty, sum(values[c] for c in cards_of(penalty))


def deal_hands(rules: Rules, num_players: int, dealer: int, rng: np.random.Generator) -> list[int]:
    """The hands of :func:`deal_cards` (masks; rules that leave cards apart or deal two decks need :func:`deal_cards`)."""
    shape = _shape(rules, num_players)
    if shape.copies != 1 or shape.apart:
        raise ValueError("these rules leave cards apart (a kitty, a stock) or deal two decks; use deal_cards(), "
                         "which returns (hands, kitty)")
    return deal_cards(rules, num_players, dealer, rng)[0]


def pass_direction_for(rules: Rules, deal_number: int, rng: np.random.Generator | None) -> str:
    """The pass direction of a deal: the cycle by deal number, or drawn from it (``pass_order='random'``)."""
    if rules.pass_order == "random":
        if rng is None:
            raise ValueError("pass_order='random' needs a generator to draw the pass direction from")
        return rules.pass_cycle[int(rng.integers(len(rules.pass_cycle)))]
    return rules.pass_cycle[deal_number % len(rules.pass_cycle)]


class Deal:
    """The state of one deal, advanced by :meth:`step` one decision at a time.

    Its read face: the attributes declared in ``_FIXED_FIELDS`` and ``_STATE_VALUES``
    (immutable values: ints, strings, tuples, None), read freely and assigned by the deal
    alone (``tests/test_deal_state.py`` checks that no other module assigns them); the
    queries below, which hand out the lists of ``_STATE_LISTS`` as tuples (:attr:`hands`,
    :attr:`tricks`, :attr:`captured`, :attr:`pass_picks`...); and the methods
    :meth:`legal_mask`, :meth:`hand_cards`, :meth:`passed_to`, :meth:`received_from`...
    Nothing a caller gets from a deal can change it.
    """

    # Every attribute of a deal is declared in exactly one of these three, and together they are
    # its __slots__: a field assigned without being declared fails at once, so a new field cannot
    # silently miss clone_deal. The first two map each name to its docstring (a dict __slots__
    # hands it to help() and to the API reference).
    #: Set once by the constructor, never changed; immutable, so clones share them.
    _FIXED_FIELDS = {
        "rules": "The :class:`~bm_env.Rules` of the deal.",
        "num_players": "Positions in the deal, ``k`` (fewer than the match's seats in a tie-break deal).",
        "seats": "The match seat at each position.",
        "on_illegal": 'What an illegal action does: ``"raise"`` or ``"renege_penalty"``.',
        "totals_before": "Match totals of the positions before this deal.",
        "deals_before": "Deals counted in the match before this one.",
        "two_decks": "Two decks are in play (Cancellation).",
        "kitty": "The cards left apart: the kitty's card ids, sorted, or a stock's in the order they lie, the top "
                 "first; ``()`` where the hands take every card.",
        "dealer": "Position of the dealer.",
        "eldest": "Position left of the dealer: passes and charges first, and leads unless a rule says who.",
        "dealt": "The hands as dealt: a bit mask of the card ids each position held.",
        "dealt_twice": "Two decks: a bit mask per position of the ids it was dealt twice.",
        "deck": "Bit mask of the ids dealt to the hands (the kitty apart).",
        "pass_direction": 'Name of this deal\'s pass direction (``"left"``, ``"scatter"``, ``"hold"``...).',
        "pass_offset": "How many positions to the left the passed cards go (0: hold or scatter).",
        "pick_offsets": "Scatter: the receiver's offset of each pick; else None.",
        "pass_count": "Cards each player passes (0: no passing).",
        "can_pass_on": "``optional_pass``: a player may pass on, unseen, the cards it is passed.",
        "no_pass_mask": "Bit mask of the cards the rules do not let be passed (unless nothing else is left).",
        "_num_actions": "Size of the action space.",
        "_hooks": "The hooks of the rule systems in use (:func:`bm_env.systems.deal_hooks`).",
        "_lead_filters": "The systems' filters of the legal leads (charging).",
        "_follow_filters": "The systems' filters, then compulsions, of the legal follows (charging, the queen when safe).",
        "_on_lead": "The systems' hooks told of each lead (charging).",
        "_on_card": "The systems' hooks told of each card played (Booster Nines).",
        "_next_player": "The system that passes over positions out of the deal (Domino Hearts), else None.",
        "_trick_full": "The systems' hooks asked whether a full trick goes round again (Booster Nines).",
        "_any_follow_hook": "A system picks the next player, draws before, filters or compels the follows: the "
                            "general follow path.",
        "_plain_tricks": "One deck, no trumps, no system at the trick's end, each position once from the leader: "
                         "the fast trick path.",
    }
    #: Immutable values the deal replaces as it goes, so a clone can share them. The public
    #: ones are read as plain attributes: a property would cost the env about a tenth of its
    #: time per decision (it reads a dozen of them at each).
    _STATE_VALUES = {
        "phase": 'The phase: ``"pass"``, ``"charge"``, ``"play"``, ``"discard"``, ``"moon"`` or ``"done"``.',
        "to_act": "Position to act (meaningless once the deal is over).",
        "legal": "Legal actions of the position to act, a bit mask over the action space; 0 once the deal is over.",
        "scores": "The deal's scores by position once it is over, else None.",
        "renege": "``(position, action, phase)`` of the renege that ended the deal (renege penalty), else None.",
        "values": "Points of each card id (Turbo Hearts: charged cards doubled once charging ends).",
        "penalty_mask": "Bit mask of the deal's cards worth penalty points.",
        "penalty_total": "Every penalty point of the deal (every copy, the kitty's included).",
        "leader": "Position that leads (or led) the trick in progress.",
        "led_suit": "Suit led to the trick in progress; -1 before its lead.",
        "trick": "Cards of the trick in progress, from its leader (a tuple).",
        "voids": "Per position, the suits (bits 0..3) it has shown void in (a tuple).",
        "hearts_broken": "A heart (or Q♠ where it breaks them) has been played.",
        "ten_clubs_taker": "Position that took 10♣ (Turbo Hearts' multiplier), else None.",
        "trick_len": "Cards the trick in progress takes before it is won (Booster Nines add rounds).",
        "kitty_taker": "Position that took the kitty; None until then.",
        "discards_left": "``kitty_to_hand``: cards the taker still has to discard.",
        "face_down_points": "Points of the face-down cards the kitty's taker took (the kitty, or its discards).",
        "moon_shot": "``(position, total)`` of a moon (or sun) shot once the tricks are over, else None.",
        "moon_choice": 'The shooter\'s choice, ``"subtract"`` or ``"add"``, once made; else None.',
        "_last_winner": "Winner of the last trick won (Cancellation, the kitty).",
        # ... and those the rule systems declare (RuleSystem.deal_values)
        **{name: doc for system in SYSTEMS for name, (_, doc) in system.deal_values.items()},
    }
    #: Lists changed in place, of immutable items: clone_deal copies each one. Read through
    #: the queries of the same name without the underscore, as tuples.
    _STATE_LISTS = (
        "_hands", "_hands_twice", "_played",
        "_captured", "_penalty_taken", "_clean_tricks", "_tricks_won",
        "_tricks", "_pending",
        "_pass_picks", "_passed_on", "_pass_receiver", "_received", "_received_cards",
        "_kitty_discards",
        *(name for system in SYSTEMS for name in system.deal_lists),  # those the rule systems declare
    )
    # Slots rather than an instance dict also give the interpreter's fast path for attribute reads
    # and method calls on the hot path (the env reads a dozen fields per decision; docs/performance.md).
    __slots__ = {**_FIXED_FIELDS, **_STATE_VALUES, **dict.fromkeys(_STATE_LISTS)}

    def __deepcopy__(self, memo: dict) -> Deal:
        return clone_deal(self)  # the lists copied, the immutable fields shared

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
        if on_illegal not in ILLEGAL_MODES:
            raise ValueError(f"on_illegal={on_illegal!r} is not allowed; allowed: {list(ILLEGAL_MODES)}")
        how = dealing(rules)
        masks, doubles = _hand_masks(rules, hands, how.copies)
        kitty = _kitty_ids(kitty, how.stock)
        _check_hands(rules, masks, doubles, kitty, how.copies)
        k = len(masks)
        if type(dealer) is not int or not 0 <= dealer < k:  # the common case, a plain int in range, skips this
            dealer = checks.whole("dealer", dealer, 0, k - 1, what="a position")
        if not isinstance(pass_direction, str):
            raise ValueError(f"pass_direction must be a direction name such as 'right' or 'hold', "
                             f"got {checks.shown(pass_direction)}")
        self._set_fixed(rules, masks, doubles, kitty, dealer, seats, totals_before, deals_before, on_illegal)
        passing.setup(self, pass_direction)
        self._set_state(masks, doubles)
        if self.pass_count:
            self.phase = PASS
            self.to_act = self.eldest
            self.legal = passing.legal(self, self.eldest)
        else:
            self._after_passing()

    def _set_fixed(self, rules, masks, doubles, kitty, dealer, seats, totals_before, deals_before, on_illegal) -> None:
        """The facts fixed for the deal, but passing's (:func:`bm_env.systems.passing.setup`)."""
        k = len(masks)
        self.rules = rules
        self.num_players = k
        self.seats = tuple(range(k)) if seats is None else tuple(seats)
        self.on_illegal = on_illegal
        self.totals_before = tuple(totals_before) if totals_before is not None else (0,) * k
        self.deals_before = deals_before
        self.two_decks = dealing(rules).copies == 2
        self.kitty = kitty
        self.dealer = dealer
        self.eldest = (dealer + 1) % k
        self.dealt = tuple(masks)
        self.dealt_twice = tuple(doubles)
        deck = 0
        for m in masks:
            deck |= m
        self.deck = deck
        self._num_actions = rules.num_actions
        hooks = self._hooks = deal_hooks(rules)
        self._lead_filters = hooks.lead_filter
        self._follow_filters = hooks.follow_filter + hooks.follow_compel
        self._on_lead = hooks.on_lead
        self._on_card = hooks.on_card
        self._next_player = hooks.next_player[0] if hooks.next_player else None
        self._trick_full = hooks.trick_full
        self._any_follow_hook = bool(self._follow_filters or hooks.before_follow or hooks.next_player)
        self._plain_tricks = (rules.trumps == "none" and not self.two_decks and not hooks.trick_end
                              and not hooks.trick_positions)

    def _set_state(self, masks: list[int], doubles: list[int]) -> None:
        """The state before the first decision (the phase is set by the caller)."""
        k = self.num_players
        self._hands = list(masks)
        self._hands_twice = list(doubles)  # ids held twice (two decks only)
        self.values = self.rules.card_values
        self._set_penalties()
        self.phase = PASS
        self.to_act = self.eldest
        self.legal = 0
        self.scores: tuple[int, ...] | None = None
        self.renege: tuple[int, int, str] | None = None  # (position, card, phase) under the renege penalty
        self._played = [0] * k  # cards each position has played this deal
        self.voids = (0,) * k
        self._captured = [0] * k  # sum of card values taken
        self._penalty_taken = [0] * k
        self._clean_tricks = [0] * k
        self._tricks_won = [0] * k
        # (leader, cards from leader, winner); winner None for a Cancellation trick left on the table
        self._tricks: list[tuple[int, tuple[int, ...], int | None]] = []
        self.trick: tuple[int, ...] = ()
        self.leader = self.eldest
        self.led_suit = -1
        self.hearts_broken = False
        self._last_winner: int | None = None
        self.ten_clubs_taker: int | None = None
        self._pending: list[tuple[int, ...]] = []  # Cancellation: tricks left on the table
        self._pass_picks: list[tuple[int, ...]] = [()] * k
        self._passed_on = [False] * k  # optional passing: passed on, unseen, what they received
        self._pass_receiver = [(q + self.pass_offset) % k for q in range(k)]  # final holder of q's pass
        self._received = [0] * k
        self._received_cards: list[tuple[int, ...]] = [()] * k
        self.trick_len = k
        self.kitty_taker: int | None = None
        self._kitty_discards: list[int] = []  # kitty_to_hand: cards the taker discarded face down
        self.discards_left = 0
        self.face_down_points = 0
        self.moon_shot: tuple[int, int] | None = None
        self.moon_choice: str | None = None
        for name, initial in _SYSTEM_VALUES:
            setattr(self, name, initial)
        for name, item in _SYSTEM_LISTS:
            setattr(self, name, [item] * k)

    def _set_penalties(self) -> None:
        """Penalty cards and their total over every copy in the deal (kitty included)."""
        values = self.values
        if not self.two_decks and not self.kitty:
            self.penalty_mask, self.penalty_total = _single_deck_penalties(values, self.deck)
            return
        copies = [0] * NUM_CARDS
        for m in self._hands:
            for c in cards_of(m):
                copies[c] += 1
        for m in self._hands_twice:
            for c in cards_of(m):
                copies[c] += 1
        for c in self.kitty:
            copies[c] += 1
        self.penalty_mask = mask_of(c for c in range(NUM_CARDS) if values[c] > 0 and copies[c])
        self.penalty_total = sum(values[c] * copies[c] for c in range(NUM_CARDS) if values[c] > 0)

    # ------------------------------------------------------------------ the read face: the decision
    # (phase, to_act, legal, scores and renege are plain attributes: see _STATE_VALUES)

    @property
    def is_over(self) -> bool:
        """Whether the deal is over (scored, or ended by a renege)."""
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
        """Legal actions of the position to act, ascending."""
        return cards_of(self.legal)

    # ------------------------------------------------------------------ the read face: hands and tricks

    @property
    def hands(self) -> tuple[int, ...]:
        """Cards each position holds, as masks of ids (two decks: a card held twice is also in :attr:`hands_twice`)."""
        return tuple(self._hands)

    def hand_of(self, p: int) -> int:
        """The cards position ``p`` holds, as a mask (one read, no copy of every hand: the env's hot path)."""
        return self._hands[p]

    @property
    def hands_twice(self) -> tuple[int, ...]:
        """Two decks: the ids each position holds twice, as masks (all 0 with one deck)."""
        return tuple(self._hands_twice)

    @property
    def played(self) -> tuple[int, ...]:
        """Cards each position has played this deal, as masks."""
        return tuple(self._played)

    @property
    def tricks(self) -> tuple[tuple[int, tuple[int, ...], int | None], ...]:
        """Tricks finished, in order: ``(leader, cards from the leader, winner)``; winner None for a
        Cancellation trick left on the table."""
        return tuple(self._tricks)

    def hand_cards(self, p: int) -> list[int]:
        """Cards position ``p`` holds, ascending, a card twice when held twice."""
        if not self.two_decks:
            return cards_of(self._hands[p])
        return sorted(cards_of(self._hands[p]) + cards_of(self._hands_twice[p]))

    def hand_count(self, p: int) -> int:
        """Cards position ``p`` holds, copies counted."""
        return bin(self._hands[p]).count("1") + (bin(self._hands_twice[p]).count("1") if self.two_decks else 0)

    def trick_positions(self, t: int) -> tuple[int, ...]:
        """The positions that played the cards of trick ``t``, in order (``t`` = :attr:`tricks_played`: the trick in
        progress): each in turn from the leader, unless a rule system passes some over (Domino Hearts)."""
        leader, cards = self._tricks[t][:2] if t < len(self._tricks) else (self.leader, self.trick)
        for positions in self._hooks.trick_positions:
            return positions(self, t, leader, cards)
        k = self.num_players
        return tuple((leader + i) % k for i in range(len(cards)))

    def taken_apart(self) -> tuple[int, ...]:
        """The cards taken outside the tricks so far, ascending (a kitty or its taker's discards, the cards the last
        player kept: :data:`~bm_env.systems.component.DEAL_HOOKS`' ``taken_apart``); none in the classic rules."""
        return tuple(sorted(c for taken in self._hooks.taken_apart for c in taken(self)))

    @property
    def played_in_trick(self) -> int:
        """Cards of the trick in progress, as a mask."""
        return mask_of(self.trick)

    # ------------------------------------------------------------------ the read face: points

    @property
    def captured(self) -> tuple[int, ...]:
        """Sum of the card values each position has taken."""
        return tuple(self._captured)

    def captured_by(self, p: int) -> int:
        """The sum of the card values position ``p`` has taken (one read, no copy)."""
        return self._captured[p]

    def points_known_to(self, viewer: int | None) -> tuple[int, ...]:
        """The points each position has taken as position ``viewer`` (None: a spectator) knows them.

        The points of the tricks are public; those of the face-down cards the kitty's taker took
        (the kitty, or under ``kitty_to_hand`` its discards) are the taker's alone, as the cards
        are, until the deal is scored.
        """
        taker = self.kitty_taker
        if not self.face_down_points or viewer == taker or self.phase == DONE:
            return tuple(self._captured)
        points = list(self._captured)
        points[taker] -= self.face_down_points
        return tuple(points)

    @property
    def tricks_played(self) -> int:
        """How many tricks have been played to the end (Cancellation's tricks left on the table included)."""
        return len(self._tricks)

    @property
    def penalty_taken(self) -> tuple[int, ...]:
        """Penalty points (positive values) each position has taken."""
        return tuple(self._penalty_taken)

    @property
    def clean_tricks(self) -> tuple[int, ...]:
        """Tricks each position has won without a valued card."""
        return tuple(self._clean_tricks)

    @property
    def tricks_won(self) -> tuple[int, ...]:
        """Tricks each position has won."""
        return tuple(self._tricks_won)

    # ------------------------------------------------------------------ the read face: passing

    @property
    def pass_picks(self) -> tuple[tuple[int, ...], ...]:
        """Cards each position has picked to pass, in order (kept after they move)."""
        return tuple(self._pass_picks)

    @property
    def passed_on(self) -> tuple[bool, ...]:
        """Whether each position passed on, unseen, the cards passed to it."""
        return tuple(self._passed_on)

    @property
    def received(self) -> tuple[int, ...]:
        """Cards each position received in the pass, as masks (0 until they move)."""
        return tuple(self._received)

    @property
    def received_cards(self) -> tuple[tuple[int, ...], ...]:
        """Cards each position received in the pass, as sorted ids (a card twice when received twice;
        () until they move)."""
        return tuple(self._received_cards)

    @property
    def passes_revealed(self) -> bool:
        """Whether the passed cards have moved (they move only when every player has passed)."""
        return self.phase != PASS

    def pass_target(self, p: int, pick: int = 0) -> int:
        """Position that the ``pick``-th card ``p`` passes goes to by the direction (scatter: each pick
        its own receiver), before any passing on."""
        return passing.target(self, p, pick)

    def passed_to(self, p: int) -> tuple[tuple[int, int], ...]:
        """``(card, position)`` for each card ``p`` picked to pass: who gets it by the direction until the
        cards move, then who received it (passing on can send a stack further)."""
        return passing.passed_to(self, p)

    def received_from(self, p: int) -> int | None:
        """Position whose pass ``p`` received; None before the cards move, on a hold or scatter deal, or
        when no stack came to ``p``."""
        return passing.received_from(self, p)

    # ------------------------------------------------------------------ the read face: the other rule systems

    @property
    def kitty_discards(self) -> tuple[int, ...]:
        """kitty_to_hand: the cards the taker discarded face down, in order."""
        return tuple(self._kitty_discards)

    @property
    def pending(self) -> tuple[tuple[int, ...], ...]:
        """Cancellation: the tricks left on the table for the next winner, each a tuple of cards."""
        return tuple(self._pending)

    # ------------------------------------------------------------------ stepping

    def step(self, action: int) -> None:
        """Apply the action of the position to act."""
        if type(action) is not int:  # the common case, a plain int, skips this
            if isinstance(action, bool) or not isinstance(action, np.integer):
                raise IllegalActionError(f"an action must be an int action id in 0..{self._num_actions - 1} "
                                         f"(a Python or numpy integer), got {checks.shown(action)}")
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
            if passing.pick(self, action, bit):
                self._after_passing()
        else:  # a phase of a rule system's (charging, the kitty's discards, the moon choice)
            self._hooks.phases[phase](self, action, bit)

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
        # The Black Maria guide's renege penalty (docs/rules.md): the offender takes every penalty point
        # of the deal, the deal ends.
        # It answers an illegal action in every decision (a charge, a discard, a moon choice too).
        self.renege = (p, action, self.phase)
        if self.rules.lower_wins:
            penalty = self.penalty_total
        else:
            penalty = sum(self.values[c] for c in cards_of(self.deck) if self.values[c] < 0)
        offenders = next(u for u in scoring_units(self.rules, self.num_players) if p in u)  # a team scores jointly
        self.scores = tuple(penalty if q in offenders else 0 for q in range(self.num_players))
        self.phase = DONE
        self.legal = 0

    def _next_in_round(self, legal_of) -> bool:
        """A round in which each position acts once from the eldest (passing, charging): the
        next position takes the turn, its legal set from ``legal_of(deal, position)``; True
        when the position that just acted was the last of the round."""
        nxt = (self.to_act + 1) % self.num_players
        if nxt == self.eldest:
            return True
        self.to_act = nxt
        self.legal = legal_of(self, nxt)
        return False

    def _remove(self, p: int, bit: int) -> None:
        if self.two_decks and self._hands_twice[p] & bit:
            self._hands_twice[p] ^= bit
        else:
            self._hands[p] ^= bit

    def _add(self, p: int, c: int) -> None:
        bit = 1 << c
        if self._hands[p] & bit:
            if not self.two_decks or self._hands_twice[p] & bit:
                raise AssertionError(f"position {p} would hold {card_str(c)} more often than the decks have it")
            self._hands_twice[p] |= bit
        else:
            self._hands[p] |= bit

    def _after_passing(self) -> None:
        for start_phase in self._hooks.after_passing:
            if start_phase(self):
                return
        self._start_play()

    # ------------------------------------------------------------------ play

    def _start_play(self) -> None:
        self.phase = PLAY
        lead = self.rules.first_lead
        if lead.startswith("lowest_club"):
            lowest = self.deck & _CLUB_MASK  # the kitty apart: the lowest club present leads (Pagat)
            lowest &= -lowest
            self.leader = next(q for q in range(self.num_players) if self._hands[q] & lowest)
        else:
            self.leader = self.eldest
        self.to_act = self.leader
        self.legal = self._lead_legal(self.leader)

    def _lead_legal(self, p: int) -> int:
        rules = self.rules
        hand = self._hands[p]
        if not self._tricks:
            lead = rules.first_lead
            if lead == "lowest_club":
                low = self.deck & _CLUB_MASK
                return low & -low
            if lead == "lowest_club_any_club":
                legal = self._first_trick_rule(hand & _CLUB_MASK)  # a club of no value, where clubs score
            else:
                if lead == "eldest_non_heart":
                    legal = hand & ~_HEART_MASK or hand
                else:
                    legal = hand
                legal = self._hearts_rule(hand, legal)
                legal = self._first_trick_rule(legal)
        else:
            legal = self._hearts_rule(hand, hand)
        if self._lead_filters:
            for lead_filter in self._lead_filters:
                legal = lead_filter(self, p, legal)
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
        if self.rules.first_trick_no_points and not self._tricks:
            clean = legal & ~self.penalty_mask
            if clean:
                return clean
        return legal

    def _follow_legal(self, p: int) -> int:
        for before_follow in self._hooks.before_follow:
            before_follow(self, p)
        hand = self._hands[p]
        follow = hand & SUIT_MASKS[self.led_suit]
        legal = follow if follow else hand
        if not self._tricks:
            legal = self._first_trick_rule(legal)
        for follow_filter in self._follow_filters:
            legal = follow_filter(self, p, legal, follow)
        return legal

    def _play(self, c: int, bit: int) -> None:
        p = self.to_act
        if self.two_decks and self._hands_twice[p] & bit:
            self._hands_twice[p] ^= bit
        else:
            self._hands[p] ^= bit
        self._played[p] |= bit
        trick = self.trick
        suit = c // NUM_RANKS
        if not trick:
            self.led_suit = suit
            if self._on_lead:  # tested first: looping over no hooks costs the classic rules an iterator a card
                for on_lead in self._on_lead:
                    on_lead(self, suit)
        elif suit != self.led_suit:
            voids = self.voids
            self.voids = voids[:p] + (voids[p] | 1 << self.led_suit,) + voids[p + 1:]
        trick = self.trick = trick + (c,)
        if suit == HEARTS or (c == QUEEN_SPADES and self.rules.queen_breaks_hearts):
            # A heart can only be played as a discard or as a lead by necessity; the British rules say
            # both break hearts, so "discarded on another suit" and "any heart played" coincide.
            self.hearts_broken = True
        if self._on_card:
            for on_card in self._on_card:
                on_card(self, c, suit)
        nxt = (p + 1) % self.num_players
        if len(trick) >= self.trick_len and not (self._trick_full and self._goes_round(nxt)):
            self._finish_trick()
            return
        if self._any_follow_hook:
            if self._next_player:  # a system passes over the players out of the deal
                nxt = self._next_player(self, nxt)
            self.to_act = nxt
            self.legal = self._follow_legal(nxt)
            return
        self.to_act = nxt
        hand = self._hands[nxt]
        follow = hand & SUIT_MASKS[self.led_suit]
        legal = follow if follow else hand
        if not self._tricks:
            legal = self._first_trick_rule(legal)
        self.legal = legal

    def _goes_round(self, nxt: int) -> bool:
        """Whether a system sends the full trick round again, from ``nxt`` (Booster Nines). Apart from
        :meth:`_play`, whose locals a generator over the hooks would turn into closure cells at every card."""
        for goes_on in self._trick_full:
            if goes_on(self, nxt):
                return True
        return False

    def _trick_winner(self, trick: list[int]) -> int | None:
        """Position of the trick's winner, or None when every led-suit card is cancelled."""
        led = self.led_suit
        winning = None
        if self.rules.trumps == "hearts":
            trumps = [c for c in trick if c // NUM_RANKS == HEARTS]
            if trumps:
                winning = max(trumps)
        if winning is None:
            followers = [c for c in trick if c // NUM_RANKS == led]
            if self.two_decks:
                followers = cancellation.standing(trick, followers)
                if not followers:
                    return None
            winning = max(followers)
        if self._hooks.trick_positions:
            return self.trick_positions(len(self._tricks))[trick.index(winning)]
        return (self.leader + trick.index(winning)) % self.num_players

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
        self._captured[winner] += pts
        self._penalty_taken[winner] += pen
        self._tricks_won[winner] += 1
        if not valued:
            self._clean_tricks[winner] += 1
        return pen

    def _take_points(self, p: int, cards: Sequence[int], face_down: bool = True) -> None:
        """Cards added to ``p``'s captured cards outside a trick: face down (a kitty, discards: their points are
        ``p``'s alone until the deal is scored, :meth:`points_known_to`), or not (the cards Domino Hearts' last
        player keeps, as the tricks end)."""
        for c in cards:
            v = self.values[c]
            self._captured[p] += v
            if face_down:
                self.face_down_points += v
            if v > 0:
                self._penalty_taken[p] += v
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
            for trick_end in self._hooks.trick_end:
                trick_end(self)
        self._tricks.append((self.leader, trick, winner))
        self.trick = ()
        self.led_suit = -1
        if winner is None:  # Cancellation: every led-suit card cancelled, nobody wins the trick
            if cancellation.leave_on_table(self, trick):
                self.to_act = self.leader  # the same player leads again
                self.legal = self._lead_legal(self.leader)
                return
            winner = cancellation.last_taker(self)
            pen = cancellation.collect_table(self, winner)
        else:
            pen = self._collect(winner, trick)
            if self._pending:
                pen += cancellation.collect_table(self, winner)
        self._last_winner = winner
        self.leader = winner
        for start_phase in self._hooks.trick_won:
            if start_phase(self, winner, pen):
                return
        if self._hands[winner]:
            self.to_act = winner
            self.legal = self._lead_legal(winner)
            return
        self._end()

    def _end(self) -> None:
        for after_tricks in self._hooks.after_tricks:
            after_tricks(self)
        self.moon_shot = moon_shooter(self.rules, self._penalty_taken, self.penalty_total, self._tricks_won)
        for start_phase in self._hooks.before_scoring:
            if start_phase(self):
                return
        self._score()

    def _score(self) -> None:
        self.phase = DONE
        self.legal = 0
        self.scores = deal_scores(
            self.rules, self._captured, self._penalty_taken, self.penalty_total, self._clean_tricks,
            self.totals_before, self.deals_before, tricks_won=self._tricks_won,
            multipliers=ten_clubs.multipliers(self), moon_choice=self.moon_choice,
        )


def _hand_masks(rules: Rules, hands: Sequence[int | Sequence[int]], copies: int) -> tuple[list[int], list[int]]:
    """Hands as (ids held, ids held twice) masks; a hand is a mask or a sequence of card ids.

    Every mask and card id is checked by :mod:`~bm_env.engine.checks` first: a negative mask
    would never end a walk over its bits, and a float id would be read as another card.
    """
    if type(hands) not in (list, tuple) and not checks.is_sequence(hands):
        raise ValueError(f"hands must be a sequence of hands, one per position, got {checks.shown(hands)}")
    masks, doubles = [], []
    # Plain ints in range, the common case (a search plays thousands of deals), skip the checks' calls.
    for i, h in enumerate(hands):
        if checks.is_whole(h):
            in_range = type(h) is int and 0 <= h <= checks.MAX_MASK
            masks.append(h if in_range else checks.card_mask(f"the hand of position {i}", h))
            doubles.append(0)
            continue
        if type(h) not in (list, tuple) and not checks.is_sequence(h):
            raise ValueError(f"the hand of position {i} must be a bit mask or a sequence of card ids, "
                             f"got {checks.shown(h)}")
        once = twice = 0
        for c in h:
            bit = 1 << (c if type(c) is int and 0 <= c < NUM_CARDS else checks.card_id(f"a card of position {i}", c))
            if twice & bit or (once & bit and copies == 1):
                raise ValueError(
                    f"card {card_str(int(c))} appears too often in the hand of position {i} "
                    f"({copies} deck(s) in play)"
                )
            if once & bit:
                twice |= bit
            else:
                once |= bit
        masks.append(once)
        doubles.append(twice)
    return masks, doubles


def _kitty_ids(kitty: Sequence[int], stock: bool) -> tuple[int, ...]:
    """The cards left apart, each checked as a card id: sorted, or a stock's in the order given."""
    if not kitty and type(kitty) in (list, tuple):
        return ()
    if not checks.is_sequence(kitty):
        raise ValueError(f"kitty must be a sequence of card ids, got {checks.shown(kitty)}")
    ids = [c if type(c) is int and 0 <= c < NUM_CARDS else checks.card_id("a card of the kitty", c) for c in kitty]
    return tuple(ids if stock else sorted(ids))


def _check_hands(rules: Rules, masks: list[int], doubles: list[int], kitty: tuple[int, ...], copies: int) -> None:
    k = len(masks)
    top = MAX_PLAYERS_ONE_DECK if copies == 1 else MAX_PLAYERS_TWO_DECKS
    if not 2 <= k <= top:
        raise ValueError(f"a deal has 2 to {top} players, got {k} hands")
    shape = _shape(rules, k)
    apart = shape.apart
    if kitty and not apart:
        raise ValueError(f"these rules leave no card apart (no kitty, no stock), but a kitty of {len(kitty)} was given")
    if len(kitty) != apart:
        raise ValueError(f"the kitty must hold the {apart} cards left over, got {len(kitty)}")
    expected = shape.expected
    if copies == 1:
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
            deck = "full deck" if shape.full_deck else f"deck of deck table {rules.deck_table!r}"
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
    """An independent copy of a deal in progress (search players play copies out).

    The copy shares the immutable fields and gets its own copy of each list that
    ``Deal._STATE_LISTS`` declares.
    """
    new = object.__new__(Deal)
    for name, value in zip(_SHARED, _read_shared(deal)):
        setattr(new, name, value)
    for name, value in zip(_STATE_LISTS, _read_lists(deal)):
        setattr(new, name, value.copy())
    return new


_STATE_LISTS = Deal._STATE_LISTS
#: The rule systems' state (RuleSystem.deal_values, deal_lists): each value's and each list item's start.
_SYSTEM_VALUES = tuple((name, initial) for system in SYSTEMS for name, (initial, _) in system.deal_values.items())
_SYSTEM_LISTS = tuple((name, item) for system in SYSTEMS for name, (item, _) in system.deal_lists.items())
_SHARED = (*Deal._FIXED_FIELDS, *Deal._STATE_VALUES)  # immutable: a clone shares them
_read_shared = operator.attrgetter(*_SHARED)
_read_lists = operator.attrgetter(*_STATE_LISTS)
