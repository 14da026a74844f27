"""Soak test: many random deals through ``env()`` and the vector engine, checking invariants.

Property tests check a few hundred deals; a rule interaction that goes wrong once in a
hundred thousand deals needs more. :func:`soak` plays random deals of every preset at
every player count it allows and checks, for each:

- the acting player's mask is never empty, and lies within their hand (vector engine) or
  their legal actions; nobody else has a mask (``env()``);
- the hands, the cards picked to pass, the cards played, the kitty (apart, or taken into
  a hand) and its discards partition the deck (vector engine, every step); the cards dealt and the kitty come back as the cards of the tricks,
  the kitty and the discards (``env()``, at the end of each deal);
- a deal's total is one the rules allow (the card values, clean tricks and moon outcomes,
  where those decide it alone);
- an illegal action attempted now and then is refused and changes nothing (``raise``), or
  ends the deal under the renege penalty (``renege_penalty``);
- each ``env()`` deal's record, through JSON, replays to the same scores, which are the
  scores the environment reported; every fourth deal belongs to a whole match
  (``episode="match"``), whose record replays to the reported totals and winners.

The vector engine plays most deals (it steps thousands at once); ``env()`` plays a share of
them (``env_deals``), spread over every preset and player count, and alone plays any rules
the vector engine refuses (none of the presets). ``bm-soak`` is the
command-line front (:mod:`bm_env.cli.soak`).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .engine.cards import cards_of
from .engine.deal import IllegalActionError
from .engine.record import RecordError, deal_record, match_record, replay_deal, replay_match
from .engine.rules import PRESETS, Rules, make_rules
from .systems import Bounds, bounds, dealing
from .systems.moon import total_moves
from .systems.teams import scoring_units
from .vector import VectorEngine, make_engine
from .vector.popcount import bitwise_count
from .vector.support import plays

#: The card ids of a legal set (the extra decisions are not cards in a hand).
_CARD_IDS = np.uint64((1 << 52) - 1)
#: Share of decisions at which a soak tries an illegal action first.
ILLEGAL_RATE = 0.02
#: Failures kept with their message per configuration (all are counted).
KEPT_FAILURES = 5


@dataclass
class SoakResult:
    """What one configuration (preset, player count, engine) played, and what went wrong."""

    preset: str
    players: int
    engine: str  # "vector" or "env"
    deals: int = 0
    decisions: int = 0
    illegal_tried: int = 0
    failures: int = 0
    messages: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def fail(self, message: str) -> None:
        """Count one failure, keeping its message while fewer than :data:`KEPT_FAILURES` are kept."""
        self.failures += 1
        if len(self.messages) < KEPT_FAILURES:
            self.messages.append(message)


def configurations(presets: list[str] | None = None) -> list[tuple[str, int, Rules]]:
    """``(preset, players, rules)`` for every preset named (default: all) at every player count it allows."""
    names = list(PRESETS) if presets is None else presets
    return [(name, n, make_rules(name, n)) for name in names for n in PRESETS[name].player_counts]


def allowed_totals(rules: Rules, values: list[int], tricks: int) -> set[int] | None:
    """Every total a deal's scores can add up to, given the values of the cards in play.

    ``values`` holds one entry per card in play (both copies with two decks, the kitty
    included). The total is the sum of the values, plus the clean-trick bonus per clean
    trick, moved by a moon; None where a rule system moves the scores beyond that (multiplied
    or charged cards, a sun, partners who score together: :func:`bm_env.systems.bounds`), which
    the record replay checks instead.
    """
    n = rules.num_players
    if bounds(rules) != Bounds() or any(len(unit) > 1 for unit in scoring_units(rules, n)):
        return None
    total = sum(values)
    penalty = sum(v for v in values if v > 0)
    moves = total_moves(rules, penalty, n)
    bonus = rules.clean_trick_bonus
    return {total + m + bonus * k for m in moves for k in range(tricks + 1 if bonus else 1)}


# ---------------------------------------------------------------------------
# The vector engine.
# ---------------------------------------------------------------------------


def soak_vector(preset: str, rules: Rules, deals: int, seed: int, batch: int = 4096) -> SoakResult:
    """Play at least ``deals`` random deals of ``rules`` on the vector engine, checking every step."""
    res = SoakResult(preset, rules.num_players, "vector")
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    batch = max(1, min(batch, deals))
    engine = make_engine(rules, batch_size=batch, seed=int(rng.integers(2**63)))
    values = [v for c, v in enumerate(rules.card_values) if rules.deck_mask() >> c & 1] * dealing(rules).copies
    allowed = allowed_totals(rules, values, rules.hand_size())
    totals = None if allowed is None else np.array(sorted(allowed), dtype=np.int64)
    games = np.arange(batch)
    _, mask, _ = engine.reset()
    step = 0
    while res.deals < deals and res.failures == 0:
        st = engine.state()
        where = f"{preset} {rules.num_players}p vector seed {seed} step {step}"
        _check_vector_step(res, engine, st, mask, games, where)
        actions = engine.random_actions(rng)
        if rng.random() < ILLEGAL_RATE * rules.num_players:
            _try_vector_illegal(res, engine, actions, st, rng, where)
        _, mask, _, _, done, final_scores = engine.step(actions)
        res.decisions += batch
        step += 1
        if done.any() and totals is not None:
            sums = final_scores[done].sum(axis=1)
            bad = ~np.isin(sums, totals)
            if bad.any():
                res.fail(f"{where}: a deal's scores {final_scores[done][bad][0].tolist()} add up to "
                         f"{int(sums[bad][0])}; the rules allow {totals.tolist()}")
        res.deals += int(done.sum())
    res.seconds = time.perf_counter() - start
    return res


def _check_vector_step(res: SoakResult, engine: VectorEngine, st: dict, mask: np.ndarray, games: np.ndarray,
                       where: str) -> None:
    if not mask.any(axis=1).all():
        res.fail(f"{where}: game {int(np.flatnonzero(~mask.any(axis=1))[0])} has an empty mask for its actor")
    actor_hand = st["hands"][games, st["to_act"]]
    if (st["legal"] & _CARD_IDS & ~actor_hand).any():
        res.fail(f"{where}: a legal card is not in the actor's hand")
    passing = (st["phase"] == 0)[:, None]
    # The hands, the passes not yet moved, the cards played, and what the rule systems keep apart (a kitty, its
    # discards, the second copies of two decks): every card of the deal, each copy once.
    parts = np.concatenate([st["hands"], np.where(passing, st["passed"], np.uint64(0)), st["played"],
                            engine.cards_apart(st)], axis=1)
    union = np.bitwise_or.reduce(parts, axis=1)
    count = bitwise_count(parts).astype(np.int64).sum(axis=1)
    rules = engine.rules
    deck = rules.deck_mask()
    bad = (union != np.uint64(deck)) | (count != deck.bit_count() * dealing(rules).copies)
    if bad.any():
        res.fail(f"{where}: game {int(np.flatnonzero(bad)[0])}: hands, passes, played cards and the kitty do not "
                 "partition the deck")


def _try_vector_illegal(res: SoakResult, engine: VectorEngine, actions: np.ndarray, st: dict,
                        rng: np.random.Generator, where: str) -> None:
    """One game's action replaced by an illegal card: the step must be refused with nothing changed."""
    g = int(rng.integers(actions.shape[0]))
    illegal = [c for c in range(52) if not int(st["legal"][g]) >> c & 1]
    bad = actions.copy()
    bad[g] = illegal[int(rng.integers(len(illegal)))]
    res.illegal_tried += 1
    try:
        engine.step(bad)
    except IllegalActionError:
        after = engine.state()
        if not all(np.array_equal(after[k], st[k]) for k in ("hands", "played", "passed", "legal", "to_act")):
            res.fail(f"{where}: a refused illegal action changed the state")
        return
    res.fail(f"{where}: game {g}: illegal action {int(bad[g])} was accepted")


