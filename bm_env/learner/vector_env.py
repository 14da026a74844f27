"""One learning seat in each of N games of the vector engine, as a ``gymnasium.vector.VectorEnv``.

:class:`~bm_env.learner.single.SingleAgentEnv` shows one game at a time; this is the same face
for a batch: in every game one seat learns (a fixed seat, or one drawn per episode), and
:meth:`~bm_env.learner.BlackMariaVectorEnv.step` plays the learner's action in every game, then the other
seats' decisions (:mod:`bm_env.learner.opponents`) inside the step, over the games whose turn
is not yet the learner's, until every game waits for the learner again. So one step is one
decision of the learner in each game, and its reward is what the learner earned since its
previous decision (the deal's reward when the deal ended in between: :mod:`bm_env.env.rewards`).

An episode is one deal (``episode="deal"``, as the environment's default) or a whole match
(``episode="match"``: the match totals kept here and shown in every observation, a reward
after every deal). When it ends, the step reports ``terminated`` and the game starts again
at once (Gymnasium's ``AutoresetMode.SAME_STEP``): the observation returned is the learner's
first decision of the new episode, and ``info["final_obs"]`` holds the last observation of
the finished one (the learner's view at the end, exactly what ``SingleAgentEnv`` returns there).
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

try:
    from gymnasium.vector import AutoresetMode

    _METADATA = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}
except ImportError:  # gymnasium before 1.1 names no autoreset modes; its SyncVectorEnv resets in the same step too
    _METADATA = {"render_modes": []}

from ..engine import checks
from ..engine.rules import Rules
from ..systems.match import match_would_end
from ..systems.teams import side_totals
from ..env.aec import EPISODES, _checked_rules
from ..env.observation import features, offsets
from ..env.rewards import REWARD_MODES
from ..vector.encoder import number_cells
from ..vector import make_engine
from ..vector.engine import MAX_BATCH
from .opponents import Opponent, make_opponent


class BlackMariaVectorEnv(gymnasium.vector.VectorEnv):
    """N games of the vector engine seen from one learning seat each; build it with :func:`make_vector_env`."""

    metadata = _METADATA

    def __init__(self, rules: Rules, num_envs: int, learner: int | str = 0, opponents: Any = None,
                 seed: int | None = None, reward: str = "score", reward_normalise: bool = False,
                 episode: str = "deal") -> None:
        n = rules.num_players
        # Every argument by the one rule for values (bm_env.engine.checks).
        checks.choice("episode", episode, EPISODES)
        if episode == "match":
            _check_match_rules(rules)
        num_envs = checks.whole("num_envs", num_envs, 1, MAX_BATCH)
        if not (isinstance(learner, str) and learner == "random"):
            if not checks.is_whole(learner) or not 0 <= learner < n:
                raise ValueError(f"learner must be a seat in 0..{n - 1} or 'random' (drawn per episode), "
                                 f"got {checks.shown(learner)}")
            learner = int(learner)
        checks.choice("reward", reward, REWARD_MODES)
        reward_normalise = checks.flag("reward_normalise", reward_normalise)
        if seed is not None and not checks.is_whole(seed) or checks.is_whole(seed) and seed < 0:
            raise ValueError(f"seed must be a whole number of at least 0, or None; got {checks.shown(seed)}")
        self.rules = rules
        self.num_envs = N = num_envs
        self.engine = make_engine(rules, N, reward=reward, normalise=reward_normalise, final_observations=True)
        self.learner_choice = learner
        self._read_opponents(opponents)
        L, A = self.engine.observation_size, rules.num_actions
        self.single_observation_space = spaces.Box(-128, 127, (L,), np.int8)
        self.single_action_space = spaces.Discrete(A)
        self.observation_space = batch_space(self.single_observation_space, N)
        self.action_space = batch_space(self.single_action_space, N)
        self.render_mode = None
        self.closed = False
        # The learning seat of every game: the engine keeps that seat's view of each deal's end.
        self.learner = np.full(N, 0 if learner == "random" else int(learner), dtype=np.int64)
        self.engine.final_observers = self.learner
        self._mask: np.ndarray | None = None
        self._actions = np.zeros(N, dtype=np.int64)  # the opponents' actions of a step, by game
        self._numbers = _MatchNumbers(rules)
        self.episode = episode
        self._totals = np.zeros((N, n), dtype=np.int64)  # episode="match": each game's match totals, by seat
        self._deals_played = np.zeros(N, dtype=np.int64)
        self._rng = np.random.default_rng(seed)  # the env's generator (gymnasium before 1.0 keeps none for vector envs)

    def _read_opponents(self, opponents: Any) -> None:
        """The batched players (one per distinct one given) and, for each other seat in seat order, its player."""
        n = self.rules.num_players
        if isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != n - 1:
                raise ValueError(f"opponents must hold one player per other seat ({n - 1}), got {len(opponents)}")
            given = list(opponents)
        else:
            given = [opponents] * (n - 1)
        players: list[Opponent] = []
        keys: list[Any] = []
        slots = []
        for g in given:
            key = g if isinstance(g, (str, type(None))) else id(g)  # a spec given twice is one batched player
            if key not in keys:
                keys.append(key)
                player = make_opponent(g, self.rules)
                player.bind(self.rules, self.num_envs)
                players.append(player)
            slots.append(keys.index(key))
        self.players = players
        self._slot_player = np.array(slots, dtype=np.int64)  # other seat k (in seat order) -> players index

    # ------------------------------------------------------------------ the VectorEnv API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Deal every game afresh; with ``seed``, the environment's generator (deals, learner seats, opponents'
        draws) is reseeded. Returns ``(obs [N, L] int8, info)``."""
        if seed is not None and not checks.is_whole(seed) or checks.is_whole(seed) and seed < 0:
            raise ValueError(f"seed must be one whole number of at least 0 for the whole batch, or None; "
                             f"got {checks.shown(seed)}")
        if options is not None and (not isinstance(options, dict) or options):
            raise ValueError(f"reset options are not taken by the vector env (every game is dealt at random), "
                             f"got {checks.shown(options)}")
        if seed is not None:
            self._rng = np.random.default_rng(int(seed))
        rng = self._rng
        self.engine.reset(seed=int(rng.integers(2**63)))
        self._totals[:], self._deals_played[:] = 0, 0
        everyone = np.arange(self.num_envs)
        for player in self.players:
            player.reset(rng)
        self._new_episodes(everyone)
        self._new_deals(everyone)
        rewards, terminated = np.zeros(self.num_envs, dtype=np.float32), np.zeros(self.num_envs, dtype=bool)
        self._play_others(rewards, terminated, {})  # the learner acts before any deal can end
        obs, self._mask = self._observe()
        return obs, self._info({})

    def step(self, actions):
        """The learner's action in every game, then the other seats' until each game is at the learner's turn.

        Returns ``(obs, rewards [N] float32, terminated [N], truncated [N] (never), info)``. An
        illegal action raises :class:`~bm_env.engine.deal.IllegalActionError` naming the game:
        take the actions from :meth:`action_masks` (or ``info["action_mask"]``).
        """
        if self._mask is None:
            raise RuntimeError("call reset() before step()")
        rewards, terminated = np.zeros(self.num_envs, dtype=np.float32), np.zeros(self.num_envs, dtype=bool)
        ends: dict[str, np.ndarray] = {}
        self._advance(np.asarray(actions), None, rewards, terminated, ends)
        self._play_others(rewards, terminated, ends)
        obs, self._mask = self._observe()
        return obs, rewards, terminated, np.zeros(self.num_envs, dtype=bool), self._info(ends)

    def close(self, **kwargs: Any) -> None:
        """Nothing to release: the games are arrays."""
        self.closed = True

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game's learner now, ``[N, A]`` int8 (what MaskablePPO asks for)."""
        if self._mask is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask.copy()

    # ------------------------------------------------------------------ stepping

    def _advance(self, actions: np.ndarray, active: np.ndarray | None, rewards: np.ndarray, terminated: np.ndarray,
                 ends: dict[str, np.ndarray]) -> None:
        """One engine decision in the ``active`` games (all: None); the learner's rewards of deals that end, and the
        ends of episodes (a deal, or a match once its last deal is scored)."""
        deal_rewards, done, scores = self.engine.advance(actions, active)
        if not done.any():
            return
        ended = np.flatnonzero(done)
        seat = self.learner[ended]
        rewards[ended] += deal_rewards[ended, seat]
        totals = self._totals[ended] + scores[ended]
        if self.rules.exact_reset is not None:
            hit, reset_to = self.rules.exact_reset
            totals = np.where(totals == hit, reset_to, totals)
        played = self._deals_played[ended] + 1
        over = np.ones(ended.size, dtype=bool) if self.episode == "deal" else self._matches_over(totals, played)
        if self.episode == "match":
            self._totals[ended], self._deals_played[ended] = totals, played
        finished = ended[over]
        if finished.size:
            if not ends:
                N, L = self.num_envs, self.engine.observation_size
                ends.update(ended=np.zeros(N, dtype=bool), final_obs=np.zeros((N, L), dtype=np.int8),
                            deal_score=np.zeros(N, dtype=np.int64))
            ends["ended"][finished] = True
            terminated[finished] = True
            ends["final_obs"][finished] = self._numbers.write(self.engine.final_obs[finished], seat[over],
                                                              totals[over], played[over])
            ends["deal_score"][finished] = scores[finished, seat[over]]
            if self.episode == "match":  # a new match: fresh totals, a dealer cut for, the pass cycle from its start
                self._totals[finished], self._deals_played[finished] = 0, 0
                self.engine.redeal(finished, self._rng.integers(self.rules.num_players, size=finished.size))
            self._new_episodes(finished)
        self._new_deals(ended)

    def _matches_over(self, totals: np.ndarray, played: np.ndarray) -> np.ndarray:
        """Whether each match is decided after a deal (:meth:`bm_env.engine.match.Match.finish_deal`'s rule, tie-break
        deals aside: rules that play them are refused for matches here)."""
        rules = self.rules
        better = np.min if rules.lower_wins else np.max
        out = np.zeros(len(totals), dtype=bool)
        for i, (t, k) in enumerate(zip(totals.tolist(), played.tolist())):
            if not match_would_end(rules, t, k):
                continue
            by_side = side_totals(rules, t)
            one_winner = by_side.count(better(by_side)) == 1
            floor_end = rules.match_floor is not None and min(t) <= rules.match_floor
            out[i] = one_winner or floor_end or rules.tie_break == "shared"  # all_players: play on
        return out

    def _new_episodes(self, games: np.ndarray) -> None:
        """Episodes have begun in ``games``: their learner seats, when drawn (per deal or per match)."""
        if self.learner_choice == "random":
            self.learner[games] = self._rng.integers(self.rules.num_players, size=games.size)

    def _new_deals(self, games: np.ndarray) -> None:
        """Deals have begun in ``games``: the pools draw their players."""
        for player in self.players:
            player.new_deals(games, self._rng)

    def _observe(self, games: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The engine's rows of the acting seats, with the match numbers of whole-match episodes."""
        obs, mask = self.engine.observe(games)
        if self.episode == "match":
            g = slice(None) if games is None else games
            self._numbers.write(obs, self.engine.to_act[g], self._totals[g], self._deals_played[g])
        return obs, mask

    def _play_others(self, rewards: np.ndarray, terminated: np.ndarray, ends: dict[str, np.ndarray]) -> None:
        """Step the games whose acting seat is not the learner's, with their players, until there are none.

        Every game reaches its learner's turn: a deal cannot end without the learner's cards."""
        engine, rng = self.engine, self._rng
        actions = self._actions
        while True:
            waiting = engine.to_act != self.learner
            games = np.flatnonzero(waiting)
            if games.size == 0:
                return
            if len(self.players) == 1:
                actions[games] = self._act(self.players[0], games, rng)
            else:
                seat = engine.to_act[games]
                who = self._slot_player[seat - (seat > self.learner[games])]
                for k, player in enumerate(self.players):
                    mine = games[who == k]
                    if mine.size:
                        actions[mine] = self._act(player, mine, rng)
            self._advance(actions, waiting, rewards, terminated, ends)

    def _act(self, player: Opponent, games: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        obs = mask = None
        if player.needs_observation:
            obs, mask = self._observe(games)
        return player.act(self.engine, games, obs, mask, rng)

    def _info(self, ends: dict[str, np.ndarray]) -> dict[str, Any]:
        """``action_mask`` and ``learner`` (the seat) of every game; after deals ended, ``final_obs`` and
        ``final_info`` (``deal_score``: the learner's score of the deal) with their ``_`` masks."""
        info: dict[str, Any] = {"action_mask": self._mask.copy(), "learner": self.learner.copy()}
        if ends:
            ended = ends["ended"]
            info.update(final_obs=ends["final_obs"], _final_obs=ended,
                        final_info={"deal_score": ends["deal_score"], "_deal_score": ended}, _final_info=ended)
        return info


class _MatchNumbers:
    """The match cells of observations as the environment writes them: the match totals (relative to the
    observer), the deals played, the deals left or the threshold's gap. The engine writes those of a fresh
    match; a deal's last observation shows the deal counted (its scores as the totals in a deal episode),
    and every observation of a whole-match episode shows the match so far."""

    def __init__(self, rules: Rules) -> None:
        o = offsets(rules.num_players, features(rules))
        self.rules = rules
        self.scores = np.arange(o["match_scores"].start, o["match_scores"].stop)
        self.deals_played = o["deals_played"].start
        self.left = o["deals_left"].start if rules.match_end == "deals" else None
        self.gap = o["threshold_gap"].start

    def write(self, rows: np.ndarray, observers: np.ndarray, totals: np.ndarray, played: np.ndarray) -> np.ndarray:
        """``rows`` ``[G, L]`` (changed in place, and returned) with match ``totals`` ``[G, n]`` (by seat) after
        ``played`` ``[G]`` deals, seen by ``observers``."""
        rules, n = self.rules, self.rules.num_players
        relative = np.take_along_axis(totals, (observers[:, None] + np.arange(n)) % n, axis=1)
        rows[:, self.scores] = _cells(relative)
        rows[:, self.deals_played:self.deals_played + 2] = _cells(played[:, None])
        if self.left is not None:
            rows[:, self.left:self.left + 2] = _cells(np.maximum(rules.match_deals - played, 0)[:, None])
        else:
            rows[:, self.gap:self.gap + 2] = _cells(rules.match_threshold - totals.max(axis=1, keepdims=True))
        return rows


def _check_match_rules(rules: Rules) -> None:
    """Refuse, for whole matches, the rules whose matches the engine cannot play: tie-break deals among some
    players, and a moon rule that reads the match totals."""
    if rules.tie_break == "tied_players":
        raise ValueError("episode='match' is not played here for rules whose tied matches end in tie-break deals "
                         "among the tied players (tie_break='tied_players': the engine plays every seat in every "
                         "deal); give tie_break='all_players' or 'shared', or use SingleAgentEnv(episode='match')")
    if rules.moon == "others_plus_unless_win":
        raise ValueError("episode='match' is not played here with moon='others_plus_unless_win' (the engine's deal "
                         "scores do not read the match totals); use SingleAgentEnv(episode='match')")


def _cells(values: np.ndarray) -> np.ndarray:
    """``[G, k]`` numbers as ``[G, 2k]`` observation cells (coarse, fine each: :func:`number_cells`)."""
    packed = number_cells(values.astype(np.int16))  # two int8 cells read as one little-endian int16
    return packed.astype("<i2").view(np.int8).reshape(len(values), -1)


def make_vector_env(rules: str | Rules = "black_maria", num_envs: int = 1024, learner: int | str = 0,
                    opponents: Any = None, seed: int | None = None, reward: str = "score",
                    reward_normalise: bool = False, episode: str = "deal", num_players: int | None = None,
                    **rules_options: Any) -> BlackMariaVectorEnv:
    """``num_envs`` games of ``rules`` (a preset name with ``num_players`` and rules options, or a ``Rules``) as a
    ``gymnasium.vector.VectorEnv``, the learner at seat ``learner`` (or ``"random"``: drawn per episode).

    ``opponents``: the other seats' player, or a list of one per other seat in seat order
    (:mod:`bm_env.learner.opponents`; default ``random``). ``reward``, ``reward_normalise``: the
    environment's reward modes. ``seed``: the environment's generator, from which the deals,
    the learner seats and the opponents' draws all come. ``episode``: ``"deal"`` or ``"match"``
    (whole matches, a reward after every deal; refused for rules with tie-break deals among
    some players or ``moon="others_plus_unless_win"``).
    """
    return BlackMariaVectorEnv(_checked_rules(rules, num_players, rules_options), num_envs, learner, opponents, seed,
                               reward, reward_normalise, episode)
