"""What one player may know: a read-only information state.

Agents, the renderer, the observation encoder and the terminal game read this and never
the engine's state, so hidden information cannot leak through them. It holds the
player's own hand, the cards they passed (and to whom) and, once the cards have moved,
the cards they received; every card played and by whom; the current trick; points
taken (those of face-down cards by their taker alone until the deal is scored); whether
hearts are broken; the match scores. Other players' unplayed cards are absent, except
the cards this player passed to someone who still holds them, which the rules make
known to the passer (:attr:`~bm_env.InfoState.known_held`).

The extension rule systems add public facts (charged cards, who passed on unseen, the
kitty's size and taker, a Cancellation trick left on the table, the partner) and private
ones (the kitty's contents, to its taker only; the taker's face-down discards; the points
of both, which the others see only when the deal is scored). With two decks a card id
appears twice in a tuple when two copies are meant.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from .cards import cards_of, mask_of
from .deal import DONE, PASS, Deal
from ..systems import SYSTEMS, dealing
from .rules import Rules


@dataclass(frozen=True)
class _SeatView:
    """What a seat knows of any deal."""

    rules: Rules
    seat: int
    seats: tuple[int, ...]  # seats playing this deal, clockwise from position 0
    dealer: int
    phase: str  # "pass", "charge", "play", "discard", "moon" or "done" (see bm_env.engine.deal)
    to_act: int | None  # seat to act, None once the deal is over
    legal: tuple[int, ...]  # legal actions if this seat is to act, else ()
    hand: tuple[int, ...]
    pass_direction: str
    pass_count: int
    passed: tuple[tuple[int, int], ...]  # (card, receiving seat) in the order picked
    received: tuple[int, ...]  # empty until every player has passed
    received_from: int | None
    plays: tuple[tuple[int, int], ...]  # (seat, card) for every card played this deal, in order
    tricks: tuple[tuple[int, tuple[int, ...], int], ...]  # (leader seat, cards from leader, winner seat)
    current_trick: tuple[tuple[int, int], ...]  # (seat, card) in the trick being played
    led_suit: int | None
    hearts_broken: bool
    # Card values taken this deal, by match seat (0 for seats not playing), as this seat knows them: the
    # face-down cards' (the kitty, its discards) count for their taker only, until the deal is scored.
    points_taken: tuple[int, ...]
    tricks_won: tuple[int, ...]
    hand_sizes: tuple[int, ...]  # cards still held, by match seat
    voids: tuple[int, ...]  # per match seat, bit s set when that seat showed void in suit s
    match_scores: tuple[int, ...]
    deals_played: int
    deal_scores: tuple[int, ...] | None  # by match seat, once the deal is over
    moon_shooter: int | None = None  # seat that shot the moon (or sun), once the deal's tricks are over


def _system_fields() -> list[tuple[str, Any, dataclasses.Field]]:
    """The facts the rule systems add (:attr:`~bm_env.systems.component.RuleSystem.info_fields`), in the registry's
    order; each keeps its default where its system is not in use."""
    return [(name, f.type, dataclasses.field(default=f.default))
            for system in SYSTEMS for name, f in system.info_fields.items()]


_SeatFacts = dataclasses.make_dataclass("_SeatFacts", _system_fields(), bases=(_SeatView,), frozen=True)


@dataclass(frozen=True)
class InfoState(_SeatFacts):
    """The view of match seat ``seat``: what every deal has (:class:`_SeatView`'s fields), then what the rule
    systems add (kitty_size, kitty_taker, kitty, discarded; passed_on; charged; pending; boosts_owed; partner...:
    each system's ``info_fields``). All seats are match seats; cards are ids.
    """

    @property
    def known_held(self) -> dict[int, tuple[int, ...]]:
        """Cards this seat passed that their receiver still holds: public to the passer."""
        if self.phase == PASS:
            return {}
        if dealing(self.rules).copies == 1:
            played = mask_of(c for _, c in self.plays)
            out: dict[int, list[int]] = {}
            for c, to in self.passed:
                if not played >> c & 1 and to != self.seat:
                    out.setdefault(to, []).append(c)
            return {s: tuple(cs) for s, cs in out.items()}
        # Two decks: a copy passed to a seat is still there unless that seat has played that card.
        left = Counter((to, c) for c, to in self.passed if to != self.seat)
        left.subtract(Counter((s, c) for s, c in self.plays))
        held: dict[int, list[int]] = {}
        for (to, c), m in sorted(left.items()):
            held.setdefault(to, []).extend([c] * max(m, 0))
        return {s: tuple(cs) for s, cs in held.items() if cs}

    @property
    def unseen(self) -> tuple[int, ...]:
        """Cards of the deal whose place this seat does not know (held by others, not known_held)."""
        # The cards this seat passed are never unseen: picked but not yet moved, they are
        # not in `hand`; once moved they are known_held or played.
        deck = self.rules.deck_mask(len(self.seats))
        copies = dealing(self.rules).copies
        if copies == 1 and not self.kitty_size:
            known = mask_of(self.hand) | mask_of(c for _, c in self.plays) | mask_of(c for c, _ in self.passed)
            for cs in self.known_held.values():
                known |= mask_of(cs)
            return tuple(cards_of(deck & ~known))
        left = Counter(cards_of(deck) * copies)
        left.subtract(self.hand)
        left.subtract(c for _, c in self.plays)
        left.subtract(self.kitty)
        left.subtract(self.discarded)
        if self.phase == PASS:
            left.subtract(c for c, _ in self.passed)
        for cs in self.known_held.values():
            left.subtract(cs)
        return tuple(sorted(c for c, m in left.items() for _ in range(max(m, 0))))


def _own_cards(deal: Deal, pos: int | None) -> tuple[tuple, tuple, tuple, int | None]:
    """Deal position ``pos``'s hand, the cards it passed (with their match seats), the cards it received and from whom.

    A spectator (``pos`` None) holds and passed nothing.
    """
    if pos is None:
        return (), (), (), None
    seats = deal.seats
    hand = tuple(deal.hand_cards(pos))  # during passing, the picked cards are in `passed`, not here
    # Passing on is done in the open: once the cards move, the passer knows who got them.
    passed = tuple((c, seats[to]) for c, to in deal.passed_to(pos))
    sender = deal.received_from(pos)
    received = deal.received_cards[pos] if deal.phase != PASS else ()
    return hand, passed, received, None if sender is None else seats[sender]


def _plays(deal: Deal) -> tuple[tuple, tuple]:
    """Every ``(match seat, card)`` played so far in order, and those of the trick on the table."""
    seats = deal.seats
    plays = []
    for t, (_, cards, _) in enumerate(deal.tricks):
        plays.extend((seats[q], c) for q, c in zip(deal.trick_positions(t), cards))
    current = tuple((seats[q], c) for q, c in zip(deal.trick_positions(deal.tricks_played), deal.trick))
    plays.extend(current)
    return tuple(plays), current


def information_state(deal: Deal, seat: int, match_scores=None, deals_played: int = 0) -> InfoState:
    """The information state of match ``seat`` in ``deal`` (a seat outside a tie-break deal sees it as a spectator)."""
    n = len(match_scores) if match_scores is not None else deal.rules.num_players
    seats = deal.seats
    k = deal.num_players
    pos = seats.index(seat) if seat in seats else None

    def by_seat(values, default=0):
        out = [default] * n
        for i, s in enumerate(seats):
            out[s] = values[i]
        return tuple(out)

    phase = deal.phase
    hand, passed, received, received_from = _own_cards(deal, pos)
    tricks = deal.tricks
    trick = deal.trick
    plays, current = _plays(deal)
    acting = phase != DONE
    picks = deal.pass_picks
    facts = {}
    for inform in _informers(deal.rules):
        facts.update(inform(deal, pos, seat, by_seat))
    return InfoState(
        rules=deal.rules,
        seat=seat,
        seats=seats,
        dealer=seats[deal.dealer],
        phase=phase,
        to_act=seats[deal.to_act] if acting else None,
        legal=tuple(cards_of(deal.legal)) if acting and pos == deal.to_act else (),
        hand=hand,
        pass_direction=deal.pass_direction,
        pass_count=deal.pass_count,
        passed=passed,
        received=received,
        received_from=received_from,
        plays=plays,
        tricks=tuple((seats[l], cs, None if w is None else seats[w]) for l, cs, w in tricks),
        current_trick=current,
        led_suit=deal.led_suit if trick else None,
        hearts_broken=deal.hearts_broken,
        points_taken=by_seat(deal.points_known_to(pos)),
        tricks_won=by_seat(deal.tricks_won),
        hand_sizes=by_seat([deal.hand_count(i) + (len(picks[i]) if phase == PASS else 0) for i in range(k)]),
        voids=by_seat(deal.voids),
        match_scores=tuple(match_scores) if match_scores is not None else (0,) * n,
        deals_played=deals_played,
        deal_scores=by_seat(deal.scores) if deal.scores is not None else None,
        moon_shooter=seats[deal.moon_shot[0]] if deal.moon_shot is not None else None,
        **facts,
    )


@lru_cache(maxsize=256)
def _informers(rules: Rules) -> tuple[Callable[..., Any], ...]:
    """The ``inform`` hooks of the systems in use (none for the classic rules)."""
    return tuple(system.inform for system in SYSTEMS if system.info_fields and system.features(rules))