# ---------------------------------------------------------------------------
# The environment.
# ---------------------------------------------------------------------------


def soak_env(preset: str, rules: Rules, deals: int, seed: int) -> SoakResult:
    """Play ``deals`` random deals of ``rules`` through ``env()``, checking every decision and each record.

    Deals take turns: one-deal episodes where an illegal action raises, the same under the
    renege penalty (an illegal attempt ends the deal), again raising, then the next deal of
    a whole match (``episode="match"``), whose record is checked when the match ends.
    """
    from . import black_maria_v0

    res = SoakResult(preset, rules.num_players, "env")
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    envs = {
        "raise": black_maria_v0.env(rules=rules),
        "renege_penalty": black_maria_v0.env(rules=rules, illegal_action="renege_penalty"),
        "match": black_maria_v0.env(rules=rules, episode="match"),
    }
    for env in envs.values():
        env.reset(seed=int(rng.integers(2**63)))
    fresh = set(envs)
    for i in range(deals):
        kind = ("raise", "renege_penalty", "raise", "match")[i % 4]
        env = envs[kind]
        if kind not in fresh and all(env.terminations.values()):
            env.reset()
        fresh.discard(kind)
        where = f"{preset} {rules.num_players}p env ({kind}) seed {seed} deal {i}"
        try:
            _play_env_deal(res, env, rng, where)
            if kind == "match" and all(env.terminations.values()):
                _check_env_match(res, env.unwrapped, where)
        except Exception as e:  # an invariant check must report, not stop the soak
            res.fail(f"{where}: {type(e).__name__}: {e}")
        res.deals += 1
    res.seconds = time.perf_counter() - start
    return res


