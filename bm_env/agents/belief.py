"""A belief over the hidden cards: for each card a seat cannot see, the chance that each other seat holds it.

:class:`BeliefNet` reads the seat's observation vector (the policy's input) and gives one logit
per (other seat, card); :func:`chances` turns them into, for each hidden card, a distribution
over the other seats that may hold it (a seat void in the card's suit, or with no room, may
not). :func:`room_chances` is the uniform baseline: each hidden card with each eligible seat in
proportion to the cards that seat holds unseen. :func:`hidden_cards` gives, from an
information state, which cards are hidden, which seats may hold each, and each seat's room;
:func:`holders` gives the labels from the real deal (training is by
:mod:`bm_env.training.belief`). Seats are relative to the observer: index ``r - 1`` is the
seat ``r`` places to its left.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from ..engine.cards import NUM_CARDS, NUM_RANKS
from ..engine.deal import Deal
from ..engine.infostate import InfoState
from .checkpoint import mlp
from .pimc import inferred_voids


class BeliefNet(nn.Module):
    """An MLP from an observation to a logit per (other seat, card): ``[B, n - 1, 52]``."""

    def __init__(self, obs_size: int, num_players: int, hidden: tuple[int, ...] = (256,)) -> None:
        super().__init__()
        self.arch = {"kind": "belief_mlp", "obs_size": int(obs_size), "num_players": int(num_players),
                     "hidden": [int(h) for h in hidden]}
        self.others = num_players - 1
        self.body = mlp(obs_size, hidden, self.others * NUM_CARDS)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Logits ``[B, n - 1, 52]`` for observations ``[B, obs_size]``: for each other seat (relative to
        the observer) and card, how likely that seat holds it."""
        return self.body(obs).view(-1, self.others, NUM_CARDS)

    @classmethod
    def from_arch(cls, arch: dict[str, Any]) -> "BeliefNet":
        """An untrained network of the shape ``arch`` records (a checkpoint's ``arch``); ValueError for
        another kind of network."""
        if arch.get("kind") != "belief_mlp":
            raise ValueError(f"not a belief network: kind {arch.get('kind')!r}")
        return cls(arch["obs_size"], arch["num_players"], tuple(arch["hidden"]))


def hidden_cards(info: InfoState) -> tuple[np.ndarray, np.ndarray]:
    """``(eligible [n - 1, 52] bool, room [n - 1])``: the other seats (relative) that may hold each hidden card
    (not void in its suit, with room left), False everywhere for a card the seat knows the place of; and the
    cards each other seat holds that this seat cannot see."""
    seats = info.seats
    n = len(seats)
    me = seats.index(info.seat)
    others = [seats[(me + r) % n] for r in range(1, n)]
    known = info.known_held
    room = np.array([info.hand_sizes[s] - len(known.get(s, ())) for s in others])
    voids = inferred_voids(info)
    unseen = np.zeros(NUM_CARDS, dtype=bool)
    unseen[list(info.unseen)] = True
    suit = np.arange(NUM_CARDS) // NUM_RANKS
    open_suit = np.array([[not voids[s] >> k & 1 for k in range(4)] for s in others])  # [n - 1, 4]
    eligible = unseen[None, :] & open_suit[:, suit] & (room[:, None] > 0)
    return eligible, room


def holders(deal: Deal, info: InfoState) -> np.ndarray:
    """By card, the relative other seat (0 for the next seat to the left) holding it in ``deal``; -1 where it
    is not hidden from ``info``'s seat."""
    eligible, _ = hidden_cards(info)
    seats = info.seats
    n = len(seats)
    me = seats.index(info.seat)
    out = np.full(NUM_CARDS, -1, dtype=np.int64)
    hidden = eligible.any(axis=0)
    for r in range(1, n):
        hand = deal.hands[(me + r) % n]
        for c in np.flatnonzero(hidden):
            if hand >> int(c) & 1:
                out[c] = r - 1
    return out


def chances(logits: torch.Tensor, eligible: torch.Tensor) -> torch.Tensor:
    """For each card, the softmax of its logits over the seats that may hold it ``[B, n - 1, 52]``; 0 for the
    others, and for every seat where no seat may hold the card (it is not hidden)."""
    low = torch.finfo(logits.dtype).min
    masked = logits.masked_fill(~eligible, low)
    p = torch.softmax(masked, dim=1) * eligible
    return p / p.sum(dim=1, keepdim=True).clamp_min(1e-12)


def room_chances(eligible: np.ndarray, room: np.ndarray) -> np.ndarray:
    """The uniform belief: each hidden card with each seat that may hold it in proportion to its room."""
    w = eligible * room[..., :, None]
    total = w.sum(axis=-2, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w, dtype=float), where=total > 0)
