"""Which rules the vector engine plays, checked before any game is dealt.

The engine reads every option of :class:`~bm_env.engine.rules.Rules` that shapes a single deal.
Options it has no code for must never be played silently wrong: a field added to
``Rules`` later (a new variant) is refused unless it still has its default value, and
deal scores the int16 score arrays cannot hold are refused too (the rules object itself
refuses values the int8 observation cannot hold).
"""

from __future__ import annotations

import dataclasses

from ..engine.rules import Rules, RulesError

#: Options of a single deal the engine implements, every value the rules object allows.
DEAL_OPTIONS = frozenset({
    "num_players", "deck_table", "pass_count", "pass_count_over_four", "pass_cycle", "pass_order",
    "no_pass_cards", "first_lead", "hearts_lead", "queen_breaks_hearts", "lead_hearts_with_queen_only",
    "first_trick_no_points", "trumps", "card_values", "clean_trick_bonus", "lower_wins", "moon",
})
#: The extension options, played by :class:`~bm_env.vector.extended.ExtendedEngine`.
EXTENSION_OPTIONS = frozenset({
    "decks", "kitty", "kitty_to_hand", "optional_pass", "sun_points", "queen_when_safe", "charging", "ten_clubs_multiplier",
    "booster_nines", "teams",
})
#: Match options: the engine plays single deals, so these only enter the observation's
#: match features (read for a fresh match) and the ``others_plus_unless_win`` moon test.
MATCH_OPTIONS = frozenset({"match_end", "match_deals", "match_threshold", "match_floor", "exact_reset", "tie_break"})

#: Largest magnitude of a deal score the observation's two-cell numbers and int16 arrays carry.
MAX_DEAL_POINTS = 2047


class UnsupportedRulesError(RulesError):
    """A rules option the vector engine cannot play; names the option and what is supported."""


def check_supported(rules: Rules) -> None:
    """Raise :class:`UnsupportedRulesError` unless the engine plays ``rules`` exactly as the reference engine."""
    if not isinstance(rules, Rules):
        raise ValueError(f"the vector engine needs a bm_env.engine.rules.Rules object (make_rules(...)), got {type(rules).__name__}")
    for f in dataclasses.fields(rules):
        if f.name in DEAL_OPTIONS or f.name in MATCH_OPTIONS or f.name in EXTENSION_OPTIONS:
            continue
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if getattr(rules, f.name) != default:
            raise UnsupportedRulesError(
                f"the vector engine does not implement rules option {f.name}={getattr(rules, f.name)!r}; "
                f"it plays the options {sorted(DEAL_OPTIONS)} (match options only as features of a fresh match)"
            )
    deck = rules.deck_mask()
    cards = sum(abs(v) for c, v in enumerate(rules.card_values) if deck >> c & 1) * rules.decks
    # Every valued card and clean trick to one seat, and a moon (or sun) moving the penalty total once more,
    # charged cards doubled and the 10♣ multiplying the lot.
    spread = cards + max(cards, rules.sun_points or 0) + abs(rules.clean_trick_bonus) * rules.hand_size()
    if rules.charging:
        spread *= 2
    if rules.ten_clubs_multiplier:
        spread *= 4 if rules.charging else 2
    if spread > MAX_DEAL_POINTS:
        raise UnsupportedRulesError(
            f"deal scores of these card values could reach {spread}; the vector engine carries at most "
            f"{MAX_DEAL_POINTS} per deal"
        )
