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
        self.phase = o["phase"].start
        self.receiver = o["pass_receiver"].start
        self.pass_count = o["pass_count"].start
        self.onehot = o["dealer"].start  # dealer n, trick leader n, led suit 4, voids 4n: one block of bits
        assert o["voids"].stop - o["dealer"].start == 6 * n + 4 and o["trick_leader"].start == o["dealer"].start + n
        self.points = o["points_taken"]
        self.tricks_played = o["tricks_played"].start
        self.hearts_broken = o["hearts_broken"].start
        self.void_shift = np.array([2 * n + 4 + 4 * r for r in range(n)], dtype=np.uint64)[:, None]
        # One-hot bits of a seat relative to the observer, looked up by seat * n + observer.
        rel = np.array([(s - me) % n for s in range(n) for me in range(n)], dtype=np.uint64)
        self.dealer_bits = np.left_shift(_ONE, rel)
        self.leader_bits = np.left_shift(_ONE, rel + np.uint64(n))
        self.led_bits = np.left_shift(_ONE, np.arange(4, dtype=np.uint64) + np.uint64(2 * n))

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
        g = np.arange(m)
        own = me * m + g
        rel_idx = own + np.arange(0, n * m, m)[:, None]  # [n, M]: the seat r places to the left
        rel_idx = np.where(rel_idx >= n * m, rel_idx - n * m, rel_idx)
        planes = np.empty((self.planes, m), dtype=np.uint64)
        np.take(s["hands"].reshape(-1), own, out=planes[0])
        planes[1:n] = 0
        off = s["pass_offset"]
        # The cards this seat passed sit in the plane of their receiver (a hold deal has none).
        planes.reshape(-1)[np.where(off > 0, off, 1) * m + g] = np.take(s["picks"].reshape(-1), own)
        np.take(s["received"].reshape(-1), own, out=planes[n])
        np.take(s["played"].reshape(-1), rel_idx, out=planes[n + 1:2 * n + 1])
        np.take(s["trick_bits"].reshape(-1), rel_idx, out=planes[2 * n + 1:])

        rows = np.empty((self.words, m), dtype=np.uint64)
        rows[...] = self.const_bits
        lo = planes << self.plane_shift
        for p, w in enumerate(self.plane_word):
            rows[w] |= lo[p]
        for p, w, right in self.spills:
            rows[w] |= planes[p] >> right

        phase = s["phase"].astype(np.uint64)
        self._place(rows, np.where(phase < 2, _ONE << phase, 0).astype(np.uint64), self.phase, 2)
        passes = s["pass_count"]
        self._place(rows, _ONE << np.where(passes > 0, off, 0).astype(np.uint64), self.receiver, n)
        block = np.take(self.dealer_bits, s["dealer"] * n + me)
        lead = np.take(self.leader_bits, s["leader"] * n + me) | np.take(self.led_bits, s["led"])
        block |= np.where(s["in_trick"] > 0, lead, np.uint64(0))
        voids = np.take(s["voids"].reshape(-1), rel_idx).astype(np.uint64)
        block |= np.bitwise_or.reduce(voids << self.void_shift, axis=0)
        self._place(rows, block, self.onehot, 6 * n + 4)
        self._place(rows, s["broken"].astype(np.uint64), self.hearts_broken, 1)

        packed = np.ascontiguousarray(rows.T).view(np.uint8)
        obs = np.unpackbits(packed, axis=1, count=self.size, bitorder="little").view(np.int8)
        mask = np.unpackbits(s["legal"].view(np.uint8).reshape(m, 8), axis=1, count=52, bitorder="little").view(np.int8)

        obs[:, self.card_values] = self.template[self.card_values]
        obs[:, self.const_tail] = self.template[self.const_tail]
        obs[:, self.pass_count] = passes
        pts = np.take(s["captured"].reshape(-1), rel_idx)  # [n, M]
        # Both cells of a number in one int16 write: coarse in the low byte, fine in the high one.
        pair = ((pts >> ref_obs.NUMBER_SHIFT) & 0xFF) | ((pts & ((1 << ref_obs.NUMBER_SHIFT) - 1)) << 8)
        obs[:, self.points].view(np.int16)[...] = pair.T
        obs[:, self.tricks_played] = s["tricks"]
        return obs, mask
