"""One frozen rules object for the whole Hearts family, and its named presets.

Every rule option the sources name is a field of :class:`Rules`, declared by the rule system of
:mod:`bm_env.systems` that owns it (:class:`~bm_env.systems.component.Option`: its type, default and
allowed values, and the rules text it comes from), by these short names (``docs/rules.md`` describes
them and the conventions): *the British rules* (Black Maria in full, with Dirty Lady, Slippery
Anne, Omnibus and Cancellation), *the 3-7 player rules* and *the 3-4 player rules* (two
shorter Black Maria texts), *Pagat* (the Pagat page on Hearts: American Hearts and its
family) and *Petrone's rules* (Petrone's Black Mariah).

A preset is just an instance (:class:`Preset`), built by :func:`~bm_env.make_rules`, so
"black_maria with the moon rule and hearts led any time" is ``make_rules("black_maria",
moon="shooter_minus", hearts_lead="any_time")``. Construction validates everything: an
unknown option, a value outside the allowed set, a wrong type or an impossible combination
raises :class:`~bm_env.RulesError` naming the problem and what is allowed.

Each option belongs to one rule system of :mod:`bm_env.systems`, which holds its type, its
allowed values and its checks; this module builds, checks and names the whole. The options
beyond the classic trick-avoidance game (two decks, kitties, scatter and optional passes, the
moon choice and the sun, the queen when safe, charging, the 10♣ multiplier, booster nines,
teams) are the *extensions* (:attr:`~bm_env.Rules.uses_extensions`, read off the systems): they
add decisions and observation parts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import Any, Callable, Mapping, TypeVar, Union

from ..systems import SYSTEMS, bounds, dealing
from ..systems.cells import CELL_RANGE, NUMBER_LIMIT
from ..systems.kitty import KITTIES
from ..systems.match import MATCH_ENDS, TIE_BREAKS
from ..systems.moon import MOONS
from ..systems.passing import PASS_CYCLES, direction_offset, scatter_offsets
from ..systems.play import FIRST_LEADS, HEARTS_LEADS, TRUMPS
from ..systems.scoring import VALUE_TABLES
from ..systems.table import DECK_TABLES
from ..systems.teams import TEAMS, partner_of
from . import checks
from .cards import FULL_DECK, NUM_CARDS, QUEEN_SPADES, card_str, mask_of, parse_card
from .checks import RulesError

T = TypeVar("T")


def _option_fields() -> list[tuple[str, Any, dataclasses.Field]]:
    """The fields of :class:`Rules`: every option each rule system of :mod:`bm_env.systems` declares, in the
    registry's order, with its type and default."""
    out = []
    for system in SYSTEMS:
        for name, option in system.options.items():
            hint = option.type if isinstance(option.type, type) else Union[option.type]
            out.append((name, hint, dataclasses.field(default=option.default)))
    return out


#: The options as a frozen dataclass; :class:`Rules` adds the checks and what is derived from them.
_Options = dataclasses.make_dataclass("_Options", _option_fields(), frozen=True)


