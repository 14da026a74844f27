"""The vector engine of the extension rule systems: a step for games that drift apart, and the hook points where
the kernels of the systems in use (:mod:`bm_env.vector.kernel`) play their part.

:func:`~bm_env.vector.make_engine` builds an :class:`ExtendedEngine` when a system with a vector kernel is in
use (charging, kitties, scatter and optional passes, the moon choice and the sun, ``queen_when_safe``, the 10♣,
Booster Nines, teams, two decks); the classic presets keep the base class. Why two classes: the base class's
step, trick ends, legal moves and scores are tuned for games that pass and play in step, in two phases, one
card a seat per trick at fixed card values. The systems break each of these (one player charges two cards,
another none; the kitty's taker discards; a boosted trick takes a round more, to which a seat plays twice; a
charge doubles card values in one game; cards are held twice), so they need other versions of exactly those
methods rather than additions inside them: one class would carry both versions, picked by a test at the top
of each. Here a step serves every phase present: cards played by masks over the whole batch (the common
decision, as in the base class), passing and the systems' own phases on the games in that phase only, which
are few. Tricks are read a suit at a time (:mod:`~bm_env.vector.suit_chunks`), whatever the cards on them.

What this engine keeps beyond the base class, per game: the cards each seat passed per receiver (a pass can
go to several receivers, or further on), every card on the trick, the lowest club dealt, the last trick's
winner, the penalty points in play and the moon's shooter with what the shot is worth. The rest is the
systems' own, held by their kernels (and read by name as the engine's: ``engine.kitty``), and cards move
through the engine's card-set operations (:mod:`~bm_env.vector.card_sets`), which two decks replace. The
rules are those of :class:`~bm_env.engine.deal.Deal`, which the differential tests hold this engine to, step
by step.
"""

from __future__ import annotations

import numpy as np

from ..engine.actions import action_str
from ..engine.cards import CLUBS, HEARTS, NUM_CARDS, NUM_RANKS, SUIT_MASKS, cards_of
from ..engine.deal import IllegalActionError
from .card_sets import CardSets
from .deals import DealSource
from .encoder import number_cells
from .engine import PASSING, PLAYING, VectorEngine
from .feature_encoder import FeatureEncoder, PHASE_CODES
from .kernel import Hooks, Kernel, kernels_for
from .scoring import deal_rewards, unit_scores
from .suit_chunks import chunk_table, first_highest, highest_of_suit, mask_sum

