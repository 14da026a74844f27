"""Which rules the vector engine plays, checked before any game is dealt.

The engine plays every rule system of :mod:`bm_env.systems` whose registration says so
(``RuleSystem.vector``), the match options only as features of a fresh match (it plays single
deals). Options it has no code for must never be played silently wrong: an option of a system it
does not play, or a field of a ``Rules`` subclass that no system owns, is refused unless it still
has its default value; deal scores the int16 score arrays cannot hold are refused too (the rules
object itself refuses values the int8 observation cannot hold).
"""

from __future__ import annotations

import dataclasses

from ..engine.rules import Rules, RulesError
from ..systems import SYSTEMS, bounds, dealing

#: Largest magnitude of a deal score the observation's two-cell numbers and int16 arrays carry.
MAX_DEAL_POINTS = 2047


class UnsupportedRulesError(RulesError):
    """A rules option the vector engine cannot play; names the option and what is supported."""


def plays(rules: Rules) -> bool:
    """Whether the engine plays ``rules`` (:func:`check_supported` would not refuse them)."""
    try:
        check_supported(rules)
    except UnsupportedRulesError:
        return False
    return True


def check_supported(rules: Rules) -> None:
    """Raise :class:`UnsupportedRulesError` unless the engine plays ``rules`` exactly as the reference engine."""
    if not isinstance(rules, Rules):
        raise ValueError(f"the vector engine needs a bm_env.engine.rules.Rules object (make_rules(...)), got {type(rules).__name__}")
    played = {name for system in SYSTEMS if system.vector for name in system.options}
    for f in dataclasses.fields(rules):
        if f.name in played:
            continue
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if getattr(rules, f.name) != default:
            raise UnsupportedRulesError(
                f"the vector engine does not implement rules option {f.name}={getattr(rules, f.name)!r}; "
                f"it plays the rule systems {[s.name for s in SYSTEMS if s.vector]}"
            )
    deck = rules.deck_mask()
    b = bounds(rules)
    cards = sum(abs(v) for c, v in enumerate(rules.card_values) if deck >> c & 1) * dealing(rules).copies
    # Every valued card and clean trick to one seat, and a moon (or sun) moving the penalty total once more,
    # by the rule systems' factors (charged cards doubled, the 10♣ multiplying the lot).
    spread = cards + max(cards, b.shot_points) + abs(rules.clean_trick_bonus) * rules.hand_size()
    spread *= b.card_factor * b.score_factor
    if spread > MAX_DEAL_POINTS:
        raise UnsupportedRulesError(
            f"deal scores of these card values could reach {spread}; the vector engine carries at most "
            f"{MAX_DEAL_POINTS} per deal"
        )