@dataclass(frozen=True)
class Rules(_Options):
    """Every rule option of the Hearts family. Build presets with :func:`~bm_env.make_rules`.

    Seats, cards and actions follow the conventions of ``docs/rules.md``. Scores are in the rules' own unit
    and sign: penalty points where ``lower_wins`` (the Hearts family), plus points in
    Petrone's game.
    """

    def __post_init__(self) -> None:
        _validate(self)

    def __hash__(self) -> int:
        # Rules key the per-rules caches that every deal consults; hashing all the fields
        # (the 52 card values among them) each time cost more than a microsecond per lookup.
        # The hash is kept on the instance once computed and left out of pickles
        # (:meth:`__reduce__`), since string hashes differ between processes.
        try:
            return self._hash
        except AttributeError:
            h = hash(tuple(getattr(self, f.name) for f in dataclasses.fields(self)))
            object.__setattr__(self, "_hash", h)
            return h

    def __deepcopy__(self, memo: dict) -> Rules:
        return self  # frozen: a copied environment or engine shares its rules (and their caches)

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        # Unpickled rules (an evaluation worker's, a checkpoint's) come back through the same
        # validation and interning as make_rules's (_MADE below), so they key the per-rules
        # caches by identity too.
        return _made, ({f.name: getattr(self, f.name) for f in dataclasses.fields(self)},)

    # --- derived facts ----------------------------------------------------------------

    def removed_cards(self, num_players: int | None = None) -> frozenset[int]:
        """Cards taken out of the deck for a deal among ``num_players`` (default: the table).

        Where a system deals the full deck (a kitty, a stock) nothing is removed: the cards the
        hands do not take lie apart.
        """
        n = self.num_players if num_players is None else num_players
        if dealing(self).full_deck:
            return frozenset()
        table = DECK_TABLES[self.deck_table]
        if n not in table:
            raise RulesError(
                f"deck table {self.deck_table!r} does not cover {n} players; it covers {sorted(table)}"
            )
        return table[n]

    def deck_mask(self, num_players: int | None = None) -> int:
        """Bit mask of the cards dealt among ``num_players``."""
        return _deck_mask(self, self.num_players if num_players is None else num_players)

    def hand_size(self, num_players: int | None = None) -> int:
        """Cards dealt to each hand at a table of ``num_players`` (default: the rules' own): the deck
        table's cards, every copy of them, shared out evenly, unless a system sets the hand's size;
        any left over lie apart (:meth:`kitty_size`)."""
        n = self.num_players if num_players is None else num_players
        how = dealing(self)
        return how.hand_size or bin(self.deck_mask(n)).count("1") * how.copies // n

    def kitty_size(self, num_players: int | None = None) -> int:
        """Cards left apart after the hands are dealt: the kitty, or a stock (0 in the classic deal)."""
        n = self.num_players if num_players is None else num_players
        return bin(self.deck_mask(n)).count("1") * dealing(self).copies - self.hand_size(n) * n

    @property
    def uses_extensions(self) -> tuple[str, ...]:
        """Names of the extension features in use, read off the rule systems (:mod:`bm_env.systems`);
        empty for the classic presets. Each names the observation parts it adds."""
        return self._derived()[0]

    def passes_for(self, num_players: int | None = None) -> int:
        """Cards each player passes at a table of ``num_players``."""
        n = self.num_players if num_players is None else num_players
        if self.pass_count_over_four is not None and n > 4:
            return self.pass_count_over_four
        return self.pass_count

    @property
    def num_actions(self) -> int:
        """Size of the action space: the 52 card ids, then the extra decision ids these rules use.

        The extra ids are fixed (:mod:`bm_env.engine.actions`); the space ends after the highest one
        that a system in use adds, so rules without extra decisions keep exactly 52 actions.
        """
        return self._derived()[1]

    def _derived(self) -> tuple[tuple[str, ...], int]:
        # Read at every deal and observation; the systems are asked once per rules object and the
        # answer kept on the instance, like the hash (and, like it, left out of pickles).
        try:
            return self._features_and_actions
        except AttributeError:
            features = tuple(f for system in SYSTEMS for f in system.features(self))
            last = max((a for system in SYSTEMS for f, a in system.decisions.items() if f in features),
                       default=NUM_CARDS - 1)
            object.__setattr__(self, "_features_and_actions", (features, last + 1))
            return self._features_and_actions

    def replace(self, **changes: Any) -> "Rules":
        """A copy with some options changed (validated like a new object)."""
        return _construct({**self.to_dict(), **_normalise_overrides(changes)})

    # --- dict form --------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict: cards as strings, card values as ``{card: value}`` of the non-zero ones."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name == "card_values":
                v = {card_str(c): x for c, x in enumerate(v) if x}
            elif f.name == "no_pass_cards":
                v = [card_str(c) for c in v]
            elif isinstance(v, tuple):
                v = list(v)
            out[f.name] = v
        return out

    def same_as(self, data: Any) -> bool:
        """Whether ``data``, a rules dict a file holds (a checkpoint, a training state, a belief), names these
        rules (:meth:`from_dict`'s reading: a dict written before an option was added still does)."""
        try:
            return Rules.from_dict(data) == self
        except (RulesError, TypeError):
            return False

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Rules":
        """Inverse of :meth:`to_dict`: every option must be there, and no other key.

        A record or checkpoint holds all the options it was made with; one missing would
        silently take today's default. The exception is an option added after such files were
        written (``Option.added``): a game played before it existed was played without it,
        which is what its default says (it leaves its system out of use), so a dict without it
        still reads as it was meant. A partial set of options is :func:`~bm_env.make_rules`' job.
        """
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be given as a mapping of option names to values, got {type(data).__name__}")
        unknown = sorted(set(data) - set(OPTION_NAMES))
        missing = [k for k in OPTION_NAMES if k not in data and not _added(k)]
        if missing and not unknown:
            raise RulesError(f"rules are missing option(s) {missing}; a rules dict (Rules.to_dict()) holds every "
                             "option; use make_rules(preset, **options) for a few")
        return _construct(dict(data))


