"""The vector engine for the extension rule systems: extra decisions, kitties, boosts, teams, two decks.

:func:`~bm_env.vector.make_engine` builds an :class:`ExtendedEngine` when the rules use one of
those options (``Rules.uses_extensions``); the classic presets keep the base class, whose
step is tuned for games that pass and play in step. Here games drift apart at once (one
player charges two cards, another none; a boosted trick takes a round more; the kitty's
taker discards), so a step serves every phase present: cards played by masks over the
whole batch (the common decision, as in the base class), passing, charging, discarding
and the moon choice on the games in that phase only, which are few.

What the engine keeps beyond the base class, per game: the cards each seat passed per
receiver (a scatter pass has several, passing on sends a stack further); who passed on;
the charged cards (per seat, and as one word of bits for the observation), the suits led
so far and the cards whose value a charge doubled; the 10♣'s taker; the boosts owed and
the trick's length; the kitty, its taker and the taker's discards, and the points of these
face-down cards (the taker's alone until the deal is scored); the tricks each seat
won (the sun); the moon's shooter. With two decks (Cancellation) every card set has a
second mask of the cards held twice, and a trick whose led-suit cards all cancel waits
on the table (``pending``) for the next winner. The rules are those of
:class:`~bm_env.engine.deal.Deal`, which the differential tests hold this engine to, step by step.
"""

from __future__ import annotations

import numpy as np

from ..engine.actions import (CHARGE_CARD, CHARGE_DONE, CHARGE_IDS, CHARGEABLE, MOON_ADD, MOON_SUBTRACT, PASS_ON,
                             action_str)
from ..engine.cards import (ACE_HEARTS, ACE_SPADES, CLUBS, HEARTS, JACK_DIAMONDS, KING_SPADES, NUM_CARDS, NUM_RANKS,
                            QUEEN_SPADES, SPADES, SUIT_MASKS, TEN_CLUBS, cards_of)
from ..engine import checks
from ..engine.deal import IllegalActionError
from ..engine.rules import SCATTER, Rules, partner_of, scatter_offsets
from .encoder import number_cells
from .engine import PASSING, PLAYING, VectorEngine
from .feature_encoder import FeatureEncoder, PHASE_CODES
from .scoring import deal_rewards, unit_scores

