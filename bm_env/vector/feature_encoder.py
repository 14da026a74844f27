"""Observation rows of the extension rule systems: the classic encoder plus the appended parts.

:class:`FeatureEncoder` builds on :class:`~bm_env.vector.encoder.Encoder`: the classic
parts come out of the same packed rows and one ``np.unpackbits``; the parts that
:func:`bm_env.env.observation.layout` appends for these rules lie in the run of cells the
classic encoder copies after the numbers (its "tail"), so they are written there first,
a small table lookup or bit unpacking per part. Three classic parts change meaning:
the cards a seat passed can go to several receivers (a scatter pass) or further on
(passing on), so the engine keeps them per receiver (``sent``); the mask covers the extra
decision ids; with two decks every card plane counts copies, so the cards held, received,
played or passed twice are added on top, cell by cell (they are few).
"""

from __future__ import annotations

import numpy as np

from ..engine.cards import NUM_CARDS
from ..engine.rules import Rules
from ..env import observation as ref_obs
from .encoder import Encoder

#: Phase codes of the extended engine (passing, playing, charging, discarding, the moon
#: choice, and the end of a deal for its final observation) and their extra-phase cells.
PHASE_CODES = ("pass", "play", "charge", "discard", "moon", "done")
_EXTRA_PHASE_CELLS = np.array([[int(p == x) for x in ref_obs.EXTRA_PHASES] for p in PHASE_CODES], dtype=np.int8)


def _seat_cells(n: int) -> np.ndarray:
    """``[n + 1, n]``: row 0 no seat, row 1 + r one-hot at seat r (relative to the observer)."""
    return np.vstack([np.zeros((1, n), dtype=np.int8), np.eye(n, dtype=np.int8)])


def unpack_planes(masks: np.ndarray, cells: int = NUM_CARDS) -> np.ndarray:
    """``[M, cells]`` int8 of the low ``cells`` bits of each uint64 in ``masks`` ``[M]``."""
    return np.unpackbits(np.ascontiguousarray(masks).view(np.uint8).reshape(-1, 8), axis=1, count=cells,
                         bitorder="little").view(np.int8)