def _play_env_deal(res: SoakResult, env, rng: np.random.Generator, where: str) -> None:
    raw = env.unwrapped
    agents = raw.possible_agents
    deals_before = len(raw.match.completed)
    while len(raw.match.completed) == deals_before:
        agent = env.agent_selection
        obs = env.observe(agent)
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            res.fail(f"{where}: {agent} is to act with an empty mask")
            return
        other = agents[int(rng.integers(len(agents)))]
        if other != agent and env.observe(other)["action_mask"].any():
            res.fail(f"{where}: {other} has a mask while {agent} acts")
        if rng.random() < ILLEGAL_RATE:
            illegal = np.flatnonzero(mask == 0)
            action = int(illegal[int(rng.integers(illegal.size))])
            res.illegal_tried += 1
            if raw.illegal_action == "raise":
                try:
                    env.step(action)
                except IllegalActionError:
                    if not np.array_equal(env.observe(agent)["observation"], obs["observation"]):
                        res.fail(f"{where}: a refused illegal action changed {agent}'s observation")
                else:
                    res.fail(f"{where}: illegal action {action} by {agent} was accepted")
                    return
            else:
                env.step(action)
                res.decisions += 1
                if not raw.match.completed or raw.match.completed[-1].renege is None:
                    res.fail(f"{where}: illegal action {action} by {agent} did not end the deal in a renege")
                    return
                continue
        env.step(int(legal[int(rng.integers(legal.size))]))
        res.decisions += 1
    _check_env_deal(res, raw, where)