DONE = PHASE_CODES.index("done")
_HELD = len(PHASE_CODES)  # the phase an advance() gives, for that step, the games it leaves out
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_CLUBS = np.uint64(SUIT_MASKS[CLUBS])
#: By action id (extras included, whose entries are never used): its suit.
_SUIT = np.minimum(np.arange(64) // NUM_RANKS, 3)


class ExtendedEngine(VectorEngine):
    """:class:`~bm_env.vector.engine.VectorEngine` for rules with extension systems (see the module docstring)."""

    plays_extensions = True

    def _read_rules(self, rules) -> None:
        #: The kernels of the systems in use, in the registry's order, and their hooks by hook point.
        self.kernels: tuple[Kernel, ...] = kernels_for(rules)
        self.hooks = Hooks(self.kernels)
        self._holders = {name: k for k in self.kernels for name in k.state_arrays}
        self.card_sets = next((k.card_sets for k in self.kernels if k.card_sets is not None), CardSets())
        super()._read_rules(rules)
        self.num_actions = rules.num_actions
        values = rules.card_values
        self.value_table = chunk_table(values)
        self.penalty_table = chunk_table([max(v, 0) for v in values])
        self.valued_mask = np.uint64(sum(1 << c for c, v in enumerate(values) if v))
        self.base_penalty_total = self.penalty_total * self.card_sets.copies  # every copy in play, a kitty's included
        self._break_bits = np.concatenate([self._break_bits, np.zeros(64 - NUM_CARDS, dtype=np.uint64)])
        phases = {PHASE_CODES.index(name): phase for k in self.kernels for name, phase in k.phases.items()}
        # By phase code, in order: the games ending their deal in a step are dealt again in this order.
        steps = {PASSING: ExtendedEngine._pass_step, **{code: phase.step for code, phase in phases.items()}}
        self._steps = tuple(sorted(steps.items()))
        self._legal_rules = tuple(sorted((code, phase.legal) for code, phase in phases.items()))
        self._verbs = {PASSING: "pass", PLAYING: "play", **{code: phase.verb for code, phase in phases.items()}}
        self._play_rules = self.hooks.play_filter + self.hooks.play_compel  # filters, then a card compelled
        self._plays_again = any(k.plays_again for k in self.kernels)

    def _new_encoder(self, rules) -> FeatureEncoder:
        return FeatureEncoder(rules, self.kernels)

    def _pass_table(self, rules) -> tuple[np.ndarray, np.ndarray]:
        table = self.hooks.pass_table
        return table(self) if table else super()._pass_table(rules)

    def _deal_source(self, rng: np.random.Generator, block: int) -> DealSource:
        leftover = any(k.deals_leftover for k in self.kernels)
        return DealSource(self.rules, rng, block, copies=self.card_sets.copies, leftover=leftover)

    def _allocate_state(self) -> None:
        super()._allocate_state()
        n, N = self.n, self.num_envs
        self.sent = np.zeros((n - 1, n, N), dtype=np.uint64)  # [r - 1, seat]: the cards seat passed r seats left
        self.trick_all = np.zeros(N, dtype=np.uint64)  # every card on the trick
        self.lowest_club = np.zeros(N, dtype=np.uint64)  # the lowest club dealt to the players
        self.last_winner = np.full(N, -1, dtype=np.int64)
        self.deal_penalty = np.full(N, self.base_penalty_total, dtype=np.int32)  # penalty points in play
        self.shooter, self.shot_total = np.full(N, -1, dtype=np.int64), np.zeros(N, dtype=np.int32)
        for allocate in self.hooks.allocate:
            allocate(self)
        self._STATE_ARRAYS = VectorEngine._STATE_ARRAYS + (
            "sent", "trick_all", "lowest_club", "last_winner", "deal_penalty", "shooter", "shot_total",
        ) + tuple(name for k in self.kernels for name in k.state_arrays)

    def _holder_of(self, name: str) -> object:
        return self._holders.get(name, self)

    def __getattr__(self, name: str):
        """A system's state array, read by name as the engine's own (``engine.kitty``): its kernel holds it."""
        holders = self.__dict__.get("_holders", {})  # (none yet in a copy being made: no recursion)
        if name in holders:
            return getattr(holders[name], name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ stepping

    def advance(self, actions, active: np.ndarray | None = None):
        """One decision in every game (or in the ``active`` ones): a card passed, played or discarded, or an extra
        decision. Returns what :meth:`VectorEngine.advance` returns; the masks have ``rules.num_actions`` cells.
        """
        N, n = self.num_envs, self.n
        active = self._check_active(active)
        c, bit = self._legal_bits(actions, active)
        me = self.to_act.copy()
        own = self._own
        phase = self.phase.copy()
        if active is not None:
            phase[~active] = _HELD  # no phase's step takes them
        card = np.where(c < NUM_CARDS, bit, _ZERO)  # the card that moves, if the action is one
        self.card_sets.leave_hand(self.hands, own, card)  # passed, played and discarded cards leave the hand
        playing = phase == PLAYING
        all_playing = playing.all()
        ended = []  # (games, subtract) of the deals that end with this step
        if not all_playing:
            present = np.bincount(phase, minlength=_HELD + 1)
            for code, step in self._steps:
                if present[code]:
                    games = np.flatnonzero(phase == code)
                    out = step(self, games, c[games], card[games], me[games])
                    if out is not None:
                        ended.append(out)
        if all_playing or playing.any():
            trick_over = self._play_step(c, card, me, own, playing, all_playing)
            if trick_over.any():
                over = self._finish_tricks(np.flatnonzero(trick_over))
                if over.size:
                    out = self._tricks_over(over)
                    if out is not None:
                        ended.append(out)
        rewards = np.zeros((N, n), dtype=np.float32)
        final_scores = np.zeros((N, n), dtype=np.int32)
        done = np.zeros(N, dtype=bool)
        for games, subtract in ended:
            scores, deal_rewards_ = self._end_deals(games, me[games], subtract)
            final_scores[games], rewards[games], done[games] = scores, deal_rewards_, True
        self._compute_legal()
        return rewards, done, final_scores

    def _play_step(self, c, card, me, own, playing, all_playing) -> np.ndarray:
        """Cards played in the ``playing`` games; returns the games whose trick is complete."""
        n = self.n
        played = card if all_playing else card * playing
        self.card_sets.play(self.moved[1], self.trick_all, own, played)
        if self._plays_again:
            self.trick_bits.reshape(-1)[own] |= played
        else:  # nobody has a card on a trick before playing to it (and no game that does not play has a trick on)
            self.trick_bits.reshape(-1)[own] = played
        suit = _SUIT[c]
        leading = self.in_trick == 0
        if not all_playing:
            leading &= playing
        if leading.any():
            self.led = np.where(leading, suit, self.led)
            self.flag_bits |= self.encoder.led_bits[suit] * leading
            self.dealer_leader += (me + 1) * n * leading
            for on_lead in self.hooks.on_lead:
                on_lead(self, leading, suit)
        renounce = suit != self.led
        if not all_playing:
            renounce &= playing
        if renounce.any():
            self.voids |= self._void_bits[me * 4 + self.led] * renounce
        self.flag_bits |= self._break_bits[c] * playing
        self.in_trick += playing
        rule = self.hooks.trick_complete
        complete = rule(self, playing, c, suit, me) if rule else playing & (self.in_trick == n)
        self.to_act = np.where(playing & ~complete, self._next_seat[me], self.to_act)
        return complete

    def _pass_step(self, games, c, card, me):
        """Pass picks (or another pass decision) in ``games``; once every player has passed, the cards move."""
        n, N = self.n, self.num_envs
        flat = me * N + games
        offset = self.pass_offset[games]
        for receivers in self.hooks.pick_receivers:
            offset = receivers(self, games, offset)
        self.card_sets.pass_card(self.moved[0], self.sent, flat, (offset - 1) * (n * N) + flat, card)
        pick = c < NUM_CARDS  # else a decision that is no card, and the turn is over
        if not pick.all():
            for decided in self.hooks.pass_decision:
                decided(self, games, ~pick, me)
        picked = self.picked[games] + pick
        over = ~pick | (picked == self.pass_count[games])
        self.picked[games] = np.where(over, 0, picked)
        nxt = self._next_seat[me]
        last = over & (nxt == self.eldest[games])
        self.to_act[games] = np.where(over & ~last, nxt, me)
        if last.any():
            self._move_passes(games[last])

    def _move_passes(self, games: np.ndarray) -> None:
        """Every player of these games has passed: the cards move now, and only now."""
        route = self.hooks.route_passes
        received = route(self, games) if route else self._to_receivers(games)
        self.card_sets.receive(self.hands, self.received, games, received)
        self._after_passing(games)

    def _to_receivers(self, games: np.ndarray) -> list[np.ndarray]:
        """The planes of the cards each seat of ``games`` receives: the stack of the seat the direction names."""
        src = (np.arange(self.n)[:, None] - self.pass_offset[games]) % self.n  # receiver r gets the cards of r - offset
        cols = np.arange(games.size)
        return [picks[src, cols] for picks in self.card_sets.picks(self.moved[0], games)]

    def _after_passing(self, games: np.ndarray) -> None:
        """The cards have moved (or the deal holds): a system's phase begins, or the play."""
        for start in self.hooks.after_passing:
            games = games[~start(self, games)]
        if games.size:
            self._start_play(games)

    # ------------------------------------------------------------------ tricks and deal ends

    def _finish_tricks(self, games: np.ndarray) -> np.ndarray:
        """Score the complete tricks of ``games``; returns the games whose tricks are all played."""
        n, N = self.n, self.num_envs
        tb = self.trick_bits[:, games]
        rule = self.hooks.trick_winner
        winner = rule(self, games, tb) if rule else first_highest(self._trick_keys(tb, self.led[games]))[0]
        cards = self.trick_all[games]
        self.tricks[games] += 1
        self.count_cells[games] += 1 << 8
        self.in_trick[games] = 0
        self.flag_bits[games] &= ~self._led_mask
        self.dealer_leader[games] = self.dealer[games] * ((n + 1) * n)
        self.trick_bits[:, games] = 0
        self.trick_all[games] = 0
        for end in self.hooks.trick_end:
            end(self, games)
        take = self.hooks.take_trick
        if take:
            games, winner, pen, over = take(self, games, winner, cards)
        else:
            pen = self._collect(games, winner, (cards,), 1, (cards & self.valued_mask) == 0)
            over = self.hands.reshape(-1)[winner * N + games] == 0
        self.leader[games] = winner
        self.to_act[games] = winner
        self.last_winner[games] = winner
        for won in self.hooks.trick_won:
            won(self, games, winner, pen, over)
        return games[over]

    def _trick_keys(self, tb: np.ndarray, led: np.ndarray) -> np.ndarray:
        """``[seats, games]``: what each seat's cards ``tb`` rank for winning the trick, the first highest winning:
        the highest card of the led suit, a trump above any (-1: neither)."""
        return self._with_trumps(tb, highest_of_suit(tb, led))

    def _with_trumps(self, tb: np.ndarray, key: np.ndarray) -> np.ndarray:
        """``key`` with a seat's highest trump (``trumps="hearts"``) above any other card, where it played one."""
        if self.rules.trumps != "hearts":
            return key
        trump = highest_of_suit(tb, HEARTS)
        return np.where(trump >= 0, trump + 100, key)

    def _collect(self, games, seats, planes, tricks, clean, face_down=False) -> np.ndarray:
        """``seats`` take the cards of ``planes`` (the cards once, then twice with two decks) as ``tricks`` tricks,
        of which ``clean`` have no valued card (``face_down``: the kitty's taker takes face-down cards): their
        points. Returns the penalty points taken."""
        pts = mask_sum(self.value_table, planes[0])
        pen = mask_sum(self.penalty_table, planes[0])
        for more in planes[1:]:
            pts += mask_sum(self.value_table, more)
            pen += mask_sum(self.penalty_table, more)
        for extra in self.hooks.card_points:
            more_pts, more_pen = extra(self, games, planes[0])
            pts += more_pts
            pen += more_pen
        idx = seats * self.num_envs + games
        captured = self.captured.reshape(-1)
        captured[idx] += pts.astype(np.int16)
        self.penalty_taken.reshape(-1)[idx] += pen.astype(np.int16)
        self.captured_cells.reshape(-1)[idx] = number_cells(captured[idx])
        for taken in self.hooks.collected:
            taken(self, games, seats, idx, planes[0], pts, tricks, face_down)
        if self._count_clean:
            self.clean_tricks.reshape(-1)[idx] += clean
        return pen

    def _take_points(self, games: np.ndarray, seats: np.ndarray, planes) -> None:
        """Face-down cards taken outside a trick (a kitty, discards)."""
        self._collect(games, seats, planes, 0, 0, face_down=True)

    def _tricks_over(self, games: np.ndarray):
        """Every trick of ``games`` is played: the moon; returns the deals that end now (and no shooter's
        choice), or None when every one waits for a system's phase."""
        for after in self.hooks.after_tricks:
            after(self, games)
        shooter, total = self._shooters(games)
        self.shooter[games] = shooter
        self.shot_total[games] = total
        for wait in self.hooks.before_scoring:
            games = games[~wait(self, games)]
        if not games.size:
            return None
        return games, np.zeros(games.size, dtype=bool)

    def _shooters(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Position of each game's moon shooter, -1 where none, and what the shot is worth (as
        :func:`bm_env.systems.moon.moon_shooter`)."""
        shooter = np.full(games.size, -1, dtype=np.int64)
        total = self.deal_penalty[games].astype(np.int32)
        if self.rules.moon == "off":
            return shooter, total
        taken = self.penalty_taken[:, games].astype(np.int32)
        hit = taken == total
        for hits in self.hooks.moon_hits:
            hit = hits(self, taken, total, hit)
        hit &= total > 0
        shooter = np.where(hit.any(axis=0), np.argmax(hit, axis=0), -1)
        for shot in self.hooks.shot:
            shooter, total = shot(self, games, shooter, total)
        return shooter, total

    def _end_deals(self, games: np.ndarray, last_actor: np.ndarray, subtract: np.ndarray):
        """Score and re-deal ``games``; returns their scores and rewards ``[games, n]``."""
        scores = self._deal_scores(games, subtract)
        shared = scores
        for share in self.hooks.reward_scores:
            shared = share(self, shared)
        rewards = deal_rewards(self.rules, shared, self.reward_mode, self.normalise)
        if self.keep_final:
            s = self._arrays(games)
            s["flag_bits"] = s["flag_bits"] & ~self._phase_mask  # phase "done": no phase cell
            s["phase"] = np.full(games.size, DONE)
            if "public_cells" in s:  # the deal is scored: every point is public
                s["public_cells"] = s["captured_cells"]
            s["to_act"] = self._final_seats(games, last_actor)
            s["legal"] = np.zeros(games.size, dtype=np.uint64)
            self.final_obs[games] = self.encoder.encode(s)[0]
        self.deal_number[games] += 1
        dealers = (self.dealer[games] + 1) % self.n
        self._start_deals(games, dealers, self._draw_directions(self.deal_number[games]))
        return scores.T, rewards.T

    def _deal_scores(self, games: np.ndarray, subtract: np.ndarray) -> np.ndarray:
        """Scores ``[n, games]`` of the deals of ``games``, whose tricks are played (``subtract``: each shooter's
        choice)."""
        scores = (self.captured[:, games].astype(np.int32)
                  + self.rules.clean_trick_bonus * self.clean_tricks[:, games].astype(np.int32))
        penalty = self.penalty_taken[:, games].astype(np.int32)
        shooter = self.shooter[games]
        shooters = np.arange(self.n)[:, None] == shooter
        multipliers = None
        for multiply in self.hooks.multipliers:
            more = multiply(self, games)
            multipliers = more if multipliers is None else multipliers * more
        for units in self.hooks.scoring_units:
            scores, penalty, shooters, multipliers = units(self, scores, penalty, shooters, multipliers)
        return unit_scores(self.rules, scores, penalty, shooter, shooters, self.shot_total[games], subtract,
                           multipliers)

    # ------------------------------------------------------------------ dealing

    def _start_deals(self, games, dealers, directions, hands=None) -> None:
        rows = self._source.take(games.size) if hands is None else hands
        n = self.n
        self.sent[..., games] = 0
        self.trick_all[games] = 0
        self.last_winner[games] = -1
        self.shooter[games] = -1
        self.deal_penalty[games] = self.base_penalty_total
        held = np.bitwise_or.reduce(rows[:, :n], axis=1)
        low = held & _CLUBS
        self.lowest_club[games] = low & (~low + _ONE)  # Pagat: the lowest club dealt leads (a kitty's apart)
        hand_columns = n * self.card_sets.copies
        self.card_sets.deal(games, rows[:, :hand_columns])
        super()._start_deals(games, dealers, directions, rows[:, :n])
        for start in self.hooks.start_deals:
            start(self, games, rows[:, hand_columns:], directions)

    def _start_play(self, games: np.ndarray) -> None:
        """The play of ``games`` begins: the first leader leads."""
        self._set_phase(games, PLAYING)
        if self.rules.first_lead.startswith("lowest_club"):
            holds = (self.hands[:, games] & self.lowest_club[games]) != 0
            leader = np.argmax(holds, axis=0)
        else:
            leader = self.eldest[games]
        self.leader[games] = leader
        self.to_act[games] = leader

    def _give_turn(self, games: np.ndarray, seats: np.ndarray) -> None:
        """``seats`` act next in ``games``."""
        self.to_act[games] = seats

    def _set_phase(self, games: np.ndarray, code: int) -> None:
        """``games`` enter the phase ``code`` (:data:`~bm_env.vector.feature_encoder.PHASE_CODES`)."""
        self.phase[games] = code
        self.flag_bits[games] = (self.flag_bits[games] & ~self._phase_mask) | self.encoder.phase_bits[code]

    # ------------------------------------------------------------------ legal actions

    def _compute_legal(self) -> None:
        N = self.num_envs
        self._own = self.to_act * N + self._g
        hand = self.hands.reshape(-1)[self._own]
        phase = self.phase
        playing = phase == PLAYING
        if playing.all():
            self.legal = self._systems_play_legal(hand)
            return
        legal = self._systems_play_legal(hand) if playing.any() else np.zeros(N, dtype=np.uint64)
        present = np.bincount(phase, minlength=len(PHASE_CODES))
        if present[PASSING]:
            games = np.flatnonzero(phase == PASSING)
            legal[games] = self._systems_pass_legal(games, hand[games])
        for code, rule in self._legal_rules:
            if present[code]:
                games = np.flatnonzero(phase == code)
                legal[games] = rule(self, games, hand[games])
        self.legal = legal

    def _systems_pass_legal(self, games: np.ndarray, hand: np.ndarray) -> np.ndarray:
        """The pass rules of the base engine, then the systems' filters."""
        legal = self._pass_legal(hand)
        for rule in self.hooks.pass_legal:
            legal = rule(self, games, legal)
        return legal

    def _systems_play_legal(self, hand: np.ndarray) -> np.ndarray:
        """The play rules of the base engine, then the systems' filters, then a card they compel."""
        legal = self._play_legal(hand)
        if self._play_rules:
            following = self.in_trick > 0
            for rule in self._play_rules:
                legal = rule(self, hand, legal, following)
        return legal

    # ------------------------------------------------------------------ checks and views

    def settled_scores(self) -> tuple[np.ndarray, np.ndarray]:
        """``(settled, scores)`` as :meth:`VectorEngine.settled_scores`: no game is settled before its end here (a
        charge, a kitty, a moon choice can still move the points)."""
        N = self.num_envs
        return np.zeros(N, dtype=bool), np.zeros((N, self.n), dtype=np.int32)

    def _check_hands(self, hands, kitty) -> np.ndarray:
        """Given deals as rows of the deal source: the hands (and the cards held twice), the leftover cards."""
        N, n, copies = self.num_envs, self.n, self.card_sets.copies
        rows = self.card_sets.given_hands(hands, N, n)
        take = self.hooks.given_leftover
        if take is not None:
            rows = np.concatenate([rows, take(self, kitty)], axis=1)
        elif kitty is not None:
            raise ValueError("these rules have no kitty (kitty='none'); give only the hands")
        bits = np.unpackbits(rows.view(np.uint8).reshape(N, -1, 8), axis=2, bitorder="little").astype(np.int64)
        held = bits.sum(axis=1)[:, :NUM_CARDS]
        deck = np.array([copies * (self.deck >> c & 1) for c in range(NUM_CARDS)])
        sizes = bits[:, :n * copies].reshape(N, copies, n, -1).sum(axis=(1, 3))
        ok = (held == deck).all(axis=1) & (sizes == self.hand_size).all(axis=1)
        for j in range(1, copies):  # a card held twice is held
            ok &= ((rows[:, j * n:(j + 1) * n] & ~rows[:, (j - 1) * n:j * n]) == 0).all(axis=1)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise ValueError(f"game {i}: hands and kitty do not deal the {n}-player deck ({copies} deck(s)) into "
                             f"{n} hands of {self.hand_size} cards and a kitty of {self.rules.kitty_size()}")
        return rows

    def _arrays(self, games: np.ndarray | None = None) -> dict:
        s = super()._arrays()
        s["sent"], s["phase"] = self.sent, self.phase
        for arrays in self.hooks.arrays:
            s.update(arrays(self))
        if games is not None:
            s = {k: v[..., games] for k, v in s.items()}
        return s

    @property
    def _action_ids(self) -> str:
        return f"action ids 0..{self.num_actions - 1}"

    def _raise_illegal(self, game: int, c: int) -> None:
        if not 0 <= c < self.num_actions:
            raise IllegalActionError(f"game {game}: action {c} is outside the action space 0..{self.num_actions - 1}")
        legal = cards_of(int(self.legal[game]))
        raise IllegalActionError(
            f"game {game}: player_{int(self.to_act[game])} may not {self._verbs[int(self.phase[game])]} "
            f"{action_str(c)}; legal: {', '.join(action_str(x) for x in legal)}"
        )

    def state(self) -> dict[str, np.ndarray]:
        out = super().state()
        out["moon_shooter"] = self.shooter.copy()
        for view in self.hooks.state:
            out.update(view(self))
        return out

    def cards_apart(self, st: dict[str, np.ndarray]) -> np.ndarray:
        return np.concatenate([super().cards_apart(st)] + [apart(self, st) for apart in self.hooks.cards_apart], axis=1)
