"""Cancellation's two decks on the vector engine: cards held twice, and tricks whose identical cards cancel.

Why the card-set operations live here: with two decks every set of cards (a hand, the cards received, passed
per receiver, played, on the trick, a kitty, its discards) can hold a card twice, so each needs a second mask of
the cards in it twice, and every card move has to keep both: a card leaving a hand leaves its second copy
first, a card joining a set that holds it already is there twice. That reaches into every move the engine and
the other systems make (the pass, the play, the kitty to a hand, the discards), not into a few hook points. So
this kernel supplies the engine's card-set operations (:class:`TwoDeckCardSets`, a
:class:`~bm_env.vector.card_sets.CardSets`), through which the engine and the kernels move cards, and the
deal source and the given deals read the copies from them: the system's code stays in one place.

Its hooks: a trick's winner with cancellation (in trick order, identical cards out of the running), a trick
with no winner left on the table (``pending``, with how many tricks it holds and how many were clean) for the
next winner to take, and the observation's planes counting cards twice. State per game beyond the masks of
cards twice: the tricks on the table.
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


class TwoDeckCardSets(CardSets):
    """The card-set operations of two decks: beside each mask, the engine's ``<set>_twice`` of the cards twice."""

    copies = 2

    def start_deals(self, e, games, hand_rows) -> None:
        for a in (e.received_twice, e.moved_twice, e.sent_twice, e.trick_twice):
            a[..., games] = 0
        e.hands_twice[:, games] = hand_rows[:, e.n:2 * e.n].T

    def leave_hand(self, e, own, card) -> None:
        second = e.hands_twice.reshape(-1)[own] & card  # one copy leaves: the second if held twice
        e.hands_twice.reshape(-1)[own] ^= second
        e.hands.reshape(-1)[own] ^= card ^ second

    def play(self, e, own, played) -> None:
        e.moved_twice[1].reshape(-1)[own] |= e.moved[1].reshape(-1)[own] & played
        e.trick_twice |= e.trick_all & played  # on the trick twice: they cancel
        super().play(e, own, played)

    def pass_card(self, e, flat, to, card) -> None:
        e.moved_twice[0].reshape(-1)[flat] |= e.moved[0].reshape(-1)[flat] & card
        e.sent_twice.reshape(-1)[to] |= e.sent.reshape(-1)[to] & card
        super().pass_card(e, flat, to, card)

    def picks(self, e, games) -> list[np.ndarray]:
        return [e.moved[0][:, games], e.moved_twice[0][:, games]]

    def sent(self, e, games) -> list[np.ndarray]:
        return [e.sent[:, :, games], e.sent_twice[:, :, games]]

    def set_sent(self, e, games, planes) -> None:
        e.sent[:, :, games], e.sent_twice[:, :, games] = planes

    def union(self, planes, more) -> list[np.ndarray]:
        return list(add_copies(planes[0], planes[1], more[0], more[1]))

    def receive(self, e, games, planes) -> None:
        e.received[:, games], e.received_twice[:, games] = planes
        e.hands[:, games], e.hands_twice[:, games] = add_copies(e.hands[:, games], e.hands_twice[:, games], *planes)

    def add_to_hands(self, e, at, planes) -> None:
        hands, twice = e.hands.reshape(-1), e.hands_twice.reshape(-1)
        hands[at], twice[at] = add_copies(hands[at], twice[at], planes[0], planes[1])

    def add(self, masks, games, card) -> None:
        masks[0, games], masks[1, games] = add_copies(masks[0, games], masks[1, games], card, _ZERO)

    def given_hands(self, e, hands) -> np.ndarray:
        h = checks.card_mask_array("hands", hands)
        shape = (e.num_envs, e.n, 2)
        if h.shape != shape:
            raise ValueError(f"hands must be {list(shape)} uint64 card masks (cards held, cards held twice), one row "
                             f"per game, got {h.shape}")
        return np.concatenate([h[:, :, 0], h[:, :, 1]], axis=1)


