"""The incremental observation of the extension rule systems: charges, kitties, two decks, teams.

:class:`FeatureTracker` extends :class:`~bm_env.env.tracker.ObservationTracker` to the
parts :func:`bm_env.env.observation.layout` appends for these rules, and to what they change
in the classic parts: card planes that count copies (two decks), pass picks that each
have their own receiver (scatter) or that reach someone further on (passing on), tricks
left on the table (Cancellation), a seat playing twice to a boosted trick, points taken
outside a trick (the kitty, its discards: shown in their taker's row only until the deal is
scored). The environment hands it each decision with :meth:`FeatureTracker.stepped`.

The frequent events (a pass pick, a card played, a trick won) write their few cells as
the classic tracker does. The rare ones (a charge, a passed-on stack, the kitty taken, a
discard, the change of phase, the moon) rewrite the parts they touch from the deal, and
a few small caches (points, pending cards, kitty taker, boosts) tell which did change, so
a decision costs a handful of comparisons more than in the classic rules and no call of
the reference encoder. The rows must always equal ``encode(information_state(...))``;
the tests check that after every decision of random play in every preset and option.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

import numpy as np

from ..engine.actions import CHARGE_CARD, CHARGE_DONE, CHARGEABLE, PASS_ON
from ..engine.cards import NUM_CARDS, NUM_RANKS
from ..engine.deal import CHARGE, DISCARD, DONE, MOON, PASS, PLAY, Deal
from ..engine.rules import SCATTER, Rules
from .observation import EXTRA_PHASES, features
from .tracker import ObservationTracker, _put_number


def _count_plane(cards: Iterable[int]) -> bytes:
    """The 52 cells of a card plane counting the copies of each card in ``cards``."""
    cells = bytearray(NUM_CARDS)
    for c in cards:
        cells[c] += 1
    return bytes(cells)


#: The classic phase cells (passing, playing) and the extra-phase cells of each phase.
_PHASE_CELLS = {ph: (int(ph == PASS), int(ph == PLAY)) for ph in (PASS, PLAY, DONE, *EXTRA_PHASES)}
_EXTRA_CELLS = {ph: tuple(int(ph == x) for x in EXTRA_PHASES) for ph in (PASS, PLAY, DONE, *EXTRA_PHASES)}


class FeatureTracker(ObservationTracker):
    """One observation row per match seat for rules with extension options (see the module docstring)."""

    _STATE = ObservationTracker._STATE + ("_points_shown", "_pending_shown", "_taker_shown", "_boosts_shown")

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules)
        feats = features(rules)
        n = self.n
        at, about = self.at, self.about
        self.two_decks = rules.decks == 2
        self._booster = rules.booster_nines
        self._pass_on = rules.optional_pass
        self._extra_phase = tuple(at(me, "extra_phase") for me in range(n))
        self._pending = tuple(at(me, "pending_trick_cards") for me in range(n)) if "two_decks" in feats else None
        self._has_kitty = "kitty" in feats
        if self._has_kitty:
            self._kitty_taker = [about("kitty_taker", s) for s in range(n)]
            self._kitty_cards = [at(me, "kitty_cards") for me in range(n)]
            self._kitty_discarded = [at(me, "kitty_discarded") for me in range(n)]
        self._passed_on = [about("passed_on", s) for s in range(n)] if "optional_pass" in feats else None
        has_moon = "moon_choice" in feats or "sun" in feats
        self._moon_shooter = [about("moon_shooter", s) for s in range(n)] if has_moon else None
        if "charging" in feats:
            # charge action -> per seat, that card's cell in every row
            k = len(CHARGEABLE)
            self._charged = {a: [tuple(i + CHARGEABLE.index(c) for i in about("charged", s, k)) for s in range(n)]
                             for a, c in CHARGE_CARD.items()}
        self._boosts = tuple(at(me, "boosts_owed") for me in range(n)) if self._booster else ()
        # What the rows show of the deal where the deal may change it without a card moving.
        self._points_shown: tuple = ()  # (captured, public) by position: Deal.captured, Deal.points_known_to(None)
        self._pending_shown = 0
        self._taker_shown: int | None = None
        self._boosts_shown = 0

    # ------------------------------------------------------------------ whole rows

    def start(self, deal: Deal, totals, deals_played: int) -> None:
        """Write every row for a deal that has just begun (:meth:`~bm_env.env.tracker.ObservationTracker.start`);
        with two decks, each hand's plane counts the copies held."""
        super().start(deal, totals, deals_played)
        if self.two_decks:
            for pos, seat in enumerate(deal.seats):
                self._write_plane(self._hand[seat], deal.hand_cards(pos))
        self._points_shown = ((0,) * deal.num_players,) * 2
        self._pending_shown = 0
        self._taker_shown = None
        self._boosts_shown = 0

    def _opening(self, deal: Deal) -> bytes:
        key = (deal.seats, deal.dealer, deal.phase, deal.pass_count, deal.pass_offset, deal.pass_direction,
               len(deal.kitty))
        rows = self._openings.get(key)
        if rows is None:
            rows = self._openings[key] = self._build_opening(deal).tobytes()
        return rows

    def _build_opening(self, deal: Deal) -> np.ndarray:
        rows = super()._build_opening(deal)
        o = self._o
        n = self.n
        seats = deal.seats
        k = len(seats)
        scatter = deal.pass_direction == SCATTER and deal.pass_count > 0
        for me, row in enumerate(rows):
            row[o["extra_phase"]] = _EXTRA_CELLS[deal.phase]
            if scatter:  # every other player of the deal receives part of my pass
                pos = seats.index(me) if me in seats else 0
                row[o["pass_receiver"]] = 0
                for r in range(1, k):
                    row[o["pass_receiver"].start + (seats[(pos + r) % k] - me) % n] = 1
            if "scatter_deal" in o:
                row[o["scatter_deal"].start] = scatter
            if "kitty_size" in o:
                row[o["kitty_size"].start] = len(deal.kitty)
            if "partner" in o:
                row[o["partner"].start + (2 % n)] = 1  # the partner sits across: two seats to the left
        return rows

    def deal_over(self) -> None:
        """The deal has ended: neither phase cell nor any extra-phase cell is set."""
        super().deal_over()
        for i in self._extra_phase:
            self._view[i:i + len(EXTRA_PHASES)] = bytes(len(EXTRA_PHASES))

    def _write_plane(self, start: int, cards: Iterable[int]) -> None:
        self._view[start:start + NUM_CARDS] = _count_plane(cards)

    # ------------------------------------------------------------------ decisions

    def stepped(self, deal: Deal, p: int, phase: str, action: int, led_suit: int, was_broken: bool) -> None:
        """Position ``p`` of ``deal`` took ``action`` in ``phase``; ``led_suit`` and ``was_broken``
        are the deal's led suit and hearts-broken flag from before it."""
        seat = deal.seats[p]
        buf = self._buffer
        if phase == PLAY:
            if self.two_decks:
                self._card_played_twice(seat, action, led_suit, deal.hearts_broken and not was_broken)
            else:
                self.card_played(seat, action, led_suit, deal.hearts_broken and not was_broken)
            if deal.led_suit < 0:  # no trick on the table: that card finished one (or left it there)
                self._trick_over(deal)
            if self._booster and deal.boosts != self._boosts_shown:
                self._boosts_shown = deal.boosts
                for i in self._boosts:
                    buf[i] = deal.boosts
        elif phase == PASS:
            if action == PASS_ON:
                for i in self._passed_on[seat]:
                    buf[i] = 1
            else:
                receiver = deal.pass_target(p, len(deal.pass_picks[p]) - 1)
                self._take_from_hand(seat, action)
                buf[self._passed[seat][deal.seats[receiver]] + action] += 1
            if deal.phase != PASS:
                self._passes_moved(deal)
        elif phase == CHARGE:
            if action != CHARGE_DONE:
                for i in self._charged[action][seat]:
                    buf[i] = 1
        elif phase == DISCARD:
            self._take_from_hand(seat, action)
            buf[self._kitty_discarded[seat] + action] += 1
            self._sync_points(deal)
        if deal.phase != phase:
            self._phase_changed(deal)

    def _take_from_hand(self, seat: int, card: int) -> None:
        if self.two_decks:
            self._buffer[self._hand[seat] + card] -= 1
        else:
            self._buffer[self._hand[seat] + card] = 0

    def _card_played_twice(self, seat: int, card: int, led_suit: int, broke_hearts: bool) -> None:
        """:meth:`card_played` where a cell counts copies: a card can be played twice in a deal."""
        buf = self._buffer
        buf[self._hand[seat] + card] -= 1
        if led_suit < 0:
            for i in self._lead_cells[seat][card]:
                buf[i] += 1  # the leader and led-suit cells are clear while no trick is on
        else:
            for i in self._follow_cells[seat][card]:
                buf[i] += 1
            if card // NUM_RANKS != led_suit:
                for i in self._void_cells[seat][led_suit]:
                    buf[i] = 1
        if broke_hearts:
            for i in self._hearts:
                buf[i] = 1

    def _trick_over(self, deal: Deal) -> None:
        """A trick has left the table: won, or (Cancellation) left there for the next winner."""
        view = self._view
        for span, zeros in self._trick_spans:
            view[span] = zeros
        buf = self._buffer
        tricks = deal.tricks_played
        for i in self._tricks_played:
            buf[i] = tricks
        self._sync_points(deal)
        if self._pending is not None and len(deal.pending) != self._pending_shown:
            self._pending_shown = len(deal.pending)
            plane = _count_plane(c for cards in deal.pending for c in cards)
            for i in self._pending:
                view[i:i + NUM_CARDS] = plane
        if self._has_kitty and deal.kitty_taker is not None and self._taker_shown is None:
            self._kitty_taken(deal)

    def _sync_points(self, deal: Deal) -> None:
        """Each seat's points as every row may show them: the public ones (``Deal.points_known_to``),
        and in the kitty taker's own row its face-down cards' points too."""
        captured = deal.captured
        public = deal.points_known_to(None)
        if (captured, public) != self._points_shown:
            buf = self._buffer
            for pos, (v, seen, was) in enumerate(zip(captured, public, zip(*self._points_shown))):
                if (v, seen) != was:
                    cells = self._points[deal.seats[pos]]
                    _put_number(buf, cells, seen)
                    if v != seen:
                        _put_number(buf, (cells[deal.seats[pos]],), v)
            self._points_shown = (captured, public)

    def _kitty_taken(self, deal: Deal) -> None:
        """The kitty's taker is public; its cards (and, kitty_to_hand, its new hand) the taker's alone."""
        taker = deal.kitty_taker
        seat = deal.seats[taker]
        self._taker_shown = taker
        for i in self._kitty_taker[seat]:
            self._buffer[i] = 1
        self._write_plane(self._kitty_cards[seat], deal.kitty)
        if deal.rules.kitty_to_hand:
            self._write_plane(self._hand[seat], deal.hand_cards(taker))

    def _passes_moved(self, deal: Deal) -> None:
        """Every player has passed: each hand and received plane as the deal now has them; a stack
        passed on reaches a receiver further on, whom its passer now knows."""
        seats = deal.seats
        for pos, seat in enumerate(seats):
            self._write_plane(self._hand[seat], deal.hand_cards(pos))
            self._write_plane(self._received[seat], deal.received_cards[pos])
        if not self._pass_on:
            return
        buf = self._buffer
        for pos, seat in enumerate(seats):
            sent = deal.passed_to(pos)
            if not sent:
                continue
            first, final = seats[deal.pass_target(pos)], seats[sent[0][1]]
            if final == first:
                continue
            planes = self._passed[seat]
            for c, m in Counter(c for c, _ in sent).items():
                buf[planes[first] + c] = 0
                if final != seat:  # a chain that brings the cards back: they are in my hand
                    buf[planes[final] + c] = m

    def _phase_changed(self, deal: Deal) -> None:
        phase = deal.phase
        view = self._view
        cells, extra = bytes(_PHASE_CELLS[phase]), bytes(_EXTRA_CELLS[phase])
        for i in self._phase:
            view[i:i + 2] = cells
        for i in self._extra_phase:
            view[i:i + len(extra)] = extra
        if phase in (DONE, MOON):
            self._sync_points(deal)  # the kitty of a deal with no point taken goes to the last trick's winner
            if self._has_kitty and deal.kitty_taker is not None and self._taker_shown is None:
                self._kitty_taken(deal)
            if self._moon_shooter is not None and deal.moon_shot is not None:
                for i in self._moon_shooter[deal.seats[deal.moon_shot[0]]]:
                    self._buffer[i] = 1


def tracker_for(rules: Rules) -> ObservationTracker:
    """The tracker of ``rules``: a :class:`FeatureTracker` where they use extension options (extra phases, two
    decks, teams...), else the plain :class:`~bm_env.env.tracker.ObservationTracker`, whose few events are the
    classic presets' fast path."""
    return FeatureTracker(rules) if rules.uses_extensions else ObservationTracker(rules)