def _check_env_deal(res: SoakResult, raw, where: str) -> None:
    deal = raw.match.completed[-1]
    reported = [raw.infos[a]["deal_score"] for a in raw.possible_agents]
    by_seat = [0] * raw.rules.num_players
    for pos, s in enumerate(deal.seats):
        by_seat[s] = deal.scores[pos]
    if reported != by_seat:
        res.fail(f"{where}: infos report deal scores {reported}, the deal has {by_seat}")
    try:
        replayed = replay_deal(json.loads(json.dumps(deal_record(deal))))
    except RecordError as e:
        res.fail(f"{where}: its record does not replay: {e}")
        return
    if replayed.scores != deal.scores:
        res.fail(f"{where}: its record replays to scores {replayed.scores}, the deal scored {deal.scores}")
    if deal.renege is not None:
        return
    dealt = Counter(c for pos in range(deal.num_players) for c in _dealt_cards(deal, pos)) + Counter(deal.kitty)
    taken = Counter(c for _, cards, _ in deal.tricks for c in cards) + Counter(deal.taken_apart())
    if taken != dealt:
        res.fail(f"{where}: the tricks and the cards taken apart from them hold {sorted((taken - dealt).elements())} "
                 f"more and {sorted((dealt - taken).elements())} fewer cards than were dealt")
    if any(deal.hand_count(pos) for pos in range(deal.num_players)):
        res.fail(f"{where}: the deal ended with cards in hand")
    tricks = sum(dealt.values()) // deal.num_players
    allowed = allowed_totals(deal.rules, [deal.values[c] for c in dealt.elements()], tricks)
    if allowed is not None and sum(deal.scores) not in allowed:
        res.fail(f"{where}: the scores {deal.scores} add up to {sum(deal.scores)}; the rules allow {sorted(allowed)}")


def _check_env_match(res: SoakResult, raw, where: str) -> None:
    """A finished match: its record replays, and the environment reported its winners."""
    match = raw.match
    reported = raw.infos[raw.possible_agents[0]].get("winners")
    if reported != [raw.possible_agents[w] for w in match.winners]:
        res.fail(f"{where}: infos report winners {reported}, the match has {list(match.winners)}")
    try:
        replay_match(json.loads(json.dumps(match_record(match))))
    except RecordError as e:
        res.fail(f"{where}: the match record does not replay: {e}")


def _dealt_cards(deal, pos: int) -> list[int]:
    return cards_of(deal.dealt[pos]) + cards_of(deal.dealt_twice[pos])


# ---------------------------------------------------------------------------
# Both, over presets.
# ---------------------------------------------------------------------------


def plan(configs: list[tuple[str, int, Rules]], deals: int, env_deals: int) -> list[tuple[str, int, Rules, str, int]]:
    """``(preset, players, rules, engine, deals)`` jobs: ``env_deals`` spread evenly over every
    configuration, the rest evenly over the configurations the vector engine plays."""
    jobs = []
    per_env, extra_env = divmod(env_deals, len(configs))
    for i, (name, n, rules) in enumerate(configs):
        k = per_env + (i < extra_env)
        if k:
            jobs.append((name, n, rules, "env", k))
    vector = [c for c in configs if plays(c[2])]
    rest = max(deals - env_deals, 0)
    if vector and rest:
        per, extra = divmod(rest, len(vector))
        for i, (name, n, rules) in enumerate(vector):
            if per + (i < extra):
                jobs.append((name, n, rules, "vector", per + (i < extra)))
    return jobs


def soak(presets: list[str] | None, deals: int, env_deals: int, seed: int, batch: int = 4096, report=None):
    """Run the :func:`plan` for these presets; returns every job's :class:`SoakResult`.

    Each job has its own generator spawned from ``seed``, so a run is reproducible and a
    failing job can be rerun alone. ``report``, if given, is called with each result.
    """
    jobs = plan(configurations(presets), deals, env_deals)
    seeds = np.random.SeedSequence(seed).spawn(len(jobs))
    results = []
    for (name, n, rules, engine, k), ss in zip(jobs, seeds):
        job_seed = int(ss.generate_state(1, dtype=np.uint64)[0])
        if engine == "env":
            res = soak_env(name, rules, k, job_seed)
        else:
            res = soak_vector(name, rules, k, job_seed, batch)
        results.append(res)
        if report is not None:
            report(res)
    return results