class TwoDecksKernel(Kernel):
    """Two decks for many games (see the module docstring)."""

    name = SYSTEM.name
    card_sets = TwoDeckCardSets()
    state_arrays = ("hands_twice", "received_twice", "moved_twice", "sent_twice", "trick_twice", "pending",
                    "pending_tricks", "pending_clean")

    def __init__(self, rules) -> None:
        super().__init__()
        n = self.n = rules.num_players
        o = ref_obs.offsets(n, ref_obs.features(rules))
        # Where each plane that can count a card twice starts in the row.
        self.twice_starts = np.array([o["hand"].start, o["received"].start]
                                     + [o[f"played_by_seat{r}"].start for r in range(n)]
                                     + [o[f"passed_to_seat{r}"].start for r in range(1, n)])
        self.hooks = {"allocate": self.allocate, "start_deals": self.start_deals, "trick_winner": self.winner,
                      "take_trick": self.take, "arrays": self.arrays, "encode": self.encode,
                      "encode_rows": self.add_twice, "state": self.state}

    def allocate(self, e) -> None:
        n, N = e.n, e.num_envs
        u64 = lambda *shape: np.zeros(shape + (N,), dtype=np.uint64)  # noqa: E731
        # The cards each seat holds, received, passed (per receiver) and played twice; the cards on the trick
        # twice; the tricks left on the table, how many, and how many were clean.
        e.hands_twice, e.received_twice = u64(n), u64(n)
        e.moved_twice, e.sent_twice = u64(2, n), u64(n - 1, n)
        e.trick_twice = u64()
        e.pending = u64(2)
        e.pending_tricks, e.pending_clean = np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)

    def start_deals(self, e, games, leftover, directions) -> None:
        e.pending[:, games] = 0
        e.pending_tricks[games] = 0
        e.pending_clean[games] = 0

    def winner(self, e, games, tb) -> np.ndarray:
        """The British rules: identical cards cancel each other for winning; in trick order, identical trumps tie
        and the first played wins. -1 where every card of the led suit cancelled."""
        n, k = self.n, games.size
        leader = e.leader[games]
        tb = tb[(leader + np.arange(n)[:, None]) % n, np.arange(k)]
        key = highest_of_suit(tb, e.led[games])
        key = np.where((tb & e.trick_twice[games]) != 0, -1, key)
        winner, best = first_highest(e._with_trumps(tb, key))
        return np.where(best >= 0, (leader + winner) % n, -1)

    def take(self, e, games, winner, cards):
        """A trick with no winner stays on the table and its leader leads again; the next winner takes every trick
        there (a last one with no winner goes to the winner of the trick before, else its leader)."""
        N = e.num_envs
        twice = e.trick_twice[games]
        e.trick_twice[games] = 0
        clean = (cards & e.valued_mask) == 0
        lost = winner < 0
        if lost.any():
            g = games[lost]
            e.pending[0, g], e.pending[1, g] = add_copies(e.pending[0, g], e.pending[1, g], cards[lost], twice[lost])
            e.pending_tricks[g] += 1
            e.pending_clean[g] += clean[lost]
            leader = e.leader[games]
            again = lost & (e.hands.reshape(-1)[leader * N + games] != 0)
            e.to_act[games[again]] = leader[again]
            keep = ~again
            games, winner, cards, twice, clean, lost = (x[keep] for x in (games, winner, cards, twice, clean, lost))
            before = e.last_winner[games]
            winner = np.where(lost, np.where(before >= 0, before, e.leader[games]), winner)
            cards, twice = np.where(lost, _ZERO, cards), np.where(lost, _ZERO, twice)  # already on the table
        waiting = e.pending[:, games]
        cards, twice = add_copies(cards, twice, waiting[0], waiting[1])
        pen = e._collect(games, winner, (cards, twice), ~lost + e.pending_tricks[games],
                         (clean & ~lost) + e.pending_clean[games])
        e.pending[:, games] = 0
        e.pending_tricks[games] = 0
        e.pending_clean[games] = 0
        return games, winner, pen, lost | (e.hands.reshape(-1)[winner * N + games] == 0)

    def arrays(self, e) -> dict[str, np.ndarray]:
        return {"hands_twice": e.hands_twice, "received_twice": e.received_twice, "played_twice": e.moved_twice[1],
                "sent_twice": e.sent_twice, "pending": e.pending}

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
        return {"hands_twice": t(e.hands_twice), "played_twice": t(e.moved_twice[1]),
                "passed_twice": t(e.moved_twice[0]), "received_twice": t(e.received_twice)}


def kernel(rules) -> TwoDecksKernel:
    """The two decks' kernel under ``rules``."""
    return TwoDecksKernel(rules)
