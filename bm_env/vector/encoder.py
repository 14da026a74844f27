"""Observation vectors and action masks of many games, in the layout of :mod:`bm_env.observation`.

Every binary cell of a game's observation is first written as one bit of a row of 64-bit
words (the card planes relative to the acting player, the phase, dealer, trick leader,
led suit and void one-hots, the constant rule bits); one ``np.unpackbits`` then makes the
int8 observation rows, and a second one the masks from the legal sets. The few cells that
hold numbers (points, counts, card values, the fresh-match features) are written as
columns afterwards. Nothing is copied cell by cell: that is what makes the engine fast
(``shared/PERFORMANCE.md``).
"""

from __future__ import annotations

import sys

import numpy as np

from .. import observation as ref_obs
from ..deal import Deal, deal_hands
from ..infostate import information_state
from ..rules import Rules

_ONE = np.uint64(1)


def template_row(rules: Rules) -> np.ndarray:
    """The reference observation of a fresh deal: its constant parts are those of every deal."""
    n = rules.num_players
    deal = Deal(rules, deal_hands(rules, n, 0, np.random.default_rng(0)), 0, "hold")
    return ref_obs.encode(information_state(deal, 0, [0] * n, 0))


class Encoder:
    """Builds observation rows and masks from the engine's arrays (per-seat arrays are ``[n, games]``)."""

    def __init__(self, rules: Rules) -> None:
        if sys.byteorder != "little":
            raise RuntimeError("the vector engine reads uint64 card masks as little-endian bytes; this machine is big-endian")
        n = self.n = rules.num_players
        o = ref_obs.offsets(n)
        self.size = ref_obs.size(n)
        self.words = -(-self.size // 64)
        self.template = template_row(rules)
        # Card planes: hand, passed to seat 1..n-1, received, played by seat 0..n-1, trick card of seat 0..n-1.
        self.planes = p = 3 * n + 1
        assert o["trick_card_seat0"].stop + 52 * (n - 1) == 52 * p
        start = 52 * np.arange(p)
        word, shift = start // 64, start % 64
        self.plane_shift = shift.astype(np.uint64)[:, None]
        self.plane_word = word.tolist()
        # A plane that does not fit the rest of its word spills its high bits into the next word.
        self.spills = [(int(q), int(word[q]) + 1, np.uint64(64 - shift[q])) for q in np.flatnonzero(shift + 52 > 64)]
        # Constant bits: the parts of the layout that never change within these rules.
        const = np.zeros(self.words * 64, dtype=np.uint8)
        for name in ("no_pass_cards", "in_deal"):
            const[o[name]] = self.template[o[name]] == 1
        self.const_bits = np.packbits(const, bitorder="little").view(np.uint64)[:, None]
        # Numbers and everything after them that is constant: rewritten after unpacking.
        self.card_values = o["card_values"]
        self.const_tail = slice(o["match_scores"].start, self.size)
        assert o["match_scores"].start == o["hearts_broken"].stop and self.const_tail.stop == o["first_lead"].stop
        # Phase, pass receiver, in-deal, dealer, trick leader, led suit and voids: one field of bits
        # (the pass count cell inside it is a number, rewritten after unpacking).
        self.block = o["phase"].start
        self.block_width = o["voids"].stop - self.block
        assert self.block_width <= 64 and o["pass_receiver"].start == self.block + 2
        assert o["dealer"].start == o["in_deal"].stop and o["trick_leader"].start == o["dealer"].stop
        bit = lambda name, i: _ONE << np.uint64(o[name].start + i - self.block)  # noqa: E731
        self.pass_count = o["pass_count"].start
        self.points = o["points_taken"]
        self.tricks_played = o["tricks_played"].start
        self.hearts_broken = o["hearts_broken"].start
        self.void_shift = np.array([o["voids"].start - self.block + 4 * r for r in range(n)], dtype=np.uint64)[:, None]
        # Bits looked up by phase * n + receiver (index 0: no pass); by seat * n + observer for the
        # one-hots of a seat relative to the observer; by suit for the led suit.
        phase_bits = [bit("phase", ph) if ph < 2 else np.uint64(0) for ph in range(3)]
        self.phase_receiver_bits = np.array([phase_bits[ph] | bit("pass_receiver", r) for ph in range(3) for r in range(n)],
                                            dtype=np.uint64)
        rel = [(s - me) % n for s in range(n) for me in range(n)]
        self.dealer_bits = np.array([bit("dealer", r) for r in rel], dtype=np.uint64)
        self.leader_bits = np.array([bit("trick_leader", r) for r in rel], dtype=np.uint64)
        self.led_bits = np.array([bit("led_suit", suit) for suit in range(4)], dtype=np.uint64)
        # Row r, column `observer`: the seat r places to the observer's left (scaled per batch size in _seats).
        self.rel_seat = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n
        self.receivers = np.arange(1, n)[:, None]
        self._seat_tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _seats(self, m: int) -> tuple[np.ndarray, np.ndarray]:
        """For ``m`` games: the flat-index offsets of :attr:`rel_seat` and the game columns (cached)."""
        t = self._seat_tables.get(m)
        if t is None:
            t = self._seat_tables[m] = (self.rel_seat * m, np.arange(m))
        return t

    def _place(self, rows: np.ndarray, bits: np.ndarray, start: int, width: int) -> None:
        """OR a field of ``width`` bits (values ``bits``) into the word rows at bit ``start``."""
        w, s = divmod(start, 64)
        rows[w] |= bits << np.uint64(s)
        if s + width > 64:
            rows[w + 1] |= bits >> np.uint64(64 - s)

    def encode(self, s: dict) -> tuple[np.ndarray, np.ndarray]:
        """Observation rows ``[M, L]`` and masks ``[M, 52]`` (int8) of the acting seats ``s['to_act']``.

        ``s`` holds the engine's arrays for ``M`` games: per-seat arrays ``[n, M]``,
        ``phase`` 0 (passing), 1 (playing) or 2 (over).
        """
        n = self.n
        me = s["to_act"]
        m = me.shape[0]
        rel_seat, g = self._seats(m)
        rel_idx = np.take(rel_seat, me, axis=1) + g  # [n, M]: flat index of the seat r places to the left
        own = rel_idx[0]
        planes = np.empty((self.planes, m), dtype=np.uint64)
        planes[0] = s["hands"].reshape(-1)[own]
        off = s["pass_offset"]
        # The cards this seat passed sit in the plane of their receiver (a hold deal has none).
        np.multiply(s["picks"].reshape(-1)[own], off == self.receivers, out=planes[1:n])
        planes[n] = s["received"].reshape(-1)[own]
        planes[n + 1:2 * n + 1] = s["played"].reshape(-1)[rel_idx]
        planes[2 * n + 1:] = s["trick_bits"].reshape(-1)[rel_idx]

        rows = np.empty((self.words, m), dtype=np.uint64)
        rows[...] = self.const_bits
        lo = planes << self.plane_shift
        for p, w in enumerate(self.plane_word):
            rows[w] |= lo[p]
        for p, w, right in self.spills:
            rows[w] |= planes[p] >> right

        passes = s["pass_count"]
        block = self.phase_receiver_bits[s["phase"] * n + off * (passes > 0)]
        block |= self.dealer_bits[s["dealer"] * n + me]
        lead = self.leader_bits[s["leader"] * n + me] | self.led_bits[s["led"]]
        block |= lead * (s["in_trick"] > 0)
        voids = s["voids"].reshape(-1)[rel_idx].astype(np.uint64)
        block |= np.bitwise_or.reduce(voids << self.void_shift, axis=0)
        self._place(rows, block, self.block, self.block_width)
        self._place(rows, s["broken"].astype(np.uint64), self.hearts_broken, 1)

        packed = np.ascontiguousarray(rows.T).view(np.uint8)
        obs = np.unpackbits(packed, axis=1, count=self.size, bitorder="little").view(np.int8)
        mask = np.unpackbits(s["legal"].view(np.uint8).reshape(m, 8), axis=1, count=52, bitorder="little").view(np.int8)

        obs[:, self.card_values] = self.template[self.card_values]
        obs[:, self.const_tail] = self.template[self.const_tail]
        obs[:, self.pass_count] = passes
        pts = s["captured"].reshape(-1)[rel_idx]  # [n, M]
        # Both cells of a number in one int16 write: coarse in the low byte, fine in the high one.
        pair = ((pts >> ref_obs.NUMBER_SHIFT) & 0xFF) | ((pts & ((1 << ref_obs.NUMBER_SHIFT) - 1)) << 8)
        obs[:, self.points].view(np.int16)[...] = pair.T
        obs[:, self.tricks_played] = s["tricks"]
        return obs, mask
