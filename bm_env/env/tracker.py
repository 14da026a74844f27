"""Every seat's observation vector, kept up to date in place one move at a time.

Rebuilding an observation with :func:`bm_env.env.observation.encode` costs about 40 µs; a
move changes only a handful of cells (the mover's hand, one "played" and one "trick"
cell per observer, a void, a points counter). The environment therefore keeps every
seat's int8 row in one flat ``bytearray`` (which ``ObservationTracker.obs`` views as
an ``(n, size)`` numpy array) and writes just those cells. A bytearray item write is the
cheapest cell write Python has (several times cheaper than a numpy one; runs of cells,
such as a trick's planes cleared at its end, go through a memoryview of the same bytes,
whose slice writes are cheaper still), and the flat positions of the cells each event
sets are worked out once, by part name from :func:`bm_env.env.observation.offsets`, so a
move costs one short loop of item writes. A bytearray holds bytes, so a negative number
is written as its two's-complement byte, which numpy reads back as the same int8.

The rows must always equal ``encode(information_state(deal, seat, match.totals,
match.deals_played))``; the tests check that after every decision of random play in
every preset and player count.

All positions below are match seats; the tracker maps a deal's positions to seats with
``deal.seats`` (a tie-break deal among some players has fewer positions than seats).
Rules with extension systems (charges, kitties, two decks...) use the subclass
:class:`~bm_env.env.feature_tracker.FeatureTracker`, which keeps their parts with each system's
face; this class holds only what the classic rules promise (one copy of each card, one receiver
per pass, points taken only with a won trick), which is what keeps a decision to a few writes.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from ..engine.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, iter_cards
from ..engine.deal import PASS, PLAY, Deal
from ..engine.rules import Rules
from ..systems.cells import split_number
from .observation import encode_rules, features, offsets, size


def _put_number(buf: bytearray, cells: Sequence[int], v: int) -> None:
    """Write ``v`` as its (coarse, fine) cell pair starting at each of ``cells``."""
    coarse, fine = split_number(v)
    coarse &= 0xFF  # the int8 two's-complement byte of a negative coarse part
    for i in cells:
        buf[i] = coarse
        buf[i + 1] = fine


#: The eight cells a byte of a card mask stands for: its bits, lowest first, one 0/1 cell each.
_BYTE_CELLS = tuple(bytes((b >> i) & 1 for i in range(8)) for b in range(256))


def _card_plane(mask: int) -> bytes:
    """The 52 cells of a card plane with a 1 at each card of ``mask``."""
    return b"".join(map(_BYTE_CELLS.__getitem__, mask.to_bytes(7, "little")))[:NUM_CARDS]


def _merged_spans(spans: list[tuple[int, int]]) -> list[tuple[slice, bytes]]:
    """Adjacent ``(start, stop)`` ranges joined, each as a slice with the zero bytes that clear it."""
    merged: list[list[int]] = []
    for start, stop in sorted(spans):
        if merged and merged[-1][1] == start:
            merged[-1][1] = stop
        else:
            merged.append([start, stop])
    return [(slice(start, stop), bytes(stop - start)) for start, stop in merged]


@lru_cache(maxsize=64)
def _cell_tables(tracker: type, rules: Rules) -> dict:
    """What a ``tracker`` of ``rules`` holds besides its state: the tables its copies share."""
    fresh = tracker(rules)
    return {name: v for name, v in fresh.__dict__.items() if name not in tracker._STATE + tracker._VIEWS}


class ObservationTracker:
    """One observation row per match seat, updated cell by cell as the deal advances."""

    #: Whether a hand may hold two copies of a card: its plane then counts them (0, 1 or 2), and
    #: cannot serve as the legal mask.
    holds_copies = False

    def __init__(self, rules: Rules) -> None:
        n = rules.num_players
        feats = features(rules)
        o = offsets(n, feats)
        width = size(n, feats)
        self.rules = rules
        self.n = n
        self._o = o
        self._width = width
        self._buffer = bytearray(n * width)
        self._view_buffer()
        self._templates: dict[int, np.ndarray] = {}
        self._openings: dict[tuple, bytes] = {}
        observers = range(n)
        at, about, plane = self.at, self.about, self.plane

        self._hand = [at(me, "hand") for me in observers]
        self._received = [at(me, "received") for me in observers]
        self._passed = [[plane("passed_to_seat", me, s) if s != me else -1 for s in range(n)] for me in observers]
        self._pass_cells = [-1] * n  # this deal: the "passed to" plane each seat's picks go into
        self._tricks_done = 0  # this deal's tricks played, counted here rather than asked of the deal
        self._phase = tuple(at(me, "phase") for me in observers)
        self._hearts = tuple(at(me, "hearts_broken") for me in observers)
        self._tricks_played = tuple(at(me, "tricks_played") for me in observers)
        self._points = [about("points_taken", s, 2) for s in range(n)]
        self._scores = [about("match_scores", s, 2) for s in range(n)]
        self._deals_played = tuple(at(me, "deals_played") for me in observers)
        self._deals_left = tuple(at(me, "deals_left") for me in observers)
        self._threshold_gap = tuple(at(me, "threshold_gap") for me in observers)
        # The cells one card played by `seat` sets in every row: its "played" and "trick" cells,
        # and when it leads, the trick leader and the led suit too; a void when it does not follow.
        self._follow_cells = [
            [tuple(plane(p, me, s) + c for me in observers for p in ("played_by_seat", "trick_card_seat"))
             for c in range(NUM_CARDS)]
            for s in range(n)
        ]
        self._lead_cells = [
            [self._follow_cells[s][c] + about("trick_leader", s)
             + tuple(at(me, "led_suit", c // NUM_RANKS) for me in observers)
             for c in range(NUM_CARDS)]
            for s in range(n)
        ]
        self._void_cells = [[tuple(i + suit for i in about("voids", s, 4)) for suit in range(NUM_SUITS)]
                            for s in range(n)]
        # Everything a trick sets and its end clears: the trick planes, the leader, the led suit.
        trick_parts = [f"trick_card_seat{r}" for r in range(n)] + ["trick_leader", "led_suit"]
        self._trick_spans = _merged_spans(
            [(me * width + o[p].start, me * width + o[p].stop) for me in observers for p in trick_parts]
        )

    #: What changes as deals go on. Everything else but the views follows from the rules (where
    #: each event's cells are) and is never written after ``__init__``: copies share it.
    _STATE = ("rules", "_buffer", "_pass_cells", "_tricks_done", "_templates", "_openings")
    #: The views of ``_buffer`` (:meth:`_view_buffer`): each tracker's own.
    _VIEWS = ("_view", "obs", "rows", "hand_planes")

    def _view_buffer(self) -> None:
        """The views the moves write through and ``observe`` reads, all of ``_buffer``'s bytes."""
        self._view = memoryview(self._buffer)  # a memoryview writes runs of cells about 3x faster
        self.obs = np.frombuffer(self._buffer, dtype=np.int8).reshape(self.n, self._width)
        #: Each seat's row and the hand plane in it, as numpy views (observe copies them).
        self.rows = [self.obs[me] for me in range(self.n)]
        self.hand_planes = [row[self._o["hand"]] for row in self.rows]

    def __getstate__(self) -> dict:
        # copy.deepcopy and pickle take only the state: the cell tables are shared with every
        # tracker of the same rules (_cell_tables), and the views are made afresh on the copy's
        # own bytes (a memoryview cannot be pickled; copied numpy views would not see the buffer).
        return {name: self.__dict__[name] for name in self._STATE}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(_cell_tables(type(self), state["rules"]))
        self.__dict__.update(state)
        self._view_buffer()

    def at(self, me: int, part: str, index: int = 0) -> int:
        """Flat position of cell ``index`` of ``part`` in observer ``me``'s row."""
        return me * self._width + self._o[part].start + index

    def about(self, part: str, seat: int, stride: int = 1) -> tuple[int, ...]:
        """In every observer's row, the cell where ``part`` holds ``seat`` (seats are relative to the observer)."""
        return tuple(self.at(me, part, stride * ((seat - me) % self.n)) for me in range(self.n))

    def plane(self, prefix: str, me: int, seat: int) -> int:
        """Where the card plane ``prefix{r}`` about ``seat`` starts in observer ``me``'s row."""
        return self.at(me, f"{prefix}{(seat - me) % self.n}")

    # ------------------------------------------------------------------ whole rows

    def _template(self, players_in_deal: int) -> np.ndarray:
        """The constant part of a row (the rule features) for a deal among ``players_in_deal``."""
        t = self._templates.get(players_in_deal)
        if t is None:
            t = np.zeros(self.obs.shape[1], dtype=np.int8)
            encode_rules(t, self.rules, players_in_deal)
            self._templates[players_in_deal] = t
        return t

    def start(self, deal: Deal, totals, deals_played: int) -> None:
        """Write every row for a deal that has just begun (no decision taken yet).

        Plain bytes work throughout: a deal starts every 60 or so decisions, by which time
        numpy's code has left the CPU caches, and a cold numpy call costs several µs.
        """
        view = self._view
        view[:] = self._opening(deal)
        seats = deal.seats
        for pos, seat in enumerate(seats):
            hand = self._hand[seat]
            view[hand:hand + NUM_CARDS] = _card_plane(deal.hand_of(pos))
            if deal.pass_count:  # where the cards this seat picks go: worked out once, not at each pick
                self._pass_cells[seat] = self._passed[seat][seats[deal.pass_target(pos)]]
        self._tricks_done = 0
        self.match_numbers(totals, deals_played)

    def _opening(self, deal: Deal) -> bytes:
        """Every row at the start of ``deal`` but the hands and the match numbers.

        It depends only on who plays, who deals and how the deal passes, so it is built
        cell by cell once per such setting and copied in one go at every later start.
        """
        key = (deal.seats, deal.dealer, deal.phase, deal.pass_count, deal.pass_offset)
        rows = self._openings.get(key)
        if rows is None:
            rows = self._openings[key] = self._build_opening(deal).tobytes()
        return rows

    def _build_opening(self, deal: Deal) -> np.ndarray:
        n = self.n
        o = self._o
        seats = deal.seats
        k = len(seats)
        rows = np.tile(self._template(k), (n, 1))
        phase = 0 if deal.phase == PASS else 1 if deal.phase == PLAY else -1
        dealer_seat = seats[deal.dealer]
        for me, row in enumerate(rows):
            if phase >= 0:
                row[o["phase"].start + phase] = 1
            receiver = me
            if deal.pass_count:
                pos = seats.index(me) if me in seats else 0
                receiver = seats[(pos + deal.pass_offset) % k]
            row[o["pass_receiver"].start + (receiver - me) % n] = 1
            row[o["pass_count"].start] = deal.pass_count
            for s in seats:
                row[o["in_deal"].start + (s - me) % n] = 1
            row[o["dealer"].start + (dealer_seat - me) % n] = 1
            row[o["tie_break_deal"].start] = k < n
        return rows

    def match_numbers(self, totals, deals_played: int) -> None:
        """Write the match scores, deals played and deals left (or threshold gap) into every row."""
        rules = self.rules
        buf = self._buffer
        for s, total in enumerate(totals):
            _put_number(buf, self._scores[s], total)
        _put_number(buf, self._deals_played, deals_played)
        if rules.match_end == "deals":
            _put_number(buf, self._deals_left, max(rules.match_deals - deals_played, 0))
        else:
            _put_number(buf, self._threshold_gap, rules.match_threshold - max(totals))

    # ------------------------------------------------------------------ moves

    def stepped(self, deal: Deal, p: int, phase: str, action: int, led_suit: int, was_broken: bool) -> None:
        """Position ``p`` of ``deal`` took ``action`` in ``phase`` (a pass pick or a card); ``led_suit`` and
        ``was_broken`` are the deal's led suit and hearts-broken flag from before it."""
        if phase == PLAY:
            self.card_played(deal.seats[p], action, led_suit, deal.hearts_broken and not was_broken)
            if deal.led_suit < 0:  # no trick on the table: that card finished one
                self.trick_done(deal)
        else:
            self.pass_pick(deal.seats[p], action)
            if deal.phase != PASS:
                self.passes_moved(deal)

    def pass_pick(self, seat: int, card: int) -> None:
        """``seat`` put ``card`` aside for the seat it passes to: only the passer's own row changes."""
        buf = self._buffer
        buf[self._hand[seat] + card] = 0
        buf[self._pass_cells[seat] + card] = 1

    def passes_moved(self, deal: Deal) -> None:
        """Every player has passed: the cards reach their receivers and play begins."""
        buf = self._buffer
        for q, received in enumerate(deal.received):
            seat = deal.seats[q]
            hand, got = self._hand[seat], self._received[seat]
            for c in iter_cards(received):
                buf[hand + c] = 1
                buf[got + c] = 1
        for i in self._phase:
            buf[i] = 0
            buf[i + 1] = 1

    def card_played(self, seat: int, card: int, led_suit: int, broke_hearts: bool) -> None:
        """``seat`` played ``card`` to a trick led in ``led_suit`` (-1: ``card`` leads it)."""
        buf = self._buffer
        buf[self._hand[seat] + card] = 0
        if led_suit < 0:
            cells = self._lead_cells[seat][card]
        else:
            cells = self._follow_cells[seat][card]
            if card // NUM_RANKS != led_suit:
                for i in self._void_cells[seat][led_suit]:
                    buf[i] = 1
        for i in cells:
            buf[i] = 1
        if broke_hearts:
            for i in self._hearts:
                buf[i] = 1

    def trick_done(self, deal: Deal) -> None:
        """The last trick of ``deal.tricks`` has just been won: clear the trick, count the points."""
        view = self._view
        for span, zeros in self._trick_spans:
            view[span] = zeros
        buf = self._buffer
        winner_pos = deal.leader  # the trick's winner leads the next one
        _put_number(buf, self._points[deal.seats[winner_pos]], deal.captured_by(winner_pos))
        self._tricks_done = tricks = self._tricks_done + 1
        for i in self._tricks_played:
            buf[i] = tricks

    def deal_over(self, deal: Deal) -> None:
        """``deal`` has ended: neither phase cell is set."""
        buf = self._buffer
        for i in self._phase:
            buf[i] = 0
            buf[i + 1] = 0
