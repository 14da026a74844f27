"""Seat any agent of this package inside OpenSpiel's own ``hearts`` game.

OpenSpiel's C++ ``hearts`` (``pyspiel.load_game("hearts")`` with its default parameters)
plays the rules of the ``openspiel_hearts`` preset (docs/rules.md), so an agent trained on
that preset, such as ``checkpoints/openspiel_hearts_4p.pt``, can sit at OpenSpiel's table
against OpenSpiel's own bots (uniform random, MCTS) and be scored by OpenSpiel.

How a position is read: :func:`deal_from_openspiel` replays an OpenSpiel state's history
(the pass direction, the 52 cards dealt, the passes, the cards played) into this package's
:class:`~bm_env.engine.deal.Deal`. That replay knows every hand, but an :class:`OpenSpielBot`
decides from :func:`~bm_env.engine.infostate.information_state` of its own player only, the
view the environment gives that player, so no hidden card reaches the agent (a test holds
that two OpenSpiel states with the same information for a player give it the same
observation).

The two games' conventions, mapped here once:

* players: OpenSpiel's North, East, South, West (0..3) are seats 0..3; both play clockwise,
  and OpenSpiel's "Left" is seat + 1, as here;
* cards: OpenSpiel numbers a card ``rank * 4 + suit``, this package ``suit * 13 + rank``
  (both with suits clubs, diamonds, hearts, spades and ranks 2..A);
* the pass direction is OpenSpiel's first chance outcome (0 no pass, 1 left, 2 across,
  3 right); the cards are dealt one at a time to players 0, 1, 2, 3, 0...;
* OpenSpiel passes North's three cards, then East's, South's and West's: the replayed deal
  has West as dealer, so that North is eldest hand and the passes come in the same order;
* OpenSpiel's returns are 26 minus a player's points; this package's scores are the points.

``pyspiel`` is an optional dependency (``pip install 'black-maria[openspiel]'``); this module
imports it only when a bot is made.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..agents import make_agent
from ..engine.cards import NUM_SUITS, card, rank_of, suit_of
from ..engine.deal import DONE, PASS, Deal
from ..engine.rules import Rules, make_rules
from ..evaluation.play import agent_action

#: The preset whose rules OpenSpiel's ``hearts`` plays with its default parameters.
PRESET = "openspiel_hearts"
#: OpenSpiel's pass-direction chance outcomes, by id.
DIRECTIONS = ("hold", "left", "across", "right")
#: Chance outcomes before the first decision: the pass direction, then the 52 cards dealt.
_DEAL_ACTIONS = 1 + 52
_PLAYERS = 4
_DEALER = 3  # West deals, so North (0) is eldest and passes first, as in OpenSpiel


def card_from_openspiel(action: int) -> int:
    """This package's card id of OpenSpiel's card (or action) id ``action``."""
    rank, suit = divmod(int(action), NUM_SUITS)
    return card(rank, suit)


def card_to_openspiel(c: int) -> int:
    """OpenSpiel's card (and action) id of this package's card id ``c``."""
    return rank_of(int(c)) * NUM_SUITS + suit_of(int(c))


def _check_game(state: Any) -> None:
    game = state.get_game()
    if game.get_type().short_name != "hearts":
        raise ValueError(f"this bridge plays OpenSpiel's 'hearts', not {game.get_type().short_name!r}")
    params = game.get_parameters()
    defaults = {"pass_cards": True, "no_pts_on_first_trick": True, "can_lead_any_club": False, "jd_bonus": False,
                "avoid_all_tricks_bonus": False, "must_break_hearts": True, "qs_breaks_hearts": True,
                "can_lead_hearts_instead_of_qs": False}
    changed = {k: v for k, v in params.items() if k in defaults and v != defaults[k]}
    if changed:
        raise ValueError(f"OpenSpiel hearts with parameters {changed} is not the {PRESET!r} preset; "
                         f"only the default parameters {defaults} are mapped")


def deal_from_openspiel(state: Any, rules: Rules | None = None) -> Deal:
    """The :class:`Deal` at OpenSpiel ``hearts`` state ``state`` (every card dealt), replayed from its history.

    Raises ValueError while the cards are still being dealt, for another game, or for
    parameters other than OpenSpiel's defaults (which are the ``openspiel_hearts`` preset).
    """
    _check_game(state)
    rules = rules or make_rules(PRESET)
    history = [int(a) for a in state.history()]
    if len(history) < _DEAL_ACTIONS:
        raise ValueError(f"the deal is not complete: {len(history)} of OpenSpiel's {_DEAL_ACTIONS} chance "
                         "outcomes (the pass direction and 52 cards) have happened")
    hands: list[list[int]] = [[] for _ in range(_PLAYERS)]
    for i, action in enumerate(history[1:_DEAL_ACTIONS]):
        hands[i % _PLAYERS].append(card_from_openspiel(action))
    deal = Deal(rules, hands, _DEALER, DIRECTIONS[history[0]])
    for i, action in enumerate(history[_DEAL_ACTIONS:]):
        if deal.phase == PASS and deal.current_seat != i // deal.pass_count:
            raise ValueError(f"OpenSpiel's pass {i} was made by player {i // deal.pass_count}, "
                             f"the replayed deal expects player {deal.current_seat}")
        deal.step(card_from_openspiel(action))
    if not state.is_terminal() and deal.current_seat != state.current_player():
        raise ValueError(f"the replayed deal has seat {deal.current_seat} to act, OpenSpiel player "
                         f"{state.current_player()}")
    return deal


@lru_cache(maxsize=None)
def _bot_class():
    """The bot class, built on first use: it subclasses ``pyspiel.Bot``, an optional dependency."""
    try:
        import pyspiel
    except ImportError as e:
        raise ImportError("an OpenSpiel bot needs OpenSpiel: pip install 'black-maria[openspiel]'") from e

    class OpenSpielBot(pyspiel.Bot):
        """An agent of this package behind OpenSpiel's bot interface: ``step(state)`` -> action id."""

        def __init__(self, spec: str, player_id: int, seed: int | None) -> None:
            super().__init__()
            self.rules = make_rules(PRESET)
            self.agent = make_agent(spec, rules=self.rules, seed=seed)
            self._player = player_id

        def player_id(self) -> int:
            return self._player

        def provides_policy(self) -> bool:
            return False

        def restart_at(self, state) -> None:
            pass  # every step reads the whole position from the state

        def inform_action(self, state, player_id: int, action: int) -> None:
            pass

        def step(self, state) -> int:
            deal = deal_from_openspiel(state, self.rules)
            if deal.phase == DONE or deal.current_seat != self._player:
                raise ValueError(f"the bot of player {self._player} was asked to act for player "
                                 f"{state.current_player()}")
            return card_to_openspiel(agent_action(self.agent, deal))

    return OpenSpielBot


def make_bot(spec: str, player_id: int, seed: int | None = None):
    """A ``pyspiel.Bot`` that plays ``player_id`` of OpenSpiel ``hearts`` with the agent ``spec``
    (``policy:openspiel_hearts_4p``, ``heuristic``, ``pimc``...: docs/agents.md).

    It goes wherever OpenSpiel takes a bot, e.g. ``pyspiel.evaluate_bots(state, bots, seed)``.
    """
    if isinstance(player_id, bool) or player_id not in range(_PLAYERS):
        raise ValueError(f"player_id must be 0..{_PLAYERS - 1}, got {player_id!r}")
    return _bot_class()(spec, player_id, seed)
