"""The pass's extensions on the vector engine: scatter passes, which give each pick its own receiver, and passing
on (``optional_pass``), which sends the stack coming to a player further in the direction.

The engine keeps the cards each seat passed per receiver (``sent``) for every extension rule; this kernel keeps,
per game, whether the deal's pass is a scatter (``scatter_deal``) and the seats that passed on (``passed_on``:
bit s and s + n, so that one right shift by the observer lists the seats from the observer's left). When
everyone has passed it routes the stacks: a scatter's picks each to their receiver; otherwise each stack to
the deal's receiver or, where that player passed on, further on in the same direction (back to its passer if
everyone did), and the rows then show it there.
"""

from __future__ import annotations

import numpy as np

from ...engine.actions import PASS_ON
from ...vector.engine import PASSING
from ...vector.kernel import Kernel
from . import SCATTER, SYSTEM, direction_offset, scatter_offsets

_ZERO = np.uint64(0)
_ONE = np.uint64(1)


class PassingKernel(Kernel):
    """Scatter passes and passing on, for many games (see the module docstring)."""

    name = SYSTEM.name
    state_arrays = ("passed_on", "scatter_deal")

    def __init__(self, rules) -> None:
        super().__init__()
        n = self.n = rules.num_players
        features = SYSTEM.features(rules)
        self.scatters = np.array([d == SCATTER for d in rules.pass_cycle])  # by direction of the cycle
        offsets = scatter_offsets(n, rules.passes_for()) if self.scatters.any() else None
        self.pick_offsets = np.array(offsets or (0,), dtype=np.int64)  # scatter: receiver offset of the i-th pick
        self.seat_bits = np.array([(1 << s) | (1 << s + n) for s in range(n)], dtype=np.uint64)
        # passed_on as the observation's n cells: the seats' bits, rotated to the observer.
        self.bit_cells = np.array([[(x >> r) & 1 for r in range(n)] for x in range(1 << n)], dtype=np.int8)
        self.seat_mask = np.uint64((1 << n) - 1)
        self.hooks = {"allocate": self.allocate, "pass_table": self.pass_table, "start_deals": self.start_deals,
                      "route_passes": self.route, "arrays": self.arrays, "encode": self.encode, "state": self.state}
        if "scatter" in features:
            self.hooks["pick_receivers"] = self.pick_receivers
        if "optional_pass" in features:
            self.hooks.update(pass_decision=self.pass_on, pass_legal=self.offer_pass_on)

    def allocate(self, e) -> None:
        self.passed_on = np.zeros(e.num_envs, dtype=np.uint64)
        self.scatter_deal = np.zeros(e.num_envs, dtype=bool)

    def pass_table(self, e) -> tuple[np.ndarray, np.ndarray]:
        """A scatter has no single receiver: offset 0, but it passes."""
        rules = e.rules
        offsets = np.array([0 if scatter else direction_offset(d, self.n)
                            for d, scatter in zip(rules.pass_cycle, self.scatters)], dtype=np.int64)
        return offsets, np.where((offsets > 0) | self.scatters, rules.passes_for(), 0)

    def start_deals(self, e, games, leftover, directions) -> None:
        self.passed_on[games] = 0
        self.scatter_deal[games] = self.scatters[directions] & (e.dir_passes[directions] > 0)
        scattering = games[self.scatter_deal[games]]
        if scattering.size:  # every other player receives part of a scatter pass
            receivers = e.encoder.phase_receiver_bits[2 * self.n + 1:3 * self.n]
            e.flag_bits[scattering] = e.encoder.phase_bits[PASSING] | np.bitwise_or.reduce(receivers)

    def pick_receivers(self, e, games, offsets) -> np.ndarray:
        return np.where(self.scatter_deal[games], self.pick_offsets[e.picked[games]], offsets)

    def pass_on(self, e, games, other, seat) -> None:
        """PASS_ON, the pass's one decision that is no card: the seat passes on."""
        self.passed_on[games] |= np.where(other, self.seat_bits[seat], _ZERO)

    def offer_pass_on(self, e, games, legal) -> np.ndarray:
        """Passing on, instead of a first pick, where the deal has one receiver."""
        offer = (e.picked[games] == 0) & ~self.scatter_deal[games]
        return legal | np.where(offer, np.uint64(1 << PASS_ON), _ZERO)

    def route(self, e, games) -> list[np.ndarray]:
        """The planes of the cards each seat of ``games`` receives (see the module docstring)."""
        n = self.n
        k = games.size
        card_sets = e.card_sets
        received = [np.zeros((n, k), dtype=np.uint64) for _ in range(card_sets.copies)]
        scatter = self.scatter_deal[games]
        seats = np.arange(n)[:, None]
        cols = np.arange(k)
        sent = card_sets.sent(e.sent, games)  # [r - 1, seat, game] each
        if scatter.any():
            for r in range(1, n):
                received = card_sets.union(received, [np.where(scatter, x[r - 1][(seats - r) % n, cols], _ZERO)
                                                      for x in sent])
        plain = ~scatter
        if plain.any():
            off = e.pass_offset[games]
            on = ((self.passed_on[games] >> seats.astype(np.uint64)) & _ONE) != 0  # [seat, game]
            picks = card_sets.picks(e.moved[0], games)
            for q in range(n):
                first = (q + off) % n
                final = first
                for _ in range(n - 1):
                    final = np.where(on[final, cols] & (final != q), (final + off) % n, final)
                sends = plain & ~on[q] & (off > 0)
                for got, stack in zip(received, picks):  # each player receives one stack at most
                    got.reshape(-1)[final * k + cols] |= np.where(sends, stack[q], _ZERO)
                moved = sends & (final != first)
                if moved.any():  # the rows show the stack with its final receiver (none: back home)
                    first_r = np.where(moved, first - q, 0) % n
                    back = moved & (final == q)
                    for plane, stack in zip(sent, picks):
                        plane[first_r - 1, q, cols] &= np.where(moved, _ZERO, ~_ZERO)
                        plane[(final - q) % n - 1, q, cols] |= np.where(moved & ~back, stack[q], _ZERO)
            card_sets.set_sent(e.sent, games, sent)
        return received

    def arrays(self, e) -> dict[str, np.ndarray]:
        return {"scatter_deal": self.scatter_deal, "passed_on": self.passed_on}

    def encode(self, enc, tail, parts, s, me) -> None:
        if "scatter_deal" in parts:
            tail[:, parts["scatter_deal"].start] = s["scatter_deal"]
        if "passed_on" in parts:
            tail[:, parts["passed_on"]] = self.bit_cells[(s["passed_on"] >> me.astype(np.uint64)) & self.seat_mask]

    def state(self, e) -> dict[str, np.ndarray]:
        return {"passed_on": ((self.passed_on[:, None] >> np.arange(self.n, dtype=np.uint64)) & _ONE).astype(bool)}


def kernel(rules) -> PassingKernel:
    """The kernel of the pass's extensions under ``rules``."""
    return PassingKernel(rules)
