"""The fixed, versioned set of boards every evaluation plays.

A board is one deal: the hands, the dealer and the pass direction, drawn from a generator
seeded by ``(BOARD_SET_VERSION, seed, board index)``. Board ``i`` is therefore the same
whatever the number of boards asked for or the worker that plays it, and two runs with
the same seed compare agents on the same cards. Bump :data:`BOARD_SET_VERSION` if the way
boards are drawn ever changes; reports record it with the seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine.deal import deal_cards, pass_direction_for
from ..engine.rules import Rules

BOARD_SET_VERSION = 1


@dataclass(frozen=True)
class Board:
    """One deal of the board set: the hands by seat, the dealer, the pass direction (and the kitty)."""

    index: int
    hands: tuple  # bit masks by seat (card-id tuples with two decks)
    dealer: int
    pass_direction: str
    kitty: tuple[int, ...] = ()  # the cards left over, where the rules have a kitty


def board_rng(seed: int, index: int, stream: int = 0) -> np.random.Generator:
    """The generator of board ``index`` (``stream`` 1.. for agents' seeds on that board)."""
    return np.random.default_rng([BOARD_SET_VERSION, seed, index, stream])


def make_board(rules: Rules, seed: int, index: int) -> Board:
    """Board ``index`` of the set drawn from ``seed``: dealers rotate by board, passes follow the cycle."""
    n = rules.num_players
    rng = board_rng(seed, index)
    dealer = index % n
    hands, kitty = deal_cards(rules, n, dealer, rng)
    direction = pass_direction_for(rules, index, rng)
    return Board(index, tuple(hands), dealer, direction, kitty)


def make_boards(rules: Rules, num_boards: int, seed: int) -> list[Board]:
    """Boards ``0 .. num_boards - 1`` of the set drawn from ``seed`` (``make_board`` each)."""
    if num_boards < 1:
        raise ValueError(f"num_boards must be at least 1, got {num_boards}")
    return [make_board(rules, seed, i) for i in range(num_boards)]
