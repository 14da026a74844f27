"""One game of the web table: a person's seat and agents in the other seats, kept on the server.

The server holds the whole game (the :class:`~bm_env.engine.match.Match`, the agents, their
thoughts) and answers the person's moves; the agents play as soon as it is their turn, so
between two requests it is always the person's turn or the game is over. A game is a deal
or a match of any preset at any player count. It is saved as its game record
(:mod:`bm_env.engine.record`, what ``bm-replay`` reads) plus what the record does not hold
(the setup and the state of the dealing generator), and :meth:`WebGame.restore` rebuilds it
from that: the record is replayed through the engine, checked, and the game carries on.

Agents are seeded from the game's seed, their seat and the number of decisions taken when
they were made, so a game is reproducible from its seed; one rebuilt after a restart gets
agents seeded afresh at that point (an agent that plans over several decisions, as pimc
plans its pass, plans again).
"""

from __future__ import annotations

import json
import secrets
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from ..agents import AgentSpecError, CheckpointError, make_agent
from ..agents.shipped import shipped_spec
from ..engine.actions import action_str
from ..engine.cards import parse_card
from ..engine.deal import PASS, Deal
from ..engine.explain import why_illegal
from ..engine.match import Match
from ..engine.record import RecordError, deal_record, match_record, replay_deal
from ..engine.rules import PRESETS, Rules, RulesError, make_rules
from ..engine.thoughts import ThoughtLog, explain
from ..evaluation.play import agent_action

SAVE_FORMAT = "black-maria-web-game/1"
#: The fields of a new game's request, with what each is.
SETUP_FIELDS = {
    "rules": "a preset name",
    "players": "the player count",
    "options": "rule options over the preset's, by name",
    "match": "true for a whole match, false for one deal",
    "seat": "the person's seat",
    "opponents": "one agent spec for every other seat, or a list of one per other seat",
    "seed": "a whole number >= 0 seeding the deals and the agents",
}
_VERBS = {"pass": "pass", "play": "play", "charge": "choose", "discard": "discard", "moon": "choose"}


class SetupError(ValueError):
    """A new game's request that cannot be played, with what was wrong and what is allowed."""


class NotYourTurn(ValueError):
    """A move the game cannot take now: it is over, or the decision is not the person's."""


class IllegalMove(ValueError):
    """A move the rules do not allow here, with the rule that forbids it."""


class NoHint(ValueError):
    """No shipped agent plays these rules, so there is nobody to ask for a hint."""


def _whole(value: Any, name: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise SetupError(f"{name} must be a whole number >= {low}, got {json.dumps(value)}")
    return value


@dataclass(frozen=True)
class Setup:
    """What a game is: the rules, the person's seat, the agents, the seed."""

    preset: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)  # rule options over the preset's
    match: bool = False  # a whole match, else one deal
    seat: int = 0  # the person's seat
    opponents: tuple[str, ...] = ()  # agent spec by seat; "" at the person's seat
    seed: int = 0

    def rules(self) -> Rules:
        return make_rules(self.preset, self.players, **self.options)

    def to_dict(self) -> dict[str, Any]:
        return {"rules": self.preset, "players": self.players, "options": dict(self.options), "match": self.match,
                "seat": self.seat, "opponents": list(self.opponents), "seed": self.seed}

    @classmethod
    def from_request(cls, body: Mapping[str, Any]) -> Setup:
        """The setup a ``POST /api/games`` body asks for (every field optional); :class:`SetupError` otherwise."""
        unknown = sorted(set(body) - set(SETUP_FIELDS))
        if unknown:
            raise SetupError(f"unknown field(s) {unknown}; allowed: {', '.join(SETUP_FIELDS)}")
        preset = body.get("rules", "black_maria")
        if preset not in PRESETS:
            raise SetupError(f"rules {json.dumps(preset)} is not a preset; one of: {', '.join(PRESETS)}")
        counts = PRESETS[preset].player_counts
        players = body.get("players", PRESETS[preset].default_players)
        if isinstance(players, bool) or players not in counts:
            raise SetupError(f"{preset} is played by {list(counts)} players, not {json.dumps(players)}")
        options = body.get("options", {})
        if not isinstance(options, dict):
            raise SetupError(f"options must be an object of rule options, got {json.dumps(options)}")
        try:
            rules = make_rules(preset, players, **options)
        except (RulesError, TypeError) as e:
            raise SetupError(f"options: {e}") from None
        match = body.get("match", False)
        if not isinstance(match, bool):
            raise SetupError(f"match must be true or false, got {json.dumps(match)}")
        seat = _whole(body.get("seat", 0), "seat")
        if seat >= players:
            raise SetupError(f"seat must be a seat in 0..{players - 1}, got {seat}")
        seed = _whole(body["seed"], "seed") if "seed" in body else secrets.randbits(32)
        return cls(preset, players, dict(options), match, seat,
                   _opponents(body.get("opponents"), preset, rules, seat), seed)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Setup:
        return cls(d["rules"], d["players"], dict(d["options"]), d["match"], d["seat"], tuple(d["opponents"]),
                   d["seed"])


