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
  :mod:`.teams`: the other extension systems, each named for its rule.

Like the rules engine, this package imports only numpy and the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Mapping

from . import booster_nines, charging, kitty, match, moon, passing, play, queen_when_safe, scoring, table, teams
from . import ten_clubs, two_decks
from .component import DEAL_HOOKS, RuleSystem

if TYPE_CHECKING:
    from ..engine.rules import Rules

#: Every rule system, in checking order.
SYSTEMS: tuple[RuleSystem, ...] = tuple(m.SYSTEM for m in (
    table, two_decks, kitty, passing, play, scoring, moon, match, queen_when_safe, charging, ten_clubs,
    booster_nines, teams,
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


def system_of(option: str) -> RuleSystem:
    """The system that owns a rules option."""
    for system in SYSTEMS:
        if option in system.options:
            return system
    raise KeyError(f"no rule system owns the option {option!r}")


__all__ = ["DealHooks", "RuleSystem", "SYSTEMS", "deal_hooks", "system_of"]
