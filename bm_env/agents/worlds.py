"""The worlds of the batched search: positions in play consistent with what one seat knows.

:func:`world_positions` turns a seat's information state into ``count`` vector-engine
:class:`~bm_env.vector.positions.Positions`, each with the other players' hands drawn
(:func:`draw_hands`) and the rest of the position (the cards played, the trick, the points,
the voids shown, the passes) as the seat knows it. The passes the seat never saw are drawn too
(:func:`draw_passes`), so that every player's observation in a world is one a real deal gives.

:func:`draw_hands` deals the hidden cards at random among the other players, each to exactly the
room it has, and keeps the deals that put no card in a suit its holder has shown void in
(:func:`~bm_env.agents.pimc.inferred_voids`): uniform among the consistent deals, and drawn many
at a time. Where few deals pass (many voids), or the rules reveal more than the voids (a point
card shown on a first trick that bars them), or the draw is weighted (``affinity``, what the
passes say), the worlds are pimc's (:func:`~bm_env.agents.pimc.sample_worlds`).
"""

from __future__ import annotations

import numpy as np

from ..engine.cards import NUM_RANKS, cards_of, mask_of
from ..engine.infostate import InfoState
from ..engine.rules import Rules, direction_offset
from ..vector.positions import Positions
from .pimc import inferred_voids, sample_worlds

#: Deals drawn per world asked for, in each of the rounds of :func:`draw_hands`.
DRAWS_PER_WORLD = 4
ROUNDS = 3


def voids_tell_all(rules: Rules) -> bool:
    """Whether the voids shown and :func:`~bm_env.agents.pimc.inferred_voids` are all that past plays say
    about the hidden hands, so that any deal respecting them replays every past card legally.

    Not where points are barred from the first trick (a point card played there shows that its
    player held nothing else), nor where a heart may be led before hearts are broken by a player
    holding the Q♠ only or under other lead rules whose heart leads reveal a hand that the inference
    does not read."""
    if rules.first_trick_no_points or rules.lead_hearts_with_queen_only:
        return False
    return rules.hearts_lead == "when_broken" or rules.first_lead != "eldest_non_heart"


