"""What one rule system declares: its options, their checks, and what it adds to the game and to the
observation.

A :class:`RuleSystem` is a system's registration. :class:`~bm_env.Rules` takes its
fields (:class:`Option`: type, default, allowed values) and checks from the registered systems; its extension features
(:attr:`~bm_env.Rules.uses_extensions`, which name the observation's extra parts),
its action space (:attr:`~bm_env.Rules.num_actions`) and the vector engine's support
check (:func:`~bm_env.vector.check_supported`) are read off them too. The observation
(:mod:`bm_env.env.observation`) appends their parts and calls their encoders, and the reference
deal calls their hooks at the points :data:`DEAL_HOOKS` names, and the step functions of their
phases. A system's checks take a built rules object and return the first problem in words, or
None, so this package needs nothing of the rules module and the rules module can stand on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from ..engine.rules import Rules


def _none(rules: Rules) -> Any:
    """No problem: a system without checks of its own (its options' types and choices are checked for it)."""
    return None


def _no_features(rules: Rules) -> tuple[str, ...]:
    """No extension features: a system of the classic game, which adds no observation part."""
    return ()


#: Where the reference :class:`~bm_env.engine.deal.Deal` calls the systems in use, in the registry's order, and
#: what each hook is given and returns.
DEAL_HOOKS = {
    "after_passing": "(deal) -> bool: start a phase of the system's after the pass (True when it did)",
    "lead_filter": "(deal, position, legal mask) -> the legal leads, filtered",
    "follow_filter": "(deal, position, legal mask, cards of the led suit held) -> the legal follows, filtered",
    "follow_compel": "(deal, position, legal mask, cards of the led suit held) -> the card the rules compel, if any, "
                     "once every filter has run",
    "on_lead": "(deal, suit): a trick was led in this suit",
    "on_card": "(deal, card, suit): a card was played to the trick",
    "next_player": "(deal, position) -> the position that plays next to the trick, ``position`` being the next one "
                   "round the table (one who is out of the deal is passed over)",
    "before_follow": "(deal, position): the position is about to follow (it may draw cards first)",
    "trick_positions": "(deal, trick index, leader, cards played) -> the positions that played them, in order",
    "taken_apart": "(deal) -> the cards taken outside the tricks (the kitty or its discards, what the last player "
                   "kept)",
    "trick_end": "(deal): the trick in progress has been won",
    "trick_full": "(deal, next position) -> bool: the trick, full, goes round again (True; Booster Nines)",
    "trick_won": "(deal, winner, penalty points) -> bool: the system takes the deal on from here (True: a phase of "
                 "its own, another leader, the deal's end) instead of the winner's lead",
    "after_tricks": "(deal): the last trick is over, before the moon is looked for",
    "before_scoring": "(deal) -> bool: start a phase of the system's before the deal is scored (True when it did)",
}


def _no_parts(num_players: int, features: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    """No observation parts: a system whose state the classic layout already holds."""
    return ()


def _writes_nothing(*args: Any) -> None:
    """Nothing to write: a system without observation parts."""


@dataclass(frozen=True)
class Option:
    """One :class:`~bm_env.Rules` option, as the system that owns it declares it: the rules object's field is
    made from this (its type, its default), and its value checked against it (the type, the closed set of values)."""

    type: type | tuple[type, ...]  # the allowed type(s) of a value
    default: Any  # the value of ``Rules()``: Black Maria for three players
    source: str  # the rules text it comes from, and the reading taken where a source leaves a point open
    choices: tuple[Any, ...] | None = None  # the allowed values, where they are a closed set
    # Added after records and checkpoints were written without it: a rules dict that lacks it reads as its default,
    # which must leave the option's system out of use (the game was played without it).
    added: bool = False


@dataclass(frozen=True)
class Dealing:
    """What a system in use changes in how the cards are dealt; the classic deal is one deck, the deck table's
    cards removed so that it divides evenly, dealt out in full."""

    copies: int = 1  # copies of each card in play (two decks: 2)
    full_deck: bool = False  # no card removed: the cards the hands do not take lie apart (a kitty, a stock)
    hand_size: int | None = None  # cards dealt to each hand (None: as far as the cards go, evenly)
    stock: bool = False  # the cards left apart are a stock, drawn from in the order dealt (else a kitty: a set)


@dataclass(frozen=True)
class Bounds:
    """How far a system in use can move a deal's scores beyond the cards' values, for the bounds that size the
    observation's numbers and normalise rewards (:func:`bm_env.systems.bounds`)."""

    card_factor: int = 1  # the most a card's value can be multiplied by (a charged card: 2)
    score_factor: int = 1  # the most a deal score can be multiplied by (the 10♣: 2, 4 if it can be charged)
    shot_points: int = 0  # the most a shot other than the moon scores (the sun)
    unit_size: int = 1  # players whose scores a reward adds up (individual partnerships: 2)


@dataclass(frozen=True)
class InfoField:
    """A fact a system adds to what a seat knows (a field of :class:`~bm_env.InfoState`)."""

    type: Any  # its type, as the field's annotation
    default: Any  # its value where the system is not in use
    meaning: str  # what it tells, and to whom (public, or the seat's own)
    cards: bool = False  # it holds card ids (a tuple of them, or one per seat), which views write as card names


def _informs_nothing(*args: Any) -> Mapping[str, Any]:
    """Nothing to add: a system without facts of its own in an information state."""
    return {}


def _informs_none(*args: Any) -> None:
    """No reason: a system whose rules forbid no action."""
    return None


def _no_change(rules: Rules) -> None:
    """No change: a system that leaves the deal (or the bounds) as the classic game has them."""
    return None


@dataclass(frozen=True)
class RuleSystem:
    """One rule system's registration (see the module docstring)."""

    name: str  # the system's name, as docs/rules.md calls it
    options: Mapping[str, Option]  # each Rules option it owns, by name, in the order Rules lists them
    problem: Callable[[Rules], str | None] = _none  # the first thing wrong with its options, in words
    features: Callable[[Rules], tuple[str, ...]] = _no_features  # its extension features in use
    # While it is in use: the features of other systems it needs, and those it cannot be played with, each with the
    # refusal that says so (the rules object checks them after the system's own checks).
    requires: Mapping[str, str] = field(default_factory=dict)
    excludes: Mapping[str, str] = field(default_factory=dict)
    decisions: Mapping[str, int] = field(default_factory=dict)  # feature -> the last action id it adds
    vector: bool = True  # whether the vector engine plays it
    dealing: Callable[[Rules], Dealing | None] = _no_change  # how it changes the deal, while in use
    bounds: Callable[[Rules], Bounds | None] = _no_change  # how far it moves a deal's scores, while in use
    # Its observation parts, given the player count and the features in use: (name, cells, meaning) each,
    # appended after the classic layout in the registry's order; empty while none of its features is in use.
    parts: Callable[[int, tuple[str, ...]], tuple[tuple[str, int, str], ...]] = _no_parts
    # Writes its rule cells (constant within a deal): (vector, offsets by part name, rules, features).
    encode_rules: Callable[..., None] = _writes_nothing
    # Writes its state cells from a seat's information state: (vector, offsets, info, features, relative seat).
    encode_state: Callable[..., None] = _writes_nothing
    changes_in_play: bool = False  # its state cells change with the play (a search's world does not rewrite them)
    # What a seat knows of it: the InfoState fields it adds, and while it is in use their values for one seat:
    # (deal, the seat's position or None for a spectator, its match seat, by_seat: a per-position sequence by match
    # seat) -> values.
    info_fields: Mapping[str, InfoField] = field(default_factory=dict)
    inform: Callable[..., Mapping[str, Any]] = _informs_nothing
    # Its mechanics in the reference deal: hook point (DEAL_HOOKS) -> the function the deal calls there while the
    # system is in use; and phase name -> the step function of a phase of its own, (deal, action, action bit).
    deal_hooks: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    phases: Mapping[str, Callable[..., None]] = field(default_factory=dict)
    # Its state in the reference deal, declared here so that the deal holds (and clone_deal copies) it whether or not
    # the system is in use: name -> (initial value, docstring) for immutable values the deal replaces as it goes, and
    # name -> (each position's initial item, docstring) for lists changed in place, one item per position.
    deal_values: Mapping[str, tuple[Any, str]] = field(default_factory=dict)
    deal_lists: Mapping[str, tuple[Any, str]] = field(default_factory=dict)
    # Its part of a game record (bm_env.engine.record): the fields it may write, and while in use their values from a
    # deal; the field holding the cards it leaves apart (the deal's kitty); and for each phase of its own, the
    # function that feeds the recorded decisions to a deal being replayed, (replay, whether the record ends here).
    record_fields: tuple[str, ...] = ()
    record: Callable[..., Mapping[str, Any]] = _informs_nothing
    apart_field: str | None = None
    replay: Mapping[str, Callable[..., None]] = field(default_factory=dict)
    # Why its rule forbids an action the position to act may not take, in words (None: not its rule), asked in its
    # phases and of a card played: (deal, position, hand mask, action, name) -> reason, ``name`` writing a card.
    explain: Callable[..., str | None] = _informs_none

    def __post_init__(self) -> None:
        unknown = sorted(set(self.deal_hooks) - set(DEAL_HOOKS))
        if unknown:
            raise ValueError(f"rule system {self.name}: unknown deal hook(s) {unknown}; the hooks: {list(DEAL_HOOKS)}")
