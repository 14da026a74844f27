"""The PettingZoo AEC environment: a thin adapter that steps the :class:`~bm_env.engine.match.Match` engine.

Agents are ``player_0`` .. ``player_{n-1}`` (match seats, clockwise). ``agent_selection``
follows the engine's decision order: every player's pass picks (eldest hand first, one
card per decision), then the tricks. Observations are
``{"observation": int8 vector, "action_mask": int8 vector}``; the vector is exactly
``observation.encode(information_state(...))`` of the observing seat, kept up to date in
place by :class:`~bm_env.env.tracker.ObservationTracker` (and, for rules with the extension
options, :class:`~bm_env.env.feature_tracker.FeatureTracker`): no decision of any preset
calls the reference encoder. The mask holds the legal actions of the acting player (the
extra decision ids of :mod:`bm_env.engine.actions` included) and is all zeros for everyone else.

Episodes: ``episode="deal"`` (default) is one deal of a fresh match; across resets the
dealer moves clockwise and the pass direction follows the rules' cycle, as deal ``i`` of a
long match would. ``episode="match"`` is a whole match with rewards after every deal.
In a tie-break deal among some players (Black Maria's rule), the other players stay in
``agents`` but are never selected and get reward 0 for that deal; their observation shows
the deal as a spectator sees it.

Rewards come at the end of each deal from :func:`bm_env.env.rewards.deal_rewards`. At the end
of a deal ``infos[agent]`` holds ``deal_score``, ``match_score`` and ``deals_played`` (and
``winners`` once the match is decided) until the next step; nothing else, and nothing hidden.

:meth:`BlackMariaEnv.state` is the perfect-information global state (every hand) for
centralised critics; it is never part of :meth:`BlackMariaEnv.observe`. ``BlackMariaEnv.match`` is
the engine itself (perfect information, for records and tests, never for agents).
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..engine import checks
from ..engine.cards import NUM_CARDS, NUM_RANKS, SUIT_MASKS, card_str, mask_of, parse_card
from ..engine.deal import DONE, ILLEGAL_MODES, PASS, pass_direction_for
from ..engine.infostate import InfoState, information_state
from ..engine.match import Match
from ..engine.rules import OPTION_NAMES, Rules, make_rules
from .feature_tracker import tracker_for
from .observation import LAYOUT_VERSION, size_for
from .render import render_table
from .rewards import REWARD_MODES, deal_rewards

EPISODES = ("deal", "match")
RENDER_MODES = ("human", "ansi", "rgb_array")
ENV_KWARGS = ("rules", "num_players", "episode", "reward", "reward_normalise", "illegal_action",
              "render_mode", "render_seat", "render_reveal", "strict_options")
#: The keys :meth:`BlackMariaEnv.reset` reads from ``options``; any other is warned about or refused.
RESET_OPTIONS = ("hands", "dealer", "pass_direction", "rotate", "kitty")
#: One int8 row per suit with ones on that suit's cards: a hand row times it keeps that suit.
_SUIT_ROWS = tuple(np.array([c // NUM_RANKS == s for c in range(NUM_CARDS)], dtype=np.int8) for s in range(4))
#: One int8 row per suit with ones on every other suit's cards: a hand row times it drops that suit.
_OTHER_SUITS_ROWS = tuple(1 - row for row in _SUIT_ROWS)


_HAND_FORMS = "a bit mask, card ids or card strings such as ['QS', '10h']"


def _card_ids(name: str, cards: Any, forms: str = _HAND_FORMS) -> list[int]:
    """Cards given as card ids, card strings or one string of cards, as card ids; ValueError naming ``name``."""
    if isinstance(cards, str):
        cards = cards.split()
    forms = f"{name} must be {forms}"
    if not checks.is_sequence(cards):
        raise ValueError(f"{forms}, got {checks.shown(cards)}")
    try:
        return [parse_card(c) if isinstance(c, str) else checks.card_id("each card", c) for c in cards]
    except ValueError as e:
        raise ValueError(f"{forms}: {e}") from None


def _read_hand(hand: Any, seat: int, copies: int = 1) -> int | list[int]:
    """A hand given as a bit mask, card ids, card strings or one string of cards, as a mask; as a
    list of card ids where a hand may hold ``copies`` > 1 of a card (two decks)."""
    name = f"options['hands'][{seat}]"
    if checks.is_whole(hand):
        return checks.card_mask(name, hand)
    ids = _card_ids(name, hand)
    mask = mask_of(ids)
    if copies > 1:
        return ids
    if mask.bit_count() != len(ids):
        twice = sorted({c for c in ids if ids.count(c) > 1})
        raise ValueError(f"options['hands'][{seat}] holds {' '.join(card_str(c) for c in twice)} more than once; "
                         "with one deck a card is dealt once")
    return mask


def _checked_rules(rules: str | Rules, num_players: int | None, rule_overrides: dict[str, Any]) -> Rules:
    """The env's rules, refusing a keyword that is neither an env argument nor a rules option."""
    unknown = sorted(k for k in rule_overrides if k not in OPTION_NAMES)
    if unknown:
        raise ValueError(
            f"unknown keyword argument(s) {unknown}; allowed: {list(ENV_KWARGS)} "
            f"and the rules options {list(OPTION_NAMES)}"
        )
    if not isinstance(rules, (str, Rules)):
        raise ValueError(f"rules must be a preset name or a Rules object, got {type(rules).__name__}")
    return make_rules(rules, num_players, **rule_overrides)


