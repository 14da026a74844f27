"""What rebuilds a rollout decision's information state, which the vector engine does not keep.

A search labelling a rollout's decisions (expert iteration, :mod:`bm_env.training.exit`) reads the
:class:`~bm_env.engine.infostate.InfoState` of the seat to act. The engine holds each game as card
masks: the hands, the picks, the cards received and played, but not the order the cards were played
in, which an information state holds (the tricks, who led and won each, the heart leads that show a
void). :class:`PlayOrder` keeps that order for every game's deal in play; :meth:`PlayOrder.records`
gives, per game, the deal as dealt (hands before the pass, dealer, pass direction), the pass picks
and the cards played so far in order: all that :func:`info_states` needs to replay the deal on a
reference :class:`~bm_env.engine.deal.Deal` to the decision, so that the information state is the
rules engine's own. The classic rules only (one deck, no kitty), as the search plays.
"""

from __future__ import annotations

import numpy as np

from bm_env.engine.cards import NUM_CARDS, cards_of
from bm_env.engine.deal import PASS, Deal
from bm_env.engine.infostate import InfoState, information_state
from bm_env.engine.rules import Rules
from bm_env.vector import VectorEngine
from bm_env.vector.engine import PLAYING
from bm_env.vector.popcount import bitwise_count

#: The arrays of a record, by game (or decision): ``[N, n]`` uint64 hands as dealt and pass picks, ``[N]`` int8
#: dealer and index of the pass direction in the rules' cycle, ``[N, 52]`` int8 cards played in order (-1 after
#: the last), ``[N]`` bool whether the decision is a card to play (not a pass pick).
RECORD_KEYS = ("dealt", "picks", "dealer", "direction", "order", "playing")


class PlayOrder:
    """The cards played in each game's deal so far, in order: slot ``k`` of a game's row is its deal's ``k``-th card.

    A slot at or past the count of cards played (the engine's) is left from an earlier deal and never read.
    """

    def __init__(self, num_envs: int) -> None:
        self.order = np.full((num_envs, NUM_CARDS), -1, dtype=np.int8)

    def played(self, engine: VectorEngine) -> np.ndarray:
        """``[N]``: cards played so far in each game's deal."""
        return bitwise_count(engine.moved[1]).astype(np.int64).sum(axis=0)

    def records(self, engine: VectorEngine) -> dict[str, np.ndarray]:
        """Every game's record as it stands (:data:`RECORD_KEYS`), for the decision it is about to make."""
        t = lambda a: np.ascontiguousarray(a.T)  # noqa: E731
        held = engine.hands | engine.moved[1]  # what each seat held when play began
        dealt = (held & ~engine.received) | engine.moved[0]
        count = self.played(engine)
        order = np.where(np.arange(NUM_CARDS) < count[:, None], self.order, -1).astype(np.int8)
        return {"dealt": t(dealt), "picks": t(engine.moved[0]), "dealer": engine.dealer.astype(np.int8),
                "direction": engine.direction.astype(np.int8), "order": order, "playing": engine.phase == PLAYING}

    def step(self, engine: VectorEngine, actions: np.ndarray) -> None:
        """Note the cards that ``actions`` play, before the engine steps them."""
        games = np.flatnonzero(engine.phase == PLAYING)
        self.order[games, self.played(engine)[games]] = actions[games]


def info_states(rules: Rules, records: dict[str, np.ndarray]) -> list[InfoState]:
    """The information state of the seat to act at each record's play decision, from the deal replayed to it.

    The seats are the deal's positions and the match is fresh (totals 0, no deal played), as in the vector
    engine, whose observations the states' encodings equal (``tests/test_training_exit.py`` checks it).
    """
    out = []
    for i in range(len(records["dealer"])):
        if not records["playing"][i]:
            raise ValueError(f"record {i} is a pass decision; only play decisions are rebuilt")
        deal = Deal(rules, [int(h) for h in records["dealt"][i]], int(records["dealer"][i]),
                    rules.pass_cycle[int(records["direction"][i])])
        picks = [cards_of(int(p)) for p in records["picks"][i]]
        while deal.phase == PASS:  # the picks as a set: the order a seat picked them in changes nothing it knows
            deal.step(picks[deal.to_act].pop())
        order = records["order"][i]
        for card in order[order >= 0]:
            deal.step(int(card))
        out.append(information_state(deal, deal.seats[deal.to_act]))
    return out