CHARGING, DISCARDING, CHOOSING, DONE = (PHASE_CODES.index(p) for p in ("charge", "discard", "moon", "done"))
_HELD = len(PHASE_CODES)  # the phase an advance() gives, for that step, the games it leaves out
_U = np.uint64
_ZERO = _U(0)
_ONE = _U(1)
_CHUNK = _U((1 << NUM_RANKS) - 1)  # the 13 cards of a suit, shifted down to bits 0..12
_SUIT_SHIFTS = [_U(NUM_RANKS * s) for s in range(4)]
_CLUBS = _U(SUIT_MASKS[CLUBS])
_HEARTS = _U(SUIT_MASKS[HEARTS])
#: By action id (extras included, whose entries are never used): its suit, whether it is a nine.
_SUIT = np.minimum(np.arange(64) // NUM_RANKS, 3)
_NINE = (np.arange(64) % NUM_RANKS == 7) & (np.arange(64) < NUM_CARDS)
#: Highest rank present in a suit's 13-bit chunk (-1: none).
_HIGHEST = np.array([x.bit_length() - 1 for x in range(1 << NUM_RANKS)], dtype=np.int64)
_MOON_BITS = _U((1 << MOON_SUBTRACT) | (1 << MOON_ADD))
_HIGH_SPADES = _U((1 << ACE_SPADES) | (1 << KING_SPADES))
_QS = _U(1 << QUEEN_SPADES)


def _chunk_table(values) -> np.ndarray:
    """``[4 * 8192]``: the sum of ``values`` over the cards of each 13-bit chunk of each suit."""
    ranks = (np.arange(1 << NUM_RANKS)[:, None] >> np.arange(NUM_RANKS)) & 1
    return np.concatenate([ranks @ np.array(values[NUM_RANKS * s:NUM_RANKS * (s + 1)], dtype=np.int64)
                           for s in range(4)]).astype(np.int32)


def _add_copies(once: np.ndarray, twice: np.ndarray, more: np.ndarray, more_twice: np.ndarray):
    """Two decks: the masks (at least once, twice) of a card set after adding another; no card
    has more than two copies, so a card is there twice if it was, if it comes twice, or once each."""
    return once | more, twice | more_twice | (once & more)


def _mask_sum(table: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The sum of a card table over the cards of each mask (four lookups, one per suit)."""
    out = table[(masks & _CHUNK).astype(np.int64)]
    for s in range(1, 4):
        out = out + table[((masks >> _SUIT_SHIFTS[s]) & _CHUNK).astype(np.int64) + (s << NUM_RANKS)]
    return out


class ExtendedEngine(VectorEngine):
    """:class:`~bm_env.vector.engine.VectorEngine` for rules with extension options (see the module docstring)."""

    _encoder_class = FeatureEncoder
    plays_extensions = True

    def __init__(self, rules: Rules, batch_size: int, reward: str = "score", normalise: bool = False,
                 seed: int | None = None, final_observations: bool = False) -> None:
        super().__init__(rules, batch_size, reward, normalise, seed, final_observations)
        n, N = self.n, self.num_envs
        self.num_actions = rules.num_actions
        self.decks = rules.decks
        self.kitty_size = rules.kitty_size()
        self._charging = rules.charging
        self._booster = rules.booster_nines
        self._to_hand = rules.kitty_to_hand
        self._first_point = rules.kitty == "first_point"
        values = rules.card_values
        self._value_table = _chunk_table(values)
        self._penalty_table = _chunk_table([max(v, 0) for v in values])
        self.valued_mask = _U(sum(1 << c for c, v in enumerate(values) if v))
        self.base_penalty_total = self.penalty_total * self.decks  # every copy in play, the kitty's included
        self.dir_scatter = np.array([d == SCATTER for d in rules.pass_cycle])
        offsets = scatter_offsets(n, rules.passes_for()) if self.dir_scatter.any() else None
        self.pick_offsets = np.array(offsets or (0,), dtype=np.int64)  # scatter: receiver offset of the i-th pick
        # Per seat s: its bit in a word of seat bits kept twice (n apart), so that one right shift
        # by the observer lists the seats from the observer's left.
        self._seat_bits = np.array([(1 << s) | (1 << s + n) for s in range(n)], dtype=np.uint64)
        if self._charging:  # (at most 7 players: charging is a one-deck rule)
            self._charge_bits = np.array([[(1 << 4 * s + j) | (1 << 4 * s + j + 4 * n) for j in range(4)] + [0]
                                          for s in range(n)], dtype=np.uint64)  # [seat, charge id - 52]
        self._chargeable = np.array([1 << c for c in CHARGEABLE] + [0], dtype=np.uint64)  # by charge id - 52
        self._partner = partner_of(np.arange(n)) if rules.teams != "none" else None
        self._break_bits = np.concatenate([self._break_bits, np.zeros(64 - NUM_CARDS, dtype=np.uint64)])

        u64 = lambda *shape: np.zeros(shape + (N,), dtype=np.uint64)  # noqa: E731
        i64 = lambda fill=0: np.full(N, fill, dtype=np.int64)  # noqa: E731
        self.sent = u64(n - 1, n)  # [r - 1, seat]: the cards seat passed to the seat r places to its left
        self.passed_on = u64()  # seat bits of the players who passed on
        self.scatter_deal = np.zeros(N, dtype=bool)
        self.charged = u64(n)
        self.charged_word = u64()  # bit 4 * seat + j (twice, 4n apart): seat charged CHARGEABLE[j]
        self.suits_led = u64()  # the cards of every suit led so far
        self.first_of_suit = np.zeros(N, dtype=bool)  # the trick on is the first led in its suit
        self.doubled = u64()  # cards a charge made count double
        self.deal_penalty = np.full(N, self.base_penalty_total, dtype=np.int32)
        self.tc_taker, self.tc_charged = i64(-1), np.zeros(N, dtype=bool)
        self.boosts, self.trick_len = i64(), i64(n)
        self.trick_all = u64()  # every card on the trick
        self.kitty, self.discarded = u64(self.decks), u64(self.decks)
        self.kitty_taker, self.discards_left = i64(-1), i64()
        if self.kitty_size:
            # The points of the face-down cards the kitty's taker took (the kitty, its discards), its
            # own until the deal is scored; each seat's points as the others know them, as number cells.
            self.face_down_points = np.zeros(N, dtype=np.int16)
            self.public_cells = np.zeros((n, N), dtype=np.int16)
            self._STATE_ARRAYS = self._STATE_ARRAYS + ("face_down_points", "public_cells")
        self.shooter, self.shot_total = i64(-1), np.zeros(N, dtype=np.int32)
        self.tricks_won = np.zeros((n, N), dtype=np.int16)
        self.last_winner = i64(-1)
        self.lowest_club = u64()
        self.pending = u64(self.decks)  # [once, twice]: the cards of tricks left on the table (two decks)
        self._two = self.decks == 2
        if self._two:
            # The cards each seat holds, received, passed (per receiver) and played twice; the cards
            # on the trick twice (they cancel); the tricks left on the table, and how many were clean.
            self.hands_twice, self.received_twice = u64(n), u64(n)
            self.moved_twice, self.sent_twice = u64(2, n), u64(n - 1, n)
            self.trick_twice = u64()
            self.pending_tricks, self.pending_clean = i64(), i64()
            self._STATE_ARRAYS = self._STATE_ARRAYS + ("hands_twice", "received_twice", "moved_twice", "sent_twice",
                                                       "trick_twice", "pending_tricks", "pending_clean")

    _STATE_ARRAYS = VectorEngine._STATE_ARRAYS + (
        "sent", "passed_on", "scatter_deal", "charged", "charged_word", "suits_led", "first_of_suit", "doubled",
        "deal_penalty", "tc_taker", "tc_charged", "boosts", "trick_len", "trick_all", "kitty", "discarded",
        "kitty_taker", "discards_left", "shooter", "shot_total", "tricks_won", "last_winner", "lowest_club",
        "pending")

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
            phase[~active] = _HELD  # no phase's handler takes them
        card = np.where(c < NUM_CARDS, bit, _ZERO)  # the card that moves, if the action is one
        if self._two:  # one copy leaves: the second if held twice
            second = self.hands_twice.reshape(-1)[own] & card
            self.hands_twice.reshape(-1)[own] ^= second
            card_once = card ^ second
        else:
            card_once = card
        self.hands.reshape(-1)[own] ^= card_once  # passed, played and discarded cards leave the hand
        playing = phase == PLAYING
        all_playing = playing.all()
        ended = []  # (games, subtract) of the deals that end with this step
        if not all_playing:
            present = np.bincount(phase, minlength=_HELD + 1)
            for code, handle in ((PASSING, self._pass_step), (CHARGING, self._charge_step),
                                 (DISCARDING, self._discard_step), (CHOOSING, self._moon_step)):
                if present[code]:
                    games = np.flatnonzero(phase == code)
                    out = handle(games, c[games], card[games], me[games])
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
        n, N = self.n, self.num_envs
        played = card if all_playing else card * playing
        if self._two:
            self.moved_twice[1].reshape(-1)[own] |= self.moved[1].reshape(-1)[own] & played
            self.trick_twice |= self.trick_all & played
        self.moved[1].reshape(-1)[own] |= played
        if self._booster:  # a seat plays again to a boosted trick
            self.trick_bits.reshape(-1)[own] |= played
        else:  # nobody has a card on a trick before playing to it (and no game that does not play has a trick on)
            self.trick_bits.reshape(-1)[own] = played
        self.trick_all |= played
        suit = _SUIT[c]
        leading = self.in_trick == 0
        if not all_playing:
            leading &= playing
        if leading.any():
            self.led = np.where(leading, suit, self.led)
            self.flag_bits |= self.encoder.led_bits[suit] * leading
            self.dealer_leader += (me + 1) * n * leading
            if self._charging:
                cards = self.suit_masks[suit]
                self.first_of_suit = np.where(leading, (self.suits_led & cards) == 0, self.first_of_suit)
                self.suits_led |= cards * leading
        renounce = suit != self.led
        if not all_playing:
            renounce &= playing
        if renounce.any():
            self.voids |= self._void_bits[me * 4 + np.minimum(self.led, 3)] * renounce
        self.flag_bits |= self._break_bits[c] * playing
        self.in_trick += playing
        complete = playing & (self.in_trick == self.trick_len)
        nxt = self._next_seat[me]
        if self._booster:
            self.boosts += playing & _NINE[c] & (suit == self.led)  # a nine of the led suit adds a round
            more = complete & (self.boosts > 0) & (self.hands.reshape(-1)[nxt * N + self._g] != 0)
            if more.any():
                self.boosts -= more
                self.trick_len += n * more
                complete &= ~more
        self.to_act = np.where(playing & ~complete, nxt, self.to_act)
        return complete

    def _pass_step(self, games, c, card, me):
        """Pass picks (or passing on) in ``games``; once every player has passed, the cards move."""
        n, N = self.n, self.num_envs
        flat = me * N + games
        offset = self.pass_offset[games]
        if self.dir_scatter.any():
            offset = np.where(self.scatter_deal[games], self.pick_offsets[self.picked[games]], offset)
        to = (offset - 1) * (n * N) + flat
        if self._two:
            self.moved_twice[0].reshape(-1)[flat] |= self.moved[0].reshape(-1)[flat] & card
            self.sent_twice.reshape(-1)[to] |= self.sent.reshape(-1)[to] & card
        self.moved[0].reshape(-1)[flat] |= card
        self.sent.reshape(-1)[to] |= card
        pick = c < NUM_CARDS  # else PASS_ON: no card, and the turn is over
        if not pick.all():
            self.passed_on[games] |= np.where(pick, _ZERO, self._seat_bits[me])
        picked = self.picked[games] + pick
        over = ~pick | (picked == self.pass_count[games])
        self.picked[games] = np.where(over, 0, picked)
        nxt = self._next_seat[me]
        last = over & (nxt == self.eldest[games])
        self.to_act[games] = np.where(over & ~last, nxt, me)
        if last.any():
            self._move_passes(games[last])

    def _move_passes(self, games: np.ndarray) -> None:
        """Every player of these games has passed: the cards move now, and only now.

        A scatter pass sends each pick to its own receiver. Otherwise each stack goes to the
        deal's receiver, or, where that player passed on, further on in the same direction
        (back to its passer if everyone did), and the rows then show it there.
        """
        n = self.n
        k = games.size
        two = self._two
        received = np.zeros((2 if two else 1, n, k), dtype=np.uint64)  # [once, (twice)]
        scatter = self.scatter_deal[games]
        seats = np.arange(n)[:, None]
        cols = np.arange(k)
        sent = [self.sent[:, :, games]] + ([self.sent_twice[:, :, games]] if two else [])  # [r - 1, seat, game]
        if scatter.any():
            for r in range(1, n):
                got = [np.where(scatter, x[r - 1][(seats - r) % n, cols], _ZERO) for x in sent]
                if two:
                    received[0], received[1] = _add_copies(received[0], received[1], got[0], got[1])
                else:
                    received[0] |= got[0]
        plain = ~scatter
        if plain.any():
            off = self.pass_offset[games]
            on = ((self.passed_on[games] >> seats.astype(np.uint64)) & _ONE) != 0  # [seat, game]
            picks = [self.moved[0][:, games]] + ([self.moved_twice[0][:, games]] if two else [])
            for q in range(n):
                first = (q + off) % n
                final = first
                for _ in range(n - 1):
                    final = np.where(on[final, cols] & (final != q), (final + off) % n, final)
                sends = plain & ~on[q] & (off > 0)
                for got, stack in zip(received, picks):  # each player receives one stack at most
                    got.reshape(-1)[final * k + cols] |= np.where(sends, stack[q], _ZERO)
                moved = sends & (final != first)
                if moved.any():  # the rows show the stack with its final receiver (none: back home)
                    first_r = np.where(moved, first - q, 0) % n
                    back = moved & (final == q)
                    for plane, stack in zip(sent, picks):
                        plane[first_r - 1, q, cols] &= np.where(moved, _ZERO, ~_ZERO)
                        plane[(final - q) % n - 1, q, cols] |= np.where(moved & ~back, stack[q], _ZERO)
            self.sent[:, :, games] = sent[0]
            if two:
                self.sent_twice[:, :, games] = sent[1]
        self.received[:, games] = received[0]
        if two:
            self.received_twice[:, games] = received[1]
            self.hands[:, games], self.hands_twice[:, games] = _add_copies(
                self.hands[:, games], self.hands_twice[:, games], received[0], received[1])
        else:
            self.hands[:, games] |= received[0]
        self._after_passing(games)

    def _after_passing(self, games: np.ndarray) -> None:
        """The cards have moved (or the deal holds): charging begins, or the play."""
        if not self._charging:
            self._start_play(games)
            return
        self._set_phase(games, CHARGING)
        self.to_act[games] = self.eldest[games]

    def _charge_step(self, games, c, card, me):
        """Charges (a card exposed) and ends of charging; after the last seat, play begins."""
        N = self.num_envs
        j = c - CHARGE_IDS[0]  # 0..3 a card, 4 the end of charging
        self.charged.reshape(-1)[me * N + games] |= self._chargeable[j]
        self.charged_word[games] |= self._charge_bits[me, j]
        done = c == CHARGE_DONE
        nxt = self._next_seat[me]
        last = done & (nxt == self.eldest[games])
        self.to_act[games] = np.where(done & ~last, nxt, me)
        if last.any():
            g = games[last]
            charged = np.bitwise_or.reduce(self.charged[:, g], axis=0)
            # Pagat: a charged A♥ doubles every heart, a charged Q♠ or J♦ itself; a charged 10♣ quadruples.
            doubled = (charged & (_QS | _U(1 << JACK_DIAMONDS)))
            doubled |= np.where((charged >> _U(ACE_HEARTS)) & _ONE != 0, _HEARTS, _ZERO)
            self.doubled[g] = doubled
            deck = _U(self.deck)
            self.deal_penalty[g] += _mask_sum(self._penalty_table, doubled & deck)
            self.tc_charged[g] = (charged >> _U(TEN_CLUBS)) & _ONE != 0
            self._start_play(g)

    def _discard_step(self, games, c, card, me):
        """The kitty's taker discards a card face down; after the last one, they lead."""
        if self._two:
            self.discarded[0, games], self.discarded[1, games] = _add_copies(
                self.discarded[0, games], self.discarded[1, games], card, _ZERO)
        else:
            self.discarded[0, games] |= card
        self._take_points(games, me, card)
        self.discards_left[games] -= 1
        done = games[self.discards_left[games] == 0]
        if done.size:
            self._set_phase(done, PLAYING)

    def _moon_step(self, games, c, card, me):
        return games, c == MOON_SUBTRACT

    # ------------------------------------------------------------------ tricks and deal ends

    def _finish_tricks(self, games: np.ndarray) -> np.ndarray:
        """Score the complete tricks of ``games``; returns the games whose tricks are all played."""
        n, N = self.n, self.num_envs
        k = games.size
        tb = self.trick_bits[:, games]
        leader = self.leader[games]
        if self._two:  # in trick order: identical trumps tie, and the first played wins
            tb = tb[(leader + np.arange(n)[:, None]) % n, np.arange(k)]
        key = _HIGHEST[((tb >> (NUM_RANKS * self.led[games]).astype(np.uint64)) & _CHUNK).astype(np.int64)]
        twice = None
        if self._two:  # the British rules: identical cards cancel each other for winning
            twice = self.trick_twice[games]
            key = np.where((tb & twice) != 0, -1, key)
        if self.rules.trumps == "hearts":
            trump = _HIGHEST[((tb >> _SUIT_SHIFTS[HEARTS]) & _CHUNK).astype(np.int64)]
            key = np.where(trump >= 0, trump + 100, key)
        winner = np.zeros(k, dtype=np.int64)  # the first highest key
        best = key[0]
        for r in range(1, n):
            winner = np.where(key[r] > best, r, winner)
            best = np.maximum(best, key[r])
        if self._two:
            winner = (leader + winner) % n
        cards = self.trick_all[games]
        self.tricks[games] += 1
        self.count_cells[games] += 1 << 8
        self.in_trick[games] = 0
        self.flag_bits[games] &= ~self._led_mask
        self.dealer_leader[games] = self.dealer[games] * ((n + 1) * n)
        self.trick_bits[:, games] = 0
        self.trick_all[games] = 0
        if self._booster:
            self.boosts[games] = 0
            self.trick_len[games] = n
        if self._two:
            self.trick_twice[games] = 0
            games, winner, pen, over = self._settle_cancellation(games, winner, best >= 0, cards, twice)
        else:
            pen = self._collect(games, winner, cards, None, 1, (cards & self.valued_mask) == 0)
            over = self.hands.reshape(-1)[winner * N + games] == 0
        self.leader[games] = winner
        self.to_act[games] = winner
        self.last_winner[games] = winner
        if self.kitty_size:
            take = self.kitty_taker[games] < 0
            if self._first_point:
                take &= pen > 0
            if take.any():
                self._take_kitty(games[take], winner[take], over[take])
        return games[over]

    def _settle_cancellation(self, games, winner, won, cards, twice):
        """Two decks: a trick whose led-suit cards all cancelled stays on the table and its leader
        leads again; the next winner takes every trick there (a last one with no winner goes to
        the winner of the trick before). Returns the games whose tricks were taken, with the taker,
        the penalty points and whether the deal's tricks are all played."""
        N = self.num_envs
        clean = (cards & self.valued_mask) == 0
        lost = ~won
        if lost.any():
            g = games[lost]
            self.pending[0, g], self.pending[1, g] = _add_copies(self.pending[0, g], self.pending[1, g], cards[lost],
                                                                 twice[lost])
            self.pending_tricks[g] += 1
            self.pending_clean[g] += clean[lost]
            leader = self.leader[games]
            again = lost & (self.hands.reshape(-1)[leader * N + games] != 0)
            self.to_act[games[again]] = leader[again]
            keep = ~again
            games, winner, cards, twice, clean, lost = (x[keep] for x in (games, winner, cards, twice, clean, lost))
            before = self.last_winner[games]
            winner = np.where(lost, np.where(before >= 0, before, self.leader[games]), winner)
            cards, twice = np.where(lost, _ZERO, cards), np.where(lost, _ZERO, twice)  # already on the table
        waiting = self.pending[:, games]
        cards, twice = _add_copies(cards, twice, waiting[0], waiting[1])
        pen = self._collect(games, winner, cards, twice, ~lost + self.pending_tricks[games],
                            (clean & ~lost) + self.pending_clean[games])
        self.pending[:, games] = 0
        self.pending_tricks[games] = 0
        self.pending_clean[games] = 0
        return games, winner, pen, lost | (self.hands.reshape(-1)[winner * N + games] == 0)

    def _collect(self, games, seats, cards, twice, tricks, clean, face_down=False) -> np.ndarray:
        """``seats`` take ``cards`` (and the copies in ``twice``) as ``tricks`` tricks of which ``clean``
        have no valued card (``face_down``: the kitty's taker takes face-down cards): their points,
        doubled where charged. Returns the penalty points taken."""
        doubled = cards & self.doubled[games]
        pts = _mask_sum(self._value_table, cards) + _mask_sum(self._value_table, doubled)
        pen = _mask_sum(self._penalty_table, cards) + _mask_sum(self._penalty_table, doubled)
        if twice is not None:
            pts += _mask_sum(self._value_table, twice)
            pen += _mask_sum(self._penalty_table, twice)
        idx = seats * self.num_envs + games
        captured = self.captured.reshape(-1)
        captured[idx] += pts.astype(np.int16)
        self.penalty_taken.reshape(-1)[idx] += pen.astype(np.int16)
        self.captured_cells.reshape(-1)[idx] = number_cells(captured[idx])
        if self.kitty_size:
            if face_down:
                self.face_down_points[games] += pts.astype(np.int16)
            hidden = np.where(seats == self.kitty_taker[games], self.face_down_points[games], 0)
            self.public_cells.reshape(-1)[idx] = number_cells(captured[idx] - hidden)
        self.tricks_won.reshape(-1)[idx] += tricks
        if self._count_clean:
            self.clean_tricks.reshape(-1)[idx] += clean
        if self.rules.ten_clubs_multiplier:
            has = (cards >> _U(TEN_CLUBS)) & _ONE != 0
            self.tc_taker[games] = np.where(has, seats, self.tc_taker[games])
        return pen

    def _take_points(self, games: np.ndarray, seats: np.ndarray, cards: np.ndarray, twice=None) -> None:
        """Face-down cards taken outside a trick (the kitty, discards)."""
        self._collect(games, seats, cards, twice, 0, 0, face_down=True)

    def _take_kitty(self, games: np.ndarray, winner: np.ndarray, last: np.ndarray) -> None:
        """The kitty goes to ``winner``: into the hand to discard from (kitty_to_hand, tricks left), else its points."""
        self.kitty_taker[games] = winner
        kitty = self.kitty[:, games]
        to_hand = ~last if self._to_hand else np.zeros(games.size, dtype=bool)
        if to_hand.any():
            g, w = games[to_hand], winner[to_hand]
            at = w * self.num_envs + g
            if self._two:
                hands, hands_twice = self.hands.reshape(-1), self.hands_twice.reshape(-1)
                hands[at], hands_twice[at] = _add_copies(hands[at], hands_twice[at],
                                                         kitty[0, to_hand], kitty[1, to_hand])
            else:
                self.hands.reshape(-1)[at] |= kitty[0, to_hand]
            self.discards_left[g] = self.kitty_size
            self._set_phase(g, DISCARDING)
        if not to_hand.all():
            rest = ~to_hand
            self._take_points(games[rest], winner[rest], kitty[0, rest], kitty[1, rest] if self._two else None)

    def _tricks_over(self, games: np.ndarray):
        """Every trick of ``games`` is played: the untaken kitty, the moon; returns the deals that end
        now (and no choice), or None when every one waits for its shooter's choice."""
        if self.kitty_size:
            left = games[self.kitty_taker[games] < 0]  # first_point and no point taken: the last trick's winner
            if left.size:
                self.kitty_taker[left] = self.last_winner[left]
                self._take_points(left, self.last_winner[left], self.kitty[0, left],
                                  self.kitty[1, left] if self._two else None)
        shooter, total = self._shooters(games)
        self.shooter[games] = shooter
        self.shot_total[games] = total
        if self.rules.moon_choice:
            choose = shooter >= 0
            if choose.any():
                g = games[choose]
                self._set_phase(g, CHOOSING)
                self.to_act[g] = shooter[choose]
                games = games[~choose]
                if not games.size:
                    return None
        return games, np.zeros(games.size, dtype=bool)

    def _shooters(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Position of each game's moon (or sun) shooter, -1 where none, and what the shot is worth
        (as :func:`bm_env.engine.scoring.moon_shooter`)."""
        k = games.size
        shooter = np.full(k, -1, dtype=np.int64)
        total = self.deal_penalty[games].astype(np.int32)
        if self.rules.moon == "off":
            return shooter, total
        taken = self.penalty_taken[:, games].astype(np.int32)
        if self.rules.teams == "joint":  # a partnership shoots; the partner with more points chooses
            team = taken + taken[self._partner]
            hit = (team == total) & (taken >= taken[self._partner])
            hit &= ~np.roll(hit, 2, axis=0) | (np.arange(self.n)[:, None] < 2)  # a tie: the earlier partner
        else:
            hit = taken == total
        hit &= total > 0
        shooter = np.where(hit.any(axis=0), np.argmax(hit, axis=0), -1)
        if self.rules.sun_points is not None:
            won = self.tricks_won[:, games]
            sun = (won == won.sum(axis=0)) & (total > 0)
            shot = sun.any(axis=0)
            shooter = np.where(shot, np.argmax(sun, axis=0), shooter)
            total = np.where(shot, self.rules.sun_points, total)
        return shooter, total

    def _end_deals(self, games: np.ndarray, last_actor: np.ndarray, subtract: np.ndarray):
        """Score and re-deal ``games``; returns their scores and rewards ``[games, n]``."""
        multipliers = None
        if self.rules.ten_clubs_multiplier:
            multipliers = np.ones((self.n, games.size), dtype=np.int32)
            taker = self.tc_taker[games]
            has = taker >= 0
            multipliers[taker[has], np.flatnonzero(has)] = np.where(self.tc_charged[games][has], 4, 2)
        scores = unit_scores(self.rules, self.captured[:, games], self.penalty_taken[:, games],
                             self.clean_tricks[:, games], self.shooter[games], self.shot_total[games], subtract,
                             multipliers)
        rewards = deal_rewards(self.rules, scores, self.reward_mode, self.normalise)
        if self.keep_final:
            s = self._arrays(games)
            s["flag_bits"] = s["flag_bits"] & ~self._phase_mask  # phase "done": no phase cell
            s["phase"] = np.full(games.size, DONE)
            if self.kitty_size:  # the deal is scored: every point is public
                s["public_cells"] = s["captured_cells"]
            s["to_act"] = self._final_seats(games, last_actor)
            s["legal"] = np.zeros(games.size, dtype=np.uint64)
            self.final_obs[games] = self.encoder.encode(s)[0]
        self.deal_number[games] += 1
        dealers = (self.dealer[games] + 1) % self.n
        self._start_deals(games, dealers, self._draw_directions(self.deal_number[games]))
        return scores.T, rewards.T

    # ------------------------------------------------------------------ dealing

    def _start_deals(self, games, dealers, directions, hands=None) -> None:
        rows = self._source.take(games.size) if hands is None else hands
        n = self.n
        for a in (self.sent, self.charged, self.kitty, self.discarded, self.pending):
            a[..., games] = 0
        if self._two:
            for a in (self.received_twice, self.moved_twice, self.sent_twice, self.trick_twice, self.pending_tricks,
                      self.pending_clean):
                a[..., games] = 0
            self.hands_twice[:, games] = rows[:, n:2 * n].T
        for a in (self.passed_on, self.charged_word, self.suits_led, self.doubled, self.trick_all, self.boosts,
                  self.discards_left, self.tricks_won, self.first_of_suit, self.tc_charged):
            a[..., games] = 0
        for a in (self.tc_taker, self.kitty_taker, self.shooter, self.last_winner):
            a[games] = -1
        if self.kitty_size:
            self.face_down_points[games] = 0
            self.public_cells[:, games] = 0
        self.trick_len[games] = n
        self.deal_penalty[games] = self.base_penalty_total
        self.scatter_deal[games] = self.dir_scatter[directions] & (self.dir_passes[directions] > 0)
        if self.rules.kitty != "none":
            self.kitty[:, games] = rows[:, n * self.decks:].T
        held = np.bitwise_or.reduce(rows[:, :n], axis=1)
        low = held & _CLUBS
        self.lowest_club[games] = low & (~low + _ONE)  # Pagat: the lowest club dealt leads (the kitty apart)
        super()._start_deals(games, dealers, directions, rows[:, :n])
        scattering = games[self.scatter_deal[games]]
        if scattering.size:  # every other player receives part of a scatter pass
            self.flag_bits[scattering] = self.encoder.phase_bits[PASSING] | self.encoder.scatter_receiver_bits

    def _start_play(self, games: np.ndarray) -> None:
        self._set_phase(games, PLAYING)
        if self.rules.first_lead.startswith("lowest_club"):
            holds = (self.hands[:, games] & self.lowest_club[games]) != 0
            leader = np.argmax(holds, axis=0)
        else:
            leader = self.eldest[games]
        self.leader[games] = leader
        self.to_act[games] = leader

    def _set_phase(self, games: np.ndarray, code: int) -> None:
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
            self.legal = self._ext_play_legal(hand)
            return
        legal = self._ext_play_legal(hand) if playing.any() else np.zeros(N, dtype=np.uint64)
        present = np.bincount(phase, minlength=len(PHASE_CODES))
        for code, rule in ((PASSING, self._ext_pass_legal), (CHARGING, self._charge_legal),
                           (DISCARDING, lambda games, h: h), (CHOOSING, lambda games, h: _MOON_BITS)):
            if present[code]:
                games = np.flatnonzero(phase == code)
                legal[games] = rule(games, hand[games])
        self.legal = legal

    def _ext_pass_legal(self, games, hand):
        legal = self._pass_legal(hand)
        if self.rules.optional_pass:  # pass on, instead of a first pick, where the deal has one receiver
            offer = (self.picked[games] == 0) & ~self.scatter_deal[games]
            legal = legal | np.where(offer, _U(1 << PASS_ON), _ZERO)
        return legal

    def _charge_legal(self, games, hand):
        free = hand & ~self.charged[self.to_act[games], games]
        legal = np.full(games.size, _U(1 << CHARGE_DONE))
        for a, c in CHARGE_CARD.items():
            legal |= ((free >> _U(c)) & _ONE) << _U(a)
        return legal

    def _ext_play_legal(self, hand: np.ndarray) -> np.ndarray:
        """The play rules of the base engine, then the charged-card and Q♠-when-safe rules."""
        legal = self._play_legal(hand)
        following = self.in_trick > 0
        if self._charging:
            mine = self.charged[self.to_act, self._g] & hand
            blocked = np.where(following, np.where(self.first_of_suit, mine & self.suit_masks[self.led], _ZERO),
                               mine & ~self.suits_led)
            if self.rules.first_lead == "lowest_club":  # the named first lead stands
                blocked = np.where(following | (self.tricks > 0), blocked, _ZERO)
            free = legal & ~blocked
            legal = np.where(free != 0, free, legal)
        if self.rules.queen_when_safe:
            void = (hand & self.suit_masks[self.led]) == 0
            safe = void | ((self.led == SPADES) & ((self.trick_all & _HIGH_SPADES) != 0))
            legal = np.where(following & safe & ((legal & _QS) != 0), _QS, legal)
        return legal

    # ------------------------------------------------------------------ checks and views

    def _check_hands(self, hands, kitty) -> np.ndarray:
        """Given deals as rows of the deal source: hands, (two decks) the cards held twice, the kitty."""
        N, n, decks = self.num_envs, self.n, self.decks
        h = checks.card_mask_array("hands", hands)
        shape = (N, n) if decks == 1 else (N, n, 2)
        if h.shape != shape:
            held = "masks" if decks == 1 else "masks (cards held, cards held twice)"
            raise ValueError(f"hands must be {list(shape)} uint64 card {held}, one row per game, got {h.shape}")
        h = h.reshape(N, n) if decks == 1 else np.concatenate([h[:, :, 0], h[:, :, 1]], axis=1)
        if self.rules.kitty == "none":
            if kitty is not None:
                raise ValueError("these rules have no kitty (kitty='none'); give only the hands")
            rows = h
        else:
            if kitty is None:
                raise ValueError(f"these rules deal a kitty of {self.kitty_size} cards: give reset(kitty=...) "
                                 "with the hands")
            k = checks.card_mask_array("kitty", kitty)
            if k.shape != ((N,) if decks == 1 else (N, 2)):
                raise ValueError(f"kitty must be {[N] if decks == 1 else [N, 2]} uint64 card masks, got {k.shape}")
            rows = np.concatenate([h, k.reshape(N, decks)], axis=1)
        bits = np.unpackbits(rows.view(np.uint8).reshape(N, -1, 8), axis=2, bitorder="little").astype(np.int64)
        copies = bits.sum(axis=1)[:, :NUM_CARDS]
        deck = np.array([decks * (self.deck >> c & 1) for c in range(NUM_CARDS)])
        sizes = bits[:, :n].sum(axis=2) + (bits[:, n:2 * n].sum(axis=2) if decks == 2 else 0)
        ok = (copies == deck).all(axis=1) & (sizes == self.hand_size).all(axis=1)
        if decks == 2:  # a card held twice is held
            ok &= ((rows[:, n:2 * n] & ~rows[:, :n]) == 0).all(axis=1)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise ValueError(f"game {i}: hands and kitty do not deal the {n}-player deck ({decks} deck(s)) into "
                             f"{n} hands of {self.hand_size} cards and a kitty of {self.kitty_size}")
        return rows

    def _arrays(self, games: np.ndarray | None = None) -> dict:
        s = super()._arrays()
        s.update({
            "sent": self.sent, "phase": self.phase, "kitty_taker": self.kitty_taker, "kitty": self.kitty,
            "discarded": self.discarded, "scatter_deal": self.scatter_deal, "passed_on": self.passed_on,
            "shooter": self.shooter, "charged_word": self.charged_word, "boosts": self.boosts,
            "pending": self.pending,
        })
        if self.kitty_size:
            s["public_cells"] = self.public_cells
        if self._two:
            s.update({"hands_twice": self.hands_twice, "received_twice": self.received_twice, "played_twice": self.moved_twice[1],
                      "sent_twice": self.sent_twice})
        if games is not None:
            s = {k: v[..., games] for k, v in s.items()}
        return s

    @property
    def _action_ids(self) -> str:
        return f"action ids 0..{self.num_actions - 1}"

    def _raise_illegal(self, game: int, c: int) -> None:
        if not 0 <= c < self.num_actions:
            raise IllegalActionError(f"game {game}: action {c} is outside the action space 0..{self.num_actions - 1}")
        what = {PASSING: "pass", PLAYING: "play", CHARGING: "choose", DISCARDING: "discard", CHOOSING: "choose"}
        legal = cards_of(int(self.legal[game]))
        raise IllegalActionError(
            f"game {game}: player_{int(self.to_act[game])} may not {what[int(self.phase[game])]} {action_str(c)}; "
            f"legal: {', '.join(action_str(x) for x in legal)}"
        )

    def state(self) -> dict[str, np.ndarray]:
        out = super().state()
        t = lambda a: np.ascontiguousarray(a.T)  # noqa: E731
        out.update({
            "kitty": t(self.kitty) if self.decks == 2 else self.kitty[0].copy(),
            "kitty_taker": self.kitty_taker.copy(), "charged": t(self.charged),
            "discarded": t(self.discarded) if self.decks == 2 else self.discarded[0].copy(),
            "passed_on": ((self.passed_on[:, None] >> np.arange(self.n, dtype=np.uint64)) & _ONE).astype(bool),
            "boosts": self.boosts.copy(), "moon_shooter": self.shooter.copy(),
        })
        if self._two:
            out.update({"hands_twice": t(self.hands_twice), "played_twice": t(self.moved_twice[1]),
                        "passed_twice": t(self.moved_twice[0]), "received_twice": t(self.received_twice)})
        return out
