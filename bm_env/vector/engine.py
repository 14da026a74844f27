"""The vector engine: N single deals held as numpy arrays and stepped together.

Each game is one deal of the rules (the environment's default ``episode="deal"``); when a
deal ends its rewards and scores are reported and the game is dealt again at once: the
deal passes to the next seat, the pass direction follows the cycle by the game's deal
count (or is drawn, for ``pass_order="random"``). Match totals are not kept, so the
match features of the observation are those of a fresh match (zero totals, no deal
played, every seat in the deal), exactly what the reference encoder writes for
``information_state(deal, seat, [0] * n, 0)``.

State is per seat ``[n, N]`` (hands, passed, received, played and trick cards as uint64
card masks, points) or per game ``[N]`` (voids: one word per game), updated by fancy indexing on
flat views: 298 bytes per game with 3 players, 490 with 7, beside the observation rows.
What the observation shows and play changes only now and then is kept up to date here
rather than recomputed by the encoder at every step: the flags that do not depend on the
observer as the encoder places them, a code for the dealer and trick leader, the pass count
and tricks played as the observation's number cells. While every game plays (a batch dealt
together stays in step), a step needs no per-game phase masks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..engine import checks
from ..engine.cards import HEARTS, NUM_CARDS, NUM_RANKS, QUEEN_SPADES, SUIT_MASKS, card_str, cards_of
from ..engine.deal import IllegalActionError
from ..engine.rules import Rules, direction_offset
from .deals import DealSource
from .encoder import Encoder, number_cells
from .popcount import bitwise_count
from .positions import Positions
from .scoring import deal_rewards, deal_scores
from .support import UnsupportedRulesError, check_supported

if TYPE_CHECKING:
    from .kernel import Kernel

PASSING, PLAYING = 0, 1
_ONE = np.uint64(1)
_HEARTS = np.uint64(SUIT_MASKS[HEARTS])
_CLUBS = SUIT_MASKS[0]
_NO_CARD = 52  # trick card id of a seat that has not played to the trick
_SUIT = np.arange(NUM_CARDS) // NUM_RANKS
_BYTE_ONES = np.uint64(0x0101010101010101)
_BYTE_TOPS = np.uint64(0x8080808080808080)
#: Position of the i-th set bit of each octet x, at index 8x + i (choosing the k-th legal card).
_NTH_BIT = np.array([[b for b in range(8) if x >> b & 1][i] if i < bin(x).count("1") else 0
                     for x in range(256) for i in range(8)], dtype=np.int64)


#: The most games one engine holds: at a few hundred bytes of state and an observation row per game,
#: a larger batch would take gigabytes before its first step; more is a typo, not a machine.
MAX_BATCH = 1 << 22


def _checked_seed(seed) -> int | None:
    if seed is not None and not checks.is_whole(seed) or checks.is_whole(seed) and seed < 0:
        raise ValueError(f"seed must be a whole number of at least 0, or None; got {checks.shown(seed)}")
    return None if seed is None else int(seed)


def _card_ids(one_card_masks: np.ndarray) -> np.ndarray:
    """The card id of each mask holding exactly one card (the count of the bits below it)."""
    return bitwise_count(one_card_masks - _ONE)


class VectorEngine:
    """``batch_size`` games of ``rules`` stepped together; see the module docstring.

    ``reset`` and ``step`` return new arrays each call, which the caller may keep or modify.
    ``reward`` is a mode of :mod:`bm_env.env.rewards` (``score`` or ``zero_sum``, optionally
    ``normalise``d). ``final_observations=True`` keeps, for every game whose deal ends in a
    step, the observation of the seat that played the last card (phase "done"; of the seat
    :attr:`final_observers` names, where set) in row ``g`` of :attr:`final_obs`; rows of
    other games hold older deals' ends.

    This class plays the classic rules; rules with extension systems in use (``Rules.uses_extensions``)
    are played by its subclass :class:`~bm_env.vector.extended.ExtendedEngine`, which has the same
    interface and calls the systems' kernels. :func:`~bm_env.vector.make_engine` builds the one the rules need.
    """

    #: Whether this class plays the extension options (``Rules.uses_extensions``).
    plays_extensions = False
    #: The kernels of the rule systems in use (:mod:`bm_env.vector.kernel`): none under the classic rules.
    kernels: tuple[Kernel, ...] = ()

    def __init__(self, rules: Rules, batch_size: int, reward: str = "score", normalise: bool = False,
                 seed: int | None = None, final_observations: bool = False) -> None:
        check_supported(rules)
        if rules.uses_extensions and not self.plays_extensions:
            raise UnsupportedRulesError(f"{type(self).__name__} plays the classic rules; these use "
                                        f"{list(rules.uses_extensions)}: make_engine(rules, ...) builds the engine "
                                        f"for any rules the vector engine plays")
        batch_size = checks.whole("batch_size", batch_size, 1, MAX_BATCH)
        normalise = checks.flag("normalise", normalise)
        final_observations = checks.flag("final_observations", final_observations)
        seed = _checked_seed(seed)
        deal_rewards(rules, np.zeros((rules.num_players, 1)), reward, normalise)  # validates the mode
        self.rules = rules
        self.num_envs = N = batch_size
        self.n = rules.num_players
        self.reward_mode = reward
        self.normalise = normalise
        self.keep_final = final_observations
        self._read_rules(rules)
        self._allocate_state()
        #: None, or ``[N, size]`` int8: the observation of each game's final state (see :attr:`final_observers`).
        self.final_obs = np.zeros((N, self.encoder.size), dtype=np.int8) if final_observations else None
        #: None, or ``[N]`` seats: the seat of each game whose view :attr:`final_obs` keeps (instead of the last player's).
        self.final_observers: np.ndarray | None = None
        self._rng = np.random.default_rng(seed)
        self._source = self._deal_source(self._rng, block=min(max(N, 256), 8192))
        self._started = False

    def _read_rules(self, rules: Rules) -> None:
        """The tables every step looks up, computed once from the rules: card values and masks, pass
        directions, the encoder's flag bits."""
        n = self.n
        self.hand_size = rules.hand_size()
        self.deck = rules.deck_mask()
        values = [v if self.deck >> c & 1 else 0 for c, v in enumerate(rules.card_values)]
        self.values = np.array(values, dtype=np.int16)
        self.penalty_total = sum(v for v in values if v > 0)
        # Penalty points apart from the captured total only where a moon rule reads them and a
        # negative card makes them differ; clean tricks only where they score.
        self._penalty_apart = rules.moon != "off" and min(values) < 0
        self._count_clean = rules.clean_trick_bonus != 0
        self.penalty_mask = np.uint64(sum(1 << c for c, v in enumerate(values) if v > 0))
        self.valued_mask = np.uint64(sum(1 << c for c, v in enumerate(values) if v))  # points either way
        self.no_pass = np.uint64(sum(1 << c for c in rules.no_pass_cards))
        low = self.deck & _CLUBS
        self.lowest_club = np.uint64(low & -low)
        self.suit_masks = np.array(SUIT_MASKS, dtype=np.uint64)
        self.dir_offsets, self.dir_passes = self._pass_table(rules)
        self.encoder = enc = self._new_encoder(rules)
        self._phase_mask, self._led_mask, self._broken_bit = enc.phase_mask, enc.led_mask, enc.broken_bit
        breaks = [c // NUM_RANKS == HEARTS or (rules.queen_breaks_hearts and c == QUEEN_SPADES) for c in range(NUM_CARDS)]
        self._break_bits = np.where(breaks, enc.broken_bit, np.uint64(0))  # by card: its flag bit if it breaks hearts
        self._next_seat = np.roll(np.arange(n), -1)  # seat to the left of each seat

    def _pass_table(self, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
        """By direction of the pass cycle: the receiver's seat offset and the cards each player passes (0: a hold)."""
        offsets = np.array([direction_offset(d, self.n) for d in rules.pass_cycle], dtype=np.int64)
        return offsets, np.where(offsets > 0, rules.passes_for(), 0)

    def _new_encoder(self, rules: Rules) -> Encoder:
        """The encoder of this engine's observation rows."""
        return Encoder(rules)

    def _deal_source(self, rng: np.random.Generator, block: int) -> DealSource:
        """The source of this engine's random deals, drawn from ``rng`` ``block`` deals at a time."""
        return DealSource(self.rules, rng, block)

    def _allocate_state(self) -> None:
        """Every game's state, one array per quantity (``[n, N]`` per seat, ``[N]`` per game)."""
        n, N = self.n, self.num_envs
        self._g = np.arange(N)
        u64 = lambda: np.zeros((n, N), dtype=np.uint64)  # noqa: E731
        self.hands, self.received, self.trick_bits = u64(), u64(), u64()
        self.moved = np.zeros((2, n, N), dtype=np.uint64)  # [0]: cards passed, [1]: cards played
        # Bit 4s + suit: seat s has shown void in suit; repeated 4n bits higher, so that one
        # right shift by 4 * observer lists the seats from any observer's left.
        self.voids = np.zeros(N, dtype=np.uint64)
        self._void_base = np.arange(0, 4 * n, 4, dtype=np.uint64)  # 4 * seat
        # The void word's bits (both copies) of seat * 4 + suit.
        # (With more than 8 players, two decks only, the copy passes 64 bits and is dropped: the
        # encoder then rotates the first copy itself.)
        self._void_bits = np.array([((1 << b) | (1 << b + 4 * n)) & (2**64 - 1) for b in range(4 * n)],
                                   dtype=np.uint64)
        self.captured = np.zeros((n, N), dtype=np.int16)
        self.captured_cells = np.zeros((n, N), dtype=np.int16)  # `captured` as the observation's two cells
        self.count_cells = np.zeros(N, dtype=np.int16)  # the pass count and tricks played, the same way
        self.penalty_taken = np.zeros((n, N), dtype=np.int16)
        self.clean_tricks = np.zeros((n, N), dtype=np.int16)
        z = lambda: np.zeros(N, dtype=np.int64)  # noqa: E731
        self.to_act, self.dealer, self.eldest, self.leader, self.led = z(), z(), z(), z(), z()
        self.phase, self.picked, self.in_trick, self.tricks, self.deal_number = z(), z(), z(), z(), z()
        self.direction, self.pass_offset, self.pass_count = z(), z(), z()
        # The observation's flags that do not depend on the observer (phase and pass receiver,
        # led suit while a trick is on, hearts broken) as the encoder places them, and the code of
        # the dealer and trick leader it looks up per observer: kept as play goes, not recomputed.
        self.flag_bits = np.zeros(N, dtype=np.uint64)
        self.dealer_leader = z()
        self.legal = np.zeros(N, dtype=np.uint64)
        self._own = z()  # flat index of the acting seat in per-seat arrays, with the legal sets

    # ------------------------------------------------------------------ public API

    @property
    def observation_size(self) -> int:
        """Length of each game's observation vector: the layout of :mod:`bm_env.env.observation` for these rules."""
        return self.encoder.size

    def reset(self, seed: int | None = None, hands: np.ndarray | Sequence | None = None,
              dealers: Sequence[int] | np.ndarray | None = None,
              pass_directions: Sequence[str] | None = None, kitty: np.ndarray | Sequence | None = None):
        """Deal every game afresh; returns ``(obs [N, L] int8, mask [N, A] int8, to_act [N])``.

        With ``seed`` the generator is reseeded. ``hands`` ``[N, n]`` (uint64 card masks by
        seat) deals given cards (duplicate evaluation); ``dealers`` ``[N]`` (default seat 0) and
        ``pass_directions`` (names from the rules' pass cycle) go with them, and ``kitty``
        ``[N]`` (the cards left over) where the rules have a kitty. With two decks ``hands``
        is ``[N, n, 2]`` and ``kitty`` ``[N, 2]``: the cards held at least once, then those
        held twice. ``A`` is ``rules.num_actions``. Without them
        the first dealer of each game is drawn ("cut for low card") and the first deal uses
        the start of the pass cycle (or a drawn direction under ``pass_order="random"``).
        Later deals are always drawn from the generator.
        """
        N, n = self.num_envs, self.n
        # Everything given is checked before the generator is reseeded or drawn from: a refused
        # reset leaves the engine as it was.
        seed = _checked_seed(seed)
        if dealers is not None:
            dealers = self._check_dealers(dealers)
        given_directions = None if pass_directions is None else self._check_directions(pass_directions)
        if hands is not None:
            hands = self._check_hands(hands, kitty)
        elif kitty is not None:
            raise ValueError("a kitty is given with the hands it goes with (reset(hands=..., kitty=...))")
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._source = self._deal_source(self._rng, self._source.block)
        if dealers is None:
            dealers = self._rng.integers(n, size=N) if hands is None else np.zeros(N, dtype=np.int64)
        if given_directions is None:
            directions = self._draw_directions(np.zeros(N, dtype=np.int64))
        else:
            directions = given_directions
        all_games = self._g
        self.deal_number[:] = 0
        self._start_deals(all_games, dealers.astype(np.int64), directions, hands)
        self._started = True
        self._compute_legal()
        obs, mask = self.encoder.encode(self._arrays())
        return obs, mask, self.to_act.copy()

    def load_positions(self, positions: Positions):
        """Set every game at a position in play (:class:`~bm_env.vector.positions.Positions`); returns
        ``(obs, mask, to_act)`` as :meth:`reset` does.

        For a search that plays imagined deals on from where its seat decides. The classic rules
        only (the extension engine refuses it); the positions are checked to be deals of these rules
        in play. Their later deals are drawn from the generator, as after :meth:`reset`.
        """
        if self.rules.uses_extensions:
            raise ValueError(f"load_positions plays the classic rules only; these rules use "
                             f"{list(self.rules.uses_extensions)}")
        p = positions
        N, n = self.num_envs, self.n
        self._check_positions(p)
        t = lambda a: np.ascontiguousarray(np.asarray(a).T)  # noqa: E731
        self.hands = t(p.hands).astype(np.uint64)
        self.moved = np.stack([t(p.passed), t(p.played)]).astype(np.uint64)
        self.received = t(p.received).astype(np.uint64)
        on_trick = p.trick >= 0
        self.trick_bits = t(np.where(on_trick, np.left_shift(_ONE, np.maximum(p.trick, 0).astype(np.uint64)),
                                     np.uint64(0)))
        in_trick = on_trick.sum(axis=1).astype(np.int64)
        bits = (p.voids[:, :, None].astype(np.int64) >> np.arange(4)) & 1  # [N, n, 4]
        self.voids = np.bitwise_or.reduce(np.where(bits.reshape(N, 4 * n) == 1, self._void_bits, np.uint64(0)), axis=1)
        self.captured = t(p.captured).astype(np.int16)
        self.captured_cells = number_cells(self.captured).astype(np.int16)
        self.penalty_taken = t(p.penalty_taken).astype(np.int16)
        self.clean_tricks = t(p.clean_tricks).astype(np.int16)
        g = self._g
        leader = p.leader.astype(np.int64)
        self.dealer = p.dealer.astype(np.int64)
        self.eldest = (self.dealer + 1) % n
        self.direction = p.direction.astype(np.int64)
        self.pass_offset = self.dir_offsets[self.direction]
        self.pass_count = self.dir_passes[self.direction]
        self.tricks = p.tricks_played.astype(np.int64)
        self.count_cells = (self.pass_count + (self.tricks << 8)).astype(np.int16)
        self.picked = np.zeros(N, dtype=np.int64)
        self.in_trick = in_trick
        self.phase = np.full(N, PLAYING, dtype=np.int64)
        self.deal_number = np.zeros(N, dtype=np.int64)
        self.leader = leader
        self.to_act = (leader + in_trick) % n
        led_card = p.trick[g, leader]
        self.led = np.where(in_trick > 0, _SUIT[np.maximum(led_card, 0)], 0)
        enc = self.encoder
        flags = enc.phase_receiver_bits[self.pass_offset * (self.pass_count > 0)] ^ self._phase_mask
        flags |= enc.led_bits[self.led] * (in_trick > 0)
        flags |= self._broken_bit * p.hearts_broken.astype(np.uint64)
        self.flag_bits = flags
        self.dealer_leader = self.dealer * ((n + 1) * n) + (leader + 1) * n * (in_trick > 0)
        self._started = True
        self._compute_legal()
        if (self.legal == 0).any():
            raise ValueError(f"game {int(np.argmax(self.legal == 0))}: the seat to act holds no card to play")
        obs, mask = self.encoder.encode(self._arrays())
        return obs, mask, self.to_act.copy()

    def settled_scores(self) -> tuple[np.ndarray, np.ndarray]:
        """``(settled [N] bool, scores [N, n])``: the games in play whose cards left, in the hands and on the
        trick, carry no points, and their deal scores, which the rest of the play cannot change.

        A search stops its playouts there. Only where the points taken are the whole score (no clean-trick
        bonus, the classic rules): elsewhere no game is settled before its end.
        """
        N = self.num_envs
        if self.rules.clean_trick_bonus:
            return np.zeros(N, dtype=bool), np.zeros((N, self.n), dtype=np.int32)
        left = np.bitwise_or.reduce(self.hands | self.trick_bits, axis=0)
        settled = (self.phase == PLAYING) & ((left & self.valued_mask) == 0)
        penalty = self.penalty_taken if self._penalty_apart else self.captured
        scores = deal_scores(self.rules, self.captured, penalty, self.clean_tricks, self.penalty_total)
        return settled, scores.T

    def _check_positions(self, p: Positions) -> None:
        """Refuse positions of another shape, or whose cards are not one deal of these rules in play."""
        N, n = self.num_envs, self.n
        for name, value in vars(p).items():
            want = (N, n) if np.ndim(value) == 2 else (N,)
            if np.shape(value) != want:
                raise ValueError(f"positions.{name} is {np.shape(value)}, expected {want} for {N} games of {n} seats")
        union = np.bitwise_or.reduce(p.hands | p.played, axis=1)
        held = bitwise_count(p.hands).astype(np.int64).sum(axis=1) + bitwise_count(p.played).astype(np.int64).sum(axis=1)
        in_trick = (p.trick >= 0).sum(axis=1)
        ok = (union == np.uint64(self.deck)) & (held == self.hand_size * n)
        ok &= (in_trick < n) & (p.tricks_played * n + in_trick == bitwise_count(p.played).astype(np.int64).sum(axis=1))
        ok &= (p.direction >= 0) & (p.direction < len(self.rules.pass_cycle)) & (p.dealer >= 0) & (p.dealer < n)
        ok &= (p.leader >= 0) & (p.leader < n)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise ValueError(f"game {i}: the position is not a deal of these rules in play (each card held or played "
                             f"once, {self.hand_size} cards a seat, the tricks played and the trick in progress "
                             f"adding up to the cards played, dealer, leader and direction in range)")

    def step(self, actions):
        """Play one card (or pass pick) in every game.

        Returns ``(obs, mask, to_act, rewards [N, n] float32, done [N] bool, final_scores [N, n])``:
        rewards and final scores (by seat) are non-zero only in games whose deal ended
        with this step; those games have already been dealt again, and ``obs``, ``mask``
        and ``to_act`` are their new deal's first decision.
        """
        rewards, done, final_scores = self.advance(actions)
        obs, mask = self.observe()
        return obs, mask, self.to_act.copy(), rewards, done, final_scores

    def redeal(self, games: np.ndarray, dealers: np.ndarray) -> None:
        """Deal ``games`` (indices) afresh as the first deal of a match: ``dealers`` deal, the pass cycle starts again
        (a drawn direction under ``pass_order="random"``). A caller that plays whole matches starts each one so."""
        if not self._started:
            raise RuntimeError("call reset() before redeal()")
        games, dealers = np.asarray(games, dtype=np.int64), np.asarray(dealers, dtype=np.int64)
        if dealers.shape != games.shape or not ((dealers >= 0) & (dealers < self.n)).all():
            raise ValueError(f"redeal needs one dealer in 0..{self.n - 1} per game, got {dealers!r}")
        self.deal_number[games] = 0
        self._start_deals(games, dealers, self._draw_directions(np.zeros(games.size, dtype=np.int64)))
        self._compute_legal()

    def observe(self, games: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(obs, mask)`` of the acting seat of every game, or of the games ``games`` (indices) in their order."""
        if not self._started:
            raise RuntimeError("call reset() before observe()")
        if games is not None and len(games) == 0:
            return (np.zeros((0, self.encoder.size), dtype=np.int8),
                    np.zeros((0, self.rules.num_actions), dtype=np.int8))
        return self.encoder.encode(self._arrays(games))

    def advance(self, actions, active: np.ndarray | None = None):
        """:meth:`step` without the observations: returns ``(rewards, done, final_scores)``.

        With ``active`` (``[N]`` bool) only those games play; the others stay exactly as they
        are and their entries of ``actions`` are not read. A caller that seats other players
        in some games steps them alone this way (:func:`bm_env.learner.make_vector_env`), and
        asks :meth:`observe` for the rows it needs.
        """
        N, n = self.num_envs, self.n
        active = self._check_active(active)
        c, bit = self._legal_bits(actions, active)
        me = self.to_act
        own = self._own
        self.hands.reshape(-1)[own] ^= bit
        phase = self.phase
        playing = phase == PLAYING
        passing = ~playing
        if active is not None:
            playing, passing = playing & active, passing & active
        # A batch dealt together passes and plays in step: most steps skip one of the two parts,
        # and need no per-game masks while every game plays.
        all_playing = playing.all()
        if all_playing:
            self.moved[1].reshape(-1)[own] |= bit
        else:  # passed cards while passing, played cards while playing
            self.moved.reshape(-1)[own + phase * (n * N)] |= bit
        nxt = self._next_seat[me]
        advance = playing  # games whose turn passes to the next seat
        all_passed = None
        if not all_playing:
            advance, all_passed = self._passing_turns(playing, passing, nxt)
        trick_over = None
        if all_playing or playing.any():
            trick_over = self._add_to_tricks(c, bit, me, playing, all_playing)
            advance = advance & ~trick_over
        self.to_act = np.where(advance, nxt, me)

        if all_passed is not None and all_passed.any():
            self._move_passes(np.flatnonzero(all_passed))
        rewards = np.zeros((N, n), dtype=np.float32)
        final_scores = np.zeros((N, n), dtype=np.int32)
        done = np.zeros(N, dtype=bool)
        if trick_over is not None and trick_over.any():
            over = self._finish_tricks(np.flatnonzero(trick_over))
            if over.size:
                scores, deal_rewards = self._finish_deals(over, me[over])
                final_scores[over], rewards[over], done[over] = scores, deal_rewards, True
        self._compute_legal()
        return rewards, done, final_scores

    def _passing_turns(self, playing: np.ndarray, passing: np.ndarray, nxt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Count the pick of every passing game; the next seat picks once this one has picked all its cards.

        Returns the games whose turn moves on (every playing one too) and those whose last seat has picked.
        """
        self.picked += passing
        turn_over = passing & (self.picked == self.pass_count)
        self.picked[turn_over] = 0
        return playing | turn_over, turn_over & (nxt == self.eldest)

    def _add_to_tricks(self, c: np.ndarray, bit: np.ndarray, me: np.ndarray, playing: np.ndarray,
                       all_playing: bool) -> np.ndarray:
        """Put the played cards ``c`` into the tricks of the ``playing`` games (the lead, shown voids, broken
        suits); returns the games whose trick is now full."""
        n, own = self.n, self._own
        suit = _SUIT[c]
        if all_playing:
            self.trick_bits.reshape(-1)[own] = bit
            leading = self.in_trick == 0
        else:
            self.trick_bits.reshape(-1)[own] = bit * playing
            leading = playing & (self.in_trick == 0)
        if leading.any():
            self.led = np.where(leading, suit, self.led)
            self.flag_bits |= self.encoder.led_bits[suit] * leading
            self.dealer_leader += (me + 1) * n * leading  # lead code: leader + 1
        renounce = suit != self.led  # never a leader's card, now that its suit is led
        if not all_playing:
            renounce &= playing
        if renounce.any():
            self.voids |= self._void_bits[me * 4 + self.led] * renounce
        breaks = self._break_bits[c]
        self.flag_bits |= breaks if all_playing else breaks * playing
        self.in_trick += playing
        return self.in_trick == n

    def random_actions(self, rng: np.random.Generator, games: np.ndarray | None = None) -> np.ndarray:
        """A uniformly random legal action per game (or per game of ``games``, indices): the k-th set bit of the
        legal set, k drawn from ``rng``.

        Per byte of the legal set: its set bits (``bitwise_count``), and by one multiplication
        the running total up to each byte; the k-th bit lies in the first byte whose running
        total exceeds k, at the place a 256 x 8 table gives.
        """
        x = self.legal if games is None else self.legal[games]
        m = x.shape[0]
        k = (rng.random(m) * bitwise_count(x)).astype(np.uint8)
        counts = bitwise_count(x.view(np.uint8)).view(np.uint64)  # byte i: set bits in byte i
        upto = counts * _BYTE_ONES  # byte i: set bits in bytes 0..i (at most 52: no carry)
        # Bytes whose running total is at most k: the top bit of each byte of (k | 128) - total.
        byte = bitwise_count(((k.astype(np.uint64) * _BYTE_ONES | _BYTE_TOPS) - upto) & _BYTE_TOPS)
        shift = (byte << 3).astype(np.uint64)
        below = ((upto - counts) >> shift).astype(np.uint8)  # set bits before that byte
        bits = (x >> shift).astype(np.int64) & 0xFF
        return shift.astype(np.int64) + _NTH_BIT[bits * 8 + (k - below)]

    #: The arrays that hold the games as they stand; everything else is fixed by the rules at construction.
    _STATE_ARRAYS = ("hands", "received", "trick_bits", "moved", "voids", "captured", "captured_cells", "count_cells",
                     "penalty_taken", "clean_tricks", "to_act", "dealer", "eldest", "leader", "led", "phase", "picked",
                     "in_trick", "tricks", "deal_number", "direction", "pass_offset", "pass_count", "flag_bits",
                     "dealer_leader", "legal", "_own")

    def kernel(self, name: str) -> Kernel | None:
        """The kernel of the rule system ``name`` where it is in use (its state for every game), else None."""
        return next((k for k in self.kernels if k.name == name), None)

    def _holder_of(self, name: str) -> object:
        """The object that holds the state array ``name`` (of :attr:`_STATE_ARRAYS`): this engine."""
        return self

    def get_state(self) -> dict:
        """Everything that decides how these games go on, for a training checkpoint to resume from.

        Copies of the state arrays, the generator's state and the deals already dealt but not yet
        handed out: :meth:`set_state` on an engine of the same rules and batch size then plays on
        exactly as this one would.
        """
        if not self._started:
            raise RuntimeError("call reset() before get_state(): there are no games yet")
        arrays = {name: getattr(self._holder_of(name), name).copy() for name in self._STATE_ARRAYS}
        if self.keep_final:
            arrays["final_obs"] = self.final_obs.copy()
        arrays["undealt"] = self._source.undealt().copy()
        return {"rules": self.rules.to_dict(), "batch_size": self.num_envs, "arrays": arrays,
                "generator": self._rng.bit_generator.state}

    def set_state(self, state: dict) -> None:
        """Continue the games of :meth:`get_state` (from an engine of the same rules and batch size).

        The whole state is checked before any of it is taken: a refused one leaves the engine as it was.
        """
        if not isinstance(state, dict) or not isinstance(state.get("arrays"), dict):
            raise ValueError(f"set_state takes the dict that get_state() returns (with its 'arrays'), "
                             f"got {checks.shown(state)}")
        if state.get("rules") != self.rules.to_dict() or state.get("batch_size") != self.num_envs:
            raise ValueError("engine state was saved for other rules or another batch size; "
                             f"this engine plays {self.num_envs} games of {self.rules.to_dict()}")
        arrays = state["arrays"]
        names = list(self._STATE_ARRAYS) + (["final_obs"] if self.keep_final else [])
        needed = names + ["undealt"]
        missing = [name for name in needed if name not in arrays]
        if missing:
            raise ValueError(f"engine state lacks the arrays {missing} (saved by another version of the engine?); "
                             f"this engine needs {needed}")
        taken = {}
        for name in names:
            mine, saved = getattr(self._holder_of(name), name), np.asarray(arrays[name])
            if saved.shape != mine.shape or saved.dtype != mine.dtype:
                raise ValueError(f"engine state array {name!r} is {saved.dtype}{list(saved.shape)}, "
                                 f"expected {mine.dtype}{list(mine.shape)}")
            taken[name] = saved.copy()
        undealt = checks.card_mask_array("engine state array 'undealt'", arrays["undealt"])
        if undealt.size % self._source.width:
            raise ValueError(f"engine state array 'undealt' holds {undealt.size} masks, not whole deals of "
                             f"{self._source.width}")
        generator = type(self._rng.bit_generator)()
        try:
            generator.state = state.get("generator")
        except (TypeError, ValueError, KeyError) as e:
            raise ValueError(f"engine state 'generator' is not a {type(generator).__name__} state ({e})") from None
        for name, value in taken.items():
            setattr(self._holder_of(name), name, value)
        self._rng.bit_generator.state = generator.state
        self._source.set_undealt(undealt)
        self._started = True

    def state(self) -> dict[str, np.ndarray]:
        """Perfect-information state for critics and tests (copies; per-seat arrays ``[N, n]`` by seat)."""
        t = lambda a: np.ascontiguousarray(a.T)  # noqa: E731
        return {
            "hands": t(self.hands), "passed": t(self.moved[0]), "received": t(self.received),
            "played": t(self.moved[1]), "trick_cards": t(self._trick_ids()),
            "voids": ((self.voids[:, None] >> self._void_base) & np.uint64(15)).astype(np.uint8),
            "points_taken": t(self.captured), "to_act": self.to_act.copy(), "dealer": self.dealer.copy(),
            "leader": self.leader.copy(), "phase": self.phase.copy(), "tricks_played": self.tricks.copy(),
            "hearts_broken": (self.flag_bits & self._broken_bit) != 0, "legal": self.legal.copy(),
            "pass_direction": np.array(self.rules.pass_cycle, dtype=object)[self.direction],
            "deal_number": self.deal_number.copy(),
        }

    def cards_apart(self, st: dict[str, np.ndarray]) -> np.ndarray:
        """``[N, m]`` card masks of the cards a :meth:`state` ``st`` holds apart from its hands, passes and plays
        (a kitty, its discards, the copies held twice): with those, every card of the deal once per copy. The
        classic rules keep none apart."""
        return np.zeros((self.num_envs, 0), dtype=np.uint64)

    # ------------------------------------------------------------------ internals

    def _arrays(self, games: np.ndarray | None = None) -> dict:
        s = {
            "hands": self.hands, "picks": self.moved[0], "received": self.received, "played": self.moved[1],
            "trick_bits": self.trick_bits, "voids": self.voids, "captured_cells": self.captured_cells,
            "to_act": self.to_act, "flag_bits": self.flag_bits, "dealer_leader": self.dealer_leader,
            "pass_offset": self.pass_offset, "count_cells": self.count_cells, "legal": self.legal,
        }
        if games is not None:
            s = {k: v[..., games] for k, v in s.items()}
        return s

    def _trick_ids(self) -> np.ndarray:
        """Card id each seat has put on the current trick (52: none yet), from the one-card trick masks."""
        return np.where(self.trick_bits == 0, _NO_CARD, _card_ids(self.trick_bits)).astype(np.int8)

    def _final_seats(self, games: np.ndarray, last_actor: np.ndarray) -> np.ndarray:
        """The seats whose view :attr:`final_obs` keeps for ``games``: :attr:`final_observers` where set, else the
        seat that played the last card."""
        return last_actor if self.final_observers is None else self.final_observers[games]

    #: What the actions are, for messages (the extension engine adds its decision ids).
    _action_ids = "card ids 0..51"

    def _legal_bits(self, actions, active: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The checked actions of a step and their bits (0 and no bit in games not ``active``); refuses a step
        before reset and any illegal action."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        c = self._check_actions(actions)
        if active is not None:
            c = np.where(active, c, 0)
        bit = np.left_shift(_ONE, c.astype(np.uint64))  # 0 for an id outside 0..63: never legal
        if active is not None:
            bit = np.where(active, bit, np.uint64(0))
        bad = (self.legal & bit) == 0
        if active is not None:
            bad &= active
        if bad.any():
            self._raise_illegal(int(np.argmax(bad)), int(c[np.argmax(bad)]))
        return c, bit

    def _check_active(self, active) -> np.ndarray | None:
        """``active`` as ``[N]`` bool, None where every game plays; refused when malformed."""
        if active is None:
            return None
        a = np.asarray(active)
        if a.shape != (self.num_envs,) or a.dtype != bool:
            raise ValueError(f"active must be a bool array of shape ({self.num_envs},), got {a.dtype}{list(a.shape)}")
        return None if a.all() else a

    def _check_actions(self, actions) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"step needs one action per game: shape ({self.num_envs},), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integer {self._action_ids}, got dtype {a.dtype}")
        return a if a.dtype == np.int64 else a.astype(np.int64)

    def _raise_illegal(self, game: int, c: int) -> None:
        if not 0 <= c <= 51:
            raise IllegalActionError(f"game {game}: action {c} is outside the action space 0..51")
        what = "pass" if self.phase[game] == PASSING else "play"
        legal = " ".join(card_str(x) for x in cards_of(int(self.legal[game])))
        raise IllegalActionError(
            f"game {game}: player_{int(self.to_act[game])} may not {what} {card_str(c)}; legal: {legal}"
        )

    def _check_dealers(self, dealers) -> np.ndarray:
        N, n = self.num_envs, self.n
        d = np.asarray(dealers) if checks.is_sequence(dealers) else None
        if d is None or d.shape != (N,) or d.dtype.kind not in "iu" or not ((d >= 0) & (d < n)).all():
            raise ValueError(f"dealers must be {N} seats in 0..{n - 1}, got {checks.shown(dealers)}")
        return d.astype(np.int64)

    def _check_directions(self, pass_directions) -> np.ndarray:
        """The given pass directions as indices into the rules' cycle."""
        N, cycle = self.num_envs, list(self.rules.pass_cycle)
        if not checks.is_sequence(pass_directions) or len(pass_directions) != N:
            raise ValueError(f"pass_directions must name one direction per game ({N}), got {checks.shown(pass_directions)}")
        names = [checks.choice(f"pass_directions[{g}]", d, cycle) for g, d in enumerate(pass_directions)]
        return np.array([cycle.index(d) for d in names], dtype=np.int64)

    def _check_hands(self, hands, kitty) -> np.ndarray:
        if kitty is not None:
            raise ValueError("these rules have no kitty (kitty='none'); give only the hands")
        h = checks.card_mask_array("hands", hands)
        N, n = self.num_envs, self.n
        if h.shape != (N, n):
            raise ValueError(f"hands must be [{N}, {n}] uint64 card masks (one row per game, seat by column), got {h.shape}")
        union = np.bitwise_or.reduce(h, axis=1)
        sizes = bitwise_count(h)
        ok = (union == np.uint64(self.deck)) & (sizes == self.hand_size).all(axis=1)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise ValueError(
                f"game {i}: hands do not deal the {n}-player deck of deck table {self.rules.deck_table!r} "
                f"into {n} hands of {self.hand_size} cards"
            )
        return h

    def _draw_directions(self, deal_numbers: np.ndarray) -> np.ndarray:
        k = len(self.rules.pass_cycle)
        if self.rules.pass_order == "random":
            return self._rng.integers(k, size=deal_numbers.shape[0])
        return deal_numbers % k

    def _start_deals(self, games, dealers, directions, hands=None) -> None:
        """Deal ``games`` afresh (given hands or drawn ones) and set them at their first decision."""
        if hands is None:
            hands = self._source.take(games.size)
        self.hands[:, games] = hands.T
        for a in (self.received, self.trick_bits):
            a[:, games] = 0
        self.moved[:, :, games] = 0
        self.voids[games] = 0
        for a in (self.captured, self.captured_cells, self.penalty_taken, self.clean_tricks):
            a[:, games] = 0
        self.dealer[games] = dealers
        self.eldest[games] = (dealers + 1) % self.n
        self.direction[games] = directions
        self.pass_offset[games] = self.dir_offsets[directions]
        passes = self.dir_passes[directions]
        self.pass_count[games] = passes
        self.count_cells[games] = passes  # and no trick played
        for a in (self.picked, self.in_trick, self.tricks, self.led):
            a[games] = 0
        self.phase[games] = PASSING
        self.flag_bits[games] = self.encoder.phase_receiver_bits[PASSING * self.n + self.pass_offset[games] * (passes > 0)]
        self.dealer_leader[games] = dealers * ((self.n + 1) * self.n)  # no trick on
        self.to_act[games] = self.eldest[games]
        holds = games[passes == 0]
        if holds.size:
            self._after_passing(holds)

    def _move_passes(self, games: np.ndarray) -> None:
        """Every player of these games has passed: the cards move now, and only now."""
        n, N = self.n, self.num_envs
        src = (np.arange(n)[:, None] - self.pass_offset[games]) % n  # receiver r gets the cards of r - offset
        got = np.take(self.moved[0].reshape(-1), src * N + games)
        self.received[:, games] = got
        self.hands[:, games] |= got
        self._after_passing(games)

    def _after_passing(self, games: np.ndarray) -> None:
        """The cards have moved (or the deal holds): play begins."""
        self.phase[games] = PLAYING
        self.flag_bits[games] ^= self._phase_mask
        if self.rules.first_lead.startswith("lowest_club"):
            leader = np.argmax((self.hands[:, games] & self.lowest_club) != 0, axis=0)
        else:
            leader = self.eldest[games]
        self.leader[games] = leader
        self.to_act[games] = leader

    def _finish_tricks(self, games: np.ndarray) -> np.ndarray:
        """Score the complete tricks of ``games``; returns the games whose deal is over."""
        N = self.num_envs
        if games.size == N:  # all games end a trick together (deals of one length stay in step): views, not copies
            games = slice(None)
            idx_games = self._g
        else:
            idx_games = games
        ids = _card_ids(self.trick_bits[:, games]).astype(np.intp)  # every seat has played
        suits = _SUIT[ids]
        key = np.where(suits == self.led[games], ids, -1)
        if self.rules.trumps == "hearts":
            key = np.where(suits == HEARTS, ids + 100, key)
        winner = np.zeros(key.shape[1], dtype=np.int64)  # first highest key, as argmax (a pass over rows is cheaper)
        best = key[0]
        for r in range(1, self.n):
            winner = np.where(key[r] > best, r, winner)
            best = np.maximum(best, key[r])
        vals = self.values[ids]
        idx = winner * N + idx_games
        self.captured.reshape(-1)[idx] += vals.sum(axis=0)
        if self._penalty_apart:
            self.penalty_taken.reshape(-1)[idx] += np.maximum(vals, 0).sum(axis=0)
        if self._count_clean:
            self.clean_tricks.reshape(-1)[idx] += (vals == 0).all(axis=0)
        self.captured_cells.reshape(-1)[idx] = number_cells(self.captured.reshape(-1)[idx])
        self.tricks[games] += 1
        self.count_cells[games] += 1 << 8
        self.in_trick[games] = 0
        self.flag_bits[games] &= ~self._led_mask
        self.dealer_leader[games] = self.dealer[games] * ((self.n + 1) * self.n)
        self.trick_bits[:, games] = 0
        self.leader[games] = winner
        self.to_act[games] = winner
        return idx_games[self.tricks[games] == self.hand_size]

    def _finish_deals(self, games: np.ndarray, last_actor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Score and re-deal the games whose last trick was just taken; returns their scores and rewards ``[games, n]``."""
        penalty = self.penalty_taken if self._penalty_apart else self.captured
        scores = deal_scores(self.rules, self.captured[:, games], penalty[:, games],
                             self.clean_tricks[:, games], self.penalty_total)
        rewards = deal_rewards(self.rules, scores, self.reward_mode, self.normalise)
        if self.keep_final:
            s = self._arrays(games)
            s["flag_bits"] = s["flag_bits"] & ~self._phase_mask  # phase "done": neither phase bit
            s["to_act"] = self._final_seats(games, last_actor)
            s["legal"] = np.zeros(games.size, dtype=np.uint64)
            self.final_obs[games] = self.encoder.encode(s)[0]
        self.deal_number[games] += 1
        dealers = (self.dealer[games] + 1) % self.n
        self._start_deals(games, dealers, self._draw_directions(self.deal_number[games]))
        return scores.T, rewards.T

    def _compute_legal(self) -> None:
        """The legal set of the acting seat of every game (``docs/rules.md``, as :class:`~bm_env.engine.deal.Deal`)."""
        N = self.num_envs
        self._own = self.to_act * N + self._g  # flat index of the acting seat in per-seat arrays
        hand = self.hands.reshape(-1)[self._own]
        passing = self.phase == PASSING
        if not passing.any():
            self.legal = self._play_legal(hand)
        elif passing.all():
            self.legal = self._pass_legal(hand)
        else:
            self.legal = np.where(passing, self._pass_legal(hand), self._play_legal(hand))

    def _pass_legal(self, hand: np.ndarray) -> np.ndarray:
        if not self.no_pass:
            return hand
        allowed = hand & ~self.no_pass
        return np.where(allowed != 0, allowed, hand)

    def _play_legal(self, hand: np.ndarray) -> np.ndarray:
        following = self.in_trick > 0
        # Games dealt together lead and follow in step: most often one of the two is not needed.
        if following.all():
            play_legal = self._follow_legal(hand)
        elif following.any():
            play_legal = np.where(following, self._follow_legal(hand), self._lead_legal(hand, self.tricks == 0))
        else:
            play_legal = self._lead_legal(hand, self.tricks == 0)
        if self.rules.first_trick_no_points:
            first = self.tricks == 0
            # A first lead that names its card (the lowest club) is exempt, as in the reference.
            restricted = first & following if self.rules.first_lead == "lowest_club" else first
            clean = play_legal & ~self.penalty_mask
            play_legal = np.where(restricted & (clean != 0), clean, play_legal)
        return play_legal

    def _follow_legal(self, hand: np.ndarray) -> np.ndarray:
        follow = hand & self.suit_masks[self.led]
        return np.where(follow != 0, follow, hand)

    def _lead_legal(self, hand: np.ndarray, first: np.ndarray) -> np.ndarray:
        lead_legal = self._hearts_rule(hand, hand)
        lead = self.rules.first_lead
        if lead == "lowest_club":
            lead_legal = np.where(first, self.lowest_club, lead_legal)
        elif lead == "lowest_club_any_club":
            lead_legal = np.where(first, hand & np.uint64(_CLUBS), lead_legal)
        elif lead == "eldest_non_heart":
            non_hearts = hand & ~_HEARTS
            lead_legal = np.where(first, self._hearts_rule(hand, np.where(non_hearts != 0, non_hearts, hand)), lead_legal)
        return lead_legal

    def _hearts_rule(self, hand: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Remove heart leads while hearts are unbroken, where the rules say so."""
        if self.rules.hearts_lead == "any_time":
            return legal
        non_hearts = legal & ~_HEARTS
        keep = ((self.flag_bits & self._broken_bit) != 0) | (non_hearts == 0)
        if self.rules.lead_hearts_with_queen_only:
            keep |= (hand & ~(_HEARTS | np.uint64(1 << QUEEN_SPADES))) == 0
        return np.where(keep, legal, non_hearts)
