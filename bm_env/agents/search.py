"""A determinized search batched on the vector engine, with a policy network playing every seat.

For each decision of a batch, :class:`SearchAgent` draws ``worlds`` deals consistent with what
the seat knows (pimc's sampler, :func:`~bm_env.agents.pimc.sample_worlds`: its own hand, the
cards played, the voids shown, the cards it passed to a player who still holds them; with
``read_passes``, weighted by what the pass received says, :mod:`.pass_reading`; with ``belief``,
by a belief network's chances, :mod:`bm_env.agents.belief`), and plays each
legal card in each world to the deal's end: every (decision, world, card) is one game of one
:class:`~bm_env.vector.VectorEngine` batch, started at the position by
:meth:`~bm_env.vector.VectorEngine.load_positions`, and at every step the network chooses the
card of every seat with a choice to make in one forward pass (greedy, or drawn from its softmax
with ``playouts=sampled``). A playout stops as soon as the cards left carry no points
(:meth:`~bm_env.vector.VectorEngine.settled_scores`). A card's value is its mean result for the
seat over the worlds (the seat's deal score, negated where lower wins); the search keeps the
network's own card unless another beats it by ``override_z`` standard errors, paired over the
worlds (:func:`~bm_env.agents.pimc.card_to_play`, pimc's rule: 1 without a moon, 0 with one).

A world gives every seat the pass it made: this seat's own picks and the cards it received
(its passer's pass) as they were, and each other pass, which this seat never saw, drawn among
the cards its receiver held when play began, so that every player's observation in the world
is one a real deal could give. The vector engine plays a single deal outside a match, so the
networks in the playouts see a fresh match's totals, as in their training.

:meth:`SearchAgent.search` takes many decisions at once and returns each legal card's value
(:class:`Searched`: the soft targets of a trainer) and the card chosen; ``SearchAgent.act``
is the one-decision face that ``bm-eval``, ``bm-play`` and the env play. Passing is the
network's greedy pass. The classic rules only, at full tables (a tie-break deal among some
players is played by the network alone).
"""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np
import torch

from ..engine.deal import PASS
from ..engine.infostate import InfoState
from ..engine.rules import Rules
from ..engine.thoughts import Thought
from ..env import observation
from ..vector import VectorEngine, make_engine
from ..vector.popcount import bitwise_count
from .belief import draw_weights, load_belief
from .checkpoint import PolicyNet, load_checkpoint, masked_logits
from .pass_reading import affinities, original_hand, pass_marginals
from .pimc import card_to_play
from .playouts import heuristic_move
from .shipped import checkpoint_path
from .sparse_forward import SparseForward
from .worlds import concat, world_positions

PLAYOUT_MODES = ("greedy", "sampled")
#: The most worlds a decision may ask for (each world plays every legal card: a batch of up to 17 games).
MAX_WORLDS = 1024


@dataclass
class Searched:
    """What :meth:`SearchAgent.search` found for a batch of ``B`` decisions with ``A`` actions.

    ``values`` ``[B, A]``: each legal action's mean result for the seat over the worlds (its deal
    score, negated where lower wins; NaN for illegal actions, and for every action of a decision
    with one legal action, which is not searched); ``errors`` ``[B, A]``: the standard error of
    each mean; ``choices`` ``[B]``: the action played; ``guide`` ``[B]``: the network's greedy action.
    """

    values: np.ndarray
    errors: np.ndarray
    choices: np.ndarray
    guide: np.ndarray


