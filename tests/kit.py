"""The helpers the tests share, each defined once: tests import what they use (``import kit``
or ``from kit import cards, fill_hands``); ``conftest.py`` holds fixtures only.

Scripted deals are written with card strings: a hand is ``"AC KC 2H"`` (with two decks a
card written twice is held twice), a trick is the cards in play order from its leader,
``"AC 2D AS"``; extra decisions are typed by name (``"charge QS"``, ``"end charging"``).
Positions are the deal's ``0..k-1``.

Contents, in order: tables of configurations (every preset and player count; the extension
options); card strings; building and playing scripted deals; the scripted deals several files
use; random and forced matches; the relabelling of hidden cards; the env checks shared by the observation
tests; the vector engine played beside the reference; refusals (what a face may raise, a time bound); bm-play
driven by a script, bm-replay's embedded frames; the examples as modules; a tiny training config; the web
table's test client and a move for its view.
"""

from __future__ import annotations

import base64
import contextlib
import importlib.util
import io
import json
import random
import re
import signal
import sys
import zlib
from collections import Counter
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Sequence

import numpy as np
import pytest

from bm_env.engine.actions import CHARGE_CARD, CHARGEABLE, CHARGE_DONE, MOON_ADD, MOON_SUBTRACT, PASS_ON, action_str, parse_action
from bm_env.engine.cards import NUM_CARDS, SUIT_MASKS, card_pretty, card_str, cards_of, mask_of, parse_card, rank_of, suit_of
from bm_env.engine.deal import CHARGE, DISCARD, DONE, MOON, PASS, PLAY, Deal
from bm_env.engine.infostate import information_state
from bm_env.engine.rules import PRESETS, Rules, direction_offset, make_rules
from bm_env.systems import dealing
from bm_env.vector import plays

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
#: The shipped agent of the default game (checkpoints/).
SHIPPED_AGENT = ROOT / "checkpoints" / "black_maria_3p.pt"


# ---------------------------------------------------------------------------- configurations

#: Every preset with every player count it allows.
PRESET_COUNTS = [(p, n) for p, preset in PRESETS.items() for n in preset.player_counts]
#: Those whose rules use none of the extension options (two decks, kitty, charging, teams ...).
CLASSIC_COUNTS = [(p, n) for p, n in PRESET_COUNTS if not make_rules(p, n).uses_extensions]

#: One penalty card: every deal is a moon, so a moon decision comes every deal.
ONLY_QS = {"QS": 13}

#: The extension presets and options (``Rules.uses_extensions``), each combination the
#: engines must play: name -> ``(preset, num_players, rules options)``. Property tests, the
#: env (its observation rows, a deal with the agents, api_test) and the vector engine
#: (against the reference, step by step) all run this one table.
EXTENSIONS = {
    "cancellation-6": ("cancellation", 6, {}),
    "cancellation-7": ("cancellation", 7, {}),
    "cancellation-8-no-kitty-cards": ("cancellation", 8, {}),
    "cancellation-9": ("cancellation", 9, {}),
    "cancellation-10": ("cancellation", 10, {}),
    "cancellation-10-to-hand-pass-on": ("cancellation", 10, {"kitty": "first_point", "kitty_to_hand": True,
                                                             "optional_pass": True, "match_deals": 10}),
    "cancellation-6-to-hand-pass-on-choice": ("cancellation", 6, {"kitty": "first_point", "kitty_to_hand": True,
                                                                  "optional_pass": True, "moon": "shooter_choice"}),
    "cancellation-7-scatter-trumps": ("cancellation", 7, {"pass_count": 6, "pass_cycle": ("scatter", "right"),
                                                          "trumps": "hearts", "hearts_lead": "any_time"}),
    "turbo": ("turbo_hearts", 4, {}),
    "charging-3p-kitty": ("american_hearts", 3, {"charging": True, "ten_clubs_multiplier": True,
                                                 "kitty": "first_trick", "card_values": "turbo"}),
    "booster": ("booster_nines", 4, {}),
    "booster-every-moon-unless-win": ("booster_nines", 4, {"card_values": ONLY_QS, "moon": "others_plus_unless_win",
                                                           "match_threshold": 10}),
    "partnership": ("partnership_hearts", 4, {}),
    "partnership-every-moon": ("partnership_hearts", 4, {"card_values": ONLY_QS}),
    "individual-teams": ("partnership_hearts", 4, {"teams": "individual", "moon": "shooter_minus"}),
    "kitty-3": ("american_hearts", 3, {"kitty": "first_trick"}),
    "kitty-5": ("american_hearts", 5, {"kitty": "first_trick"}),
    "kitty-rule-4-no-cards-left": ("american_hearts", 4, {"kitty": "first_point"}),
    "kitty-5-to-hand": ("american_hearts", 5, {"kitty": "first_point", "kitty_to_hand": True,
                                               "pass_cycle": "five_second"}),
    "kitty-3-scatter-to-hand": ("american_hearts", 3, {"pass_count": 4, "pass_cycle": "three_scatter",
                                                       "kitty": "first_point", "kitty_to_hand": True}),
    "scatter-3-pass-on": ("american_hearts", 3, {"pass_count": 4, "pass_cycle": "three_scatter_hold",
                                                 "optional_pass": True}),
    "pass-on-moon-choice-sun": ("american_hearts", 4, {"pass_cycle": "scatter_and_hold", "optional_pass": True,
                                                       "moon": "shooter_choice", "sun_points": 52,
                                                       "queen_when_safe": True, "exact_reset": (100, 50)}),
    "pass-on-every-moon": ("american_hearts", 4, {"optional_pass": True, "moon": "shooter_choice",
                                                  "card_values": ONLY_QS}),
    "black-maria-moon-choice-queen": ("black_maria", 4, {"moon": "shooter_choice", "queen_when_safe": True}),
    "domino-3": ("domino_hearts", 3, {}),
    "domino-7-moon-choice-sun-queen": ("domino_hearts", 7, {"moon": "shooter_choice", "sun_points": 52,
                                                            "queen_when_safe": True}),
    "domino-4-tie-breaks-ten-clubs": ("domino_hearts", 4, {"tie_break": "tied_players", "ten_clubs_multiplier": True,
                                                           "card_values": "turbo", "first_trick_no_points": True,
                                                           "match_threshold": 20}),
}


