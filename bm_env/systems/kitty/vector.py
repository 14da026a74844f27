"""The kitty on the vector engine: the cards left over after an even deal, who takes them, and (``kitty_to_hand``)
the taker's discards, a phase of its own before the next lead.

Its state per game: the kitty and the discards (a mask per copy of a card), the taker (-1: not yet), the discards
still owed, and, where the kitty holds cards, the points of the face-down cards its taker took (its own until
the deal is scored) with each seat's points as the others know them (``public_cells``, the observation's two
number cells), which the encoder shows to every seat but their own.
"""

from __future__ import annotations

import numpy as np

from ...engine import checks
from ...engine.phases import DISCARD, PLAY
from ...vector.encoder import number_cells
from ...vector.feature_encoder import PHASE_CODES, put_counts
from ...vector.kernel import Kernel, Phase
from . import SYSTEM

DISCARDING, PLAYING = PHASE_CODES.index(DISCARD), PHASE_CODES.index(PLAY)


class KittyKernel(Kernel):
    """The kitty for many games (see the module docstring)."""

    name = SYSTEM.name
    deals_leftover = True

    def __init__(self, rules) -> None:
        super().__init__()
        self.size = rules.kitty_size()
        self.first_point = rules.kitty == "first_point"
        self.to_hand = rules.kitty_to_hand
        self.hides_points = self.size > 0
        self.state_arrays = ("kitty", "discarded", "kitty_taker", "discards_left")
        self.hooks = {"allocate": self.allocate, "start_deals": self.start_deals, "given_leftover": self.given,
                      "arrays": self.arrays, "encode": self.encode, "state": self.state,
                      "cards_apart": self.cards_apart}
        if self.size:  # else nobody takes anything: the taker stays unknown, as in the reference deal
            self.state_arrays += ("face_down_points", "public_cells")
            self.hooks.update(collected=self.hide_face_down, trick_won=self.take_after_trick,
                              after_tricks=self.to_last_winner)
        if self.to_hand:
            self.phases = {DISCARD: Phase(self.discard, self.discard_legal, "discard")}

    def allocate(self, e) -> None:
        n, N, copies = e.n, e.num_envs, e.card_sets.copies
        self.kitty, self.discarded = np.zeros((copies, N), dtype=np.uint64), np.zeros((copies, N), dtype=np.uint64)
        self.kitty_taker, self.discards_left = np.full(N, -1, dtype=np.int64), np.zeros(N, dtype=np.int64)
        if self.size:
            self.face_down_points = np.zeros(N, dtype=np.int16)
            self.public_cells = np.zeros((n, N), dtype=np.int16)

    def start_deals(self, e, games, leftover, directions) -> None:
        self.kitty[:, games] = leftover.T
        self.discarded[:, games] = 0
        self.kitty_taker[games] = -1
        self.discards_left[games] = 0
        if self.size:
            self.face_down_points[games] = 0
            self.public_cells[:, games] = 0

    def given(self, e, kitty) -> np.ndarray:
        """The kitty given to reset, ``[N]`` masks (two decks: ``[N, 2]``, the cards once, then twice)."""
        N, copies = e.num_envs, e.card_sets.copies
        if kitty is None:
            raise ValueError(f"these rules deal a kitty of {self.size} cards: give reset(kitty=...) with the hands")
        k = checks.card_mask_array("kitty", kitty)
        shape = (N,) if copies == 1 else (N, copies)
        if k.shape != shape:
            raise ValueError(f"kitty must be {list(shape)} uint64 card masks, got {k.shape}")
        return k.reshape(N, copies)

    def take_after_trick(self, e, games, winner, penalty, over) -> None:
        """The kitty, not taken yet, goes to the winner of the first trick (or of the first penalty point)."""
        take = self.kitty_taker[games] < 0
        if self.first_point:
            take &= penalty > 0
        if take.any():
            self._take(e, games[take], winner[take], over[take])

    def _take(self, e, games, winner, last) -> None:
        """The kitty goes to ``winner``: into the hand to discard from (kitty_to_hand, tricks left), else its points."""
        self.kitty_taker[games] = winner
        kitty = self.kitty[:, games]
        to_hand = ~last if self.to_hand else np.zeros(games.size, dtype=bool)
        if to_hand.any():
            g, w = games[to_hand], winner[to_hand]
            e.card_sets.add_to_hands(e.hands, w * e.num_envs + g, kitty[:, to_hand])
            self.discards_left[g] = self.size
            e._set_phase(g, DISCARDING)
        if not to_hand.all():
            rest = ~to_hand
            e._take_points(games[rest], winner[rest], kitty[:, rest])

    def to_last_winner(self, e, games) -> None:
        """``first_point`` and no penalty point taken: the last trick's winner takes the kitty."""
        left = games[self.kitty_taker[games] < 0]
        if left.size:
            self.kitty_taker[left] = e.last_winner[left]
            e._take_points(left, e.last_winner[left], self.kitty[:, left])

    def discard_legal(self, e, games, hand) -> np.ndarray:
        return hand

    def discard(self, e, games, c, card, seat) -> None:
        """The kitty's taker discards a card face down; after the last one, they lead."""
        e.card_sets.add(self.discarded, games, card)
        e._take_points(games, seat, (card,))
        self.discards_left[games] -= 1
        done = games[self.discards_left[games] == 0]
        if done.size:
            e._set_phase(done, PLAYING)

    def hide_face_down(self, e, games, seats, idx, cards, points, tricks, face_down) -> None:
        """The points of face-down cards are their taker's alone: the others see the rest."""
        if face_down:
            self.face_down_points[games] += points.astype(np.int16)
        hidden = np.where(seats == self.kitty_taker[games], self.face_down_points[games], 0)
        self.public_cells.reshape(-1)[idx] = number_cells(e.captured.reshape(-1)[idx] - hidden)

    def arrays(self, e) -> dict[str, np.ndarray]:
        out = {"kitty_taker": self.kitty_taker, "kitty": self.kitty, "discarded": self.discarded}
        if self.size:
            out["public_cells"] = self.public_cells
        return out

    def encode(self, enc, tail, parts, s, me) -> None:
        taker = s["kitty_taker"]
        tail[:, parts["kitty_taker"]] = enc.seat_cells(taker, me)
        mine = taker == me  # the kitty's cards and the discards are seen by its taker only
        put_counts(tail, parts["kitty_cards"], s["kitty"], mine)
        if self.to_hand:  # else nobody discards: the plane stays as the template has it, empty
            put_counts(tail, parts["kitty_discarded"], s["discarded"], mine)

    def state(self, e) -> dict[str, np.ndarray]:
        one = e.card_sets.copies == 1
        t = lambda a: a[0].copy() if one else np.ascontiguousarray(a.T)  # noqa: E731
        return {"kitty": t(self.kitty), "kitty_taker": self.kitty_taker.copy(), "discarded": t(self.discarded)}

    def cards_apart(self, e, st) -> np.ndarray:
        """The kitty (but where its taker has added it to its hand, to discard from) and the discards."""
        games = st["phase"].shape[0]
        kitty, discarded = st["kitty"].reshape(games, -1), st["discarded"].reshape(games, -1)
        in_hand = (st["kitty_taker"] >= 0) & ((st["phase"] == DISCARDING) | discarded.any(axis=1)) & self.to_hand
        return np.concatenate([np.where(in_hand[:, None], np.uint64(0), kitty), discarded], axis=1)


def kernel(rules) -> KittyKernel:
    """The kitty's kernel under ``rules``."""
    return KittyKernel(rules)
