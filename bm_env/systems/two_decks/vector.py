"""Cancellation's two decks on the vector engine: cards held twice, and tricks whose identical cards cancel.

Why the card-set operations live here: with two decks every set of cards (a hand, the cards received, passed
per receiver, played, on the trick, a kitty, its discards) can hold a card twice, so each needs a second mask of
the cards in it twice, and every card move has to keep both: a card leaving a hand leaves its second copy
first, a card joining a set that holds it already is there twice. That reaches into every move the engine and
the other systems make (the pass, the play, the kitty to a hand, the discards), not into a few hook points. So
this kernel is the engine's card-set operations (a :class:`~bm_env.vector.card_sets.CardSets`), through which
the engine and the kernels move cards and from which the deal source and the given deals read the copies: the
system's code stays in one place.

Its hooks: a trick's winner with cancellation (in trick order, identical cards out of the running), a trick
with no winner left on the table (``pending``, with how many tricks it holds and how many were clean) for the
next winner to take, and the observation's planes counting cards twice. Its state per game: the masks of the
cards twice (held, received, passed per receiver, played, on the trick) and the tricks on the table.
"""

from __future__ import annotations

import numpy as np

from ...engine import checks
from ...env import observation as ref_obs
from ...vector.card_sets import CardSets
from ...vector.feature_encoder import put_counts, unpack_planes
from ...vector.kernel import Kernel
from ...vector.suit_chunks import first_highest, highest_of_suit
from . import SYSTEM

_ZERO = np.uint64(0)


def add_copies(once: np.ndarray, twice: np.ndarray, more: np.ndarray, more_twice: np.ndarray):
    """The masks (at least once, twice) of a card set after adding another; no card has more than two copies,
    so a card is there twice if it was, if it comes twice, or once each."""
    return once | more, twice | more_twice | (once & more)


