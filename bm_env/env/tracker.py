"""Every seat's observation vector, kept up to date in place one move at a time.

Rebuilding an observation with :func:`bm_env.observation.encode` costs about 40 µs; a
move changes only a handful of cells (the mover's hand, one "played" and one "trick"
cell per observer, a void, a points counter). The environment therefore keeps one int8
row per match seat and writes just those cells, through memoryviews (a memoryview item
write is several times cheaper than a numpy one). The rows must always equal
``encode(information_state(deal, seat, match.totals, match.deals_played))``; the tests
check that after every decision of random play in every preset and player count.

All positions below are match seats; the tracker maps a deal's positions to seats with
``deal.seats`` (a tie-break deal among some players has fewer positions than seats).
"""

from __future__ import annotations

import numpy as np

from ..cards import NUM_CARDS, NUM_RANKS, iter_cards
from ..deal import PASS, PLAY, Deal
from ..observation import encode_rules, offsets, size, split_number
from ..rules import Rules


class ObservationTracker:
    """One observation row per match seat, updated cell by cell as the deal advances."""

    def __init__(self, rules: Rules) -> None:
        n = rules.num_players
        self.rules = rules
        self.n = n
        o = offsets(n)
        self.obs = np.zeros((n, size(n)), dtype=np.int8)
        self.rows = [memoryview(self.obs[i]) for i in range(n)]
        self._templates: dict[int, np.ndarray] = {}
        self._openings: dict[tuple, np.ndarray] = {}
        self._all_seats = tuple(range(n))
        self._o = o
        self._hand = o["hand"].start
        self._received = o["received"].start
        self._phase = o["phase"].start
        self._led = o["led_suit"].start
        self._tricks_played = o["tricks_played"].start
        self._hearts = o["hearts_broken"].start

        # table[me][seat]: the cell where the part about `seat`, as observer `me` sees it, starts.
        def per_seat_part(name_of_rel) -> list[list[int]]:
            return [[name_of_rel((s - me) % n) for s in range(n)] for me in range(n)]

        def cells(part: str, stride: int):
            return per_seat_part(lambda r: o[part].start + stride * r)

        self._played = per_seat_part(lambda r: o[f"played_by_seat{r}"].start)
        self._trick = per_seat_part(lambda r: o[f"trick_card_seat{r}"].start)
        self._passed = per_seat_part(lambda r: o[f"passed_to_seat{r}"].start if r else -1)
        self._leader = cells("trick_leader", 1)
        self._voids = cells("voids", 4)
        self._points = cells("points_taken", 2)
        self._scores = cells("match_scores", 2)
        self._receiver = cells("pass_receiver", 1)
        self._in_deal = cells("in_deal", 1)
        self._dealer = cells("dealer", 1)
        self._points_of_seat = [[self._points[me][s] for me in range(n)] for s in range(n)]
        self._trick_cells: list[tuple[memoryview, int]] = []
        # What one card played by `seat` changes in every observer's row.
        self._per_seat = [
            [(self.rows[me], self._played[me][s], self._trick[me][s], self._leader[me][s], self._voids[me][s])
             for me in range(n)]
            for s in range(n)
        ]

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
        """Write every row for a deal that has just begun (no decision taken yet)."""
        self.obs[:] = self._opening(deal)
        self._deal_hands(deal)
        self.match_numbers(totals, deals_played)

    def _opening(self, deal: Deal) -> np.ndarray:
        """Every row at the start of ``deal`` but the hands and the match numbers.

        It depends only on who plays, who deals and how the deal passes, so it is built
        cell by cell once per such setting and copied in one go at every later start.
        """
        key = (deal.seats, deal.dealer, deal.phase, deal.pass_count, deal.pass_offset)
        rows = self._openings.get(key)
        if rows is None:
            rows = self._openings[key] = self._build_opening(deal)
        return rows

    def _build_opening(self, deal: Deal) -> np.ndarray:
        n = self.n
        seats = deal.seats
        k = len(seats)
        o = self._o
        rows = np.tile(self._template(k), (n, 1))
        phase = 0 if deal.phase == PASS else 1 if deal.phase == PLAY else -1
        dealer_seat = seats[deal.dealer]
        for me in range(n):
            row = rows[me]
            if phase >= 0:
                row[self._phase + phase] = 1
            if deal.pass_count:
                pos = seats.index(me) if me in seats else 0
                row[self._receiver[me][seats[(pos + deal.pass_offset) % k]]] = 1
            else:
                row[self._receiver[me][me]] = 1
            row[o["pass_count"].start] = deal.pass_count
            for s in seats:
                row[self._in_deal[me][s]] = 1
            row[self._dealer[me][dealer_seat]] = 1
            row[o["tie_break_deal"].start] = k < n
        return rows

    def _deal_hands(self, deal: Deal) -> None:
        """Each player's hand into their own row's hand plane, every hand unpacked in one numpy call."""
        packed = np.array(deal.hands, dtype="<u8").view(np.uint8)
        planes = np.unpackbits(packed, bitorder="little").reshape(len(deal.hands), 64)[:, :NUM_CARDS]
        hand = slice(self._hand, self._hand + NUM_CARDS)
        if deal.seats == self._all_seats:
            self.obs[:, hand] = planes
        else:  # a tie-break deal among some seats (fancy indexing: slower, rarely needed)
            self.obs[list(deal.seats), hand] = planes

    def match_numbers(self, totals, deals_played: int) -> None:
        """Write the match scores, deals played and deals left (or threshold gap) into every row."""
        rules = self.rules
        o = self._o
        if rules.match_end == "deals":
            slot, value = o["deals_left"].start, max(rules.match_deals - deals_played, 0)
        else:
            slot, value = o["threshold_gap"].start, rules.match_threshold - max(totals)
        played = split_number(deals_played)
        gap = split_number(value)
        split_totals = [split_number(t) for t in totals]
        for me in range(self.n):
            row = self.rows[me]
            for s in range(self.n):
                base = self._scores[me][s]
                row[base], row[base + 1] = split_totals[s]
            row[o["deals_played"].start], row[o["deals_played"].start + 1] = played
            row[slot], row[slot + 1] = gap

    # ------------------------------------------------------------------ moves

    def pass_pick(self, seat: int, receiver: int, card: int) -> None:
        """``seat`` put ``card`` aside for ``receiver``: only the passer's own row changes."""
        row = self.rows[seat]
        row[self._hand + card] = 0
        row[self._passed[seat][receiver] + card] = 1

    def passes_moved(self, deal: Deal) -> None:
        """Every player has passed: the cards reach their receivers and play begins."""
        seats = deal.seats
        for q, received in enumerate(deal.received):
            row = self.rows[seats[q]]
            for c in iter_cards(received):
                row[self._hand + c] = 1
                row[self._received + c] = 1
        for row in self.rows:
            row[self._phase] = 0
            row[self._phase + 1] = 1

    def card_played(self, seat: int, card: int, trick_len: int, led_suit: int, broke_hearts: bool) -> None:
        """``seat`` played ``card`` as the ``trick_len``-th card of the trick (0 = the lead)."""
        self.rows[seat][self._hand + card] = 0
        suit = card // NUM_RANKS
        led = self._led
        if trick_len == 0:
            self._trick_cells = cells = []  # every cell the trick sets, so that trick_done can clear them
            for row, played, trick, leader, voids in self._per_seat[seat]:
                row[played + card] = 1
                row[trick + card] = 1
                row[leader] = 1
                row[led + suit] = 1
                cells += ((row, trick + card), (row, leader), (row, led + suit))
        else:
            cells = self._trick_cells
            for row, played, trick, leader, voids in self._per_seat[seat]:
                row[played + card] = 1
                row[trick + card] = 1
                cells.append((row, trick + card))
                if suit != led_suit:
                    row[voids + led_suit] = 1
        if broke_hearts:
            for row in self.rows:
                row[self._hearts] = 1

    def trick_done(self, deal: Deal) -> None:
        """The last trick of ``deal.tricks`` has just been won: clear the trick, count the points."""
        for row, i in self._trick_cells:
            row[i] = 0
        winner_pos = deal.tricks[-1][2]
        coarse, fine = split_number(deal.captured[winner_pos])
        points = self._points_of_seat[deal.seats[winner_pos]]
        tricks = len(deal.tricks)
        at = self._tricks_played
        for row, cell in zip(self.rows, points):
            row[cell] = coarse
            row[cell + 1] = fine
            row[at] = tricks

    def deal_over(self) -> None:
        """The deal has ended: neither phase cell is set."""
        for row in self.rows:
            row[self._phase] = 0
            row[self._phase + 1] = 0

