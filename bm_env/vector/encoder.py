"""Observation vectors and action masks of many games, in the layout of :mod:`bm_env.env.observation`.

The layout puts the card planes first, then the one-cell flags, then the numbers. Every
plane and flag of a game is written as one bit of a packed byte row, straight into
place: a 52-cell plane is 6.5 bytes, so two planes fill 13 bytes, which two unaligned
64-bit words per pair of planes hold; one numpy call computes the low words of every pair
and game straight into the packed rows, one the high words (2D strided views, no
transposition). The flags are three lookups: the engine keeps the observer-independent
ones as they are placed here, and a dealer/leader code looked up by observer; the voids
are rotated per observer. One ``np.unpackbits`` of the packed rows then yields the int8
observation rows; the numbers follow in one pass over the rows (those that change within
a deal, then the constant ones, kept in place in a scratch block). Masks are packed the
same way, two games per 13 bytes, so that their ``np.unpackbits`` is the ``[N, 52]``
rows. Nothing is copied cell by cell and no row-sized temporary is built: that is what
makes the engine fast (``docs/performance.md``); so is the count of numpy calls, which
each cost microseconds whatever the batch.
"""

from __future__ import annotations

import sys

import numpy as np

from ..engine.deal import Deal, deal_cards
from ..engine.infostate import information_state
from ..engine.rules import Rules
from ..env import observation as ref_obs
from ..systems.cells import NUMBER_SHIFT

_ONE = np.uint64(1)
#: Parts of the flag group that are the same in every deal the vector engine plays.
_CONSTANT_FLAGS = ("in_deal", "tie_break_deal", "players_in_deal", "trumps_hearts", "lower_wins", "moon",
                   "hearts_when_broken", "queen_breaks_hearts", "first_trick_no_points", "first_lead")


def number_cells(v: np.ndarray) -> np.ndarray:
    """Numbers as the observation's two int8 cells read as one little-endian int16: coarse, fine."""
    return ((v >> NUMBER_SHIFT) & 0xFF) | ((v & ((1 << NUMBER_SHIFT) - 1)) << 8)


def template_row(rules: Rules) -> np.ndarray:
    """The reference observation of a fresh deal: its constant parts are those of every deal."""
    n = rules.num_players
    hands, kitty = deal_cards(rules, n, 0, np.random.default_rng(0))
    deal = Deal(rules, hands, 0, "hold", kitty=kitty)
    return ref_obs.encode(information_state(deal, 0, [0] * n, 0))