class FeatureEncoder(Encoder):
    """Rows and masks for rules with extension options, from the :class:`~bm_env.vector.extended.ExtendedEngine`'s arrays."""

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules)
        n = self.n
        o = ref_obs.offsets(n, ref_obs.features(rules))
        base = self.numbers.start
        self.num_actions = rules.num_actions
        self.tail_parts = {name: slice(sl.start - base, sl.stop - base) for name, sl in o.items() if sl.start >= base}
        self.seat_cells = _seat_cells(n)
        # passed_on: the seats' bits, rotated to the observer, as n cells.
        self.bit_cells = np.array([[(x >> r) & 1 for r in range(n)] for x in range(1 << n)], dtype=np.int8)
        self.seat_mask = np.uint64((1 << n) - 1)
        self.charge_mask = np.uint64((1 << 4 * n) - 1)
        self.two_decks = rules.decks == 2
        self.discards = rules.kitty_to_hand
        # Rules without charging, discards or a moon choice never leave the classic phases: their
        # extra-phase cells stay empty, as the template has them.
        self.extra_phases = rules.charging or rules.kitty_to_hand or rules.moon_choice
        self.voids, self.hearts_broken = o["voids"], o["hearts_broken"].start
        if self.two_decks:  # where each plane that can count a card twice starts in the row
            self.twice_starts = np.array([o["hand"].start, o["received"].start]
                                         + [o[f"played_by_seat{r}"].start for r in range(n)]
                                         + [o[f"passed_to_seat{r}"].start for r in range(1, n)])
        # By phase code: its phase cells (passing, playing; none for the extra phases) as flag bits.
        phase = [self.phase_receiver_bits[ph * n] & self.phase_mask for ph in (0, 1)]
        self.phase_bits = np.array(phase + [0] * (len(PHASE_CODES) - 2), dtype=np.uint64)
        # A scatter pass: every other seat receives (the receiver cells of seats 1..n-1).
        self.scatter_receiver_bits = np.bitwise_or.reduce(self.phase_receiver_bits[2 * n + 1:3 * n])

    def encode(self, s: dict) -> tuple[np.ndarray, np.ndarray]:
        me = s["to_act"]
        m = me.shape[0]
        tail = self._scratch_for(m).tail
        parts = self.tail_parts
        n = self.n
        if self.extra_phases:
            tail[:, parts["extra_phase"]] = _EXTRA_PHASE_CELLS[s["phase"]]
        if "kitty_taker" in parts:
            taker = s["kitty_taker"]
            tail[:, parts["kitty_taker"]] = self.seat_cells[np.where(taker >= 0, (taker - me) % n + 1, 0)]
            mine = taker == me  # the kitty's cards and the discards are seen by its taker only
            self._put_counts(tail, parts["kitty_cards"], s["kitty"], mine)
            if self.discards:  # else nobody discards: the plane stays as the template has it, empty
                self._put_counts(tail, parts["kitty_discarded"], s["discarded"], mine)
        if "pending_trick_cards" in parts:
            self._put_counts(tail, parts["pending_trick_cards"], s["pending"], None)
        if "scatter_deal" in parts:
            tail[:, parts["scatter_deal"].start] = s["scatter_deal"]
        if "passed_on" in parts:
            tail[:, parts["passed_on"]] = self.bit_cells[(s["passed_on"] >> me.astype(np.uint64)) & self.seat_mask]
        if "moon_shooter" in parts:
            shooter = s["shooter"]
            tail[:, parts["moon_shooter"]] = self.seat_cells[np.where(shooter >= 0, (shooter - me) % n + 1, 0)]
        if "charged" in parts:
            word = (s["charged_word"] >> (4 * me).astype(np.uint64)) & self.charge_mask
            tail[:, parts["charged"]] = unpack_planes(word, 4 * n)
        if "boosts_owed" in parts:
            tail[:, parts["boosts_owed"].start] = s["boosts"]
        obs, mask = super().encode(s)
        if self.two_decks:
            self._add_twice(obs, s, me)
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

    def _add_twice(self, obs: np.ndarray, s: dict, me: np.ndarray) -> None:
        """Two decks: add the cards counted twice (held, received, played, passed) to the planes.

        Few cards are held or played twice, so the cells are found from the non-empty masks
        alone: unpacking every plane of every row a second time would cost as much as the row.
        """
        n = self.n
        m = me.shape[0]
        games = np.arange(m)
        rel_idx = np.stack([self._scratch_for(m).rel_offsets[r][me] + games for r in range(n)])
        own = rel_idx[0]
        masks = np.concatenate([s["hands_twice"].reshape(-1)[own][None], s["received_twice"].reshape(-1)[own][None],
                                s["played_twice"].reshape(-1)[rel_idx], s["sent_twice"].reshape(n - 1, -1)[:, own]])
        plane, game = np.nonzero(masks)
        if not plane.size:
            return
        which, card = np.nonzero(unpack_planes(masks[plane, game]))
        obs.reshape(-1)[game[which] * self.size + self.twice_starts[plane[which]] + card] += 1

    def _put_counts(self, tail: np.ndarray, part: slice, masks: np.ndarray, visible: np.ndarray | None) -> None:
        """A card plane of the tail from ``masks`` ``[2, M]`` (cards once, cards twice), zero where not ``visible``."""
        once = masks[0] if visible is None else np.where(visible, masks[0], np.uint64(0))
        cells = unpack_planes(once)
        if self.two_decks:
            twice = masks[1] if visible is None else np.where(visible, masks[1], np.uint64(0))
            cells = cells + unpack_planes(twice)
        tail[:, part] = cells

    def _passed_planes(self, s: dict, own: np.ndarray) -> np.ndarray:
        """The cards the acting seat passed, kept per receiver: ``sent[r - 1]`` went r seats to the left."""
        sent = s["sent"]
        return sent.reshape(sent.shape[0], -1)[:, own]

    def _masks(self, legal: np.ndarray, scratch) -> np.ndarray:
        return unpack_planes(legal, self.num_actions)