def extension_rules(name: str) -> Rules:
    """The rules of ``EXTENSIONS[name]``."""
    preset, n, options = EXTENSIONS[name]
    return make_rules(preset, n, **options)


#: The extension configurations the vector engine plays (not Domino Hearts').
VECTOR_EXTENSIONS = {name: case for name, case in EXTENSIONS.items() if plays(extension_rules(name))}


# ---------------------------------------------------------------------------- card strings

#: Each suit's 13 cards as a string, in suit order: clubs, diamonds, hearts, spades.
SUITS = (
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
)


def cards(text: str) -> list[int]:
    """Card ids of a space-separated list of card strings."""
    return [parse_card(t) for t in text.split()]


def names(ids) -> str:
    """Card strings of card ids (or a mask), space-separated, in id order."""
    if isinstance(ids, int):
        ids = cards_of(ids)
    return " ".join(card_str(c) for c in sorted(ids))


def legal_text(deal: Deal) -> list[str]:
    """The legal actions of the position to act, as text (cards and extra decisions)."""
    return [action_str(a) for a in cards_of(deal.legal)]


# ---------------------------------------------------------------------------- scripted deals

#: The actions each phase may offer.
_PHASE_ACTIONS = {
    PASS: set(range(52)) | {PASS_ON}, CHARGE: set(CHARGE_CARD) | {CHARGE_DONE}, PLAY: set(range(52)),
    DISCARD: set(range(52)), MOON: {MOON_SUBTRACT, MOON_ADD},
}


def new_deal(rules: Rules, hands: Sequence[str], dealer: int, pass_direction: str = "hold", **kw) -> Deal:
    """A deal with the given hands (card strings, by position)."""
    return Deal(rules, [cards(h) for h in hands], dealer, pass_direction, **kw)