def _added(option: str) -> bool:
    """Whether ``option`` was added after rules dicts were written without it (``Option.added``)."""
    return any(system.options[option].added for system in SYSTEMS if option in system.options)


@lru_cache(maxsize=256)
def _deck_mask(rules: Rules, num_players: int) -> int:
    """:meth:`Rules.deck_mask`, cached: every deal checks its hands against it."""
    return FULL_DECK & ~mask_of(rules.removed_cards(num_players))


def per_rules(build: Callable[[Rules, int], T]) -> Callable[[Rules, int], T]:
    """``build(rules, num_players)`` made once per pair, for what a player derives at every decision.

    The last pair asked for is found by an identity check, without hashing the rules (a
    Python-level ``__hash__``: 148 ns per lookup through an lru_cache, 73 ns this way, timeit);
    other pairs go through an lru_cache.
    """
    cached = lru_cache(maxsize=64)(build)
    last: tuple = (None, 0, None)  # (rules, num_players, value) of the last call

    @wraps(build)
    def get(rules: Rules, num_players: int) -> T:
        nonlocal last
        last_rules, last_n, value = last
        if rules is last_rules and num_players == last_n:
            return value
        value = cached(rules, num_players)
        last = (rules, num_players, value)
        return value

    return get


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(Rules))


def _normalise_overrides(values: Mapping[str, Any]) -> dict[str, Any]:
    """Accept the friendly forms of a few options (names, card strings, lists)."""
    out = {}
    for k, v in values.items():
        v = checks.plain(v)  # a numpy integer is an int here as everywhere (bm_env.engine.checks)
        if k == "card_values":
            v = _coerce_card_values(v)
        elif k == "no_pass_cards":
            if isinstance(v, (str, int)):
                v = [v]
            if not isinstance(v, (list, tuple)):
                raise RulesError(f"no_pass_cards must be a list of cards such as ['QS'], got {checks.shown(v)}")
            v = tuple(_option_card(c, k) if isinstance(c, str) else c for c in v)
        elif k == "pass_cycle" and isinstance(v, str):
            v = PASS_CYCLES.get(v, (v,))
        elif k in ("pass_cycle", "exact_reset") and isinstance(v, list):
            v = tuple(v)
        out[k] = v
    return out


def _option_card(text: str, option: str) -> int:
    """A card named in a rules option; a bad name is a :class:`RulesError` like every other bad option."""
    try:
        return parse_card(text)
    except ValueError as e:
        raise RulesError(f"{option}: {e}") from None


