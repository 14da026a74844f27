"""Observation vectors and action masks of many games, in the layout of :mod:`bm_env.observation`.

Everything binary is first gathered as 64-bit words per game (the card planes relative to
the acting player, one word holding the dealer / trick leader / led suit / void one-hots,
and the legal set), then a single ``np.unpackbits`` turns them into bytes that are copied
into the observation and the mask. The few numbers (points, counts) are written as
columns; the parts that never change within a game (the rules, the fresh-match features)
come from a template row built by the reference encoder.
"""

from __future__ import annotations

import numpy as np

from .. import observation as ref_obs
from ..deal import Deal, deal_hands
from ..infostate import information_state
from ..rules import Rules

_NONE = np.uint64(0)


def template_row(rules: Rules) -> np.ndarray:
    """The reference observation of a fresh deal: its constant parts are those of every deal."""
    n = rules.num_players
    deal = Deal(rules, deal_hands(rules, n, 0, np.random.default_rng(0)), 0, "hold")
    return ref_obs.encode(information_state(deal, 0, [0] * n, 0))


class Encoder:
    """Writes observation rows and masks from the engine's arrays (per-seat arrays are ``[n, games]``)."""

    def __init__(self, rules: Rules) -> None:
        n = self.n = rules.num_players
        o = ref_obs.offsets(n)
        self.size = ref_obs.size(n)
        self.template = template_row(rules)
        self.planes = 3 * n + 1  # hand, passed to seat 1..n-1, received, played by 0..n-1, trick card 0..n-1
        assert o["trick_card_seat0"].stop + 52 * (n - 1) == 52 * self.planes
        self.words = self.planes + 2  # + the one-hot word + the legal set
        self.onehot_start = o["dealer"].start
        self.onehot_len = o["voids"].stop - o["dealer"].start  # dealer n, trick_leader n, led_suit 4, voids 4n
        assert self.onehot_len == 6 * n + 4 and o["trick_leader"].start == o["dealer"].start + n
        self.phase = o["phase"].start
        self.receiver = o["pass_receiver"]
        self.pass_count = o["pass_count"].start
        self.points = o["points_taken"]
        self.tricks_played = o["tricks_played"].start
        self.hearts_broken = o["hearts_broken"].start
        self.void_shift = np.array([2 * n + 4 + 4 * r for r in range(n)], dtype=np.uint64)[:, None]
        self._scratch = np.zeros((0, self.words), dtype=np.uint64)

    def new_rows(self, count: int) -> np.ndarray:
        return np.tile(self.template, (count, 1))

    def write(self, obs: np.ndarray, mask: np.ndarray, s: dict) -> None:
        """Fill ``obs`` ``[M, L]`` and ``mask`` ``[M, 52]`` for the acting seats ``s['to_act']``.

        ``s`` holds the engine's arrays for these ``M`` games; its per-seat arrays are
        ``[n, M]``; ``phase`` is 0 (passing), 1 (playing) or 2 (over).
        """
        n = self.n
        me = s["to_act"]
        m = me.shape[0]
        if self._scratch.shape[0] != m:
            self._scratch = np.zeros((m, self.words), dtype=np.uint64)
        w = self._scratch
        g = np.arange(m)
        own = me * m + g
        rel = (me + np.arange(n)[:, None]) % n  # [n, M]: seat r places to the left of the acting seat
        rel_idx = rel * m + g
        np.take(s["hands"].reshape(-1), own, out=w[:, 0])
        w[:, 1:n] = _NONE
        off = s["pass_offset"]
        # The cards this seat passed sit in the plane of their receiver (a hold deal has none).
        w[g, np.where(off > 0, off, 1)] = np.take(s["picks"].reshape(-1), own)
        np.take(s["received"].reshape(-1), own, out=w[:, n])
        w[:, n + 1:2 * n + 1] = np.take(s["played"].reshape(-1), rel_idx).T
        w[:, 2 * n + 1:3 * n + 1] = np.take(s["trick_bits"].reshape(-1), rel_idx).T

        in_trick = s["in_trick"] > 0
        onehot = np.left_shift(np.uint64(1), ((s["dealer"] - me) % n).astype(np.uint64))
        lead_bits = np.left_shift(np.uint64(1), (n + (s["leader"] - me) % n).astype(np.uint64))
        lead_bits |= np.left_shift(np.uint64(1), (2 * n + s["led"]).astype(np.uint64))
        onehot |= np.where(in_trick, lead_bits, _NONE)
        voids = np.take(s["voids"].reshape(-1), rel_idx).astype(np.uint64)
        onehot |= np.bitwise_or.reduce(voids << self.void_shift, axis=0)
        w[:, self.planes] = onehot
        w[:, self.planes + 1] = s["legal"]

        bits = np.unpackbits(w.view(np.uint8), axis=1, bitorder="little").view(np.int8)
        p = self.planes
        obs[:, :52 * p].reshape(m, p, 52)[...] = bits[:, :64 * p].reshape(m, p, 64)[:, :, :52]
        obs[:, self.onehot_start:self.onehot_start + self.onehot_len] = bits[:, 64 * p:64 * p + self.onehot_len]
        mask[...] = bits[:, 64 * (p + 1):64 * (p + 1) + 52]

        phase = s["phase"]
        obs[:, self.phase] = phase == 0
        obs[:, self.phase + 1] = phase == 1
        obs[:, self.receiver] = 0
        passes = s["pass_count"]
        obs.reshape(-1)[g * obs.shape[1] + self.receiver.start + np.where(passes > 0, off, 0)] = 1
        obs[:, self.pass_count] = passes
        pts = np.take(s["captured"].reshape(-1), rel_idx)  # [n, M]
        cells = obs[:, self.points].reshape(m, n, 2)
        cells[:, :, 0] = (pts >> ref_obs.NUMBER_SHIFT).T
        cells[:, :, 1] = (pts & ((1 << ref_obs.NUMBER_SHIFT) - 1)).T
        obs[:, self.tricks_played] = s["tricks"]
        obs[:, self.hearts_broken] = s["broken"]