class SearchAgent:
    """Batched determinized search: ``worlds`` worlds per decision, every card of each played out by the
    ``guide`` network at every seat, the network's card kept unless another beats it by ``override_z``
    standard errors."""

    needs_observation = True

    def __init__(self, guide: str | PolicyNet, rules: Rules, worlds: int = 8, override_z: float | None = None,
                 playouts: str = "greedy", read_passes: bool = False, seed: int | None = None,
                 belief: str | None = None) -> None:
        """``guide``: a shipped agent's name or a policy checkpoint's path, or a policy network of ``rules`` itself
        (a trainer's current policy: its weights are read afresh at each :meth:`search`, so it may train on).
        ``belief``: a shipped belief's name or a belief file's path (:mod:`bm_env.training.belief`) by which the
        worlds are drawn."""
        if rules.uses_extensions:
            raise ValueError(f"search plays the classic rules only; these rules use {list(rules.uses_extensions)}")
        if isinstance(worlds, bool) or not isinstance(worlds, int) or not 1 <= worlds <= MAX_WORLDS:
            raise ValueError(f"search: worlds must be a whole number in 1..{MAX_WORLDS}, got {worlds!r}")
        if override_z is not None and not 0 <= override_z < float("inf"):
            raise ValueError(f"search: override_z must be a finite number >= 0, got {override_z}")
        if playouts not in PLAYOUT_MODES:
            raise ValueError(f"search: playouts={playouts!r}; allowed: {list(PLAYOUT_MODES)}")
        if belief is not None and read_passes:
            raise ValueError("search: belief and read_passes both weight the worlds' draw; give one of them")
        self.rules = rules
        if isinstance(guide, str):
            self.path = checkpoint_path(guide)
            self.net, _ = load_checkpoint(self.path, rules)
        else:
            want = {"obs_size": observation.size_for(rules), "num_actions": rules.num_actions}
            if any(guide.arch[key] != value for key, value in want.items()):
                raise ValueError(f"search: the guide network reads {guide.arch['obs_size']} cells and scores "
                                 f"{guide.arch['num_actions']} actions; these rules need {want}")
            self.path, self.net, guide = None, guide, "network"
        self._forward = SparseForward(self.net)
        self.belief = None if belief is None else load_belief(belief, rules)
        self.worlds, self.playouts, self.read_passes = worlds, playouts, read_passes
        self.override_z = (1.0 if rules.moon == "off" else 0.0) if override_z is None else override_z
        self.sign = -1.0 if rules.lower_wins else 1.0
        z = "auto" if override_z is None else f"{override_z:g}"
        read = ",read_passes=true" if read_passes else "" if belief is None else f",belief={belief}"
        self.name = f"search(guide={guide},worlds={worlds},override_z={z},playouts={playouts}{read})"
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the world draws with ``seed`` and forget the last search and the pass reading."""
        self.rng = np.random.default_rng(seed)
        self._last: Thought | None = None
        self._affinity: tuple[tuple, dict | None] = ((), None)

    def explain(self) -> Thought | None:
        """The mean playout value of each legal card at the last ``act``; None where it did not search."""
        return self._last

    def act(self, observation: np.ndarray, mask: np.ndarray, info: InfoState) -> int:
        """The searched action for one decision (:meth:`search` on a batch of one); reads both ``observation``
        (the guide network's input) and ``info`` (the worlds are drawn from it)."""
        if observation is None or info is None:
            raise ValueError("search reads the observation and the information state (it declares needs_observation)")
        found = self.search([info], np.asarray(observation)[None], np.asarray(mask)[None])
        row = found.values[0]
        legal = np.flatnonzero(~np.isnan(row))
        self._last = Thought("value", {int(a): float(row[a]) for a in legal}) if legal.size else None
        return int(found.choices[0])

    def search(self, infos: list[InfoState], observations: np.ndarray, masks: np.ndarray) -> Searched:
        """Search a batch of decisions: ``infos[i]`` the view of the seat to act, ``observations[i]`` and
        ``masks[i]`` its observation and legal mask. Passes, single legal actions and tie-break deals are
        not searched: the network's greedy choice, values NaN."""
        masks = np.asarray(masks)
        B, A = masks.shape
        if len(infos) != B or len(observations) != B:
            raise ValueError(f"search: {len(infos)} information states, {len(observations)} observations and "
                             f"{B} masks; one each per decision")
        if self.path is None:  # a network object may train between searches (expert iteration); a file does not
            self._forward.refresh()
        guide = self.greedy(np.asarray(observations), masks)
        values = np.full((B, A), np.nan)
        errors = np.full((B, A), np.nan)
        choices = guide.copy()
        todo = [i for i in range(B) if infos[i].phase != PASS and masks[i].sum() > 1
                and len(infos[i].seats) == self.rules.num_players]
        if not todo:
            return Searched(values, errors, choices, guide)
        legal = {i: np.flatnonzero(masks[i]) for i in todo}
        results = self._play_out([infos[i] for i in todo], [legal[i] for i in todo], np.asarray(observations)[todo])
        for i, world_values in zip(todo, results):
            cards = legal[i]
            values[i, cards] = world_values.mean(axis=0)
            errors[i, cards] = world_values.std(axis=0, ddof=1) / np.sqrt(self.worlds) if self.worlds > 1 else 0.0
            own = int(np.flatnonzero(cards == guide[i])[0])
            choices[i] = cards[card_to_play(world_values, own, self.override_z)]
        return Searched(values, errors, choices, guide)

    # ------------------------------------------------------------------ the network

    def _logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The network's masked logits (its first layer summed over the set cells: :mod:`.sparse_forward`)."""
        return masked_logits(self._forward(observations), torch.as_tensor(masks != 0)).numpy()

    def greedy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The network's best legal action for each row."""
        return self._logits(observations, masks).argmax(axis=1)

    def _playout_cards(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The cards the network plays in the playouts: greedy, or drawn from its softmax (Gumbel-max with the
        agent's generator)."""
        logits = self._logits(observations, masks)
        if self.playouts == "sampled":
            logits = logits + np.where(masks != 0, self.rng.gumbel(size=logits.shape), 0.0)
        return logits.argmax(axis=1)

    # ------------------------------------------------------------------ the playouts

    def _play_out(self, infos: list[InfoState], legal: list[np.ndarray], observations: np.ndarray) -> list[np.ndarray]:
        """For each decision, its ``[worlds, cards]`` results: every world and card one game of one engine batch."""
        K = self.worlds
        starts, rows, first, seats = [], [], [], []
        for i, (info, cards) in enumerate(zip(infos, legal)):
            affinity = self.world_weights(info, observations[i])
            starts.append(world_positions(info, self.rng, K, affinity))
            base = i * K
            for w in range(K):
                rows += [base + w] * len(cards)
                first += cards.tolist()
            seats += [info.seats.index(info.seat)] * (K * len(cards))
        positions = concat(starts).take(rows)
        engine = make_engine(self.rules, len(rows), seed=int(self.rng.integers(2**63)))
        engine.load_positions(positions)
        seat = np.array(seats)
        result = self._finish(engine, np.array(first, dtype=np.int64), seat)
        out, at = [], 0
        for cards in legal:
            size = K * len(cards)
            out.append(self.sign * result[at:at + size].reshape(K, len(cards)))
            at += size
        return out

    def _finish(self, engine: VectorEngine, first: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """Play ``first`` in every game, then the network's cards, until each game is settled or over;
        returns each game's score for ``seat``."""
        N = engine.num_envs
        score = np.zeros(N)
        live = np.ones(N, dtype=bool)
        g = np.arange(N)
        obs, mask, _, _, done, final = engine.step(first)
        filler = np.random.default_rng(0)  # cards for games already scored, which only keep the batch in step
        while True:
            settled, now = engine.settled_scores()
            ended = live & (done | settled)
            score[ended] = np.where(done, final[g, seat], now[g, seat])[ended]
            live &= ~ended
            if not live.any():
                return score
            actions = engine.random_actions(filler)
            choose = live & (bitwise_count(engine.legal) > 1)
            if choose.any():
                actions[choose] = self._playout_cards(obs[choose], mask[choose])
            forced = live & ~choose
            actions[forced] = mask[forced].argmax(axis=1)
            obs, mask, _, _, done, final = engine.step(actions)

    def world_weights(self, info: InfoState, obs: np.ndarray) -> dict[int, np.ndarray] | None:
        """The weights by seat with which the hidden cards of ``info`` are drawn: the pass reading's, the belief's,
        or None (uniform among the consistent deals)."""
        if self.read_passes:
            return self.passes_read(info)
        return None if self.belief is None else draw_weights(self.belief, info, obs)

    def passes_read(self, info: InfoState) -> dict[int, np.ndarray] | None:
        """The weights with which ``read_passes`` draws the hidden cards, taking the other players to pass as
        the heuristic does; worked out at the deal's first searched decision and kept for the deal."""
        key = (info.deals_played, info.dealer, info.passed, info.received, original_hand(info))
        if self._affinity[0] != key:
            marginals = pass_marginals(info, heuristic_move, self.rng)
            self._affinity = (key, None if marginals is None else affinities(marginals, info))
        return self._affinity[1]