def _coerce_card_values(v: Any) -> tuple[int, ...]:
    if isinstance(v, str):
        if v not in VALUE_TABLES:
            raise RulesError(f"unknown card value table {checks.shown(v)}; allowed: {sorted(VALUE_TABLES)} or a mapping card -> value")
        return VALUE_TABLES[v]
    if isinstance(v, Mapping):
        table = [0] * NUM_CARDS
        for c, x in v.items():
            cid = _option_card(c, "card_values") if isinstance(c, str) else c
            if not isinstance(cid, int) or not 0 <= cid < NUM_CARDS:
                raise RulesError(f"card_values key {checks.shown(c)} is not a card")
            table[cid] = x
        return tuple(table)
    if isinstance(v, (list, tuple)):
        return tuple(v)
    raise RulesError(f"card_values must be a table name {sorted(VALUE_TABLES)}, a mapping card -> value, or 52 ints; got {checks.shown(v)}")


# Every Rules that make_rules returns, keyed by itself: equal rules come back as one object.
# The per-rules caches (the heuristic's tables, deck masks) then find their key by identity;
# two equal but distinct Rules compare all their fields in Python, about 1 µs per lookup
# (timeit: 1.12 µs against 0.15 µs for one object), which bm-bench's heuristic black_maria
# row paid at every decision after its warm-up.
_MADE: dict[Rules, Rules] = {}


def _construct(values: dict[str, Any]) -> Rules:
    unknown = sorted(set(values) - set(OPTION_NAMES))
    if unknown:
        raise RulesError(f"unknown rules option(s) {unknown}; allowed options: {list(OPTION_NAMES)}")
    return _made(_normalise_overrides(values))


def _made(fields: dict[str, Any]) -> Rules:
    """The one Rules with these field values (built, and so validated, then interned)."""
    rules = Rules(**fields)
    return _MADE.setdefault(rules, rules)


_FIELD_TYPES = {name: option.type for system in SYSTEMS for name, option in system.options.items()}
_CHOICES = {name: option.choices for system in SYSTEMS for name, option in system.options.items() if option.choices}
if len(_FIELD_TYPES) != sum(len(s.options) for s in SYSTEMS):
    raise ImportError("every Rules option must be owned by exactly one rule system of bm_env.systems")


def _fail(msg: str) -> None:
    raise RulesError(msg)


def _validate(r: Rules) -> None:
    """Every check of a rules object: the types, each system's own checks in the registry's order (which
    names the first mistake a user would fix), then the numbers the observation must hold."""
    _validate_types(r)
    in_use = set(r.uses_extensions)
    for system in SYSTEMS:
        problem = system.problem(r)
        if problem:
            _fail(problem)
        if system.features(r):
            for feature, refusal in system.requires.items():
                if feature not in in_use:
                    _fail(refusal)
            for feature, refusal in system.excludes.items():
                if feature in in_use:
                    _fail(refusal)
    _validate_numbers(r)


def _validate_types(r: Rules) -> None:
    """Each option's type and, for the options with a closed set of values, its value."""
    for name, typ in _FIELD_TYPES.items():
        v = getattr(r, name)
        # bool is an int subclass; an int option given True/False is a mistake worth naming.
        bad_bool = typ is int and isinstance(v, bool)
        if bad_bool or not isinstance(v, typ):
            want = typ.__name__ if isinstance(typ, type) else " or ".join(t.__name__ for t in typ)
            _fail(f"rules option {name} must be {want}, got {type(v).__name__} {checks.shown(v)}")
    for name, allowed in _CHOICES.items():
        if getattr(r, name) not in allowed:
            _fail(f"rules option {name}={checks.shown(getattr(r, name))} is not allowed; allowed: {list(allowed)}")


