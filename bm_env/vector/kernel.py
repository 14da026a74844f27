"""A rule system's face on the vector engine: its kernel, the hook points where the engine calls it, and how the
engine finds the kernels of the systems in use.

A kernel is the batched counterpart of the functions a system's registration hands the reference
:class:`~bm_env.engine.deal.Deal`: one per engine, it holds the tables its system reads off the rules and the
system's state for every game (its arrays, named in ``state_arrays``), and maps hook points (:data:`HOOKS`) to
its functions, which read the engine's arrays and change their own for many games at once (the engine's turn
and phase through its ``_give_turn`` and ``_set_phase``). The engine
(:class:`~bm_env.vector.extended.ExtendedEngine`) and its encoder call the hooks of the systems in use in the
registry's order; the classic rules have none. Each system's kernel is in ``bm_env/systems/<name>/vector.py``,
whose ``kernel(rules)`` builds it: found by that convention for every system in use whose registration says the
vector engine plays it (``RuleSystem.vector``).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, NamedTuple

from ..engine.rules import Rules
from ..systems import SYSTEMS, RuleSystem
from .card_sets import CardSets

#: Where the engine calls the kernels, what each hook is given and returns. ``e`` is the engine, ``games`` indices
#: of games, per-seat arrays ``[n, games]``; a hook of :data:`REPLACEMENTS` takes the place of the engine's own
#: computation there (one system in use at most supplies it), the others run in the registry's order.
HOOKS = {
    # dealing
    "allocate": "(e): make the system's state arrays (those of Kernel.state_arrays) for the engine's games",
    "pass_table": "(e) -> (receiver offset, cards passed) by direction of the pass cycle",
    "start_deals": "(e, games, leftover, directions): games were dealt afresh (the engine's own state is set); "
                   "leftover: the deal rows' columns after the hands (Kernel.deals_leftover), directions: indices "
                   "into the pass cycle",
    "given_leftover": "(e, given) -> [N, copies] the leftover cards given to reset (refused if malformed or missing)",
    # the pass
    "pick_receivers": "(e, games, offsets) -> the receiver offset of the card each passer picks now",
    "pass_decision": "(e, games, other, seat): a decision other than a card (where other) ended a seat's pass",
    "route_passes": "(e, games) -> the planes [n, games] of the cards each seat receives, once all have passed",
    "pass_legal": "(e, games, legal) -> the legal pass decisions, filtered",
    "after_passing": "(e, games) -> [games] bool: where a phase of the system's starts after the pass",
    # the play
    "play_filter": "(e, hand, legal, following) -> the legal plays of every game, filtered",
    "play_compel": "(e, hand, legal, following) -> the card the rules compel, if any, once every filter has run",
    "on_lead": "(e, leading, suit): a trick was led where leading, in suit (by game)",
    "trick_complete": "(e, playing, action, suit, seat) -> where the trick is complete once this card is on it",
    # the trick's end
    "trick_winner": "(e, games, trick cards by seat) -> the position that wins each trick, -1 where none does",
    "trick_end": "(e, games): the tricks of games are complete, before they are taken",
    "take_trick": "(e, games, winner, cards) -> (games, takers, penalty points, whether the deal's tricks are over)",
    "card_points": "(e, games, cards) -> (points, penalty points) the cards count beyond their values",
    "collected": "(e, games, seats, flat index, cards, points, tricks, face down): seats took cards and points",
    "trick_won": "(e, games, winner, penalty points, tricks over): the tricks were taken",
    # the deal's end
    "after_tricks": "(e, games): the last trick is over, before the moon is looked for",
    "moon_hits": "(e, taken, total, hit) -> [n, games] the seats that shot the moon, from the penalty points taken",
    "shot": "(e, games, shooter, total) -> (shooter, what the shot is worth)",
    "before_scoring": "(e, games) -> [games] bool: where a phase of the system's starts before the deal is scored",
    "multipliers": "(e, games) -> [n, games] each seat's score multiplier",
    "scoring_units": "(e, scores, penalty, shooters, multipliers) -> the same, for the units that score together",
    "reward_scores": "(e, scores) -> the scores the rewards are computed from",
    # the observation and the views
    "arrays": "(e) -> {name: array}: the engine's arrays its observation parts read",
    "encode": "(encoder, tail, parts, s, me): write its parts into the rows' tail (parts: slices of the tail)",
    "encode_rows": "(encoder, obs, s, me): correct the finished rows",
    "state": "(e) -> {name: array}: its entries of state() (copies, per-seat arrays [N, n])",
    "cards_apart": "(e, st) -> [N, m] card masks, from state() st: the cards it keeps apart from the hands, the "
                   "passes and the plays, and the copies held, passed or played twice",
}
#: The hooks that replace the engine's own computation.
REPLACEMENTS = frozenset({"pass_table", "given_leftover", "route_passes", "trick_complete", "trick_winner",
                          "take_trick"})


class Phase(NamedTuple):
    """A phase of a system's own (charging, the kitty's discards, the moon choice)."""

    #: (e, games, action, card, seat) -> None, or (games whose deal ends now, whether each shooter subtracts)
    step: Callable[..., Any]
    legal: Callable[..., Any]  # (e, games, hand) -> the legal actions of the seat to act
    verb: str  # what the seat does, for the message refusing an illegal action ("may not choose ...")


class Kernel:
    """A rule system's kernel (see the module docstring); the subclasses set what they use."""

    #: The system's name (its registration's).
    name = ""
    #: Its state arrays, by attribute name (get_state saves them with the engine's).
    state_arrays: tuple[str, ...] = ()
    #: The engine's card-set operations, where the system changes how cards are held (two decks: the kernel itself).
    card_sets: CardSets | None = None
    #: Whether the cards left over after an even deal are its own (a kitty): dealt as the rows' last columns.
    deals_leftover = False
    #: Whether some points taken are known to their taker only (the observation then shows the others'
    #: ``public_cells``).
    hides_points = False
    #: Whether a seat may play to a trick more than once (it goes round the table again).
    plays_again = False

    def __init__(self) -> None:
        #: hook point (:data:`HOOKS`) -> the function the engine calls there
        self.hooks: dict[str, Callable[..., Any]] = {}
        #: phase name (:mod:`bm_env.engine.phases`) -> the phase
        self.phases: dict[str, Phase] = {}


