"""A match: deals in turn, the dealer moving clockwise, until the rules' end and a winner.

Tie-breaks follow the rules: ``tied_players`` plays extra deals among the tied players
only, decided by that deal's own score (the British rules; two tied players play the full deck, 26
each); ``all_players`` plays on with normal deals (Pagat, Petrone's rules); ``shared`` lets the
tied players share the win. Petrone's −50 end always shares a tie.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .deal import Deal, deal_cards, pass_direction_for
from .rules import Rules
from ..systems.match import match_would_end
from ..systems.teams import side_totals, sides


class Match:
    """A match of deals. ``deal`` is the deal in progress; :meth:`step` advances it."""

    def __init__(
        self,
        rules: Rules,
        rng: np.random.Generator | int | None = None,
        first_dealer: int | None = None,
        on_illegal: str = "raise",
        deal_first: bool = True,
    ) -> None:
        """``deal_first=False`` leaves the first deal to a :meth:`start_deal` call, for a caller
        that gives its hands or pass direction: dealing it at random first would waste the
        work and the generator's draws."""
        self.rules = rules
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        n = rules.num_players
        if first_dealer is None:
            first_dealer = int(self.rng.integers(n))  # "cut for low card"
        if not 0 <= first_dealer < n:
            raise ValueError(f"first_dealer must be a seat in 0..{n - 1}, got {first_dealer}")
        self.first_dealer = first_dealer
        self.on_illegal = on_illegal
        self.totals = [0] * n
        self.deals_played = 0  # deals that counted towards the totals
        self.deal_number = 0  # every deal started, tie-break deals included (drives dealer and pass cycle)
        self.completed: list[Deal] = []
        self.tied: tuple[int, ...] | None = None  # seats in a tie-break among the tied players
        self.winners: tuple[int, ...] | None = None
        if deal_first:
            self.start_deal()

    @property
    def is_over(self) -> bool:
        """The match is decided (``winners`` is set): no deal is left to play."""
        return self.winners is not None

    def next_deal_setup(self) -> tuple[tuple[int, ...], int]:
        """Seats of the next deal and the position of its dealer."""
        n = self.rules.num_players
        natural = (self.first_dealer + self.deal_number) % n
        if self.tied is None:
            return tuple(range(n)), natural
        seats = self.tied
        # The deal moves clockwise; in a tie-break the next tied seat from there deals.
        dealer_seat = next(s for s in ((natural + i) % n for i in range(n)) if s in seats)
        return seats, seats.index(dealer_seat)

    def start_deal(
        self,
        hands: Sequence[int | Sequence[int]] | None = None,
        dealer: int | None = None,
        pass_direction: str | None = None,
        kitty: Sequence[int] = (),
    ) -> Deal:
        """Begin the next deal, dealt from the generator unless ``hands`` (by position, and the kitty) are given."""
        seats, dealer_pos = self.next_deal_setup()
        if dealer is not None:
            if dealer not in seats:
                raise ValueError(f"dealer seat {dealer} does not play this deal (seats {list(seats)})")
            dealer_pos = seats.index(dealer)
        k = len(seats)
        if hands is None:
            hands, kitty = deal_cards(self.rules, k, dealer_pos, self.rng)
        if pass_direction is None:
            pass_direction = pass_direction_for(self.rules, self.deal_number, self.rng)
        elif pass_direction not in self.rules.pass_cycle:
            raise ValueError(
                f"pass direction {pass_direction!r} is not in this game's cycle {list(self.rules.pass_cycle)}"
            )
        totals = self.totals_of(seats)
        #: The deal in progress.
        self.deal: Deal = Deal(
            self.rules, hands, dealer_pos, pass_direction, seats, totals, self.deals_played, self.on_illegal, kitty
        )
        return self.deal

    def totals_of(self, seats: Sequence[int]) -> tuple[int, ...]:
        """The match totals of ``seats``, in their order: what a deal among them starts from."""
        totals = self.totals
        return tuple(totals[s] for s in seats)

    def step(self, action: int) -> None:
        """Apply an action to the deal in progress; a finished deal is scored and the next one begun."""
        self.deal.step(action)
        if self.deal.is_over:
            self.finish_deal()
            if not self.is_over:
                self.start_deal()

    def finish_deal(self, deal: Deal | None = None) -> None:
        """Score the finished deal into the match and decide whether the match is over.

        ``deal`` is the deal in progress unless given: a replayed record hands in the deal it replayed.
        """
        if deal is None:
            deal = self.deal
        else:
            self.deal = deal
        rules = self.rules
        self.completed.append(deal)
        self.deal_number += 1
        better = min if rules.lower_wins else max
        if self.tied is not None:
            best = better(deal.scores)
            still = tuple(s for s, x in zip(deal.seats, deal.scores) if x == best)
            if len(still) == 1:
                self.winners = still
            else:
                self.tied = still
            return
        for s, x in zip(deal.seats, deal.scores):
            self.totals[s] += x
        self.deals_played += 1
        if rules.exact_reset is not None:
            hit, reset_to = rules.exact_reset
            self.totals = [reset_to if t == hit else t for t in self.totals]
        if not match_would_end(rules, self.totals, self.deals_played):
            return
        leaders = self._leaders(better)
        floor_end = rules.match_floor is not None and min(self.totals) <= rules.match_floor
        by_side = self.side_totals()
        one_winner = by_side.count(better(by_side)) == 1
        if one_winner or floor_end or rules.tie_break == "shared":
            self.winners = leaders
        elif rules.tie_break == "tied_players":
            self.tied = leaders
        # all_players: play on; the end rule is checked again after the next deal.

    def _leaders(self, better) -> tuple[int, ...]:
        """Seats of the sides with the best total; with teams, both partners of the best partnership (Pagat)."""
        totals = self.side_totals()
        best = better(totals)
        return tuple(sorted(s for side, t in zip(sides(self.rules, len(self.totals)), totals) if t == best
                            for s in side))

    def side_totals(self) -> tuple[int, ...]:
        """The totals of the sides that win or lose together: each seat's own, or with teams the partnerships'
        (seats 0+2, 1+3), shared under joint scoring and summed under individual."""
        return side_totals(self.rules, self.totals)