def _validate_numbers(r: Rules) -> None:
    """Every number the observation must hold, across the systems: rule values in one cell, points
    and totals in two."""
    low, high = CELL_RANGE
    bad = [f"{card_str(c)}={v}" for c, v in enumerate(r.card_values) if not low <= v <= high]
    if bad:
        _fail(f"card_values {', '.join(bad[:4])} outside {low}..{high}: the observation holds a card's value in "
              "one int8 cell")
    if not low <= r.clean_trick_bonus <= high:
        _fail(f"clean_trick_bonus={r.clean_trick_bonus} is outside {low}..{high}: the observation holds it in one "
              "int8 cell")
    deal = max_deal_points(r)
    limit = NUMBER_LIMIT
    checks = [("match_deals", r.match_deals, r.match_deals)]
    if r.match_end == "deals":
        checks.append((f"{r.match_deals} deals of up to {deal} points", r.match_deals * deal, None))
    else:
        checks.append((f"match_threshold={r.match_threshold} plus a deal of up to {deal} points",
                       r.match_threshold + deal, None))
    if r.match_floor is not None:
        checks.append((f"match_floor={r.match_floor} less a deal of up to {deal} points", r.match_floor - deal, None))
    if r.exact_reset is not None:
        checks += [("exact_reset", v, v) for v in r.exact_reset]
    for what, total, given in checks:
        if abs(total) > limit:
            shown = f"{what}={given}" if given is not None else f"{what} make totals of {total}"
            _fail(f"{shown}: the observation holds points and totals from -{limit} to {limit}")


def max_deal_points(r: Rules) -> int:
    """An upper bound on the points one player can score in one deal (for the ranges above).

    Every valued card (every copy) and every clean trick to one player, a moon (or a sun: the systems'
    :func:`~bm_env.systems.bounds`) moving the penalty total once more, and the systems' factors on the cards
    and on the deal's score (charged cards doubled, the 10♣ at x4).
    """
    b = bounds(r)
    copies = dealing(r).copies
    cards = sum(abs(v) for v in r.card_values) * copies
    penalty = sum(v for v in r.card_values if v > 0) * copies
    points = cards + abs(r.clean_trick_bonus) * NUM_CARDS * copies // r.num_players
    if r.moon != "off":
        points += max(penalty, b.shot_points)
    return points * b.card_factor * b.score_factor


# ---------------------------------------------------------------------------
# Presets.
# ---------------------------------------------------------------------------

_AMERICAN_CYCLE = ("left", "right", "across", "hold")


def _black_maria(n: int) -> dict[str, Any]:
    return dict(num_players=n, match_deals=3 * n)


def _black_maria_26(n: int) -> dict[str, Any]:
    return dict(
        num_players=n, deck_table="black_maria_26", pass_count_over_four=2, first_lead="eldest_any",
        hearts_lead="any_time", card_values=VALUE_TABLES["hearts"], match_end="threshold_reached",
        match_threshold=50, tie_break="all_players",
    )


def _black_maria_100(n: int) -> dict[str, Any]:
    return dict(
        num_players=n, first_lead="eldest_any", hearts_lead="any_time", match_end="threshold_reached",
        match_threshold=100, tie_break="all_players",
    )


def _black_maria_spot(n: int) -> dict[str, Any]:
    return {**_black_maria_100(n), "card_values": VALUE_TABLES["spot"], "match_threshold": 500}


def _dirty_lady(n: int) -> dict[str, Any]:
    return dict(
        num_players=n, match_deals=3 * n, pass_cycle=("left",), no_pass_cards=(QUEEN_SPADES,),
        card_values=VALUE_TABLES["dirty_lady"], moon="shooter_minus",
    )


def _slippery_anne(n: int) -> dict[str, Any]:
    return dict(num_players=n, match_deals=3 * n, card_values=VALUE_TABLES["slippery_anne"])


def _omnibus(n: int) -> dict[str, Any]:
    return dict(num_players=n, match_deals=3 * n, card_values=VALUE_TABLES["omnibus"])


