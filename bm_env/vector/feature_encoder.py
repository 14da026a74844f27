"""Observation rows of the extension rule systems: the classic encoder plus the appended parts.

:class:`FeatureEncoder` builds on :class:`~bm_env.vector.encoder.Encoder`: the classic
parts come out of the same packed rows and one ``np.unpackbits``; the parts that
:func:`bm_env.env.observation.layout` appends for these rules lie in the run of cells the
classic encoder copies after the numbers (its "tail"), so they are written there first:
the extra phases' cells here, each system's parts by its kernel's ``encode`` hook (a small
table lookup or bit unpacking per part, with the helpers below). Two classic parts change
meaning: the cards a seat passed can go to several receivers (a scatter pass) or further
on (passing on), so the engine keeps them per receiver (``sent``); the mask covers the
extra decision ids. A kernel's ``encode_rows`` hook corrects the finished rows (two decks
count the cards held twice).
"""

from __future__ import annotations

import numpy as np

from ..engine.cards import NUM_CARDS
from ..engine.rules import Rules
from ..env import observation as ref_obs
from .encoder import Encoder
from .kernel import Hooks, Kernel

#: Phase codes of the extended engine (passing, playing, charging, discarding, the moon
#: choice, and the end of a deal for its final observation) and their extra-phase cells.
PHASE_CODES = ("pass", "play", "charge", "discard", "moon", "done")
_EXTRA_PHASE_CELLS = np.array([[int(p == x) for x in ref_obs.EXTRA_PHASES] for p in PHASE_CODES], dtype=np.int8)


def unpack_planes(masks: np.ndarray, cells: int = NUM_CARDS) -> np.ndarray:
    """``[M, cells]`` int8 of the low ``cells`` bits of each uint64 in ``masks`` ``[M]``."""
    return np.unpackbits(np.ascontiguousarray(masks).view(np.uint8).reshape(-1, 8), axis=1, count=cells,
                         bitorder="little").view(np.int8)


def put_counts(tail: np.ndarray, part: slice, masks: np.ndarray, visible: np.ndarray | None) -> None:
    """A card plane of the tail from the planes ``masks`` ``[copies, M]`` (the cards once, then twice), each card
    counted as often as it is there; zero where not ``visible``."""
    cells = None
    for plane in masks:
        shown = unpack_planes(plane if visible is None else np.where(visible, plane, np.uint64(0)))
        cells = shown if cells is None else cells + shown
    tail[:, part] = cells


class FeatureEncoder(Encoder):
    """Rows and masks for rules with extension systems, from the :class:`~bm_env.vector.extended.ExtendedEngine`'s
    arrays; ``kernels`` are the engine's."""

    def __init__(self, rules: Rules, kernels: tuple[Kernel, ...]) -> None:
        super().__init__(rules)
        hooks = Hooks(kernels)
        self._parts, self._rows = hooks.encode, hooks.encode_rows
        self.private_points = any(k.hides_points for k in kernels)
        o = ref_obs.offsets(self.n, ref_obs.features(rules))
        base = self.numbers.start
        self.num_actions = rules.num_actions
        #: The appended parts, as slices of the tail.
        self.tail_parts = {name: slice(sl.start - base, sl.stop - base) for name, sl in o.items() if sl.start >= base}
        # Rules whose systems add no phase never leave the classic phases: their extra-phase
        # cells stay empty, as the template has them.
        self.extra_phases = any(k.phases for k in kernels)
        self.voids, self.hearts_broken = o["voids"], o["hearts_broken"].start
        # [n + 1, n]: row 0 no seat, row 1 + r one-hot at seat r (relative to the observer).
        self._seat_rows = np.vstack([np.zeros((1, self.n), dtype=np.int8), np.eye(self.n, dtype=np.int8)])
        # By phase code: its phase cells (passing, playing; none for the extra phases) as flag bits.
        phase = [self.phase_receiver_bits[ph * self.n] & self.phase_mask for ph in (0, 1)]
        self.phase_bits = np.array(phase + [0] * (len(PHASE_CODES) - 2), dtype=np.uint64)

    def seat_cells(self, seats: np.ndarray, me: np.ndarray) -> np.ndarray:
        """``[M, n]``: each of ``seats`` (-1: none, all zeros) one-hot at its place relative to the observer ``me``."""
        return self._seat_rows[np.where(seats >= 0, (seats - me) % self.n + 1, 0)]

    def encode(self, s: dict) -> tuple[np.ndarray, np.ndarray]:
        me = s["to_act"]
        tail = self._scratch_for(me.shape[0]).tail
        if self.extra_phases:
            tail[:, self.tail_parts["extra_phase"]] = _EXTRA_PHASE_CELLS[s["phase"]]
        for write in self._parts:
            write(self, tail, self.tail_parts, s, me)
        obs, mask = super().encode(s)
        for correct in self._rows:
            correct(self, obs, s, me)
        if self.wide:
            self._wide_flags(obs, s, me)
        return obs, mask

    def _wide_flags(self, obs: np.ndarray, s: dict, me: np.ndarray) -> None:
        """More than 7 players: the voids (rotated to the observer) and hearts broken, which the
        flag block cannot hold (see :class:`~bm_env.vector.encoder.Encoder`)."""
        n = self.n
        voids = s["voids"] & self.void_mask  # seat s's suits at bits 4s..4s+3
        turn = (4 * me).astype(np.uint64)
        rotated = ((voids >> turn) | (voids << (np.uint64(4 * n) - turn))) & self.void_mask
        obs[:, self.voids] = unpack_planes(rotated, 4 * n)
        obs[:, self.hearts_broken] = (s["flag_bits"] & self.broken_bit) != 0

    def _passed_planes(self, s: dict, own: np.ndarray) -> np.ndarray:
        """The cards the acting seat passed, kept per receiver: ``sent[r - 1]`` went r seats to the left."""
        sent = s["sent"]
        return sent.reshape(sent.shape[0], -1)[:, own]

    def _masks(self, legal: np.ndarray, scratch) -> np.ndarray:
        return unpack_planes(legal, self.num_actions)
