"""A rule-based player built from the sources' strategy advice, for every preset.

It estimates, for each legal card, what playing it costs: the points of the trick times
the chance of winning it, minus the value of getting a dangerous card out of the hand.
All numbers come from the rules (card values, trumps, the clean-trick bonus), so the same
player avoids Q♠ K♠ A♠ in Black Maria, hearts and Q♠ in American Hearts, and chases
clean tricks with heart trumps in Petrone's game. What it does, and where the advice
comes from (the tips of the British rules, Pagat):

* passing: the spade honours unless guarded by enough low spades, high hearts, the cards
  of a short suit it can void, high cards in general;
* following: the highest card that ducks under the winning card, dumping a penalty card
  under a higher one (Q♠ under K♠); when it must win, the highest card if the trick is
  safe (last to play on a clean trick it wins with its highest card, shedding it), else
  the lowest winner; where tricks are wanted (Petrone's clean-trick bonus) it wins with
  the lowest card that does, a heart trump included;
* discarding: Q♠ K♠ A♠ and high hearts first, then high cards of short suits;
* leading: low cards that cannot win much, low spades to flush Q♠ when it does not hold
  the K♠ or A♠, never into a suit someone has shown void in when points can be dumped;
  never a penalty card that the others can duck under (Q♠ with K♠ A♠ out);
* keeping a low heart as a duck (low hearts are worth little to shed);
* with partners (Pagat), no penalty card onto a trick the partner is winning, the safest
  cards passed across to the partner, and a point taken from the other team while it holds
  every penalty point so far (a team slam costs 26);
* the decisions of the extension rule systems: it never charges (Turbo Hearts) and never
  passes on unseen; it discards after taking a kitty as it would pass; as a moon shooter
  it adds to the others when that leaves it alone with the best total (the lowest, or the
  highest where the highest wins), else subtracts.

How it differs from :mod:`.heuristic_v1`, and why (each change kept because it won on the
duplicate boards; the figures are in docs/agents.md, "The rule-based players"): the players
after it *duck* a trick with points rather than take it whenever they hold a higher card; a
penalty card that wins its own trick is not counted as shed, since it comes back; passing
weighs high cards more and the spade honours' catch less; with a clean-trick bonus a card's
winning power is kept and the lower of equal cards goes first, so it ruffs with its lowest
trump.

The decision reads only what its seat may know: its hand, the cards played, voids shown
and hand sizes. :func:`view_from_deal` builds that view straight from a deal position for
fast playouts (search players), :func:`view_from_info` from an
:class:`~bm_env.engine.infostate.InfoState`; both give the same view of the same seat.
"""

from __future__ import annotations

import numpy as np

from ..engine.actions import CHARGE_DONE, MOON_ADD, MOON_SUBTRACT
from ..engine.cards import FULL_DECK, HEARTS, NUM_CARDS, NUM_RANKS, SUIT_MASKS, mask_of
from ..engine.deal import CHARGE, DISCARD, MOON, PASS, Deal
from ..engine.infostate import InfoState
from ..engine.rules import Rules, per_rules
from ..systems import teams