def shipped_for(preset: str, rules: Rules) -> str | None:
    """The shipped agent's spec for ``rules`` when they are the preset's own (a network plays the rules
    it was trained on), else None."""
    if rules != make_rules(preset, rules.num_players):
        return None
    return shipped_spec(preset, rules.num_players)


def _opponents(given: Any, preset: str, rules: Rules, seat: int) -> tuple[str, ...]:
    """The agent spec of every seat ("" at the person's): the shipped agent where one plays these rules,
    else heuristic, unless given."""
    n = rules.num_players
    others = [s for s in range(n) if s != seat]
    if given is None:
        given = shipped_for(preset, rules) or "heuristic"
    if isinstance(given, str):
        given = [given] * len(others)
    if not isinstance(given, list) or len(given) != len(others) or not all(isinstance(g, str) for g in given):
        raise SetupError(f"opponents must be one agent spec or a list of {len(others)} (one per other seat), "
                         f"got {json.dumps(given)}")
    specs = [""] * n
    for s, spec in zip(others, given):
        specs[s] = spec.strip()
    return tuple(specs)


def _agent_seed(seed: int, seat: int, decisions: int) -> int:
    return int(np.random.SeedSequence([seed, seat, decisions]).generate_state(1)[0])


class WebGame:
    """A game on the server. Build one with :meth:`start` or :meth:`restore`."""

    def __init__(self, setup: Setup, match: Match, thoughts: ThoughtLog, steps: list[list[tuple[str, int, int]]]):
        self.setup = setup
        self.rules = match.rules
        self.match = match
        self.thoughts = thoughts
        #: Per deal, every decision taken: (phase, seat, action). The view reads it to place the thoughts.
        self.steps = steps
        self.agents = self._make_agents(sum(map(len, steps)))
        self._hint_agent = None

    def _make_agents(self, decisions: int) -> dict[int, Any]:
        try:
            return {s: make_agent(spec, self.rules, _agent_seed(self.setup.seed, s, decisions))
                    for s, spec in enumerate(self.setup.opponents) if s != self.setup.seat}
        except (AgentSpecError, CheckpointError) as e:
            raise SetupError(f"opponents: {e}") from None

    @classmethod
    def start(cls, setup: Setup, hands: Sequence[Sequence[int]] | None = None) -> WebGame:
        """A new game, the agents played up to the person's first decision. ``hands`` (card ids by deal
        position) gives the first deal instead of dealing it, as a given deal in the environment's reset."""
        rules = setup.rules()
        match = Match(rules, np.random.default_rng(setup.seed), deal_first=hands is None)
        if hands is not None:
            try:
                match.start_deal(hands=hands)
            except (ValueError, RulesError) as e:
                raise SetupError(f"hands: {e}") from None
        game = cls(setup, match, ThoughtLog(), [[]])
        game.play_agents()
        return game

    # ------------------------------------------------------------------ the state

    @property
    def deals(self) -> list[Deal]:
        """Every deal of the game so far, in order, the one in progress last."""
        deals = list(self.match.completed)
        if not deals or deals[-1] is not self.match.deal:
            deals.append(self.match.deal)
        return deals

    @property
    def over(self) -> bool:
        return self.match.is_over or (not self.setup.match and bool(self.match.completed))

    @property
    def your_turn(self) -> bool:
        return not self.over and self.match.deal.current_seat == self.setup.seat

    @property
    def hint_spec(self) -> str | None:
        return shipped_for(self.setup.preset, self.rules)

    # ------------------------------------------------------------------ moves

    def move(self, actions: Sequence[int]) -> None:
        """The person's action (several cards: a pass), then the agents' answers; nothing changes on error."""
        if self.over:
            raise NotYourTurn("the game is over; its record can be downloaded, or start a new game")
        deal = self.match.deal
        if deal.current_seat != self.setup.seat:
            raise NotYourTurn(f"it is player_{deal.current_seat}'s turn, not yours")
        if len(actions) > 1 and deal.phase != PASS:
            raise IllegalMove(f"several cards are a pass, and this is the {deal.phase} phase: give one card")
        if deal.phase == PASS and len(actions) > 1:
            need = deal.pass_count - len(deal.pass_picks[deal.to_act])
            if len(actions) != need:
                raise IllegalMove(f"pass {need} card(s) now, got {len(actions)}")
            held = Counter(deal.hand_cards(deal.to_act))
            twice = [action_str(c) for c, k in Counter(actions).items() if k > held[c] and c in held]
            if twice:
                raise IllegalMove(f"you may not pass {' '.join(twice)} twice: you hold it once")
        legal = deal.legal
        for a in actions:
            if not legal >> a & 1:
                raise IllegalMove(f"you may not {_VERBS[deal.phase]} {action_str(a)}: {why_illegal(deal, a)}")
        for a in actions:
            self._apply(a)
        self.play_agents()

    def play_agents(self) -> None:
        """Let the agents act until it is the person's turn or the game is over."""
        while not self.over:
            deal = self.match.deal
            seat = deal.current_seat
            if seat == self.setup.seat:
                return
            self._apply(agent_action(self.agents[seat], deal, self.match.totals, self.match.deals_played))

    def _apply(self, action: int) -> None:
        deal = self.match.deal
        self.thoughts.note(deal, self.agents.get(deal.current_seat))  # None at the person's seat
        self.steps[-1].append((deal.phase, deal.current_seat, action))
        deal.step(action)
        if deal.is_over:
            self.match.finish_deal()
            if self.setup.match and not self.match.is_over:
                self.match.start_deal()
                self.steps.append([])

    def hint(self) -> dict[str, Any]:
        """What the shipped agent would play in the person's place, with its numbers for every legal action."""
        spec = self.hint_spec
        if spec is None:
            raise NoHint(f"no shipped agent plays {self.setup.preset} with {self.setup.players} players as "
                         f"set here, so there is no hint")
        if not self.your_turn:
            raise NotYourTurn("a hint is for your own decision, and it is not your turn")
        if self._hint_agent is None:
            self._hint_agent = make_agent(spec, self.rules, seed=0)
        deal = self.match.deal
        action = agent_action(self._hint_agent, deal, self.match.totals, self.match.deals_played)
        thought = explain(self._hint_agent)
        out: dict[str, Any] = {"agent": "shipped", "action": action_str(action)}
        if thought is not None:
            ranked = sorted(thought.values.items(), key=lambda kv: (-kv[1], kv[0]))
            out["kind"] = thought.kind
            out["values"] = {action_str(a): round(float(v), 4) for a, v in ranked}
        return out

    # ------------------------------------------------------------------ saving and rebuilding

    def record(self) -> dict[str, Any]:
        """The game record: a match record for a match, a deal record for one deal (with the agents' thoughts)."""
        if self.setup.match:
            return match_record(self.match, self.thoughts)
        return deal_record(self.match.deal, self.thoughts)

    def saved(self) -> dict[str, Any]:
        """Everything :meth:`restore` needs: the setup, the dealing generator's state and the record."""
        return {"format": SAVE_FORMAT, "setup": self.setup.to_dict(), "rng": self.match.rng.bit_generator.state,
                "record": self.record()}

    @classmethod
    def restore(cls, saved: Mapping[str, Any]) -> WebGame:
        """The game of :meth:`saved`, its record replayed and checked; :class:`RecordError` when it does not rebuild."""
        if not isinstance(saved, Mapping) or saved.get("format") != SAVE_FORMAT:
            raise RecordError(f"not a saved web game (format {SAVE_FORMAT!r})")
        try:
            setup = Setup.from_dict(saved["setup"])
            rules = setup.rules()
            rng = np.random.Generator(getattr(np.random, saved["rng"]["bit_generator"])())
            rng.bit_generator.state = saved["rng"]
            rec = saved["record"]
            deal_recs = rec["deals"] if setup.match else [rec]
            if not deal_recs:
                raise RecordError("saved game: its record holds no deal")
            match = Match(rules, rng, rec["first_dealer"] if setup.match else rec["dealer"], deal_first=False)
            thoughts = ThoughtLog()
            steps: list[list[tuple[str, int, int]]] = []
            for drec in deal_recs:
                actions: list[int] = []
                replay_deal(drec, lambda _deal, a: actions.append(a))
                deal = match.start_deal([[parse_card(c) for c in h] for h in drec["hands"]], drec["dealer"],
                                        drec["pass_direction"], [parse_card(c) for c in drec.get("kitty", [])])
                steps.append([])
                for a in actions:
                    steps[-1].append((deal.phase, deal.current_seat, a))
                    deal.step(a)
                thoughts.resume(deal, len(actions), drec.get("thoughts", []))
                if deal.is_over:
                    match.finish_deal()
        except RecordError as e:
            raise RecordError(f"saved game: {e}") from None
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise RecordError(f"saved game: {type(e).__name__}: {e}") from None
        game = cls(setup, match, thoughts, steps)
        if json.loads(json.dumps(game.record())) != rec:
            raise RecordError("saved game: its record does not rebuild to the same game")
        return game
