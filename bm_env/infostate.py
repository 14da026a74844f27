"""What one player may know: a read-only information state.

Agents, the renderer, the observation encoder and the terminal game read this and never
the engine's state, so hidden information cannot leak through them. It holds the
player's own hand, the cards they passed (and to whom) and, once the cards have moved,
the cards they received; every card played and by whom; the current trick; points
taken; whether hearts are broken; the match scores. Other players' unplayed cards are
absent, except the cards this player passed to someone who still holds them, which the
rules make known to the passer (:attr:`InfoState.known_held`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import cards_of, mask_of
from .deal import PASS, Deal
from .rules import Rules


@dataclass(frozen=True)
class InfoState:
    """The view of match seat :attr:`seat`. All seats are match seats; cards are ids."""

    rules: Rules
    seat: int
    seats: tuple[int, ...]  # seats playing this deal, clockwise from position 0
    dealer: int
    phase: str  # "pass", "play" or "done"
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
    points_taken: tuple[int, ...]  # card values taken this deal, by match seat (0 for seats not playing)
    tricks_won: tuple[int, ...]
    hand_sizes: tuple[int, ...]  # cards still held, by match seat
    voids: tuple[int, ...]  # per match seat, bit s set when that seat showed void in suit s
    match_scores: tuple[int, ...]
    deals_played: int
    deal_scores: tuple[int, ...] | None  # by match seat, once the deal is over

    @property
    def known_held(self) -> dict[int, tuple[int, ...]]:
        """Cards this seat passed that their receiver still holds: public to the passer."""
        if self.phase == PASS:
            return {}
        played = mask_of(c for _, c in self.plays)
        out: dict[int, list[int]] = {}
        for c, to in self.passed:
            if not played >> c & 1:
                out.setdefault(to, []).append(c)
        return {s: tuple(cs) for s, cs in out.items()}

    @property
    def unseen(self) -> tuple[int, ...]:
        """Cards of the deal whose place this seat does not know (held by others, not known_held)."""
        # The cards this seat passed are never unseen: picked but not yet moved, they are
        # not in `hand`; once moved they are known_held or played.
        known = mask_of(self.hand) | mask_of(c for _, c in self.plays) | mask_of(c for c, _ in self.passed)
        for cs in self.known_held.values():
            known |= mask_of(cs)
        deck = self.rules.deck_mask(len(self.seats))
        return tuple(cards_of(deck & ~known))


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

    if pos is not None:
        hand = deal.hands[pos]  # during passing, the picked cards are in `passed`, not here
        to_seat = seats[(pos + deal.pass_offset) % k]
        passed = tuple((c, to_seat) for c in deal.pass_picks[pos])
        revealed = deal.phase != PASS
        received = tuple(cards_of(deal.received[pos])) if revealed else ()
        received_from = seats[(pos - deal.pass_offset) % k] if revealed and deal.pass_count else None
    else:
        hand, passed, received, received_from = 0, (), (), None
    plays = []
    for leader, cards, _ in deal.tricks:
        plays.extend((seats[(leader + i) % k], c) for i, c in enumerate(cards))
    current = tuple((seats[(deal.leader + i) % k], c) for i, c in enumerate(deal.trick))
    plays.extend(current)
    acting = deal.phase != "done"
    return InfoState(
        rules=deal.rules,
        seat=seat,
        seats=seats,
        dealer=seats[deal.dealer],
        phase=deal.phase,
        to_act=seats[deal.to_act] if acting else None,
        legal=tuple(cards_of(deal.legal)) if acting and pos == deal.to_act else (),
        hand=tuple(cards_of(hand)),
        pass_direction=deal.pass_direction,
        pass_count=deal.pass_count,
        passed=passed,
        received=received,
        received_from=received_from,
        plays=tuple(plays),
        tricks=tuple((seats[l], cs, seats[w]) for l, cs, w in deal.tricks),
        current_trick=current,
        led_suit=deal.led_suit if deal.trick else None,
        hearts_broken=deal.hearts_broken,
        points_taken=by_seat(deal.captured),
        tricks_won=by_seat(deal.tricks_won),
        hand_sizes=by_seat([bin(h).count("1") + (len(deal.pass_picks[i]) if deal.phase == PASS else 0)
                            for i, h in enumerate(deal.hands)]),
        voids=by_seat(deal.voids),
        match_scores=tuple(match_scores) if match_scores is not None else (0,) * n,
        deals_played=deals_played,
        deal_scores=by_seat(deal.scores) if deal.scores is not None else None,
    )

