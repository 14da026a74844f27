"""The incremental observation of rules with extension systems: the shared cells, and the systems' faces.

:class:`FeatureTracker` extends :class:`~bm_env.env.tracker.ObservationTracker` to every rule
system. It writes what the systems share, in terms that hold for all of them: card planes that
count copies (a hand may hold a card twice), each pass pick to the receiver of that pick, tricks
counted by the deal (a trick can stay on the table), the points each row may know (a taker's
face-down points are in its own row only), the classic and the extra phase cells. Everything
else a system adds or changes is its face's (:mod:`bm_env.env.faces`: the system's
``tracker`` module), which it calls at the events of a deal: a deal begun, a trick over, the
passes moved, a phase entered, a decision taken, the deal over. The opening rows of a deal
(before any decision) are the reference encoder's, built once per seating, dealer, phase and pass
and copied at every later start, so no face writes them.

The classic rules keep :class:`~bm_env.env.tracker.ObservationTracker`, which holds what they
promise: one copy of each card, one receiver per pass, points taken only with a won trick, no
face to call. A decision there sets a few cells; here a pass pick asks the deal for its receiver,
a trick's end compares every seat's points, and each decision looks up the faces that follow it,
which the classic presets need not pay for.

The rows must always equal ``encode(information_state(...))``; the tests check that after
every decision of random play in every preset and option.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import numpy as np

from ..engine.cards import NUM_CARDS, NUM_RANKS
from ..engine.deal import DONE, PASS, PLAY, Deal
from ..engine.infostate import information_state
from ..engine.rules import Rules
from ..systems import SYSTEMS
from .observation import EXTRA_PHASES, encode, features
from .tracker import ObservationTracker, _put_number

if TYPE_CHECKING:
    from .faces import TrackerFace


def count_plane(cards: Iterable[int]) -> bytes:
    """The 52 cells of a card plane counting the copies of each card in ``cards``."""
    cells = bytearray(NUM_CARDS)
    for c in cards:
        cells[c] += 1
    return bytes(cells)


#: The classic phase cells (passing, playing) and the extra-phase cells of each phase.
_PHASE_CELLS = {ph: bytes((ph == PASS, ph == PLAY)) for ph in (PASS, PLAY, DONE, *EXTRA_PHASES)}
_EXTRA_CELLS = {ph: bytes(ph == x for x in EXTRA_PHASES) for ph in (PASS, PLAY, DONE, *EXTRA_PHASES)}


class FeatureTracker(ObservationTracker):
    """One observation row per match seat for rules with extension systems (see the module docstring)."""

    _STATE = ObservationTracker._STATE + ("_points_shown",)
    #: Every phase a decision can be taken in: the classic two, then the systems' own.
    phases = (PASS, PLAY, *EXTRA_PHASES)

    def __init__(self, rules: Rules) -> None:
        from .faces import face_class, follows  # imported here: the faces' module imports this one

        super().__init__(rules)
        n = self.n
        self._extra_phase = tuple(self.at(me, "extra_phase") for me in range(n))
        self._points_shown: tuple = ()  # (captured, public) by position: Deal.captured, Deal.points_known_to(None)
        faces: list[TrackerFace] = []
        for system in SYSTEMS:
            face = face_class(system) if system.features(rules) else None
            if face is not None:
                faces.append(face(self, system))
        self.holds_copies = any(face.holds_copies for face in faces)
        # Each event's followers: an event calls only the faces that do something at it.
        self._on_started = tuple(f for f in faces if follows(f, "started"))
        self._on_trick_over = tuple(f for f in faces if follows(f, "trick_over"))
        self._on_passes_moved = tuple(f for f in faces if follows(f, "passes_moved"))
        self._on_phase_changed = tuple(f for f in faces if follows(f, "phase_changed"))
        self._on_deal_over = tuple(f for f in faces if follows(f, "deal_over"))
        self._on_decided = {ph: tuple(f for f in faces if ph in f.decided_in) for ph in self.phases}

    # ------------------------------------------------------------------ for the faces

    @property
    def offsets(self) -> dict[str, slice]:
        """Where each part of the layout is in a row, by name."""
        return self._o

    @property
    def cells(self) -> bytearray:
        """Every row's cells, one byte each (a negative number as its int8 two's complement): what faces write."""
        return self._buffer

    @property
    def view(self) -> memoryview:
        """:attr:`cells` as a memoryview, whose slice writes set runs of cells fastest."""
        return self._view

    def write_plane(self, start: int, cards: Iterable[int]) -> None:
        """Set the card plane at ``start`` to count the copies of each card in ``cards``."""
        self._view[start:start + NUM_CARDS] = count_plane(cards)

    def write_hand(self, deal: Deal, p: int) -> None:
        """Set the hand plane of position ``p``'s row to the cards it holds."""
        self.write_plane(self._hand[deal.seats[p]], deal.hand_cards(p))

    def sync_points(self, deal: Deal) -> None:
        """Each seat's points as every row may know them: the public ones (``Deal.points_known_to``),
        and in the taker's own row the face-down cards' points too."""
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

    # ------------------------------------------------------------------ whole rows

    def start(self, deal: Deal, totals, deals_played: int) -> None:
        """Write every row for a deal that has just begun (no decision taken yet)."""
        self._view[:] = self._opening(deal)
        for pos in range(deal.num_players):
            self.write_hand(deal, pos)
        self.match_numbers(totals, deals_played)
        self._points_shown = ((0,) * deal.num_players,) * 2
        for face in self._on_started:
            face.started(self, deal)

    def _opening(self, deal: Deal) -> bytes:
        key = (deal.seats, deal.dealer, deal.phase, deal.pass_count, deal.pass_direction)
        rows = self._openings.get(key)
        if rows is None:
            rows = self._openings[key] = self._build_opening(deal).tobytes()
        return rows

    def _build_opening(self, deal: Deal) -> np.ndarray:
        """Each seat's encoding of the deal's start, less the hands, which :meth:`start` writes: the rules,
        the seats and the pass, and each system's cells before any decision."""
        rows = np.stack([encode(information_state(deal, me)) for me in range(self.n)])
        rows[:, self._o["hand"]] = 0
        return rows

    def deal_over(self, deal: Deal) -> None:
        """The deal has ended: neither phase cell nor any extra-phase cell is set."""
        self._write_phase(DONE)
        for face in self._on_deal_over:
            face.deal_over(self, deal)

    # ------------------------------------------------------------------ decisions

    def stepped(self, deal: Deal, p: int, phase: str, action: int, led_suit: int, was_broken: bool) -> None:
        """Position ``p`` of ``deal`` took ``action`` in ``phase``; ``led_suit`` and ``was_broken``
        are the deal's led suit and hearts-broken flag from before it."""
        seat = deal.seats[p]
        if phase == PLAY:
            if self.holds_copies:
                self._copy_played(seat, action, led_suit, deal.hearts_broken and not was_broken)
            else:
                self.card_played(seat, action, led_suit, deal.hearts_broken and not was_broken)
            if deal.led_suit < 0:  # no trick on the table: that card finished one (or left it there)
                self._trick_over(deal)
        elif phase == PASS and action < NUM_CARDS:
            self._pass_pick(deal, p, seat, action)
        if deal.phase != phase:
            if phase == PASS:
                self._passes_moved(deal)
            self._write_phase(deal.phase)
            for face in self._on_phase_changed:
                face.phase_changed(self, deal)
        for face in self._on_decided[phase]:
            face.decided(self, deal, p, phase, action)

    def _copy_played(self, seat: int, card: int, led_suit: int, broke_hearts: bool) -> None:
        """:meth:`~bm_env.env.tracker.ObservationTracker.card_played` where a cell counts copies: a card
        can be played twice in a deal."""
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
        """A trick has left the table: won, or (two decks) left there for the next winner."""
        view = self._view
        for span, zeros in self._trick_spans:
            view[span] = zeros
        buf = self._buffer
        tricks = deal.tricks_played
        for i in self._tricks_played:
            buf[i] = tricks
        self.sync_points(deal)
        for face in self._on_trick_over:
            face.trick_over(self, deal)

    def _pass_pick(self, deal: Deal, p: int, seat: int, card: int) -> None:
        """``seat`` put ``card`` aside for the receiver of this pick (each pick of a scatter pass has its own)."""
        receiver = deal.pass_target(p, len(deal.pass_picks[p]) - 1)
        buf = self._buffer
        buf[self._hand[seat] + card] -= 1
        buf[self._passed[seat][deal.seats[receiver]] + card] += 1

    def _passes_moved(self, deal: Deal) -> None:
        """Every player has passed: each hand and received plane as the deal now has them."""
        for pos, seat in enumerate(deal.seats):
            self.write_hand(deal, pos)
            self.write_plane(self._received[seat], deal.received_cards[pos])
        for face in self._on_passes_moved:
            face.passes_moved(self, deal)

    def _write_phase(self, phase: str) -> None:
        view = self._view
        cells, extra = _PHASE_CELLS[phase], _EXTRA_CELLS[phase]
        for i in self._phase:
            view[i:i + 2] = cells
        for i in self._extra_phase:
            view[i:i + len(extra)] = extra


def tracker_for(rules: Rules) -> ObservationTracker:
    """The tracker of ``rules``: a :class:`FeatureTracker` where they use extension systems, else the plain
    :class:`~bm_env.env.tracker.ObservationTracker`, whose few events are the classic presets' fast path."""
    return FeatureTracker(rules) if features(rules) else ObservationTracker(rules)