class TwoDecksKernel(Kernel, CardSets):
    """Two decks for many games, and the engine's card-set operations (see the module docstring)."""

    name = SYSTEM.name
    copies = 2
    state_arrays = ("hands_twice", "received_twice", "moved_twice", "sent_twice", "trick_twice", "pending",
                    "pending_tricks", "pending_clean")

    def __init__(self, rules) -> None:
        super().__init__()
        self.card_sets = self
        n = self.n = rules.num_players
        o = ref_obs.offsets(n, ref_obs.features(rules))
        # Where each plane that can count a card twice starts in the row.
        self.twice_starts = np.array([o["hand"].start, o["received"].start]
                                     + [o[f"played_by_seat{r}"].start for r in range(n)]
                                     + [o[f"passed_to_seat{r}"].start for r in range(1, n)])
        self.hooks = {"allocate": self.allocate, "start_deals": self.clear_table, "trick_winner": self.winner,
                      "take_trick": self.take, "arrays": self.arrays, "encode": self.encode,
                      "encode_rows": self.add_twice, "state": self.state, "cards_apart": self.cards_apart}

    def allocate(self, e) -> None:
        n, N = e.n, e.num_envs
        u64 = lambda *shape: np.zeros(shape + (N,), dtype=np.uint64)  # noqa: E731
        self.hands_twice, self.received_twice = u64(n), u64(n)
        self.moved_twice, self.sent_twice = u64(2, n), u64(n - 1, n)  # [0]: passed, [1]: played; by receiver
        self.trick_twice = u64()
        self.pending = u64(2)  # the cards of the tricks on the table, once and twice
        self.pending_tricks, self.pending_clean = np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)

    # ------------------------------------------------------------------ the card-set operations

    def deal(self, games, hand_rows) -> None:
        for a in (self.received_twice, self.moved_twice, self.sent_twice, self.trick_twice):
            a[..., games] = 0
        self.hands_twice[:, games] = hand_rows[:, self.n:2 * self.n].T

    def leave_hand(self, hands, own, card) -> None:
        second = self.hands_twice.reshape(-1)[own] & card  # one copy leaves: the second if held twice
        self.hands_twice.reshape(-1)[own] ^= second
        hands.reshape(-1)[own] ^= card ^ second

    def play(self, played_cards, trick, own, played) -> None:
        self.moved_twice[1].reshape(-1)[own] |= played_cards.reshape(-1)[own] & played
        self.trick_twice |= trick & played  # on the trick twice: they cancel
        super().play(played_cards, trick, own, played)

    def pass_card(self, picks, sent, flat, to, card) -> None:
        self.moved_twice[0].reshape(-1)[flat] |= picks.reshape(-1)[flat] & card
        self.sent_twice.reshape(-1)[to] |= sent.reshape(-1)[to] & card
        super().pass_card(picks, sent, flat, to, card)

    def picks(self, picks, games) -> list[np.ndarray]:
        return [picks[:, games], self.moved_twice[0][:, games]]

    def sent(self, sent, games) -> list[np.ndarray]:
        return [sent[:, :, games], self.sent_twice[:, :, games]]

    def set_sent(self, sent, games, planes) -> None:
        sent[:, :, games], self.sent_twice[:, :, games] = planes

    def union(self, planes, more) -> list[np.ndarray]:
        return list(add_copies(planes[0], planes[1], more[0], more[1]))

    def receive(self, hands, received, games, planes) -> None:
        received[:, games], self.received_twice[:, games] = planes
        hands[:, games], self.hands_twice[:, games] = add_copies(hands[:, games], self.hands_twice[:, games], *planes)

    def add_to_hands(self, hands, at, planes) -> None:
        once, twice = hands.reshape(-1), self.hands_twice.reshape(-1)
        once[at], twice[at] = add_copies(once[at], twice[at], planes[0], planes[1])

    def add(self, masks, games, card) -> None:
        masks[0, games], masks[1, games] = add_copies(masks[0, games], masks[1, games], card, _ZERO)

    def given_hands(self, hands, num_envs, n) -> np.ndarray:
        h = checks.card_mask_array("hands", hands)
        shape = (num_envs, n, 2)
        if h.shape != shape:
            raise ValueError(f"hands must be {list(shape)} uint64 card masks (cards held, cards held twice), one row "
                             f"per game, got {h.shape}")
        return np.concatenate([h[:, :, 0], h[:, :, 1]], axis=1)

    # ------------------------------------------------------------------ the hooks

    def clear_table(self, e, games, leftover=None, directions=None) -> None:
        """No trick waits on the table (a new deal, or its tricks just taken)."""
        self.pending[:, games] = 0
        self.pending_tricks[games] = 0
        self.pending_clean[games] = 0

    def winner(self, e, games, tb) -> np.ndarray:
        """The British rules: identical cards cancel each other for winning; in trick order, identical trumps tie
        and the first played wins. -1 where every card of the led suit cancelled."""
        n, k = self.n, games.size
        leader = e.leader[games]
        tb = tb[(leader + np.arange(n)[:, None]) % n, np.arange(k)]
        key = highest_of_suit(tb, e.led[games])
        key = np.where((tb & self.trick_twice[games]) != 0, -1, key)
        winner, best = first_highest(e._with_trumps(tb, key))
        return np.where(best >= 0, (leader + winner) % n, -1)

    def take(self, e, games, winner, cards):
        """A trick with no winner stays on the table and its leader leads again; the next winner takes every trick
        there (a last one with no winner goes to the winner of the trick before, else its leader)."""
        N = e.num_envs
        twice = self.trick_twice[games]
        self.trick_twice[games] = 0
        clean = (cards & e.valued_mask) == 0
        lost = winner < 0
        if lost.any():
            g = games[lost]
            self.pending[0, g], self.pending[1, g] = add_copies(self.pending[0, g], self.pending[1, g], cards[lost],
                                                                twice[lost])
            self.pending_tricks[g] += 1
            self.pending_clean[g] += clean[lost]
            leader = e.leader[games]
            again = lost & (e.hands.reshape(-1)[leader * N + games] != 0)
            e._give_turn(games[again], leader[again])
            keep = ~again
            games, winner, cards, twice, clean, lost = (x[keep] for x in (games, winner, cards, twice, clean, lost))
            before = e.last_winner[games]
            winner = np.where(lost, np.where(before >= 0, before, e.leader[games]), winner)
            cards, twice = np.where(lost, _ZERO, cards), np.where(lost, _ZERO, twice)  # already on the table
        waiting = self.pending[:, games]
        cards, twice = add_copies(cards, twice, waiting[0], waiting[1])
        pen = e._collect(games, winner, (cards, twice), ~lost + self.pending_tricks[games],
                         (clean & ~lost) + self.pending_clean[games])
        self.clear_table(e, games)
        return games, winner, pen, lost | (e.hands.reshape(-1)[winner * N + games] == 0)

    def arrays(self, e) -> dict[str, np.ndarray]:
        return {"hands_twice": self.hands_twice, "received_twice": self.received_twice,
                "played_twice": self.moved_twice[1], "sent_twice": self.sent_twice, "pending": self.pending}

    def encode(self, enc, tail, parts, s, me) -> None:
        put_counts(tail, parts["pending_trick_cards"], s["pending"], None)

    def add_twice(self, enc, obs, s, me) -> None:
        """Add the cards counted twice (held, received, played, passed) to the planes.

        Few cards are held or played twice, so the cells are found from the non-empty masks
        alone: unpacking every plane of every row a second time would cost as much as the row.
        """
        n = self.n
        m = me.shape[0]
        games = np.arange(m)
        rel_idx = np.stack([enc._scratch_for(m).rel_offsets[r][me] + games for r in range(n)])
        own = rel_idx[0]
        masks = np.concatenate([s["hands_twice"].reshape(-1)[own][None], s["received_twice"].reshape(-1)[own][None],
                                s["played_twice"].reshape(-1)[rel_idx], s["sent_twice"].reshape(n - 1, -1)[:, own]])
        plane, game = np.nonzero(masks)
        if not plane.size:
            return
        which, card = np.nonzero(unpack_planes(masks[plane, game]))
        obs.reshape(-1)[game[which] * enc.size + self.twice_starts[plane[which]] + card] += 1

    def state(self, e) -> dict[str, np.ndarray]:
        t = lambda a: np.ascontiguousarray(a.T)  # noqa: E731
        return {"hands_twice": t(self.hands_twice), "played_twice": t(self.moved_twice[1]),
                "passed_twice": t(self.moved_twice[0]), "received_twice": t(self.received_twice)}

    def cards_apart(self, e, st) -> np.ndarray:
        """The second copies: held, passed (while the pass lasts) and played."""
        passing = (st["phase"] == 0)[:, None]
        return np.concatenate([st["hands_twice"], np.where(passing, st["passed_twice"], np.uint64(0)),
                               st["played_twice"]], axis=1)


def kernel(rules) -> TwoDecksKernel:
    """The two decks' kernel under ``rules``."""
    return TwoDecksKernel(rules)