_SUIT_OF = tuple(c // NUM_RANKS for c in range(NUM_CARDS))
_BELOW = tuple(SUIT_MASKS[c // NUM_RANKS] & ((1 << c) - 1) for c in range(NUM_CARDS))  # same suit, lower
_ABOVE = tuple(SUIT_MASKS[c // NUM_RANKS] & ~((1 << (c + 1)) - 1) for c in range(NUM_CARDS))  # same suit, higher


class _Tables:
    """What the heuristic derives once per rules: card costs and how bad a trick is on average."""

    def __init__(self, rules: Rules, num_players: int) -> None:
        deck = rules.deck_mask(num_players)
        sign = 1 if rules.lower_wins else -1
        # cost = what taking the card does to my result (positive = bad) in every preset.
        self.cost = tuple(sign * v if deck >> c & 1 else 0 for c, v in enumerate(rules.card_values))
        self.bonus = rules.clean_trick_bonus  # gained (higher-wins) for a trick without a valued card
        self.bonus_cost = -self.bonus if not rules.lower_wins else self.bonus
        self.valued = mask_of(c for c in range(NUM_CARDS) if rules.card_values[c])
        self.penalty = mask_of(c for c in range(NUM_CARDS) if self.cost[c] > 0) & deck
        self.trumps = rules.trumps == "hearts"
        tricks = rules.hand_size(num_players)
        total = sum(x for x in self.cost if x > 0)
        # Average cost of winning one trick: > 0 when tricks are to be avoided, < 0 when wanted.
        self.trick_cost = total / tricks + self.bonus_cost * 0.75
        self.max_cost = max(self.cost) if total else 0
        self.guard = max(2, (tricks + 3) // 4)  # low cards that make a high spade safe to keep
        self.deck = deck
        # Per card, the parts of play_score's shed term that depend on the card alone.
        self.shed_points = tuple(max(x, 0) * 0.8 for x in self.cost)  # also what a penalty card returning costs
        self.rank_hair = tuple(0.01 * (c % NUM_RANKS) for c in range(NUM_CARDS))


@per_rules
def tables(rules: Rules, num_players: int) -> _Tables:
    """What the heuristic derives from ``rules`` for ``num_players`` (asked at every decision)."""
    return _Tables(rules, num_players)


class View:
    """What one seat knows at a decision, as masks (see the module docstring)."""

    __slots__ = {
        "tables": "What the heuristic derives from the rules (``tables(rules, num_players)``).",
        "phase": 'Phase of the deal at the decision (``"pass"``, ``"play"``...).',
        "hand": "Bit mask of this seat's cards.",
        "legal": "Bit mask of the legal actions.",
        "trick": "Cards of the trick in progress, in play order (a tuple).",
        "led": "Suit led to the trick; -1 before its lead.",
        "others": "Bit mask of the cards the other players hold, where unknown.",
        "later": "``(void suit bits, hand size)`` of each player still to play to this trick.",
        "pass_left": "Cards this seat still has to pick: of its pass, or of its kitty discard.",
        "partner_best": "Partnerships: the partner's card is winning the trick so far.",
        "to_partner": "Partnerships: this pass goes to the partner.",
        "slam_guard": "Partnerships: the other team has every penalty point taken so far (a team slam is near).",
        "best": "The card winning the trick so far; -1 before its lead.",
        "trick_points": "What taking the trick's cards so far would cost this seat (positive: bad).",
        "trick_valued": "A card worth points is in the trick.",
        "by_led": "Per led suit, what the cost of winning the trick needs of that suit whatever the card "
                  "(``_led_facts``), worked out once.",
    }

    def __init__(self, tables, phase, hand, legal, trick, led, others, later, pass_left, partner_best=False,
                 to_partner=False, slam_guard=False):
        self.tables = tables
        self.phase = phase
        self.hand = hand
        self.legal = legal
        self.trick = trick
        self.led = led
        self.others = others
        self.later = later
        self.pass_left = pass_left
        self.partner_best = partner_best
        self.to_partner = to_partner
        self.slam_guard = slam_guard
        # What play_score asks of the trick for every card, worked out once (a playout asks at every step).
        self.best = _winner(trick, tables.trumps) if trick else -1
        self.trick_points = sum(tables.cost[x] for x in trick)
        self.trick_valued = any(tables.valued >> x & 1 for x in trick)
        self.by_led: dict[int, tuple] = {}


def view_from_deal(deal: Deal) -> View:
    """The view of the position to act in ``deal`` (uses only public facts plus its own hand)."""
    p = deal.to_act
    t = tables(deal.rules, deal.num_players)
    hands = deal.hands
    hand = hands[p]
    phase = deal.phase
    partner = teams.partner(deal.rules, p)
    if phase == PASS:
        to_partner = partner is not None and deal.pass_offset == 2
        return View(t, PASS, hand, deal.legal, (), -1, 0, (), deal.pass_count - len(deal.pass_picks[p]),
                    to_partner=to_partner)
    if phase in (CHARGE, DISCARD, MOON):
        return View(t, phase, hand, deal.legal, (), -1, 0, (), deal.discards_left)
    gone = 0  # as view_from_info counts: the cards not played and not mine (a kitty's too)
    for h in deal.played:
        gone |= h
    k = deal.num_players
    trick = deal.trick
    voids = deal.voids
    later = tuple((voids[q], deal.hand_count(q) if deal.two_decks else hands[q].bit_count())
                  for q in ((p + i) % k for i in range(1, k - len(trick))))
    partner_best = guard = False
    if partner is not None:
        if trick:
            best = _winner(trick, t.trumps)
            partner_best = (deal.leader + trick.index(best)) % k == partner
        pen = deal.penalty_taken
        team = pen[p] + pen[partner]
        guard = team == 0 and sum(pen) - team > 0
    return View(t, "play", hand, deal.legal, tuple(trick), deal.led_suit if trick else -1, t.deck & ~gone & ~hand, later, 0,
                partner_best, False, guard)


def view_from_info(info: InfoState) -> View:
    """The view of ``info.seat`` from its information state."""
    k = len(info.seats)
    t = tables(info.rules, k)
    hand = mask_of(info.hand)
    legal = mask_of(info.legal)
    if info.phase == PASS:
        to_partner = info.partner is not None and info.pass_direction == "across"
        return View(t, PASS, hand, legal, (), -1, 0, (), info.pass_count - len(info.passed), to_partner=to_partner)
    if info.phase in (CHARGE, DISCARD, MOON):
        return View(t, info.phase, hand, legal, (), -1, 0, (), len(info.kitty) - len(info.discarded))
    gone = mask_of(c for _, c in info.plays)
    pos = info.seats.index(info.seat)
    trick = tuple(c for _, c in info.current_trick)
    later_seats = [info.seats[(pos + i) % k] for i in range(1, k - len(trick))]
    later = tuple((info.voids[s], info.hand_sizes[s]) for s in later_seats)
    led = info.led_suit if info.led_suit is not None else -1
    partner_best = guard = False
    if info.partner is not None:
        if trick:
            best = _winner(trick, t.trumps)
            partner_best = info.current_trick[trick.index(best)][0] == info.partner
        # Points taken so far by team (the penalty cards in the tricks each side won).
        mine = theirs = 0
        for _, cards, winner in info.tricks:
            if winner is None:
                continue
            pen = sum(x for x in (info.rules.card_values[c] for c in cards) if x > 0)
            if winner in (info.seat, info.partner):
                mine += pen
            else:
                theirs += pen
        guard = mine == 0 and theirs > 0
    return View(t, "play", hand, legal, trick, led, t.deck & ~gone & ~hand, later, 0, partner_best, False, guard)


# ---------------------------------------------------------------------------- passing


def pass_score(v: View, c: int) -> float:
    """How much the hand gains by passing card ``c`` (higher = pass it first)."""
    t = v.tables
    hand = v.hand
    suit = _SUIT_OF[c]
    in_suit = hand & SUIT_MASKS[suit]
    n_suit = in_suit.bit_count()
    low_guard = (in_suit & _BELOW[c]).bit_count()
    score = 0.0
    cost = t.cost[c]
    # Cards of this suit we would capture by winning with c (Q♠ under K♠ and A♠), not held by us.
    catch = sum(t.cost[x] for x in range(suit * NUM_RANKS, c) if t.penalty >> x & 1 and not hand >> x & 1)
    if cost > 0 or catch > 0:
        guarded = low_guard >= t.guard
        score += (cost + 0.3 * catch) * (0.25 if guarded else 1.0)
    elif cost < 0:
        score += cost  # a bonus card (J♦ −10): keep it
    rank = c % NUM_RANKS
    if t.trumps and suit == HEARTS:
        score -= 2 + rank * 0.5  # trumps win clean tricks: keep them
    else:
        score += t.trick_cost * rank / 1.5  # high cards are the ones that win unwanted tricks
    if suit != HEARTS and cost <= 0 and 0 < n_suit <= v.pass_left:
        score += 4.0 - n_suit + rank / 12.0  # voiding a short suit
    return score


# ---------------------------------------------------------------------------- play


def _winner(trick, trumps: bool) -> int:
    """The card winning the trick so far."""
    led = _SUIT_OF[trick[0]]
    best = trick[0]
    for c in trick[1:]:
        s = _SUIT_OF[c]
        bs = _SUIT_OF[best]
        if s == bs:
            if c > best:
                best = c
        elif trumps and s == HEARTS and bs == led:
            best = c
    return best


def _led_facts(v: View, led: int) -> tuple:
    """What :func:`_cost_if_it_wins` needs of the led suit whatever the card: the others' cards of
    the suit, their share of all cards out, each later player's void bits, hand size and chance of
    being void in it, and what the void ones are expected to dump (cached on the view per led suit)."""
    facts = v.by_led.get(led)
    if facts is None:
        t = v.tables
        others = v.others
        n_others = others.bit_count() or 1
        led_others = others & SUIT_MASKS[led]
        n_led = led_others.bit_count()
        miss_led = 1.0 - n_led / n_others
        players = []
        dumped = 0.0
        for voids, size in v.later:
            p_void = 1.0 if voids >> led & 1 else miss_led ** size
            players.append((voids, size, p_void))
            dumped += p_void * t.max_cost * 0.6  # a void player dumps their worst card on my trick
        facts = v.by_led[led] = (n_others, led_others, n_led, tuple(players), dumped)
    return facts


def _cost_if_it_wins(v: View, c: int, suit: int, led: int, pts: int, valued: bool) -> float:
    """What playing ``c``, winning the trick so far (or leading), is expected to cost: the
    trick's ``pts`` and what later players add, weighted by the chance that none takes it over."""
    t = v.tables
    cost = t.cost
    n_others, led_others, n_led, players, added = _led_facts(v, led)
    # Chance that a later player takes the trick from c, and what they add to it.
    higher = (led_others & _ABOVE[c]).bit_count() if suit == led else 0
    # A void player may trump c with a heart (while hearts are out), unless c is a trump itself.
    trump_risk = (t.trumps and led != HEARTS and not (suit == HEARTS and suit != led)
                  and (v.others & SUIT_MASKS[HEARTS]) != 0)
    keep = 1.0
    if higher or trump_risk:
        # The chance that one card out is, in turn: not a led card above c; not one below c.
        miss_higher = 1.0 - higher / n_others
        miss_lower = 1.0 - (n_led - higher) / n_others
        # Followers duck a trick with points; only one with nothing lower must take it.
        vol = 0.0 if pts > 0 else 0.6
        for voids, size, p_void in players:
            if higher and not voids >> led & 1:
                p_higher = (1.0 - miss_higher ** size) * (1.0 - p_void)
                p_forced = miss_lower ** size - p_void
                if p_forced < 0.0:
                    p_forced = 0.0
                taken = p_higher - p_forced
                keep *= 1.0 - p_forced - vol * (taken if taken > 0.0 else 0.0)
            if trump_risk and not voids >> HEARTS & 1:
                keep *= 1.0 - 0.8 * p_void
    # Penalty cards of the led suit below c that a later player may drop under it (Q♠ under K♠).
    if suit == led and players:
        under = led_others & _BELOW[c] & t.penalty
        if under:
            later_cards = sum(size for _, size, _ in players)
            while under:
                low = under & -under
                x = low.bit_length() - 1
                under ^= low
                added += cost[x] * min(1.0, later_cards / n_others)
    expect = pts + added
    if t.bonus_cost and not valued:
        expect += t.bonus_cost * (1.0 - min(1.0, added / (t.max_cost or 1)))
    # A penalty card of mine that wins the trick comes back to me: it is shed only if someone takes it.
    return keep * (expect + t.shed_points[c])


def play_score(v: View, c: int) -> float:
    """Estimated cost of playing ``c`` now (lower is better), from this seat's knowledge."""
    t = v.tables
    cost = t.cost
    trick = v.trick
    suit = _SUIT_OF[c]
    led = v.led if trick else suit
    others = v.others
    # Value of getting c out of the hand: its points and, for high cards, its winning power.
    suit_others = others & SUIT_MASKS[suit]
    lower = (suit_others & _BELOW[c]).bit_count()
    power = lower / (suit_others.bit_count() + 1)
    my_suit = (v.hand & SUIT_MASKS[suit]).bit_count()
    # (+ a hair per rank: among equals, the higher card goes first; not where tricks are wanted)
    shed = t.shed_points[c] + t.trick_cost * power * 2.0 + t.rank_hair[c]
    if t.bonus_cost < 0:
        # Tricks are wanted (a clean-trick bonus): a card's winning power is worth about half
        # a clean trick to keep (a whole one plays worse against random players), and among
        # equals the lower card goes first.
        shed += 0.5 * t.bonus_cost * power - 0.02 * (c % NUM_RANKS)
    if t.trumps and suit == HEARTS:
        shed -= 1.0  # a trump is worth keeping
    elif my_suit <= 2 and t.trick_cost > 0:
        shed += 0.7 / my_suit  # towards a void
    if trick:
        best = v.best
        bs = _SUIT_OF[best]
        if bs == suit:
            wins = c > best
        else:
            wins = t.trumps and suit == HEARTS and bs != HEARTS
        pts = v.trick_points + cost[c]
        if v.slam_guard and wins and pts > 0:
            return -10.0  # take a point from the other team before it slams
        if not wins:
            dropped = max(cost[c], 0) * 0.7
            if v.partner_best or v.slam_guard:  # my partner takes it, or it feeds the other team's slam
                return -shed + dropped
            return -shed - dropped  # it lands with someone else
        valued = v.trick_valued or bool(t.valued >> c & 1)
    else:
        pts = cost[c]
        valued = bool(t.valued >> c & 1)
    return _cost_if_it_wins(v, c, suit, led, pts, valued) - shed


def choose(v: View) -> int:
    """The heuristic's card for this view (lowest card id among equals, so it is deterministic)."""
    legal = v.legal
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1
    if v.phase == CHARGE:
        return CHARGE_DONE
    if v.phase == MOON:
        return MOON_SUBTRACT
    picking = v.phase in (PASS, DISCARD)  # a discard after the kitty is chosen like a pass
    score = pass_score if picking else play_score
    best, best_s = -1, None
    m = legal & FULL_DECK  # never "pass on unseen"
    # Picking: the highest pass score goes first, except to a partner, who gets the safest cards.
    sign = (1.0 if v.to_partner else -1.0) if picking else 1.0
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        s = sign * score(v, c)
        if best_s is None or s < best_s:
            best, best_s = c, s
    return best


class HeuristicAgent:
    """The rule-based player; deterministic, so ``reset`` only exists for the protocol."""

    needs_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self.name = "heuristic_v2"

    def reset(self, seed: int | None = None) -> None:
        """Nothing to do: the heuristic keeps no state between decisions and draws nothing."""
        pass

    def act(self, observation: np.ndarray | None, mask: np.ndarray, info: InfoState) -> int:
        """The heuristic's action for the seat of ``info`` (:func:`choose`, or :func:`moon_choice` for a moon
        shooter); reads ``info`` only. Raises ValueError without ``info``, or when ``mask`` disagrees with its
        legal actions."""
        if info is None:
            raise ValueError("the heuristic reads the information state; pass info=information_state(...)")
        v = view_from_info(info)
        legal = int(mask_of(np.flatnonzero(mask).tolist()))
        if legal != v.legal:
            raise ValueError("the mask does not match the information state's legal actions")
        if info.phase == MOON:
            return moon_choice(info)
        return choose(v)


def moon_choice(info: InfoState) -> int:
    """Add the moon to the others when that leaves this seat's side alone with the best total (the
    lowest, or the highest where the highest wins), else subtract.

    Either choice moves the shooter by the same amount against everyone; adding brings the
    match end closer, which is good only for the leader.
    """
    total = sum(v for v in info.rules.card_values if v > 0)
    mine = info.match_scores[info.seat]
    others = [info.match_scores[s] + total for s in info.seats if s not in (info.seat, info.partner)]
    if not others:
        return MOON_SUBTRACT
    leads = mine < min(others) if info.rules.lower_wins else mine > max(others)
    return MOON_ADD if leads else MOON_SUBTRACT