def draw_hands(info: InfoState, rng: np.random.Generator, count: int) -> np.ndarray | None:
    """``count`` deals of the cards ``info``'s seat cannot see: hands ``[count, n]`` (card masks, by deal
    position, this seat's own included), uniform among those consistent with the voids shown; None where too
    few of the deals drawn are consistent (the caller then draws pimc's way)."""
    seats = info.seats
    n = len(seats)
    others = [p for p in range(n) if seats[p] != info.seat]
    known = info.known_held
    room = [info.hand_sizes[seats[p]] - len(known.get(seats[p], ())) for p in others]
    pool = np.array(info.unseen, dtype=np.int64)
    if sum(room) != len(pool):
        raise ValueError(f"information state is inconsistent: {len(pool)} unseen cards for hand room {room}")
    voids = inferred_voids(info)
    holder = np.repeat(np.arange(len(others)), room)  # the other player each slot of a shuffled pool goes to
    barred = np.array([[voids[seats[p]] >> suit & 1 for suit in range(4)] for p in others], dtype=bool)
    starts = np.concatenate([[0], np.cumsum(room)])
    base = np.zeros(n, dtype=np.uint64)
    base[seats.index(info.seat)] = mask_of(info.hand)
    for p in others:
        base[p] = mask_of(known.get(seats[p], ()))
    kept: list[np.ndarray] = []
    for _ in range(ROUNDS):
        draws = DRAWS_PER_WORLD * count
        dealt = pool[np.argsort(rng.random((draws, len(pool))), axis=1)]
        ok = ~barred[holder, dealt // NUM_RANKS].any(axis=1)
        bits = np.left_shift(np.uint64(1), dealt[ok].astype(np.uint64))
        hands = np.tile(base, (len(bits), 1))
        for j, p in enumerate(others):
            hands[:, p] |= bits[:, starts[j]:starts[j + 1]].sum(axis=1, dtype=np.uint64)  # distinct bits: the sum is the union
        kept.append(hands)
        if sum(len(h) for h in kept) >= count:
            return np.concatenate(kept)[:count]
    return None


def world_positions(info: InfoState, rng: np.random.Generator, count: int,
                    affinity: dict[int, np.ndarray] | None = None) -> Positions:
    """``count`` positions (by deal position) consistent with ``info``; ``affinity``: the hidden cards drawn
    with these weights by seat (:func:`~bm_env.agents.pass_reading.affinities`), pimc's way."""
    rules, seats = info.rules, info.seats
    n = len(seats)
    hands = draw_hands(info, rng, count) if affinity is None and voids_tell_all(rules) else None
    if hands is None:
        deals = sample_worlds(info, rng, count, affinity=affinity)
        hands = np.array([d.hands for d in deals], dtype=np.uint64)
    played = np.zeros(n, dtype=np.uint64)
    for s, c in info.plays:
        played[seats.index(s)] |= np.uint64(1 << c)
    trick = np.full(n, -1, dtype=np.int64)
    for s, c in info.current_trick:
        trick[seats.index(s)] = c
    if info.current_trick:
        leader = seats.index(info.current_trick[0][0])
    elif info.tricks:
        leader = seats.index(info.tricks[-1][2])
    else:
        leader = seats.index(info.to_act)
    penalty, clean = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    for _, cards, winner in info.tricks:
        worth = [rules.card_values[c] for c in cards]
        penalty[seats.index(winner)] += sum(v for v in worth if v > 0)
        clean[seats.index(winner)] += all(v == 0 for v in worth)
    passed, received = draw_passes(info, hands, played, rng)
    tile = lambda a, dtype: np.tile(np.asarray(a, dtype=dtype), (count, 1))  # noqa: E731
    one = lambda v: np.full(count, v, dtype=np.int64)  # noqa: E731
    return Positions(hands=hands, passed=passed, received=received, played=tile(played, np.uint64),
                     trick=tile(trick, np.int64), captured=tile([info.points_taken[s] for s in seats], np.int64),
                     penalty_taken=tile(penalty, np.int64), clean_tricks=tile(clean, np.int64),
                     voids=tile([info.voids[s] for s in seats], np.uint8), leader=one(leader),
                     tricks_played=one(len(info.tricks)), hearts_broken=np.full(count, info.hearts_broken),
                     dealer=one(seats.index(info.dealer)), direction=one(rules.pass_cycle.index(info.pass_direction)))


def draw_passes(info: InfoState, hands: np.ndarray, played: np.ndarray,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Every position's pass picks and receipt in each world ``[worlds, n]``: this seat's picks and its
    receipt (its passer's picks) as they were; each pass it never saw drawn among its receiver's cards at
    the start of play (what it holds and has played), the no-pass cards left out where enough others are."""
    seats = info.seats
    n, count = len(seats), len(hands)
    passed = np.zeros((count, n), dtype=np.uint64)
    received = np.zeros((count, n), dtype=np.uint64)
    offset = direction_offset(info.pass_direction, n)
    if not offset or not info.pass_count:
        return passed, received
    pos = seats.index(info.seat)
    giver = (pos - offset) % n
    passed[:, pos] = mask_of(c for c, _ in info.passed)
    passed[:, giver] = mask_of(info.received)
    no_pass = mask_of(info.rules.no_pass_cards)
    for w in range(count):
        for p in range(n):
            if p in (pos, giver):
                continue
            at_start = cards_of(int(hands[w, (p + offset) % n] | played[(p + offset) % n]))
            allowed = [c for c in at_start if not no_pass >> c & 1]
            choices = allowed if len(allowed) >= info.pass_count else at_start
            passed[w, p] = mask_of(rng.choice(choices, info.pass_count, replace=False).tolist())
    for p in range(n):
        received[:, (p + offset) % n] = passed[:, p]
    return passed, received


def concat(parts: list[Positions]) -> Positions:
    """The positions of ``parts`` one after another."""
    return Positions(**{name: np.concatenate([getattr(p, name) for p in parts]) for name in vars(parts[0])})
