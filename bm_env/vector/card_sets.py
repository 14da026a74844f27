"""How the extension engine's sets of cards change as cards move, for a deck with one copy of each card.

Every set the engine keeps (a hand, the cards received, passed, played, on the trick, a kitty, its discards)
is one uint64 mask here. Cancellation's two decks hold cards twice: their kernel supplies a subclass of
:class:`CardSets` (:class:`bm_env.systems.two_decks.vector.TwoDeckCardSets`) that keeps a second mask of the
cards in a set twice beside each, and the engine and the systems' kernels move cards through these operations
wherever a card could come twice. A set is handed over as its masks ("planes": the cards in it at least once,
then, with two decks, those in it twice), ``copies`` of them.
"""

from __future__ import annotations

import numpy as np

from ..engine import checks


class CardSets:
    """The card-set operations of a deck with one copy of each card (see the module docstring)."""

    #: How many masks a set has: copies of a card the deck holds.
    copies = 1

    def start_deals(self, e, games: np.ndarray, hand_rows: np.ndarray) -> None:
        """``games`` are dealt ``hand_rows`` (the deal rows' hand columns): the engine has set the cards held once."""

    def leave_hand(self, e, own: np.ndarray, card: np.ndarray) -> None:
        """``card`` (no bit: nothing) leaves the hand at flat index ``own`` of every game."""
        e.hands.reshape(-1)[own] ^= card

    def play(self, e, own: np.ndarray, played: np.ndarray) -> None:
        """The seat at flat index ``own`` plays ``played`` (no bit: nothing) to the trick, in every game."""
        e.moved[1].reshape(-1)[own] |= played
        e.trick_all |= played

    def pass_card(self, e, flat: np.ndarray, to: np.ndarray, card: np.ndarray) -> None:
        """The seat at flat index ``flat`` picks ``card`` to pass; ``to`` is its flat index in ``e.sent``."""
        e.moved[0].reshape(-1)[flat] |= card
        e.sent.reshape(-1)[to] |= card

    def picks(self, e, games: np.ndarray) -> list[np.ndarray]:
        """The planes of the cards each seat of ``games`` picked to pass, ``[n, games]`` each."""
        return [e.moved[0][:, games]]

    def sent(self, e, games: np.ndarray) -> list[np.ndarray]:
        """The planes of ``e.sent`` (cards passed per receiver) of ``games``, copies ``[n - 1, n, games]``."""
        return [e.sent[:, :, games]]

    def set_sent(self, e, games: np.ndarray, planes: list[np.ndarray]) -> None:
        """Write back the planes of :meth:`sent`."""
        e.sent[:, :, games] = planes[0]

    def union(self, planes: list[np.ndarray], more: list[np.ndarray]) -> list[np.ndarray]:
        """The planes of a set after adding the cards of another."""
        return [planes[0] | more[0]]

    def receive(self, e, games: np.ndarray, planes: list[np.ndarray]) -> None:
        """Each seat of ``games`` receives its planes ``[n, games]`` of passed cards: they are its cards received,
        and join its hand."""
        e.received[:, games] = planes[0]
        e.hands[:, games] |= planes[0]

    def add_to_hands(self, e, at: np.ndarray, planes) -> None:
        """The planes (one mask per flat index) join the hands at flat indices ``at``."""
        e.hands.reshape(-1)[at] |= planes[0]

    def add(self, masks: np.ndarray, games: np.ndarray, card: np.ndarray) -> None:
        """``card`` (one copy) joins the set ``masks`` ``[copies, N]`` in ``games``."""
        masks[0, games] |= card

    def given_hands(self, e, hands) -> np.ndarray:
        """The hands given to ``reset`` as deal rows' hand columns ``[N, n * copies]``; refuses another shape."""
        h = checks.card_mask_array("hands", hands)
        shape = (e.num_envs, e.n)
        if h.shape != shape:
            raise ValueError(f"hands must be {list(shape)} uint64 card masks, one row per game, got {h.shape}")
        return h
