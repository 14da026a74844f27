"""The rule systems of the Hearts family, one module each, and their registry.

Each module (a package, for the systems with mechanics of their own) registers one
:class:`~bm_env.systems.component.RuleSystem`: the
:class:`~bm_env.Rules` options it owns with their types, allowed values and checks,
the extension features it adds when in use, the decision ids it adds to the action space, and
whether the vector engine plays it. A system with mechanics of its own in a deal holds them too,
as the functions the reference :class:`~bm_env.engine.deal.Deal` calls. :data:`SYSTEMS` is the
registry, in the order the rules object checks them (the first mistake a user would fix comes
first), lists their features and their observation parts, and declares the fields of ``Rules``. A system's package also holds its faces on the later layers,
beside its reference mechanics: ``tracker`` (its incremental observation, on the environment's
layer) and ``vector`` (its batched kernel, on the vector engine's), which those layers import.

- :mod:`.table`: the players and the deck table that deals to them;
- :mod:`.two_decks`: Cancellation's two decks, whose identical cards cancel;
- :mod:`.kitty`: the cards left over after an even deal, and who takes them;
- :mod:`.passing`: the pass (its size, direction cycle and order, unpassable cards, scatter,
  optional passing on);
- :mod:`.play`: leading and following (the first lead, hearts, trumps);
- :mod:`.scoring`: card values, the clean-trick bonus, which way the score counts;
- :mod:`.moon`: shooting the moon (and the sun);
- :mod:`.match`: how a match ends and ties are broken;
- :mod:`.queen_when_safe`, :mod:`.charging`, :mod:`.ten_clubs`, :mod:`.booster_nines`,
  :mod:`.teams`, :mod:`.domino`: the other extension systems, each named for its rule.

Like the rules engine, this package imports only numpy and the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Mapping

from . import booster_nines, charging, domino, kitty, match, moon, passing, play, queen_when_safe, scoring, table
from . import teams, ten_clubs, two_decks
from .component import DEAL_HOOKS, Bounds, Dealing, RuleSystem

if TYPE_CHECKING:
    from ..engine.rules import Rules

#: Every rule system, in checking order.
SYSTEMS: tuple[RuleSystem, ...] = tuple(m.SYSTEM for m in (
    table, two_decks, kitty, passing, play, scoring, moon, match, queen_when_safe, charging, ten_clubs,
    booster_nines, teams, domino,
))


@dataclass(frozen=True, eq=False)  # one per rules object (deal_hooks), compared by identity
class DealHooks:
    """The hooks of the systems in use for one rules object, as the reference deal calls them: a tuple of
    functions per hook point (:data:`~bm_env.systems.component.DEAL_HOOKS`), in the registry's order, and the
    step function of each phase the systems add. The classic rules have none."""

    after_passing: tuple[Callable[..., Any], ...]
    lead_filter: tuple[Callable[..., Any], ...]
    follow_filter: tuple[Callable[..., Any], ...]
    follow_compel: tuple[Callable[..., Any], ...]
    on_lead: tuple[Callable[..., Any], ...]
    on_card: tuple[Callable[..., Any], ...]
    trick_end: tuple[Callable[..., Any], ...]
    trick_won: tuple[Callable[..., Any], ...]
    after_tricks: tuple[Callable[..., Any], ...]
    trick_full: tuple[Callable[..., Any], ...]
    next_player: tuple[Callable[..., Any], ...]
    before_follow: tuple[Callable[..., Any], ...]
    trick_positions: tuple[Callable[..., Any], ...]
    taken_apart: tuple[Callable[..., Any], ...]
    before_scoring: tuple[Callable[..., Any], ...]
    phases: Mapping[str, Callable[..., None]]
    rules: Rules

    def __reduce__(self) -> tuple[Any, tuple[Rules]]:
        return deal_hooks, (self.rules,)  # a pickled deal's hooks are its rules' own, found again


@lru_cache(maxsize=256)
def deal_hooks(rules: Rules) -> DealHooks:
    """The :class:`DealHooks` of ``rules`` (asked once per deal; kept per rules object)."""
    in_use = [system for system in SYSTEMS if system.features(rules)]
    points = {name: tuple(s.deal_hooks[name] for s in in_use if name in s.deal_hooks) for name in DEAL_HOOKS}
    phases = MappingProxyType({k: f for s in in_use for k, f in s.phases.items()})
    return DealHooks(**points, phases=phases, rules=rules)


def dealing(rules: Rules) -> Dealing:
    """How ``rules`` deal the cards: the :class:`~bm_env.systems.component.Dealing` of the systems in use, joined
    (each field set by at most one system: the systems that set the same one refuse each other's options).
    Asked at every deal, so kept on the rules object once made, like its hash (and, like it, left out of pickles)."""
    try:
        return rules._dealing
    except AttributeError:
        joined: dict[str, Any] = {}
        for system in SYSTEMS:
            change = system.dealing(rules)
            if change is not None:
                joined.update({k: v for k, v in vars(change).items() if v != getattr(_CLASSIC_DEAL, k)})
        object.__setattr__(rules, "_dealing", Dealing(**joined))
        return rules._dealing


_CLASSIC_DEAL = Dealing()


@lru_cache(maxsize=256)
def bounds(rules: Rules) -> Bounds:
    """How far the systems in use can move a deal's scores: their factors multiplied, the largest shot and unit."""
    out = Bounds()
    for system in SYSTEMS:
        b = system.bounds(rules)
        if b is not None:
            out = Bounds(out.card_factor * b.card_factor, out.score_factor * b.score_factor,
                         max(out.shot_points, b.shot_points), max(out.unit_size, b.unit_size))
    return out


def system_of(option: str) -> RuleSystem:
    """The system that owns a rules option."""
    for system in SYSTEMS:
        if option in system.options:
            return system
    raise KeyError(f"no rule system owns the option {option!r}")


__all__ = ["Bounds", "DealHooks", "Dealing", "RuleSystem", "SYSTEMS", "bounds", "deal_hooks", "dealing", "system_of"]