def _american_hearts(n: int) -> dict[str, Any]:
    # Pagat's 3- and 5-player cycles are options; the 4-player cycle has no 'across'
    # counterpart at odd tables, so those use left, right, hold.
    cycle = _AMERICAN_CYCLE if n % 2 == 0 else ("left", "right", "hold")
    return dict(
        num_players=n, deck_table="american_hearts", pass_cycle=cycle, first_lead="lowest_club",
        hearts_lead="when_broken", card_values=VALUE_TABLES["hearts"], moon="shooter_minus",
        match_end="threshold_reached", match_threshold=100, tie_break="all_players",
    )


def _openspiel_hearts(n: int) -> dict[str, Any]:
    return dict(
        num_players=n, deck_table="full", pass_cycle=_AMERICAN_CYCLE, pass_order="random",
        first_lead="lowest_club", hearts_lead="when_broken", queen_breaks_hearts=True,
        first_trick_no_points=True, card_values=VALUE_TABLES["hearts"], moon="others_plus",
        match_end="deals", match_deals=1, tie_break="shared",
    )


def _pink_lady(n: int) -> dict[str, Any]:
    return {**_american_hearts(n), "card_values": VALUE_TABLES["pink_lady"]}


def _domino_hearts(n: int) -> dict[str, Any]:
    # Bicycle: six cards each from the whole deck, no pass, the dealer's left leads; hearts 1, the Q♠ not scored;
    # the game to 31 (Hoyle), the lowest total winning.
    return dict(
        num_players=n, pass_count=0, pass_cycle=("hold",), card_values=VALUE_TABLES["hearts_only"], domino=True,
        match_end="threshold_reached", match_threshold=31, tie_break="all_players",
    )


def _spot_hearts(n: int) -> dict[str, Any]:
    return {**_american_hearts(n), "card_values": VALUE_TABLES["spot_pip"], "match_threshold": 500}


def _cancellation(n: int) -> dict[str, Any]:
    # British rules, Pagat: two decks, 6-10 players, eldest leads anything, kitty to the first trick's taker;
    # docs/rules.md: passing, hearts and scoring as black_maria, both copies count.
    return dict(
        num_players=n, decks=2, kitty="first_trick", first_lead="eldest_any", match_deals=3 * n,
    )


def _turbo_hearts(n: int) -> dict[str, Any]:
    return {
        **_american_hearts(n), "card_values": VALUE_TABLES["turbo"], "charging": True,
        "ten_clubs_multiplier": True,
    }


def _booster_nines(n: int) -> dict[str, Any]:
    return {**_turbo_hearts(n), "booster_nines": True}


def _partnership_hearts(n: int) -> dict[str, Any]:
    # Pagat mode 1: partners keep tricks together; a team slam: the team chooses (an action).
    # Mode 2 is teams="individual" (with moon="shooter_minus" for the American individual moon).
    return {**_american_hearts(n), "teams": "joint", "moon": "shooter_choice"}


def _petrone(n: int) -> dict[str, Any]:
    return dict(
        num_players=n, deck_table="full", first_lead="eldest_any", hearts_lead="any_time", trumps="hearts",
        card_values=VALUE_TABLES["petrone"], clean_trick_bonus=3, lower_wins=False,
        match_end="threshold_reached", match_threshold=50, match_floor=-50, tie_break="all_players",
    )


@dataclass(frozen=True)
class Preset:
    """A named rules preset: the options it sets for each player count it is played by."""

    options: Callable[[int], dict[str, Any]]  # the rules options for a player count
    default_players: int  # the player count make_rules gives when none is asked for
    player_counts: tuple[int, ...]  # every player count the preset is played by
    summary: str  # one line: the source and what sets the preset apart


