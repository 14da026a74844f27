"""The playout policies of the searches: the card each plays for whoever acts in an imagined deal.

``pimc`` (:mod:`.pimc`) finishes the deals it imagines with one of these (:func:`playout`); its
``rollout`` option names them (:data:`PLAYOUTS`). A move
reads the deal it is given, every hand included: that is the perfect-information part of
perfect-information Monte Carlo, and why it only ever sees a deal the search drew itself.
"""

from __future__ import annotations

import numpy as np

from ..engine.cards import cards_of
from ..engine.deal import DONE, Deal
from ..engine.infostate import InfoState
from . import heuristic, heuristic_v1


def heuristic_move(deal: Deal, rng: np.random.Generator) -> int:
    """The heuristic's card for the player to act in a playout."""
    return heuristic.choose(heuristic.view_from_deal(deal))


def heuristic_v1_move(deal: Deal, rng: np.random.Generator) -> int:
    """The first heuristic's card for the player to act (to compare playouts)."""
    return heuristic_v1.choose(heuristic_v1.view_from_deal(deal))


def random_move(deal: Deal, rng: np.random.Generator) -> int:
    """A uniform random legal card."""
    legal = cards_of(deal.legal)
    return legal[int(rng.integers(len(legal)))]


def playout(deal: Deal, move, rng: np.random.Generator) -> None:
    """Finish ``deal`` with every player playing ``move``'s card."""
    while deal.phase != DONE:
        deal.step(move(deal, rng))


def heuristic_card(info: InfoState) -> int:
    """The card the heuristic itself would play here."""
    return heuristic.choose(heuristic.view_from_info(info))


def heuristic_v1_card(info: InfoState) -> int:
    """The card the first heuristic itself would play here."""
    return heuristic_v1.choose(heuristic_v1.view_from_info(info))


#: The playout policies by the name pimc's ``rollout`` option takes: the card each plays in a playout,
#: and the card it would play itself (None for random play, which has no card of its own to keep).
#: By fixed name (:mod:`.names`): a search resolves ``rollout=heuristic`` to the newest first.
PLAYOUTS = {
    "heuristic_v2": (heuristic_move, heuristic_card),
    "heuristic_v1": (heuristic_v1_move, heuristic_v1_card),
    "random": (random_move, None),
}