def _check_env_options(episode, reward, reward_normalise, illegal_action, render_mode, render_seat,
                       render_reveal, n: int) -> None:
    """Refuse an env argument outside its allowed values, naming it and them (:mod:`bm_env.engine.checks`)."""
    checks.choice("episode", episode, EPISODES)
    checks.choice("reward", reward, REWARD_MODES)
    checks.choice("illegal_action", illegal_action, ILLEGAL_MODES)
    if render_mode is not None:
        checks.choice("render_mode", render_mode, RENDER_MODES)
    checks.flag("reward_normalise", reward_normalise)
    checks.seat("render_seat", render_seat, n)
    checks.flag("render_reveal", render_reveal)


def _not_reset(call: str) -> RuntimeError:
    return RuntimeError(f"call reset() before {call}: the environment has no deal yet")


class BlackMariaEnv(AECEnv):
    """Black Maria and the Hearts family as a PettingZoo AEC environment (see the module docstring)."""

    # render_fps: the frame rate video recorders use for rgb_array frames (one decision a frame).
    metadata = {"name": "black_maria_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": False,
                "render_fps": 2}

    def __init__(
        self,
        rules: str | Rules = "black_maria",
        num_players: int | None = None,
        episode: str = "deal",
        reward: str = "score",
        reward_normalise: bool = False,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        render_seat: int = 0,
        render_reveal: bool = False,
        strict_options: bool = False,
        **rule_overrides: Any,
    ) -> None:
        super().__init__()
        self.rules = _checked_rules(rules, num_players, rule_overrides)
        n = self.rules.num_players
        _check_env_options(episode, reward, reward_normalise, illegal_action, render_mode, render_seat,
                           render_reveal, n)
        self.episode = episode
        self.reward_mode = reward
        self.reward_normalise = bool(reward_normalise)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.render_seat = int(render_seat)
        self.render_reveal = bool(render_reveal)
        self.strict_options = checks.flag("strict_options", strict_options)

        self.possible_agents = [f"player_{s}" for s in range(n)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        self._make_spaces()
        self._tracker = tracker_for(self.rules)
        self._rng: np.random.Generator | None = None
        self._deal = None  # until the first reset: every call that needs a deal refuses, naming reset()
        self._over = False
        self._episodes = 0
        self._first_dealer = 0
        self.layout_version = LAYOUT_VERSION

    def _make_spaces(self) -> None:
        """Every agent's observation and action space, and the state() space."""
        n = self.rules.num_players
        num_actions = self.rules.num_actions
        obs_space = spaces.Dict({
            "observation": spaces.Box(-128, 127, (size_for(self.rules),), np.int8),
            "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self.state_space = spaces.Box(-128, 127, (2 * n * NUM_CARDS + n + size_for(self.rules),), np.int8)
        # The mask's cells after the 52 cards: the extra decisions (bm_env.engine.actions) these rules
        # use, all 0 on a card decision; None where the rules have none (observe tests it each time).
        self._no_extras = np.zeros(num_actions - NUM_CARDS, dtype=np.int8) if num_actions > NUM_CARDS else None
        self._num_actions = num_actions

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space:
        """``agent``'s observation space: a Dict of the int8 ``observation`` vector and the 0/1 ``action_mask``
        (the same for every agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``agent``'s action space: ``Discrete(num_actions)``, the card ids 0..51 and the rules' extra
        decisions after them (:mod:`bm_env.engine.actions`)."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode. ``options`` may give the deal to play (see :data:`RESET_OPTIONS`).

        ``hands``: one hand per seat (bit mask, card ids, or card strings); ``dealer``: the
        dealer's seat; ``pass_direction``: one of the rules' pass cycle; ``rotate``: shift the
        given hands and dealer ``rotate`` seats to the left (clockwise), so the same deal can be
        replayed with every seat in every chair (duplicate evaluation). Given hands pass in
        the direction of a match's first deal unless ``pass_direction`` says otherwise; ``kitty``: the
        cards left over, with given hands, where the rules have a kitty. An unknown key is
        ignored with a ``UserWarning`` naming it and the known ones (a misspelt ``"hand"`` must
        not deal at random unnoticed; PettingZoo's ``api_test`` sends a made-up key), and
        refused with ``ValueError`` when the env was made with ``strict_options=True``.
        """
        hands = dealer = direction = None
        kitty: tuple[int, ...] = ()
        if options is not None:  # refuse bad options before changing anything
            hands, dealer, direction, kitty = self._deal_options(options)
        if seed is not None and not checks.is_whole(seed) or checks.is_whole(seed) and seed < 0:
            raise ValueError(f"seed must be a whole number of at least 0, or None; got {checks.shown(seed)}")
        # The generator and the episode count change only once the new deal stands: hands that
        # do not make the deck are refused by the deal itself, and leave the environment as it was.
        rng, episodes, first_dealer = self._rng, self._episodes, self._first_dealer
        drawn_from = rng.bit_generator.state if rng is not None else None
        if seed is not None or rng is None:
            rng = np.random.default_rng(seed)
            episodes = 0
            first_dealer = int(rng.integers(self.rules.num_players))
        n = self.rules.num_players
        try:
            if self.episode == "deal":
                first = dealer if dealer is not None else (first_dealer + episodes) % n
                match = Match(self.rules, rng, first, self.illegal_action, deal_first=False)
                # A given deal passes like a match's first deal unless told otherwise, so replays agree.
                if direction is None and hands is None and self.rules.pass_order == "cycle":
                    direction = pass_direction_for(self.rules, episodes, None)
            else:
                match = Match(self.rules, rng, dealer, self.illegal_action, deal_first=False)
            match.start_deal(hands, None, direction, kitty)
        except ValueError:
            if rng is self._rng and drawn_from is not None:
                rng.bit_generator.state = drawn_from
            raise
        self._rng, self._episodes, self._first_dealer = rng, episodes + 1, first_dealer
        self.match = match
        self._deal = match.deal
        self._over = False
        self._dirty = False
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._begin_deal()

    def _begin_deal(self) -> None:
        """A deal has just started: the observations show it, its first player is selected."""
        deal = self._deal
        # The agent at each of the deal's positions, so that a step names the next player with one read.
        self._agent_at = tuple(self.possible_agents[s] for s in deal.seats)
        self._tracker.start(deal, self.match.totals, self.match.deals_played)
        self.agent_selection = self._agent_at[deal.to_act]

    def _deal_options(self, options: Any):
        """``(hands, dealer, direction, kitty)`` read from reset's options, or ValueError."""
        if not isinstance(options, Mapping):
            raise ValueError(f"options must be a dict of reset options {list(RESET_OPTIONS)} or None, "
                             f"got {checks.shown(options)}")
        unknown = sorted(map(str, (k for k in options if k not in RESET_OPTIONS)))
        if unknown:
            message = f"unknown reset option(s) {unknown}; known options: {list(RESET_OPTIONS)}"
            if self.strict_options:
                raise ValueError(message)
            warnings.warn(f"{message}; ignored (strict_options=True refuses them)", UserWarning, stacklevel=3)
        n = self.rules.num_players
        rotate = checks.whole("options['rotate']", options.get("rotate", 0), what="a whole number (seats to shift left)")
        if rotate and "hands" not in options and "dealer" not in options:
            raise ValueError("options['rotate'] shifts the given hands and dealer; give options['hands'] and "
                             "options['dealer'] with it (a random deal has nothing to rotate)")
        dealer = options.get("dealer")
        if dealer is not None:
            dealer = (checks.seat("options['dealer']", dealer, n) + rotate) % n
        hands = options.get("hands")
        if hands is not None:
            if not checks.is_sequence(hands) or len(hands) != n:
                raise ValueError(f"options['hands'] must be a list of one hand per seat ({n} hands), "
                                 f"got {checks.shown(hands)}")
            copies = 2 if self._tracker.holds_copies else 1
            given = [_read_hand(h, s, copies) for s, h in enumerate(hands)]
            hands = [given[(s - rotate) % n] for s in range(n)]
            if dealer is None:
                raise ValueError("options['hands'] needs options['dealer'] too: who dealt decides who leads")
        direction = options.get("pass_direction")
        if direction is not None:
            direction = checks.choice("options['pass_direction']", direction, self.rules.pass_cycle)
        if "kitty" in options and hands is None:
            raise ValueError("options['kitty'] goes with options['hands']: a deal dealt at random deals its own kitty")
        kitty = tuple(_card_ids("options['kitty']", options.get("kitty", ()), "card ids or card strings such as ['QS']"))
        return hands, dealer, direction, kitty

    # ------------------------------------------------------------------ step

    def step(self, action: int) -> None:
        """Take ``action`` for ``agent_selection`` and select the next agent to act.

        An illegal action raises :class:`~bm_env.IllegalActionError` and changes nothing
        (``illegal_action="raise"``), or ends the deal with the renege penalty. Rewards and the
        deal's ``infos`` come when a deal ends; once the episode is over, each agent steps None
        to leave it (PettingZoo's dead steps).
        """
        if self._over:
            self._was_dead_step(action)
            return
        deal = self._deal
        if deal is None:
            raise _not_reset("step()")
        if action is None:
            raise ValueError(
                f"{self.agent_selection} must act: action None is only for agents whose episode has ended"
            )
        p = deal.to_act
        phase = deal.phase
        led = deal.led_suit
        broken = deal.hearts_broken
        deal.step(action)  # raises IllegalActionError, leaving everything unchanged, in "raise" mode
        if self._dirty:
            self._clear_deal_end()
        self._cumulative_rewards[self.agent_selection] = 0
        if deal.renege is None:
            self._tracker.stepped(deal, p, phase, int(action), led, broken)
        if deal.phase == DONE:
            self._end_deal()
        else:
            self.agent_selection = self._agent_at[deal.to_act]
        if self.render_mode == "human":
            self.render()

    def _clear_deal_end(self) -> None:
        for a in self.rewards:
            self.rewards[a] = 0
            self.infos[a] = {}
        self._dirty = False

    def _end_deal(self) -> None:
        deal = self._deal
        match = self.match
        match.finish_deal()
        names = self.possible_agents
        scores = [0] * self.rules.num_players
        rewards = deal_rewards(self.rules, deal.scores, self.reward_mode, self.reward_normalise)
        for pos, s in enumerate(deal.seats):
            scores[s] = deal.scores[pos]
            self.rewards[names[s]] = rewards[pos]
        for s, a in enumerate(names):
            self._cumulative_rewards[a] += self.rewards[a]
            info = {"deal_score": scores[s], "match_score": match.totals[s], "deals_played": match.deals_played}
            if match.is_over:
                info["winners"] = [names[w] for w in match.winners]
            self.infos[a] = info
        self._dirty = True
        if self.episode == "deal" or match.is_over:
            self._over = True
            self._tracker.deal_over(deal)
            self._tracker.match_numbers(match.totals, match.deals_played)
            for a in names:
                self.terminations[a] = True
            return
        self._deal = match.start_deal()
        self._begin_deal()

    # ------------------------------------------------------------------ observing

    def last(self, observe: bool = True):
        """``(observation, reward, termination, truncation, info)`` of ``agent_selection``, the reward
        being what it has gathered since it last acted; the observation is None when ``observe`` is False.
        Raises RuntimeError once every agent has left the episode."""
        if self._deal is None:
            raise _not_reset("last()")
        agent = self.agent_selection
        try:
            reward = self._cumulative_rewards[agent]
        except KeyError:
            raise RuntimeError(
                "the episode is over and every agent has stepped None and left it, so there is no agent to "
                "report on; call reset() to start the next episode"
            ) from None
        return (self.observe(agent) if observe else None, reward,
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def _seat(self, agent: str) -> int:
        try:
            return self._seat_of[agent]
        except (KeyError, TypeError):
            raise ValueError(f"unknown agent {checks.shown(agent)}; the agents are {self.possible_agents}") from None

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s view: its observation vector and its action mask (all zeros unless it is to act)."""
        try:  # inline rather than self._seat(agent): observe() runs at every decision
            seat = self._seat_of[agent]
        except (KeyError, TypeError):
            seat = self._seat(agent)  # raises, naming the agents
        deal = self._deal
        if deal is None:
            raise _not_reset("observe()")
        tracker = self._tracker
        row = tracker.rows[seat].copy()
        if self._over or agent != self.agent_selection:  # only the player to act has legal actions
            return {"observation": row, "action_mask": np.zeros(self._num_actions, dtype=np.int8)}
        legal = deal.legal
        if legal >> NUM_CARDS or tracker.holds_copies:
            # an extra decision, or a hand plane that counts copies
            return {"observation": row, "action_mask": deal.legal_mask()}
        # The legal cards are most often the whole hand, one suit of it (following suit) or the
        # hand less one suit (no heart lead yet), and the row already holds the hand: copying or
        # masking that plane is several times cheaper than unpacking the bit mask. (Written out
        # here, not in a helper: this runs at every decision.)
        hand = deal.hand_of(deal.to_act)
        plane = tracker.hand_planes[seat]
        if legal == hand:
            mask = plane.copy()
        else:
            suit = ((legal & -legal).bit_length() - 1) // NUM_RANKS  # of the lowest legal card
            if legal == hand & SUIT_MASKS[suit]:
                mask = plane * _SUIT_ROWS[suit]
            else:
                left_out = hand ^ legal
                dropped = ((left_out & -left_out).bit_length() - 1) // NUM_RANKS  # of the lowest card left out
                if legal != hand & ~SUIT_MASKS[dropped]:
                    return {"observation": row, "action_mask": deal.legal_mask()}
                mask = plane * _OTHER_SUITS_ROWS[dropped]
        if self._no_extras is not None:
            mask = np.concatenate((mask, self._no_extras))
        return {"observation": row, "action_mask": mask}

    def information_state(self, agent: str) -> InfoState:
        """What ``agent`` may know now, as the engine's :class:`~bm_env.engine.infostate.InfoState`."""
        return information_state(self._dealt("information_state()"), self._seat(agent), self.match.totals,
                                 self.match.deals_played)

    def _dealt(self, call: str):
        """The deal in progress; before the first reset, a RuntimeError saying so."""
        if self._deal is None:
            raise _not_reset(call)
        return self._deal

    def state(self) -> np.ndarray:
        """Perfect-information global state for centralised critics; never part of :meth:`observe`.

        Layout (int8): every seat's hand (n × 52, absolute seat order), the cards each seat
        has picked to pass and not yet passed (n × 52), the acting seat one-hot (n; all zero
        once the episode is over), then the observation vector of ``player_0``.
        """
        n = self.rules.num_players
        deal = self._dealt("state()")
        out = np.zeros(self.state_space.shape, dtype=np.int8)
        picks_pending = deal.phase == PASS
        for pos, s in enumerate(deal.seats):
            for c in deal.hand_cards(pos):
                out[s * NUM_CARDS + c] += 1
            if picks_pending:
                for c in deal.pass_picks[pos]:
                    out[(n + s) * NUM_CARDS + c] = 1
        if not self._over:
            out[2 * n * NUM_CARDS + deal.seats[deal.to_act]] = 1
        out[2 * n * NUM_CARDS + n:] = self._tracker.obs[0]
        return out

    # ------------------------------------------------------------------ rendering

    def render(self) -> str | np.ndarray | None:
        """The table from ``render_seat``'s view; other hands only with ``render_reveal=True``.

        ``rgb_array`` returns the picture of :meth:`render_svg` as an ``H×W×3`` uint8 array.
        """
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'", stacklevel=2)
            return None
        if self.render_mode == "rgb_array":
            from ..pictures import svg_to_rgb

            return svg_to_rgb(self.render_svg(self.render_seat, self.render_reveal))
        text = self.render_text(self.render_seat, self.render_reveal)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def render_text(self, seat: int, reveal: bool = False) -> str:
        """The table as ``seat`` sees it; with ``reveal`` every hand is shown (for spectators and debugging)."""
        deal, seat, reveal = self._render_args("render_text()", seat, reveal)
        info = information_state(deal, seat, self.match.totals, self.match.deals_played)
        hands = None
        if reveal:
            hands = {s: tuple(deal.hand_cards(pos)) for pos, s in enumerate(deal.seats)}
        return render_table(info, hands)

    def render_svg(self, seat: int, reveal: bool = False) -> str:
        """The table as an SVG picture from ``seat``'s view; with ``reveal`` every hand is shown."""
        from ..pictures import revealed, table_svg

        deal, seat, reveal = self._render_args("render_svg()", seat, reveal)
        info = information_state(deal, seat, self.match.totals, self.match.deals_played)
        return table_svg(info, revealed(deal, self.rules.num_players) if reveal else None)

    def _render_args(self, call: str, seat: Any, reveal: Any) -> tuple:
        """``(deal, seat, reveal)`` for a render: a seat of the table and a flag, or ValueError."""
        return (self._dealt(call), checks.seat("seat", seat, self.rules.num_players),
                checks.flag("reveal", reveal))

    def close(self) -> None:
        """Nothing to release; defined so that render() has its close()."""
