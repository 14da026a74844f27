"""Perfect-information Monte Carlo search: sample the hidden hands, play each card out.

At a play decision the agent draws ``worlds`` deals consistent with everything its seat
knows (:func:`sample_hidden_hands`): each other player gets exactly as many cards as they
hold, no card of a suit they have shown void in, and the cards this seat passed to a
player who still holds them. For every world it rebuilds a deal from the information
state alone (:func:`world_deal`: the sampled hands plus the cards already played,
replayed trick by trick), then for each legal card plays the deal out ``rollouts`` times
with a playout policy (the heuristic by default) and scores the card by the seat's mean
result. The same worlds serve every card, so cards are compared on the same deals.
It plays the card with the best mean only where that card beats the one the playout policy
would play itself by ``override_z`` standard errors (paired over the worlds; by default 1
where the rules have no moon, 0 where they have one or where random playouts and no guide leave
no card of its own): the best of a few noisy means is often
only the luckiest (:func:`card_to_play`, :meth:`PimcAgent.override_for`). With ``read_passes``
the worlds are drawn by what the pass this seat received says about the other hands, taking the
other players to pass like the playout policy (:mod:`.pass_reading`).
It never reads the real deal: :meth:`PimcAgent.act` receives the information state only.
Passing is left to the heuristic.
With ``guide`` (a policy checkpoint) the network passes and proposes each card, and the search
keeps the network's card unless a card beats it by ``override_z`` standard errors: the
search checks a trained player instead of the heuristic. The playouts still imagine the
heuristic everywhere, unless ``guide_playouts``, where the network plays its own seat in
them (``PimcAgent._guided_playouts``). :meth:`PimcAgent.explain` gives the
value of each legal card at the last searched decision (game records carry it for the
replay; :mod:`bm_env.engine.thoughts`).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

import numpy as np

from ..engine.cards import HEARTS, NUM_RANKS, QUEEN_SPADES, mask_of
from ..engine.deal import DONE, PASS, Deal, IllegalActionError, clone_deal
from ..engine.infostate import InfoState
from ..engine.thoughts import Thought
from ..env.observation import encode, encode_in_world
from .names import ALIASES, fixed_name
from .pass_reading import affinities, original_hand, pass_marginals
from .playouts import PLAYOUTS, heuristic_card, playout


def _feasible(count: list[int], cap: list[int], eligible: list[int]) -> bool:
    """Hall's condition: the cards left fit the room left, whatever set of seats they are confined to.

    ``count``: the cards left to place by suit; ``cap``: the room left by seat; ``eligible``: by
    suit, the seats (bits) that may hold it. For each set of seats, the cards of the suits only
    those seats may hold must fit in their room. (The same test as over every set of suits: the
    tightest set of suits for a set of seats is all the suits confined to it; over seats it takes
    4 sets instead of 15 at three players.)
    """
    for seats in range(1 << len(cap)):
        need = 0
        for suit in range(4):
            if not eligible[suit] & ~seats:
                need += count[suit]
        if need:
            room = 0
            for i, c in enumerate(cap):
                if seats >> i & 1:
                    room += c
            if need > room:
                return False
    return True


def _draw_order(weights: list[float], rng: np.random.Generator) -> list[int]:
    """The positions of ``weights`` in a random order, each next one drawn in proportion to its weight.

    Draws the same numbers and returns the same order as numpy's ``rng.choice(n, n, replace=False,
    p=w / w.sum())`` (numpy 1.24 to 2.4; a test holds them equal), which pimc used before, so seeded searches
    play as they did; at a few candidates it is about ten times faster, and it ties the draws to
    the generator's stream alone, not to how a numpy version implements ``choice``. Each round
    draws one number per position still unplaced and keeps the new positions they fall on in the
    cumulative distribution of the weights left.
    """
    n = len(weights)
    # In Python floats: numpy float32 weights (the belief's) would compare a draw such as 0.99999998 with the
    # cumulative distribution in float32, where it rounds to 1.0 and falls past the last position.
    p = [float(w) for w in weights]
    total = sum(p)
    p = [w / total for w in p]
    order: list[int] = []
    while len(order) < n:
        draws = rng.random(n - len(order)).tolist()
        for j in order:
            p[j] = 0.0
        cdf = list(accumulate(p))
        last = cdf[-1]
        cdf = [c / last for c in cdf]
        new: list[int] = []
        for x in draws:
            j = bisect_right(cdf, x)
            if j not in new:
                new.append(j)
        order += new
    return order


def inferred_voids(info: InfoState) -> tuple[int, ...]:
    """Voids by seat: those shown by not following suit, plus what a heart lead reveals.

    Where hearts must be broken, a heart led before any heart (or a breaking Q♠) was played
    shows that the leader held nothing but hearts (the British rules), so they are void in the
    other three suits from then on.
    """
    voids = list(info.voids)
    rules = info.rules
    if rules.hearts_lead != "when_broken" or rules.lead_hearts_with_queen_only:
        return tuple(voids)
    broken = False
    k = len(info.seats)
    for i, (seat, c) in enumerate(info.plays):
        suit = c // NUM_RANKS
        if i % k == 0 and suit == HEARTS and not broken:
            voids[seat] |= 0b1011
        if suit == HEARTS or (c == QUEEN_SPADES and rules.queen_breaks_hearts):
            broken = True
    return tuple(voids)


def sample_hidden_hands(info: InfoState, rng: np.random.Generator,
                        affinity: dict[int, np.ndarray] | None = None) -> dict[int, int]:
    """Hands (bit masks by match seat) of the other players, consistent with ``info``.

    Cards are placed one at a time in random order, each with a seat drawn in proportion
    to the room it has left, among the seats not void in its suit; a placement that would
    leave the remaining cards without room (Hall's condition, ``_feasible``) is not taken, so
    the draw never dead-ends. With ``affinity`` (by seat, a weight per card: what the passes say,
    :func:`~bm_env.agents.pass_reading.affinities`) the room is multiplied by the seat's weight for the card.
    """
    if info.phase == PASS:
        raise ValueError("hidden hands are sampled during play; during passing the agent uses the heuristic")
    others = [s for s in info.seats if s != info.seat]
    known = info.known_held
    hands = {s: mask_of(known.get(s, ())) for s in others}
    cap = [info.hand_sizes[s] - len(known.get(s, ())) for s in others]
    pool = list(info.unseen)
    if sum(cap) != len(pool) or min(cap, default=0) < 0:
        room = dict(zip(others, cap))
        raise ValueError(f"information state is inconsistent: {len(pool)} unseen cards for hand room {room}")
    voids = inferred_voids(info)
    eligible = [sum(1 << i for i, s in enumerate(others) if not voids[s] >> suit & 1) for suit in range(4)]
    count = [0, 0, 0, 0]
    for c in pool:
        count[c // NUM_RANKS] += 1
    order = rng.permutation(len(pool))
    for i in order:
        c = pool[i]
        suit = c // NUM_RANKS
        count[suit] -= 1
        cands = [j for j in range(len(others)) if eligible[suit] >> j & 1 and cap[j] > 0]
        room = [cap[j] for j in cands] if affinity is None else [cap[j] * affinity[others[j]][c] for j in cands]
        for k in _draw_order(room, rng):
            j = cands[k]
            cap[j] -= 1
            if _feasible(count, cap, eligible):
                hands[others[j]] |= 1 << c
                break
            cap[j] += 1
        else:  # cannot happen for an information state that came from a real deal
            raise ValueError(f"no seat can hold card {c} consistently with the voids shown")
    return hands


def world_deal(info: InfoState, hidden: dict[int, int]) -> Deal:
    """A deal in the same position as ``info``, with the other players holding ``hidden``.

    Built from the information state only: each position's hand at the start of play is
    what it holds now plus what it has played; the deal starts with no pass (the cards have
    moved already) and replays every card played so far.
    """
    seats = info.seats
    played = {s: 0 for s in seats}
    for s, c in info.plays:
        played[s] |= 1 << c
    now = dict(hidden)
    now[info.seat] = mask_of(info.hand)
    hands = [now[s] | played[s] for s in seats]
    totals = tuple(info.match_scores[s] for s in seats)
    deal = Deal(info.rules, hands, seats.index(info.dealer), "hold", seats, totals, info.deals_played)
    for _, c in info.plays:
        deal.step(c)
    return deal


def sample_world(info: InfoState, rng: np.random.Generator, tries: int = 200,
                 affinity: dict[int, np.ndarray] | None = None) -> Deal:
    """A world deal consistent with ``info``: sampled hands under which every past play was legal, drawn with
    ``affinity`` (:func:`sample_hidden_hands`).

    The constraints of :func:`sample_hidden_hands` cover the common inferences; a rule that
    reveals more (say, a penalty card shown on a first trick where points are barred) is
    handled by drawing again until the replay accepts every card played.
    """
    for _ in range(tries):
        try:
            return world_deal(info, sample_hidden_hands(info, rng, affinity))
        except IllegalActionError:
            continue
    raise RuntimeError(f"found no hidden hands consistent with the play so far in {tries} draws")


def sample_worlds(info: InfoState, rng: np.random.Generator, n: int,
                  affinity: dict[int, np.ndarray] | None = None) -> list[Deal]:
    """``n`` world deals drawn independently (:func:`sample_world`): uniform among those consistent with ``info``,
    or weighted by ``affinity``."""
    return [sample_world(info, rng, affinity=affinity) for _ in range(n)]


def card_to_play(values: np.ndarray, own: int | None, override_z: float) -> int:
    """The column of ``values`` (worlds x cards, higher is better) to play.

    The best mean, unless the playout policy's own card ``own`` is within ``override_z``
    standard errors of it, the difference paired over the worlds: twenty sampled worlds
    leave the means noisy, and the card with the best mean is the one most likely to have
    drawn lucky worlds, so the search overrides the player whose play it imagines only
    where it is sure. ``override_z=0`` (or no own card) plays the best mean.
    """
    best = int(np.argmax(values.mean(axis=0)))
    if own is None or override_z == 0 or own == best:
        return best
    gain = values[:, best] - values[:, own]
    spread = gain.std(ddof=1) / np.sqrt(len(gain)) if len(gain) > 1 else 0.0
    return best if gain.mean() > override_z * spread else own


#: The playout policy of a search that names none: the newest rule-based player (an alias, :mod:`.names`).
DEFAULT_ROLLOUT = "heuristic"


class PimcAgent:
    """Search player; ``worlds`` sampled deals, ``rollouts`` playouts per world and card, the
    playout policy's own card (or the ``guide`` network's) kept unless a card beats it by
    ``override_z`` standard errors."""

    needs_observation = False  # True for a guided search, whose network reads the observation vector

    def __init__(self, worlds: int = 20, rollouts: int = 1, rollout: str = DEFAULT_ROLLOUT, seed: int | None = None,
                 override_z: float | None = None, guide: str | None = None, rules=None,
                 guide_playouts: bool = False, read_passes: bool = False) -> None:
        """``override_z=None`` chooses it by the rules (:meth:`override_for`); ``guide``: the path of a policy
        checkpoint for ``rules`` that passes and proposes the card to keep; ``guide_playouts``: the guide also
        plays this seat's cards in the playouts (:meth:`_guided_playouts`); ``read_passes``: the worlds are drawn
        by what the pass this seat received says about the other hands, taking the other players to pass like
        the playout policy (:mod:`.pass_reading`)."""
        if worlds < 1 or rollouts < 1:
            raise ValueError(f"pimc needs worlds >= 1 and rollouts >= 1, got worlds={worlds}, rollouts={rollouts}")
        rollout = fixed_name(rollout)
        if rollout not in PLAYOUTS:
            raise ValueError(f"pimc: rollout={rollout!r} is not a playout policy; allowed: {sorted([*ALIASES, *PLAYOUTS])}")
        own_card = PLAYOUTS[rollout][1]
        if override_z is not None and not 0 <= override_z < float("inf"):
            raise ValueError(f"pimc: override_z must be a finite number >= 0, got {override_z}")
        if own_card is None and guide is None and override_z:
            raise ValueError(f"pimc: override_z keeps the playout policy's own card, and rollout={rollout} has none; "
                             "drop override_z, use rollout=heuristic or heuristic_v1, or give a guide network")
        if guide_playouts and guide is None:
            raise ValueError("pimc: guide_playouts lets the guide network play this seat in the playouts, "
                             "and no guide was given; add guide=PATH or drop guide_playouts")
        if read_passes and own_card is None:
            raise ValueError(f"pimc: read_passes reads the pass received as the playout policy's choice, and "
                             f"rollout={rollout} makes none; use rollout=heuristic or heuristic_v1, or drop read_passes")
        self.worlds = worlds
        self.rollouts = rollouts
        self.read_passes = read_passes
        self._affinity: tuple[tuple, dict[int, np.ndarray] | None] = ((), None)  # (the deal it is for, affinities)
        self.move, self.own_card = PLAYOUTS[rollout][0], own_card
        self.guide_playouts = guide_playouts
        self.override_z = override_z
        self.guide = None
        if guide is not None:
            from .policy import PolicyAgent  # torch is imported only where a network plays

            self.guide = PolicyAgent(guide, rules, greedy=True, seed=seed)
            self.needs_observation = True
        z = "auto" if override_z is None else f"{override_z:g}"  # auto: by the rules, override_for
        guided = "" if guide is None else f",guide={guide}" + (",guide_playouts=true" if guide_playouts else "")
        read = ",read_passes=true" if read_passes else ""
        self.name = f"pimc(worlds={worlds},rollouts={rollouts},rollout={rollout},override_z={z}{read}{guided})"
        self.rng = np.random.default_rng(seed)
        self._last: Thought | None = None

    def reset(self, seed: int | None = None) -> None:
        """Reseed the world and playout draws with ``seed`` and forget the last search and the pass reading; the
        guide network's agent is reseeded with the same seed."""
        self.rng = np.random.default_rng(seed)
        self._last = None
        self._affinity = ((), None)
        if self.guide is not None:
            self.guide.reset(seed)

    def override_for(self, rules) -> float:
        """The ``override_z`` this search uses under ``rules``: as given, else 1 where the rules
        have no moon and 0 where they have one, or where no card of its own stands to be beaten
        (random playouts without a guide). The override test asks for a gain that holds
        across the worlds; stopping a moon gains its whole value in the few worlds where it would
        succeed and nothing elsewhere, which the test takes for noise, so with a moon it kept
        the heuristic's card and let a shooter through (docs/agents.md#pimc-search)."""
        if self.override_z is not None:
            return self.override_z
        has_own = self.own_card is not None or self.guide is not None
        return 1.0 if has_own and rules.moon == "off" else 0.0

    def explain(self) -> Thought | None:
        """The mean playout value of each legal card at the last ``act``; None where it did not
        search (a pass, a single legal card)."""
        return self._last

    def act(self, observation: np.ndarray | None, mask: np.ndarray, info: InfoState) -> int:
        """The searched action (module docstring); reads ``info`` only, never ``observation``."""
        if info is None:
            raise ValueError("pimc reads the information state; pass info=information_state(...)")
        legal = [int(a) for a in np.flatnonzero(mask)]
        self._last = None
        if not legal:
            raise ValueError("the mask has no legal action")
        if len(legal) == 1:
            return legal[0]
        if info.phase == PASS:
            return heuristic_card(info) if self.guide is None else self.guide.act(observation, mask, info)
        values = self.world_values(info, legal)
        self._last = Thought("value", dict(zip(legal, values.mean(axis=0).tolist())))
        z = self.override_for(info.rules)
        if z == 0:  # the best mean: no card of its own to keep, so none asked for
            return legal[card_to_play(values, None, z)]
        own = self.own_card(info) if self.guide is None else self.guide.act(observation, mask, info)
        return legal[card_to_play(values, legal.index(own), z)]

    def action_values(self, info: InfoState, legal: list[int]) -> np.ndarray:
        """Mean result (higher is better in every preset) of each legal card over the sampled worlds."""
        return self.world_values(info, legal).mean(axis=0)

    def world_values(self, info: InfoState, legal: list[int]) -> np.ndarray:
        """The result of each legal card (columns) in each sampled world (rows), averaged over its rollouts."""
        pos = info.seats.index(info.seat)
        sign = -1.0 if info.rules.lower_wins else 1.0
        totals = np.zeros((self.worlds, len(legal)))
        guided: list[tuple[int, int, Deal]] = []  # with guide_playouts, finished together after the loop
        worlds = sample_worlds(info, self.rng, self.worlds, self.passes_read(info) if self.read_passes else None)
        for w, base in enumerate(worlds):
            for i, a in enumerate(legal):
                for _ in range(self.rollouts):
                    d = clone_deal(base)
                    d.step(a)
                    if self.guide_playouts:
                        guided.append((w, i, d))
                        continue
                    playout(d, self.move, self.rng)
                    totals[w, i] += sign * d.scores[pos]
        if guided:
            self._guided_playouts([d for _, _, d in guided], info)
            for w, i, d in guided:
                totals[w, i] += sign * d.scores[pos]
        return totals / self.rollouts

    def passes_read(self, info: InfoState) -> dict[int, np.ndarray] | None:
        """The weights by seat and card with which ``read_passes`` draws the hidden cards, worked out at the
        deal's first searched decision and kept for the deal (:mod:`.pass_reading`); None: drawn uniformly."""
        key = (info.deals_played, info.dealer, info.passed, info.received, original_hand(info))
        if self._affinity[0] != key:
            marginals = pass_marginals(info, self.move, self.rng)
            self._affinity = (key, None if marginals is None else affinities(marginals, info))
        return self._affinity[1]

    def _guided_playouts(self, deals: list[Deal], info: InfoState) -> None:
        """Finish ``deals`` with this seat played by the guide network and the others by the playout policy.

        The deals advance together, so that the network answers for every deal where this seat is to
        act in one batched call; it reads the observation it would read in the real deal, the seat's pass
        taken from ``info`` (world deals start at play, without one): :func:`~bm_env.env.observation.encode_in_world`.
        """
        pos = info.seats.index(info.seat)
        template = encode(info)
        live = deals
        while live:
            waiting = []
            for d in live:
                while d.phase != DONE and d.to_act != pos:
                    d.step(self.move(d, self.rng))
                if d.phase != DONE:
                    waiting.append(d)
            if not waiting:
                return
            observations = np.stack([encode_in_world(template, d, info.seat) for d in waiting])
            cards = self.guide.act_batch(observations, np.stack([d.legal_mask() for d in waiting]))
            for d, c in zip(waiting, cards):
                d.step(int(c))
            live = waiting
