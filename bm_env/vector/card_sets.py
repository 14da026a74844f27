"""How the extension engine's sets of cards change as cards move, for a deck with one copy of each card.

Every set the engine keeps (a hand, the cards received, passed, played, on the trick, a kitty, its discards)
is one uint64 mask here. Cancellation's two decks hold cards twice: their kernel is a subclass of
:class:`CardSets` (``TwoDecksKernel``, in ``bm_env/systems/two_decks/vector.py``) that keeps a second mask of the
cards in a set twice beside each, and the engine and the systems' kernels move cards through these operations
wherever a card could come twice. A set is handed over as its masks ("planes": the cards in it at least once,
then, with two decks, those in it twice), ``copies`` of them; the operations change the engine's arrays they
are given.
"""

from __future__ import annotations

import numpy as np

from ..engine import checks


class CardSets:
    """The card-set operations of a deck with one copy of each card (see the module docstring)."""

    #: How many masks a set has: copies of a card the deck holds.
    copies = 1

    def deal(self, games: np.ndarray, hand_rows: np.ndarray) -> None:
        """``games`` are dealt ``hand_rows`` (the deal rows' hand columns): the engine has set the cards held once."""

    def leave_hand(self, hands: np.ndarray, own: np.ndarray, card: np.ndarray) -> None:
        """``card`` (no bit: nothing) leaves ``hands`` at flat index ``own`` of every game."""
        hands.reshape(-1)[own] ^= card

    def play(self, played_cards: np.ndarray, trick: np.ndarray, own: np.ndarray, played: np.ndarray) -> None:
        """The seat at flat index ``own`` plays ``played`` (no bit: nothing), in every game: into its cards played
        ``played_cards`` ``[n, N]`` and the cards on the trick ``trick`` ``[N]``."""
        played_cards.reshape(-1)[own] |= played
        trick |= played

    def pass_card(self, picks: np.ndarray, sent: np.ndarray, flat: np.ndarray, to: np.ndarray, card) -> None:
        """The seat at flat index ``flat`` of ``picks`` ``[n, N]`` picks ``card`` to pass; ``to`` is its flat index
        in ``sent`` (the cards passed per receiver)."""
        picks.reshape(-1)[flat] |= card
        sent.reshape(-1)[to] |= card

    def picks(self, picks: np.ndarray, games: np.ndarray) -> list[np.ndarray]:
        """The planes ``[n, games]`` of the cards each seat of ``games`` picked to pass (``picks`` ``[n, N]``)."""
        return [picks[:, games]]

    def sent(self, sent: np.ndarray, games: np.ndarray) -> list[np.ndarray]:
        """The planes ``[n - 1, n, games]`` of ``sent`` (the cards passed per receiver) in ``games``."""
        return [sent[:, :, games]]

    def set_sent(self, sent: np.ndarray, games: np.ndarray, planes: list[np.ndarray]) -> None:
        """Write back the planes of :meth:`sent`."""
        sent[:, :, games] = planes[0]

    def union(self, planes: list[np.ndarray], more: list[np.ndarray]) -> list[np.ndarray]:
        """The planes of a set after adding the cards of another."""
        return [planes[0] | more[0]]

    def receive(self, hands: np.ndarray, received: np.ndarray, games: np.ndarray, planes: list[np.ndarray]) -> None:
        """Each seat of ``games`` receives its planes ``[n, games]`` of passed cards: they are its cards
        ``received``, and join its hand."""
        received[:, games] = planes[0]
        hands[:, games] |= planes[0]

    def add_to_hands(self, hands: np.ndarray, at: np.ndarray, planes) -> None:
        """The planes (one mask per flat index) join ``hands`` at flat indices ``at``."""
        hands.reshape(-1)[at] |= planes[0]

    def add(self, masks: np.ndarray, games: np.ndarray, card: np.ndarray) -> None:
        """``card`` (one copy) joins the set ``masks`` ``[copies, N]`` in ``games``."""
        masks[0, games] |= card

    def given_hands(self, hands, num_envs: int, n: int) -> np.ndarray:
        """The hands given to ``reset`` as deal rows' hand columns ``[N, n * copies]``; refuses another shape."""
        h = checks.card_mask_array("hands", hands)
        if h.shape != (num_envs, n):
            raise ValueError(f"hands must be {[num_envs, n]} uint64 card masks, one row per game, got {h.shape}")
        return h