class Hooks:
    """The hooks of some kernels by hook point: a tuple of functions in the kernels' order, or for a
    replacement the one function (None: the engine's own). The classic rules have none."""

    def __init__(self, kernels: tuple[Kernel, ...]) -> None:
        for k in kernels:
            unknown = sorted(set(k.hooks) - set(HOOKS))
            if unknown:
                raise ValueError(f"{k.name} kernel: unknown hook(s) {unknown}; the hooks: {list(HOOKS)}")
        for point in HOOKS:
            found = tuple(k.hooks[point] for k in kernels if point in k.hooks)
            if point in REPLACEMENTS:
                if len(found) > 1:
                    raise ValueError(f"hook {point} replaces the engine's own: {len(found)} kernels supply it")
                found = found[0] if found else None
            setattr(self, point, found)


def kernel_of(system: RuleSystem) -> Callable[[Rules], Kernel]:
    """The function that builds ``system``'s kernel: ``kernel`` of ``bm_env.systems.<name>.vector``."""
    return importlib.import_module(f"..systems.{system.name}.vector", __package__).kernel


def systems_with_kernels(rules: Rules) -> tuple[RuleSystem, ...]:
    """The systems in use under ``rules`` that the vector engine plays, in the registry's order (none for the
    classic rules)."""
    return tuple(system for system in SYSTEMS if system.vector and system.features(rules))


def kernels_for(rules: Rules) -> tuple[Kernel, ...]:
    """New kernels of the systems of :func:`systems_with_kernels`, for one engine."""
    return tuple(kernel_of(system)(rules) for system in systems_with_kernels(rules))