def fill_hands(rules, fixed: dict[int, str], num_players: int, kitty: str = "", avoid: dict[int, str] | None = None):
    """Hands of ``num_players``: the ``fixed`` cards per position, completed from the rest of the deck(s),
    and the kitty (the ``kitty`` cards, completed the same way).

    ``avoid[p]`` names suits ("CD") position ``p`` must not be given by the filler (to keep
    it void). Raises if the filler cannot respect that.
    """
    avoid = avoid or {}
    size = rules.hand_size(num_players)
    left = Counter(cards_of(rules.deck_mask(num_players)) * rules.decks)
    hands = {p: cards(fixed.get(p, "")) for p in range(num_players)}
    kitty_cards = cards(kitty)
    for h in list(hands.values()) + [kitty_cards]:
        left.subtract(h)
    assert all(m >= 0 for m in left.values()), f"a fixed card is used too often: {left}"
    pool = sorted(c for c, m in left.items() for _ in range(m))
    need_kitty = rules.kitty_size(num_players) - len(kitty_cards)
    for p in range(num_players):
        banned = {"CDHS".index(s) for s in avoid.get(p, "")}
        while len(hands[p]) < size:
            c = next((c for c in pool if c // 13 not in banned), None)
            assert c is not None, f"cannot fill position {p} without suits {avoid.get(p)}"
            pool.remove(c)
            hands[p].append(c)
    kitty_cards += pool[:need_kitty]
    assert len(pool) == need_kitty
    return [sorted(hands[p]) for p in range(num_players)], kitty_cards


def play(deal: Deal, text: str) -> None:
    """Step each action of ``text``: cards, or extra decisions by name (``"charge QS"``) separated by commas."""
    if "," in text or any(w in text for w in ("charge", "moon", "pass on", "end")):
        for part in text.split(","):
            deal.step(parse_action(part))
    else:
        for c in cards(text):
            deal.step(c)


def do_passes(deal: Deal, picks: dict[int, str] | Sequence[str]) -> None:
    """Play the whole passing phase: position ``p`` passes the cards ``picks[p]`` in order."""
    todo = {p: cards(s) for p, s in (picks.items() if isinstance(picks, dict) else enumerate(picks))}
    while deal.phase == PASS:
        p = deal.to_act
        deal.step(todo[p].pop(0))
    assert not any(todo.values()), f"cards left unpassed: {todo}"


def play_tricks(deal: Deal, tricks: Sequence[str]) -> list[int]:
    """Play whole tricks (cards in order from the leader); return the winner position of each."""
    winners = []
    for t in tricks:
        before = len(deal.tricks)
        for c in t.split():
            deal.step(parse_card(c))
        assert len(deal.tricks) == before + 1, f"{t!r} is not one whole trick"
        winners.append(deal.tricks[-1][2])
    return winners


def random_action(deal: Deal, chooser: random.Random) -> int:
    """A uniformly random legal action of the position to act."""
    legal = cards_of(deal.legal)
    return legal[chooser.randrange(len(legal))]


def play_random_deal(m, chooser: random.Random, on_step=None) -> Deal:
    """Play the match's deal in progress to its end with random legal actions (``on_step(deal)`` before
    each), checking every mask: never empty, only actions of the phase, in play only cards held.
    Returns the deal."""
    deal = m.deal
    while deal.phase != DONE:
        legal = cards_of(deal.legal)
        assert legal, f"empty mask in phase {deal.phase}"
        assert set(legal) <= _PHASE_ACTIONS[deal.phase], (deal.phase, legal)
        if deal.phase == PLAY:
            assert set(legal) <= set(deal.hand_cards(deal.to_act))
        if on_step:
            on_step(deal)
        deal.step(legal[chooser.randrange(len(legal))])
    return deal


def play_agents(deal: Deal, agents, upto=None) -> None:
    """Advance ``deal`` with one agent per position, each given its information state (until ``upto(deal)``)."""
    while not deal.is_over and not (upto and upto(deal)):
        info = information_state(deal, deal.to_act)
        deal.step(agents[deal.to_act].act(None, deal.legal_mask(), info))

def mid_play_states(rules, count: int, seed: int, earliest: int = 1) -> list[tuple[Deal, object]]:
    """``(deal, information state of the seat to act)`` at random points of heuristic play: deal ``i``
    dealt by seat ``i mod n``, stopped once at least a drawn number of cards (from ``earliest``) are played."""
    from bm_env.agents import make_agent
    from bm_env.engine.deal import deal_hands

    rng = np.random.default_rng(seed)
    n = rules.num_players
    out = []
    for i in range(count):
        deal = Deal(rules, deal_hands(rules, n, i % n, rng), i % n, rules.pass_cycle[i % len(rules.pass_cycle)])
        stop = int(rng.integers(earliest, rules.hand_size() * n - 2))
        h = make_agent("heuristic", rules)
        play_agents(deal, [h] * n, upto=lambda d: d.phase == PLAY and len(d.tricks) * n + len(d.trick) >= stop)
        out.append((deal, information_state(deal, deal.seats[deal.to_act])))
    return out


def mask_and_observation(info) -> tuple[np.ndarray, np.ndarray]:
    """The legal-action mask and the observation vector an agent is given for ``info``, its seat to act."""
    from bm_env.env.observation import encode

    mask = np.zeros(info.rules.num_actions, dtype=np.int8)
    mask[list(info.legal)] = 1
    return mask, encode(info)


# ---------------------------------------------------------------------------- deals several files use

#: A 3-player deal (no 2C) legal under every 3-player preset of the Black Maria family.
#: Dealer 2, so position 0 (eldest) leads; scored under each preset in test_deal.py.
BASE3_DEAL = SimpleNamespace(
    hands=(
        "3C 4C 5C 6C 7C 8C 9C AC 2H 3H AH 2D 3D 4D 5D 6D 7D",
        "TC JC QC KC 8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 5H",
        "4H 6H 7H 8H 9H TH JH QH KH 7S 8S 9S TS JS QS KS AS",
    ),
    dealer=2,
    tricks=(
        "2D 8D AS",  # 1  P0 leads; P1 follows 8D and wins; P2 (no diamonds) sheds AS onto it
        "TC KS 3C",  # 2  P1 leads, P2 sheds KS, P0 must follow with a club: P1 wins
        "2S 7S 2H",  # 3  P2 wins with 7S; P0, void in spades, discards 2H: hearts are broken
        "8S 3H 3S",  # 4  P2 wins again, collecting 3H
        "4H AH 5H",  # 5  P2 leads a heart; P0 must play its only heart, AH, and wins 4H AH 5H
        "AC JC QS",  # 6  P0 wins with AC, P2 sheds the Black Maria onto it
        "3D 9D KH",  # 7  P1 wins with 9D and collects KH
        "4S 9S 4C",  # 8  P2 wins every trick from here on: spades P0 cannot follow,
        "TS 5C 5S",  # 9    then hearts that neither P0 nor P1 can follow
        "6H 4D JD",  # 10   (P1 discards JD here: the Omnibus bonus card goes to P2)
        "JS 6C 6S",  # 11
        "7H 7C QC",  # 12
        "8H 8C KC",  # 13
        "9H 9C TD",  # 14
        "TH 5D QD",  # 15
        "JH 6D KD",  # 16
        "QH 7D AD",  # 17
    ),
    # What each position takes:
    #   P0: 4H AH 5H (trick 5) and QS (trick 6)
    #   P1: AS (trick 1), KS (trick 2), KH (trick 7)
    #   P2: 2H 3H 6H 7H 8H 9H TH JH QH and JD
    winners=[1, 1, 2, 2, 0, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
)

#: Petrone's game (hearts are trumps), 4 players, dealer 3 so position 0 leads. Scored and
#: explained in test_deal.py::test_petrone_hearts_trump_and_clean_tricks.
PETRONE_DEAL = SimpleNamespace(
    hands=(
        "AC KC QC JC AD KD QD JD AS 2S 3S 4S 5S",
        "2H 3H 4H 5H 6H 7H 2D 3D 4D 5D 6D 7D 8D",
        "2C 3C 4C 5C 6C 7C 8C 9C TC KS QS 8H 9H",
        "TH JH QH KH AH 9D TD 6S 7S 8S 9S TS JS",
    ),
    dealer=3,
    tricks=(
        "AC 2H 2C 9D",  # 1: P1 trumps the ace of clubs with 2H: clean, P1 +3
        "2D 8H TD AD",  # 2: P2 trumps a diamond lead: clean, P2 +3
        "3C TH KC 3H",  # 3: two trumps, the higher (TH, P3) wins: clean, P3 +3
        "6S AS 4H QS",  # 4: P1 trumps, taking AS and QS: -7 -13, no bonus
        "5H 9H AH 2S",  # 5: a heart lead, AH wins: clean, P3 +3
        "JH 3S 6H KS",  # 6: P3 takes KS: -10, no bonus
        "QH 4S 7H 4C",  # 7-13: P3 wins every trick, all clean: +3 each
        "KH 5S 3D 5C",
        "7S QC 4D 6C",
        "8S JC 5D 7C",
        "9S KD 6D 8C",
        "TS QD 7D 9C",
        "JS JD 8D TC",
    ),
)

#: A Turbo Hearts deal (Pagat; dealer 3, so position 0 is eldest; no pass): every club,
#: diamond, heart and spade placed so that the tricks of test_deal_charging.py and
#: test_deal_booster.py are legal, and forced where their comments say so.
TURBO_HANDS = (
    "2C TC 3D 4D 5D 2H 3H 4H 2S 3S 4S 5S 6S",
    "3C 4C 5C 6C 6D 7D JD 5H 6H 7H 7S 8S QS",
    "7C 8C 9C JC 8D 9D 8H 9H TH AH 9S TS JS",
    "QC KC AC 2D TD QD KD AD JH QH KH KS AS",
)

#: P0 holds every heart and leads them (eldest, hearts any time); the others are void and
#: shed: P1 spades from the top (QS goes in trick 2), P2 clubs, P3 diamonds. P0 takes all 13
#: tricks: the moon (26) and the sun. Dealer 3. Played by :func:`play_sweep`.
SWEEP = [cards(SUITS[2]), cards(SUITS[3]), cards(SUITS[0]), cards(SUITS[1])]


def sweep_rules(preset="american_hearts", **kw) -> Rules:
    """Rules under which :data:`SWEEP` is legal as :func:`play_sweep` plays it."""
    return make_rules(preset, first_lead="eldest_any", hearts_lead="any_time", **kw)


def play_sweep(deal: Deal) -> None:
    """P0 leads its hearts from the top; the others play their highest card."""
    for i in range(13):
        deal.step(SWEEP[0][12 - i])
        for p in (1, 2, 3):
            deal.step(max(deal.legal_actions()))


# ---------------------------------------------------------------------------- matches


def play_random_match(m, seed: int):
    """Play the match ``m`` to its end with random legal actions drawn from ``random.Random(seed)``; return it."""
    chooser = random.Random(seed)
    while not m.is_over:
        m.step(random_action(m.deal, chooser))
    return m


def random_match(rules: Rules, seed: int, on_illegal: str = "raise"):
    """A whole match of ``rules`` dealt from ``seed`` and played at random (:func:`play_random_match`)."""
    from bm_env.engine.match import Match

    return play_random_match(Match(rules, seed, on_illegal=on_illegal), seed)


# ---------------------------------------------------------------------------- forced deals (matches)


def prepass_hands(final: Sequence[int], offset: int, count: int, no_pass: int = 0):
    """Hands before passing, and the picks, that turn into the masks ``final`` after the pass.

    Each position ``p`` passes ``count`` cards of its receiver's final hand (the lowest ones
    that may be passed), so ``before[p] = final[p] - what p receives + what p passes``.
    """
    k = len(final)
    if not offset or not count:
        return list(final), {p: [] for p in range(k)}
    picks = {}
    for p in range(k):
        recv = (p + offset) % k
        picks[p] = [c for c in cards_of(final[recv]) if not no_pass >> c & 1][:count]
        assert len(picks[p]) == count
    before = []
    for p in range(k):
        giver = (p - offset) % k
        before.append((final[p] & ~mask_of(picks[giver])) | mask_of(picks[p]))
    return before, picks


def forced_hands(rules: Rules, k: int, dealer: int):
    """Final (after-pass) hands in which the first leader wins every trick, whatever anyone plays.

    Returns ``(hands, taker)``. The taker is eldest hand (``dealer + 1``) and holds the top
    cards of every suit it holds: whatever it leads is the highest card of that suit still
    out, and with no trumps nobody can beat it. Where the holder of the lowest club leads,
    the taker holds every club (others cannot follow) and the top cards of the other suits.
    Not for trump games.
    """
    assert rules.trumps == "none"
    deck = cards_of(rules.deck_mask(k))
    size = len(deck) // k
    taker = (dealer + 1) % k
    if rules.first_lead.startswith("lowest_club"):
        key = lambda c: (suit_of(c) != 0, -rank_of(c), suit_of(c))  # noqa: E731
    else:
        key = lambda c: (-rank_of(c), suit_of(c))  # noqa: E731
    order = sorted(deck, key=key)
    hands = [0] * k
    hands[taker] = mask_of(order[:size])
    others = [p for p in range(k) if p != taker]
    for i, c in enumerate(order[size:]):
        hands[others[i % (k - 1)]] |= 1 << c
    return hands, taker


def play_forced_deal(match, chooser: random.Random, pass_direction: str | None = None) -> int:
    """Start the match's next deal with forced hands (see :func:`forced_hands`), play it out
    with random legal play, and return the match seat of the taker (eldest hand).

    The pass direction is the cycle's for the deal number unless given; each player passes
    cards that the forced hands give its receiver (:func:`prepass_hands`).
    """
    rules = match.rules
    seats, dealer = match.next_deal_setup()
    k = len(seats)
    if pass_direction is None:
        pass_direction = rules.pass_cycle[match.deal_number % len(rules.pass_cycle)]
    final, taker = forced_hands(rules, k, dealer)
    offset = direction_offset(pass_direction, k)
    before, picks = prepass_hands(final, offset, rules.passes_for(k), mask_of(rules.no_pass_cards))
    deal = match.start_deal(hands=before, pass_direction=pass_direction)
    while not deal.is_over:
        if deal.phase == PASS:
            match.step(picks[deal.to_act][len(deal.pass_picks[deal.to_act])])
        else:
            match.step(random_action(deal, chooser))
    return seats[taker]


# ---------------------------------------------------------------------------- hidden information


def unseen_cards(deal: Deal, seat: int) -> list[int]:
    """The card ids of ``deal`` none of whose copies match ``seat`` has seen, ascending.

    What a seat has not seen: the other seats' unplayed cards (their picks not yet passed
    included), the kitty it has not taken, the cards another taker discarded face down. Seen:
    its own cards (dealt, passed, received, the kitty it took), every card played, charged
    cards; and, where the rules make the holder of the lowest club dealt lead it, that club
    and every lower one (its lead tells that they are in the kitty).
    """
    rules = deal.rules
    info = information_state(deal, seat)
    seen = (set(info.hand) | {c for c, _ in info.passed} | set(info.received) | {c for _, c in info.plays}
            | set(info.kitty) | set(info.discarded) | set(info.pending) | {c for cs in info.charged for c in cs})
    if rules.first_lead.startswith("lowest_club"):
        lowest = cards_of(deal.deck & SUIT_MASKS[0])[0]
        seen |= set(cards_of(SUIT_MASKS[0] & ((2 << lowest) - 1)))
    return [c for c in cards_of(rules.deck_mask(deal.num_players)) if c not in seen]


def relabelled(deal: Deal, relabel: dict[int, int]) -> tuple[list, tuple[int, ...]]:
    """``deal``'s hands as dealt and its kitty, every card id ``c`` replaced by ``relabel.get(c, c)``
    (with each of its copies, two decks): hands as masks with one deck, as sorted ids with two.

    Played on with the actions relabelled the same way (:func:`relabelled_actions`), such a deal
    differs from ``deal`` only in where the relabelled cards lie.
    """
    hands = []
    for once, twice in zip(deal.dealt, deal.dealt_twice):
        ids = [relabel.get(c, c) for c in cards_of(once) + cards_of(twice)]
        hands.append(mask_of(ids) if not deal.two_decks else sorted(ids))
    apart = [relabel.get(c, c) for c in deal.kitty]  # a stock keeps its order, a kitty is a set
    return hands, tuple(apart if dealing(deal.rules).stock else sorted(apart))


def relabelled_actions(actions: Sequence[int], relabel: dict[int, int]) -> list[int]:
    """The card actions (passes, plays, discards) relabelled as :func:`relabelled` relabels the deal."""
    return [relabel.get(a, a) if a < NUM_CARDS else a for a in actions]


def replays_legally(deal: Deal, hands, kitty, actions: Sequence[int], sizes=None) -> bool:
    """Whether ``actions`` are legal, in turn, on ``hands`` and ``kitty`` dealt as ``deal`` was; with ``sizes``
    (:func:`hand_sizes_along` of the original), whether every hand keeps its size at every step too, a public fact
    that a relabelling of a stock can change (the cards Domino Hearts' players draw to follow)."""
    other = Deal(deal.rules, hands, deal.dealer, deal.pass_direction, kitty=kitty)
    for i, a in enumerate(actions):
        if not other.legal >> a & 1:
            return False
        other.step(a)
        if sizes is not None and tuple(other.hand_count(q) for q in range(other.num_players)) != sizes[i]:
            return False
    return True


def hand_sizes_along(deal: Deal, hands, kitty, actions: Sequence[int]) -> list[tuple[int, ...]]:
    """The size of every hand after each of ``actions``, played on ``hands`` and ``kitty`` dealt as ``deal`` was."""
    other = Deal(deal.rules, hands, deal.dealer, deal.pass_direction, kitty=kitty)
    out = []
    for a in actions:
        other.step(a)
        out.append(tuple(other.hand_count(q) for q in range(other.num_players)))
    return out


def swap_unseen(rules, deal, hands, rng):
    """The swap at the heart of the hidden-information tests (observations, pictures, replay pages).

    Two deals that differ only in two unplayed cards of seats 1 and 2 (same suit, same value,
    both dealt to them and never passed) replay the same actions, since every legal move stays
    legal; so whatever seat 0 is shown must be identical in both, while seats 1 and 2 see the
    difference (which keeps such a test from passing vacuously). The property test
    (``tests/test_hidden_info_property.py``) relabels any cards seat 0 has not seen, of any value.

    Under charging the chargeable cards stay put: a charge names its card.

    Returns ``(x, y, swapped hands)`` for ``deal`` (in play, dealt ``hands``), or None when it
    is not in play or seats 1 and 2 hold no such pair.
    """
    if deal.phase == PASS or deal.is_over:
        return None
    unseen = set(unseen_cards(deal, 0))
    if rules.charging:  # a charge names its card: the same charges would not replay after a swap
        unseen -= set(CHARGEABLE)
    held1 = [c for c in cards_of(deal.hands[1] & hands[1]) if c in unseen]
    held2 = [c for c in cards_of(deal.hands[2] & hands[2]) if c in unseen]
    values = rules.card_values
    pairs = [(x, y) for x in held1 for y in held2 if x // 13 == y // 13 and values[x] == values[y]]
    if not pairs:
        return None
    x, y = pairs[int(rng.integers(len(pairs)))]
    return x, y, relabelled(deal, {x: y, y: x})[0]


# ---------------------------------------------------------------------------- the environment

def reference_obs(deal: Deal, seat: int) -> np.ndarray:
    """The reference encoder's observation of ``seat`` in ``deal``, outside a match (totals 0, no deal played):
    what the vector engine must produce."""
    from bm_env.env.observation import encode

    return encode(information_state(deal, seat, [0] * deal.num_players, 0))


def given_arrays(rules: Rules, hands, kitty):
    """Reference hands (card-id lists or masks) and kitty as the vector engine's given-deal arrays."""
    if rules.decks == 1:
        return (np.array([int(h) for h in hands], dtype=np.uint64),
                np.uint64(sum(1 << c for c in kitty)))
    once = [sum(1 << c for c in set(h)) for h in hands]
    twice = [sum(1 << c for c in set(h) if list(h).count(c) == 2) for h in hands]
    k_once, k_twice = sum(1 << c for c in set(kitty)), sum(1 << c for c in set(kitty) if kitty.count(c) == 2)
    return np.array([once, twice], dtype=np.uint64).T, np.array([k_once, k_twice], dtype=np.uint64)


def _reference_deal(rules: Rules, state: dict, i: int) -> Deal:
    """The reference deal of vector game ``i`` from the engine's perfect-information state."""
    if rules.decks == 1:
        hands = [int(h) for h in state["hands"][i]]
        kitty = [c for c in range(NUM_CARDS) if int(state["kitty"][i]) >> c & 1] if rules.kitty != "none" else []
    else:
        once, twice = state["hands"][i], state["hands_twice"][i]
        hands = [[c for c in range(NUM_CARDS) for m in (int(a), int(b)) if m >> c & 1] for a, b in zip(once, twice)]
        kitty = [c for c in range(NUM_CARDS) for m in map(int, state["kitty"][i]) if m >> c & 1]
    return Deal(rules, hands, int(state["dealer"][i]), str(state["pass_direction"][i]), kitty=kitty)


def choose_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per game of a batch of masks; an extra decision half the time one is offered."""
    out = np.empty(mask.shape[0], dtype=np.int64)
    for g, row in enumerate(mask):
        legal = np.flatnonzero(row)
        extras = legal[legal >= NUM_CARDS]
        out[g] = rng.choice(extras if extras.size and rng.random() < 0.5 else legal)
    return out


def play_side_by_side(rules: Rules, batch: int, deals: int, seed: int, reward: str = "score", normalise: bool = False,
                      directions=None, dealt=None, chooser=None, check_obs_every: int = 1, on_done=None) -> dict:
    """Step the vector engine and one reference :class:`Deal` per game with the same random legal
    actions until ``deals`` deals have ended, asserting that they agree.

    Compared at every step: acting players and masks; observations (every
    ``check_obs_every``-th step); at each deal's end, scores, rewards, the final observation
    and the next dealer. A vector game that re-deals itself hands the reference its new deal
    from the engine's perfect-information state. ``dealt``: ``deal_cards`` results per game;
    ``chooser(mask, refs)``: the actions (default :func:`choose_legal`); ``on_done((step, game))``
    at each deal's end. Returns what was seen: steps, deals, moons, phases, pass-ons, steps with
    a Cancellation trick pending.
    """
    from bm_env.engine.deal import deal_cards, pass_direction_for
    from bm_env.env.observation import features, offsets
    from bm_env.env.rewards import deal_rewards
    from bm_env.vector import make_engine

    n = rules.num_players
    rng = np.random.default_rng(seed)
    dealers = rng.integers(n, size=batch)
    if dealt is None:
        dealt = [deal_cards(rules, n, int(d), rng) for d in dealers]
    if directions is None:
        directions = [pass_direction_for(rules, 0, rng) for _ in range(batch)]
    refs = [Deal(rules, h, int(d), p, kitty=k) for (h, k), d, p in zip(dealt, dealers, directions)]
    given = [given_arrays(rules, h, k) for h, k in dealt]
    eng = make_engine(rules, batch, reward=reward, normalise=normalise, seed=seed, final_observations=True)
    obs, mask, to_act = eng.reset(hands=np.array([h for h, _ in given]), dealers=dealers, pass_directions=directions,
                                  kitty=np.array([k for _, k in given]) if rules.kitty != "none" else None)
    seen = {"steps": 0, "deals": 0, "phases": set(), "pass_on": 0, "moons": 0, "pending": 0}
    parts = offsets(n, features(rules))

    def differing(got, want):
        return [name for name, sl in parts.items() if not np.array_equal(got[sl], want[sl])]

    while seen["deals"] < deals:
        for i, ref in enumerate(refs):
            where = f"game {i} step {seen['steps']} ({ref.phase})"
            seen["phases"].add(ref.phase)
            seen["pending"] += bool(ref.pending)
            assert to_act[i] == ref.to_act, f"{where}: to_act"
            assert np.array_equal(mask[i], ref.legal_mask()), \
                f"{where}: mask {np.flatnonzero(mask[i])} vs {np.flatnonzero(ref.legal_mask())}"
            if seen["steps"] % check_obs_every == 0:
                want = reference_obs(ref, ref.to_act)
                if not np.array_equal(obs[i], want):
                    raise AssertionError(f"{where}: observation differs in {differing(obs[i], want)}")
        actions = choose_legal(mask, rng) if chooser is None else chooser(mask, refs)
        seen["pass_on"] += int((actions == PASS_ON).sum())
        last = to_act.copy()
        obs, mask, to_act, rewards, done, final = eng.step(actions)
        seen["steps"] += 1
        state = eng.state()
        for i, ref in enumerate(refs):
            ref.step(int(actions[i]))
            assert done[i] == ref.is_over, f"game {i} step {seen['steps']}: done"
            if not done[i]:
                assert not rewards[i].any() and not final[i].any()
                continue
            seen["deals"] += 1
            seen["moons"] += ref.moon_shot is not None
            if on_done is not None:
                on_done((seen["steps"], i))
            assert tuple(final[i]) == ref.scores, f"game {i}: scores {final[i]} vs {ref.scores}"
            want = np.float32(deal_rewards(rules, ref.scores, reward, normalise))
            assert np.array_equal(rewards[i], want), f"game {i}: rewards {rewards[i]} vs {want}"
            want = reference_obs(ref, int(last[i]))
            if not np.array_equal(eng.final_obs[i], want):
                raise AssertionError(f"game {i}: final observation differs in {differing(eng.final_obs[i], want)}")
            refs[i] = _reference_deal(rules, state, i)
            assert refs[i].dealer == (ref.dealer + 1) % n, f"game {i}: the next deal's dealer"
    return seen


def assert_rows_match(e, where: str) -> None:
    """Every seat's observation row of the raw env ``e`` equals ``encode(information_state(...))``
    of its seat, and the acting seat's mask the engine's legal actions; a failure names the
    layout parts that differ."""
    from bm_env.env.observation import encode, features, offsets

    m = e.match
    rules = e.rules
    n = rules.num_players
    for s in range(n):
        want = encode(information_state(m.deal, s, m.totals, m.deals_played))
        got = e.observe(f"player_{s}")["observation"]
        if not np.array_equal(want, got):
            o = offsets(n, features(rules))
            bad = [name for name, sl in o.items() if not np.array_equal(want[sl], got[sl])]
            raise AssertionError(f"{where} ({m.deal.phase}): seat {s} differs from encode() in {bad}")
    if e.agents and not e.terminations[e.agent_selection]:
        np.testing.assert_array_equal(e.observe(e.agent_selection)["action_mask"], m.deal.legal_mask(), where)


def random_walk(e, rng: np.random.Generator, decisions: int, seed: int) -> dict:
    """Play ``decisions`` random decisions in the raw env ``e`` (reset with ``seed``, and again at each
    episode's end), checking every row after each (:func:`assert_rows_match`).

    An extra decision (a charge, passing on, a moon choice) is taken half the time one is
    offered, so that the rare events happen often. Returns counts of the events seen.
    """
    seen = {"phases": set(), "pass_on": 0, "pending": 0, "tie_break": 0}
    e.reset(seed=seed)
    for i in range(decisions):
        if not e.agents or e.terminations[e.agent_selection]:
            e.reset()
        assert_rows_match(e, f"decision {i}")
        deal = e.match.deal
        seen["phases"].add(deal.phase)
        seen["pending"] += bool(deal.pending)
        seen["tie_break"] += len(deal.seats) < e.rules.num_players
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        extras = legal[legal >= NUM_CARDS]
        action = int(rng.choice(extras if extras.size and rng.random() < 0.5 else legal))
        seen["pass_on"] += action == PASS_ON
        e.step(action)
    assert_rows_match(e, "end")
    return seen


# ---------------------------------------------------------------------------- refusals

#: What a public face raises for a value it refuses (ValueError and its subclasses: RulesError,
#: IllegalActionError, ...) or a call in the wrong order (RuntimeError: reset first). Anything
#: else (a TypeError from deep inside, an AttributeError, a hang) is a fault of the face.
REFUSALS = (ValueError, RuntimeError)


@contextlib.contextmanager
def within(seconds: float, what: str = "the call"):
    """Fail with TimeoutError (instead of hanging the suite) if the block runs past ``seconds``."""
    def stop(signum, frame):
        raise TimeoutError(f"{what} ran past {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def refusal(call, seconds: float = 10.0) -> Exception | None:
    """Run ``call`` within ``seconds``; None if it succeeds, else its refusal, checked to be one of
    :data:`REFUSALS` with a non-empty one-line message (any other exception propagates)."""
    try:
        with within(seconds, getattr(call, "__name__", "the call")):
            call()
    except REFUSALS as e:
        message = str(e)
        assert message.strip() and "\n" not in message, f"{type(e).__name__} without a one-line message: {message!r}"
        return e
    return None


# ---------------------------------------------------------------------------- tools: bm-play, bm-replay


class Script:
    """stdin for a game: the given lines first, then a legal card in turn written 'qs', 'Q♠' or '10h' style."""

    def __init__(self, lines, forms=("ascii", "pretty", "lower"), stop_after=None):
        self.lines = list(lines)
        self.forms = forms
        self.game = None
        self.cards = 0
        self.stop_after = stop_after

    def readline(self):
        if self.lines:
            return self.lines.pop(0) + "\n"
        if self.stop_after is not None and self.cards >= self.stop_after:
            return ""  # end of input
        legal = self.game.env.information_state(self.game.me).legal
        c = legal[self.cards % len(legal)]
        form = self.forms[self.cards % len(self.forms)]
        self.cards += 1
        text = {"ascii": card_str(c), "pretty": card_pretty(c), "lower": card_pretty(c).replace("♠", "s")
                .replace("♥", "h").replace("♦", "d").replace("♣", "c").lower()}[form]
        return text + "\n"


def play_at_terminal(argv: list[str], stdin) -> tuple[int, str]:
    """bm-play with the arguments ``argv`` and the person's input read from ``stdin`` (a :class:`Script`, or
    any object with ``readline`` and a ``game`` attribute): its exit status and everything it printed."""
    from bm_env.cli.play import Game, build_parser

    out = io.StringIO()
    game = Game(build_parser().parse_args(argv), stdin, out)
    stdin.game = game
    return game.run(), out.getvalue()


def embedded_frames(page: str) -> dict[str, list]:
    """The frames each view of a bm-replay page embeds, decoded as the page's script decodes them."""
    blobs = re.findall(r'id="frames-(\w+)">([^<]*)</script>', page)
    return {view: json.loads(zlib.decompress(base64.b64decode(b)).decode("utf-8")) for view, b in blobs}


# ---------------------------------------------------------------------------- examples and training


def load_example(name: str) -> ModuleType:
    """``examples/NAME.py`` as a module, so a test can call its functions (the folder is not a
    package: the scripts are meant to be read and run)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


#: A training run small enough for the fast suite: 16 games x 30 steps = 480 decisions per update.
TINY_TRAINING = dict(num_envs=16, rollout_steps=30, hidden=[32], critic_hidden=[32], minibatch_size=128, epochs=2,
                     pool_size=2, pool_share=0.5, snapshot_every=1, eval_every=0, final_eval_boards=0,
                     checkpoint_every=1, torch_threads=1, eval_workers=1, seed=3)
DECISIONS_PER_UPDATE = 16 * 30


def trainer_weights(trainer) -> dict:
    """Every weight of a trainer's actor and critic, by name."""
    return {**{f"actor.{k}": v for k, v in trainer.actor.state_dict().items()},
            **{f"critic.{k}": v for k, v in trainer.critic.state_dict().items()}}


def tiny_config(**kw):
    """The :data:`TINY_TRAINING` config with ``kw`` overriding it."""
    from bm_env.training.config import config_from_dict

    return config_from_dict({**TINY_TRAINING, **kw}, "test")


def web_client(store):
    """Starlette's in-process client of the web table serving ``store`` (needs the web extra)."""
    import warnings

    from bm_env.web import make_app

    with warnings.catch_warnings():  # newer Starlette asks for httpx2 here; httpx is what the web extra holds
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient
    return TestClient(make_app(store))


def web_move(view: dict, chooser: random.Random) -> dict:
    """A legal move for the web table's seat view (the body of ``POST /api/games/{id}/actions``):
    the whole pass at once while passing, else a card or decision drawn from the legal ones."""
    if view["phase"] == "pass" and view["pass"]["to_pick"] > 1:
        return {"cards": chooser.sample(view["legal"], view["pass"]["to_pick"])}
    return chooser.choice([{"card": c} for c in view["legal"]] + [{"action": a["id"]} for a in view["actions"]])


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Torch on one thread for the test (a module that imports this fixture uses it for each of its tests):
    the policies' forward passes there are of a few rows, where two threads' barriers cost more."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def load_script(name: str):
    """The module of ``scripts/NAME.py``, which is not a package (registered, so its dataclasses resolve)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