#: The presets by name.
PRESETS: dict[str, Preset] = {
    "black_maria": Preset(_black_maria, 3, (3, 4, 5, 6, 7), "the British rules: 43 points, pass 3 right, 3x players deals"),
    "black_maria_26": Preset(_black_maria_26, 3, (3, 4, 5, 6, 7), "the 3-7 player rules: hearts 1 + QS 13, hearts any time, to 50"),
    "black_maria_100": Preset(_black_maria_100, 3, (3, 4), "the 3-4 player rules: 43-point scheme, hearts any time, to 100"),
    "black_maria_spot": Preset(_black_maria_spot, 3, (3, 4), "the 3-4 player rules, Pagat: spot values, QS 25, to 500"),
    "dirty_lady": Preset(_dirty_lady, 3, (3, 4, 5, 6), "the British rules: pass left, QS may not be passed, graded hearts"),
    "slippery_anne": Preset(_slippery_anne, 3, (3, 4, 5, 6), "the British rules: only QS scores"),
    "omnibus": Preset(_omnibus, 3, (3, 4, 5, 6), "the British rules, Pagat: black_maria plus JD -10"),
    "american_hearts": Preset(_american_hearts, 4, (3, 4, 5), "Pagat: pass cycle, 2C leads, moon, to 100"),
    "openspiel_hearts": Preset(_openspiel_hearts, 4, (4,), "Pagat as OpenSpiel's hearts: one deal, QS breaks hearts"),
    "spot_hearts": Preset(_spot_hearts, 4, (3, 4, 5), "Pagat: hearts at pip value, QS 25, to 500"),
    "pink_lady": Preset(_pink_lady, 4, (3, 4, 5), "American Hearts with the house rule: QH 13 as well as QS, 38 points"),
    "petrone_black_mariah": Preset(_petrone, 4, (4,), "Petrone's rules: hearts trumps, +3 per clean trick, first to 50"),
    "cancellation": Preset(_cancellation, 6, (6, 7, 8, 9, 10), "the British rules, Pagat: two decks, identical cards cancel, kitty"),
    "turbo_hearts": Preset(_turbo_hearts, 4, (4,), "Pagat: JD -10, TC doubles, charging AH QS JD TC"),
    "booster_nines": Preset(_booster_nines, 4, (4,), "Pagat: Turbo Hearts where a nine adds a round to the trick"),
    "domino_hearts": Preset(_domino_hearts, 4, (3, 4, 5, 6, 7), "Bicycle: six cards each, draw from the stock to follow, hearts 1, to 31"),
    "partnership_hearts": Preset(_partnership_hearts, 4, (4,), "Pagat: teams across, joint tricks, team slam choice"),
}


def make_rules(preset: str | Rules = "black_maria", num_players: int | None = None, **overrides: Any) -> Rules:
    """Build a preset for a player count, then apply option overrides.

    ``num_players`` goes to the preset first, because some options follow it (the match
    length of Black Maria is three deals per player, the 3-7 player rules pass 2 cards above four
    players); the other overrides are applied on top and validated together.
    """
    if isinstance(preset, Rules):
        base = preset.to_dict()
        if num_players is not None:
            base["num_players"] = num_players
        return _construct({**base, **overrides})
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RulesError(f"unknown preset {checks.shown(preset)}; allowed presets: {list(PRESETS)}")
    chosen = PRESETS[preset]
    n = chosen.default_players if num_players is None else num_players
    if not checks.is_whole(n) or n not in chosen.player_counts:
        raise RulesError(f"preset {preset!r} is played by {list(chosen.player_counts)} players, not {checks.shown(n)}")
    n = int(n)
    return _construct({**chosen.options(n), **overrides})


__all__ = [
    "Rules", "RulesError", "make_rules", "PRESETS", "Preset", "VALUE_TABLES", "DECK_TABLES", "OPTION_NAMES",
    "direction_offset", "FIRST_LEADS", "HEARTS_LEADS", "TRUMPS", "MOONS", "MATCH_ENDS", "TIE_BREAKS",
    "KITTIES", "TEAMS", "PASS_CYCLES", "partner_of", "scatter_offsets", "per_rules",
]