class _Scratch:
    """The packed rows of ``m`` games and the strided 64-bit views the encoder stores through."""

    def __init__(self, enc: "Encoder", m: int) -> None:
        nb = enc.row_bytes
        self.m = m
        self.packed = np.zeros(m * nb, dtype=np.uint8)
        view = lambda byte, words: np.ndarray(  # noqa: E731  the 64-bit words at `byte` of every row
            (m, words), dtype=np.uint64, buffer=self.packed, offset=byte, strides=(nb, 8))
        pair_views = lambda byte, pairs: np.ndarray(  # noqa: E731  [pair, game]: the words at 13 * pair + byte
            (pairs, m), dtype=np.uint64, buffer=self.packed, offset=byte, strides=(13, nb))
        # Plane pair k covers bytes 13k..13k+12: the low word (even plane and the odd plane's
        # first 12 bits) at 13k, the high word (the odd plane's other 40 bits) at 13k + 8.
        self.low = pair_views(0, -(-enc.planes // 2))
        self.high = pair_views(8, enc.planes // 2)
        self.flags = view(enc.flag_byte, enc.flag_words)
        # Even planes (hand, played by seat 0..n-1, ...) and odd ones (received, trick card of
        # seat 0..n-1, ...) in two blocks; an odd plane count leaves a zero odd plane.
        self.even = np.zeros((len(self.low), m), dtype=np.uint64)
        self.odd = np.zeros((len(self.low), m), dtype=np.uint64)
        n = enc.n
        tail = n + 1  # passed to seat 1..n-1, then the no-pass plane, alternate from here
        (self.even if (n - 1) % 2 == 0 else self.odd)[tail + (n - 1) // 2] = enc.no_pass
        self.passed_even = self.even[tail:tail + n // 2]
        self.passed_odd = self.odd[tail:tail + (n - 1) // 2]
        # Masks two games per 13 bytes the same way, so that unpacking them gives the [m, 52] rows
        # (3 spare bytes take the last high store's spill).
        pairs = -(-m // 2)
        self.mask_packed = np.zeros(13 * pairs + 3, dtype=np.uint8)
        pair_words = lambda byte, count: np.ndarray(  # noqa: E731
            (count,), dtype=np.uint64, buffer=self.mask_packed, offset=byte, strides=(13,))
        self.mask_low, self.mask_high = pair_words(0, pairs), pair_words(8, m // 2)
        self.tail = np.empty((m, enc.size - enc.numbers.start), dtype=np.int8)  # the numbers, then the constants
        self.rel_offsets = [(enc.rel_seat[r] * m) for r in range(n)]  # by observer: where seat r to the left starts
        self.games = np.arange(m)
        self.tail[:, enc.constants.start - enc.numbers.start:] = enc.constant_values


class Encoder:
    """Builds observation rows and masks from the engine's arrays (per-seat arrays are ``[n, games]``)."""

    def __init__(self, rules: Rules) -> None:
        if sys.byteorder != "little":
            raise RuntimeError("the vector engine reads uint64 card masks as little-endian bytes; this machine is big-endian")
        n = self.n = rules.num_players
        feats = ref_obs.features(rules)
        o = ref_obs.offsets(n, feats)
        self.size = ref_obs.size(n, feats)
        self.row_bytes = -(-self.size // 8)  # a row that ends inside a byte is unpacked with a count
        row = template_row(rules)
        # Card planes: hand, received, (played by, trick card of) seat 0..n-1, passed to seat
        # 1..n-1, and the constant no-pass plane.
        self.planes = 3 * n + 2
        assert o["no_pass_cards"].stop == 52 * self.planes
        self.no_pass = np.uint64(sum(1 << c for c, x in enumerate(row[o["no_pass_cards"]]) if x))

        self._lay_out_flags(o, row)

        # Numbers: those that change within a deal (pass count, tricks, points), then the constant run.
        self.numbers = slice(o["pass_count"].start, o["points_taken"].stop)
        assert o["tricks_played"].start == self.numbers.start + 1 and o["points_taken"].start == self.numbers.start + 2
        self.constants = slice(o["match_scores"].start, self.size)
        self.constant_values = row[self.constants]
        #: Whether some points are private to a seat (``public_cells`` then holds the others' view): never under the
        #: classic rules; :class:`~bm_env.vector.feature_encoder.FeatureEncoder` asks the systems in use.
        self.private_points = False

        # Row r, column `observer`: the seat r places to the observer's left (scaled per batch size).
        self.rel_seat = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n
        self.receivers = np.arange(1, n)[:, None]
        self._scratch: _Scratch | None = None

    def _lay_out_flags(self, o: dict[str, slice], row: np.ndarray) -> None:
        """Where the flag cells go in the packed row, and the bit patterns the engine's codes look up."""
        n = self.n
        # The flags, phase to first_lead, go in one or two 64-bit words stored from the byte
        # where they start (its low bits belong to the no-pass plane: constant too).
        first, last = o["phase"].start, o["first_lead"].stop
        assert last == o["pass_count"].start
        self.flag_byte = first // 8
        base = 8 * self.flag_byte
        self.flag_words = -(-(last - base) // 64)
        const = np.zeros(64 * self.flag_words, dtype=np.uint8)
        const[:first - base] = row[base:first] == 1
        for name in _CONSTANT_FLAGS:
            sl = o[name]
            const[sl.start - base:sl.stop - base] = row[sl] == 1
        self.const_flags = np.packbits(const, bitorder="little").view(np.uint64)
        bit = lambda name, i: o[name].start + i - base  # noqa: E731
        start = bit("phase", 0)  # below 8, so the dynamic block (at most 64 bits) spills at most into word 1
        assert start < 8 and self.flag_words <= 2
        # With more than 7 players (two decks only) the dynamic flags, phase to hearts broken (8n + 7
        # cells), outgrow the 64-bit block: its bits stop inside the voids. The block then carries
        # everything before the voids (shifts past 64 bits give 0), the engine keeps hearts broken
        # at the first voids bit, and FeatureEncoder writes the voids and hearts-broken cells itself.
        self.wide = o["hearts_broken"].stop - o["phase"].start > 64
        self.block_shift, self.spill_shift = np.uint64(start), np.uint64(64 - start)
        d = lambda name, i: _ONE << np.uint64(bit(name, i) - start)  # noqa: E731
        # The dynamic flag bits, relative to `start`. The engine keeps the ones that do not
        # depend on the observer in one word per game (its "flag bits"): phase and pass
        # receiver, looked up by phase * n + receiver (0: no pass); led suit by suit; hearts broken.
        phase_bits = [d("phase", ph) if ph < 2 else np.uint64(0) for ph in range(3)]
        self.phase_receiver_bits = np.array([phase_bits[ph] | d("pass_receiver", r) for ph in range(3) for r in range(n)],
                                            dtype=np.uint64)
        self.phase_mask = phase_bits[0] | phase_bits[1]  # XOR: passing to playing; AND NOT: the deal is over
        self.led_bits = np.array([d("led_suit", suit) for suit in range(4)], dtype=np.uint64)
        self.led_mask = np.bitwise_or.reduce(self.led_bits)
        self.broken_bit = d("voids", 0) if self.wide else d("hearts_broken", 0)
        # Dealer and trick leader relative to the observer, by the engine's code
        # (dealer * (n + 1) + lead) * n, lead = leader + 1 while a trick is on, else 0; + observer.
        rel = lambda seat, me: (seat - me) % n  # noqa: E731
        self.dealer_leader_bits = np.array([
            d("dealer", rel(dealer, me)) | (d("trick_leader", rel(lead - 1, me)) if lead else np.uint64(0))
            for dealer in range(n) for lead in range(n + 1) for me in range(n)], dtype=np.uint64)
        self.void_shift = np.uint64(bit("voids", 0) - start)
        self.void_mask = np.uint64((1 << 4 * n) - 1)
        self.void_rotation = np.arange(0, 4 * n, 4, dtype=np.uint64)  # by observer: the engine's doubled void word

    def __getstate__(self) -> dict:
        # A copy (copy.deepcopy, pickle) starts without the scratch block: copied, its strided views
        # would no longer see its bytes, and encode() makes a fresh one for any new batch size anyway.
        return {**self.__dict__, "_scratch": None}

    def _scratch_for(self, m: int) -> _Scratch:
        """Packed rows for ``m`` games, kept for the next call of the same size (the whole batch)."""
        if self._scratch is None or self._scratch.m != m:
            self._scratch = _Scratch(self, m)
        return self._scratch

    def encode(self, s: dict) -> tuple[np.ndarray, np.ndarray]:
        """Observation rows ``[M, L]`` and masks ``[M, 52]`` (int8) of the acting seats ``s['to_act']``.

        ``s`` holds the engine's arrays for ``M`` games: per-seat arrays ``[n, M]``, and the
        codes it keeps for the flags (``flag_bits``, ``dealer_leader``; see ``__init__``) and
        for the first two numbers (``count_cells``).
        """
        n = self.n
        me = s["to_act"]
        m = me.shape[0]
        scratch = self._scratch_for(m)
        rel_idx = np.empty((n, m), dtype=np.int64)  # flat index, in per-seat arrays, of the seat r places to the left
        for r, seat_offsets in enumerate(scratch.rel_offsets):
            np.add(seat_offsets[me], scratch.games, out=rel_idx[r])
        own = rel_idx[0]
        even, odd = scratch.even, scratch.odd
        even[0] = s["hands"].reshape(-1)[own]
        odd[0] = s["received"].reshape(-1)[own]
        even[1:n + 1] = s["played"].reshape(-1)[rel_idx]
        odd[1:n + 1] = s["trick_bits"].reshape(-1)[rel_idx]
        passed = self._passed_planes(s, own)
        scratch.passed_even[...] = passed[0::2]
        scratch.passed_odd[...] = passed[1::2]
        # Straight into the packed rows, high words first: each spills 3 bytes into the next
        # pair, which its low word rewrites.
        np.right_shift(odd[:len(scratch.high)], np.uint64(12), out=scratch.high)
        np.bitwise_or(even, odd << np.uint64(52), out=scratch.low)

        block = s["flag_bits"] | self.dealer_leader_bits[s["dealer_leader"] + me]
        block |= ((s["voids"] >> self.void_rotation[me]) & self.void_mask) << self.void_shift
        # Last: the low bits of the first flag byte are the no-pass plane's (constant flags).
        scratch.flags[:, 0] = (block << self.block_shift) | self.const_flags[0]
        if self.flag_words == 2:
            scratch.flags[:, 1] = (block >> self.spill_shift) | self.const_flags[1]

        if self.size % 8:
            obs = np.unpackbits(scratch.packed.reshape(m, -1), axis=1, count=self.size, bitorder="little").view(np.int8)
        else:
            obs = np.unpackbits(scratch.packed, bitorder="little").view(np.int8).reshape(m, self.size)
        mask = self._masks(s["legal"], scratch)

        # Two cells per int16: the pass count and the tricks played, then each seat's points.
        tail = scratch.tail  # the constants already in place: one pass over the rows writes both runs
        numbers = tail[:, :self.numbers.stop - self.numbers.start].view(np.int16)
        numbers[:, 0] = s["count_cells"]
        if self.private_points:  # a seat's own points in full, the others' as the table knows them
            numbers[:, 1] = s["captured_cells"].reshape(-1)[own]
            numbers[:, 2:] = s["public_cells"].reshape(-1)[rel_idx[1:].T]
        else:
            numbers[:, 1:] = s["captured_cells"].reshape(-1)[rel_idx.T]
        obs[:, self.numbers.start:] = tail
        return obs, mask

    def _passed_planes(self, s: dict, own: np.ndarray) -> np.ndarray:
        """``[n - 1, M]``: the cards the acting seat passed to the seat r + 1 places to its left.

        They all sit in the plane of the deal's one receiver (a hold deal has none).
        """
        return s["picks"].reshape(-1)[own] * (s["pass_offset"] == self.receivers)

    def _masks(self, legal: np.ndarray, scratch: _Scratch) -> np.ndarray:
        """``[M, 52]`` int8 masks of the legal sets, packed two games per 13 bytes and unpacked at once."""
        m = legal.shape[0]
        half = m // 2
        np.right_shift(legal[1::2], np.uint64(12), out=scratch.mask_high)  # first: it spills into the next pair
        np.bitwise_or(legal[0:2 * half:2], legal[1::2] << np.uint64(52), out=scratch.mask_low[:half])
        if m % 2:
            scratch.mask_low[half] = legal[-1]
        return np.unpackbits(scratch.mask_packed, count=52 * m, bitorder="little").view(np.int8).reshape(m, 52)
