"""The observation vector: one int8 layout shared by the environment and the vector engine.

The layout is a list of named parts ``(name, size)`` whose sizes sum to the vector's
length; it depends only on the match's player count ``n``. Everything is relative to the
observer: "seat r" below means the seat ``r`` places to the observer's left (r = 0 is the
observer). Card planes hold 52 cells indexed by card id. Numbers that can exceed the int8
range (points, scores) take two cells, ``coarse = v >> 5`` and ``fine = v & 31``, so
``v = 32 * coarse + fine`` exactly for any |v| < 4096.

:func:`encode` builds the vector from an :class:`~bm_env.infostate.InfoState`, so it can
only contain what that player may know; :func:`decode` reads a vector back into named
fields (the tests check that it recovers the information state). Bump
:data:`LAYOUT_VERSION` whenever the layout changes: checkpoints record it.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .cards import NUM_CARDS
from .infostate import InfoState
from .rules import FIRST_LEADS, MOONS, Rules, direction_offset

LAYOUT_VERSION = 1
MAX_PLAYERS = 7
NUMBER_SHIFT = 5


@lru_cache(maxsize=None)
def layout(num_players: int) -> tuple[tuple[str, int], ...]:
    """Named parts ``(name, size)`` of the observation for a match of ``num_players``."""
    n = num_players
    parts: list[tuple[str, int]] = [("hand", NUM_CARDS)]
    parts += [(f"passed_to_seat{r}", NUM_CARDS) for r in range(1, n)]
    parts += [("received", NUM_CARDS)]
    parts += [(f"played_by_seat{r}", NUM_CARDS) for r in range(n)]
    parts += [(f"trick_card_seat{r}", NUM_CARDS) for r in range(n)]
    parts += [("no_pass_cards", NUM_CARDS), ("card_values", NUM_CARDS)]
    parts += [
        ("phase", 2),  # passing, playing (both 0 once the deal is over)
        ("pass_receiver", n),  # one-hot: seat r receives my pass this deal; r = 0 means hold
        ("pass_count", 1),
        ("in_deal", n),  # seat r plays this deal (all but tie-break deals among some players)
        ("dealer", n),
        ("trick_leader", n),
        ("led_suit", 4),
        ("voids", 4 * n),  # seat r showed void in suit s at index 4r + s
        ("points_taken", 2 * n),  # this deal, two cells per seat
        ("tricks_played", 1),
        ("hearts_broken", 1),
        ("match_scores", 2 * n),
        ("deals_played", 2),
        ("deals_left", 2),  # fixed-length matches: deals until the end; else 0
        ("threshold_gap", 2),  # threshold matches: threshold minus the highest total; else 0
        ("tie_break_deal", 1),
        # The rules as features, so one network can learn across presets.
        ("players_in_deal", MAX_PLAYERS - 1),  # one-hot over 2..7
        ("trumps_hearts", 1),
        ("lower_wins", 1),
        ("clean_trick_bonus", 1),
        ("moon", len(MOONS)),
        ("hearts_when_broken", 1),
        ("queen_breaks_hearts", 1),
        ("first_trick_no_points", 1),
        ("first_lead", len(FIRST_LEADS)),
    ]
    return tuple(parts)


@lru_cache(maxsize=None)
def offsets(num_players: int) -> dict[str, slice]:
    """Slice of each named part in the vector."""
    out, start = {}, 0
    for name, size in layout(num_players):
        out[name] = slice(start, start + size)
        start += size
    return out


def size(num_players: int) -> int:
    return sum(s for _, s in layout(num_players))


def split_number(v: int) -> tuple[int, int]:
    return v >> NUMBER_SHIFT, v & ((1 << NUMBER_SHIFT) - 1)


def join_number(coarse: int, fine: int) -> int:
    return (int(coarse) << NUMBER_SHIFT) + int(fine)


def _put_number(vec: np.ndarray, sl: slice, index: int, v: int) -> None:
    coarse, fine = split_number(v)
    vec[sl.start + 2 * index] = coarse
    vec[sl.start + 2 * index + 1] = fine


def encode_rules(vec: np.ndarray, rules: Rules, players_in_deal: int) -> None:
    """Write the rule features (constant within a deal) into ``vec``."""
    o = offsets(rules.num_players)
    vec[o["no_pass_cards"]] = 0
    for c in rules.no_pass_cards:
        vec[o["no_pass_cards"].start + c] = 1
    vec[o["card_values"]] = rules.card_values
    vec[o["players_in_deal"]] = 0
    vec[o["players_in_deal"].start + players_in_deal - 2] = 1
    vec[o["trumps_hearts"].start] = rules.trumps == "hearts"
    vec[o["lower_wins"].start] = rules.lower_wins
    vec[o["clean_trick_bonus"].start] = rules.clean_trick_bonus
    vec[o["moon"]] = 0
    vec[o["moon"].start + MOONS.index(rules.moon)] = 1
    vec[o["hearts_when_broken"].start] = rules.hearts_lead == "when_broken"
    vec[o["queen_breaks_hearts"].start] = rules.queen_breaks_hearts
    vec[o["first_trick_no_points"].start] = rules.first_trick_no_points
    vec[o["first_lead"]] = 0
    vec[o["first_lead"].start + FIRST_LEADS.index(rules.first_lead)] = 1


def encode(info: InfoState) -> np.ndarray:
    """The observation vector of ``info.seat`` (int8), built from its information state only."""
    rules = info.rules
    n = rules.num_players
    o = offsets(n)
    vec = np.zeros(size(n), dtype=np.int8)
    me = info.seat

    def rel(s: int) -> int:
        return (s - me) % n

    for c in info.hand:
        vec[o["hand"].start + c] = 1
    for c, to in info.passed:
        vec[o[f"passed_to_seat{rel(to)}"].start + c] = 1
    for c in info.received:
        vec[o["received"].start + c] = 1
    for s, c in info.plays:
        vec[o[f"played_by_seat{rel(s)}"].start + c] = 1
    for s, c in info.current_trick:
        vec[o[f"trick_card_seat{rel(s)}"].start + c] = 1
    encode_rules(vec, rules, len(info.seats))
    if info.phase == "pass":
        vec[o["phase"].start] = 1
    elif info.phase == "play":
        vec[o["phase"].start + 1] = 1
    k = len(info.seats)
    if info.pass_count:
        pos = info.seats.index(me) if me in info.seats else 0
        receiver = info.seats[(pos + direction_offset(info.pass_direction, k)) % k]
        vec[o["pass_receiver"].start + rel(receiver)] = 1
    else:
        vec[o["pass_receiver"].start] = 1
    vec[o["pass_count"].start] = info.pass_count
    for s in info.seats:
        vec[o["in_deal"].start + rel(s)] = 1
    vec[o["dealer"].start + rel(info.dealer)] = 1
    if info.current_trick:
        vec[o["trick_leader"].start + rel(info.current_trick[0][0])] = 1
        vec[o["led_suit"].start + info.led_suit] = 1
    for s in range(n):
        r = rel(s)
        for suit in range(4):
            if info.voids[s] >> suit & 1:
                vec[o["voids"].start + 4 * r + suit] = 1
        _put_number(vec, o["points_taken"], r, info.points_taken[s])
        _put_number(vec, o["match_scores"], r, info.match_scores[s])
    vec[o["tricks_played"].start] = len(info.tricks)
    vec[o["hearts_broken"].start] = info.hearts_broken
    _put_number(vec, o["deals_played"], 0, info.deals_played)
    if rules.match_end == "deals":
        _put_number(vec, o["deals_left"], 0, max(rules.match_deals - info.deals_played, 0))
    else:
        _put_number(vec, o["threshold_gap"], 0, rules.match_threshold - max(info.match_scores))
    vec[o["tie_break_deal"].start] = len(info.seats) < n
    return vec


def decode(vec: np.ndarray, num_players: int) -> dict[str, object]:
    """Read a vector back into named fields: card planes as sorted card tuples, numbers joined."""
    o = offsets(num_players)
    out: dict[str, object] = {}
    numbers = {"points_taken", "match_scores", "deals_played", "deals_left", "threshold_gap"}
    for name, _ in layout(num_players):
        part = vec[o[name]]
        if len(part) == NUM_CARDS and name != "card_values":
            out[name] = tuple(int(c) for c in np.flatnonzero(part))
        elif name in numbers:
            vals = tuple(join_number(part[2 * i], part[2 * i + 1]) for i in range(len(part) // 2))
            out[name] = vals if len(vals) > 1 else vals[0]
        else:
            out[name] = tuple(int(x) for x in part)
    return out


_PART_DOCS = {
    "hand": "cards held (during passing, without the cards already picked to pass)",
    "passed_to_seat": "cards I passed to seat r",
    "received": "cards passed to me; empty until every player has passed",
    "played_by_seat": "cards seat r has played this deal (the current trick included)",
    "trick_card_seat": "the card seat r has put on the current trick",
    "no_pass_cards": "rule: cards that may not be passed",
    "card_values": "rule: points each card scores for its taker",
    "phase": "passing, playing (both 0 once the deal is over)",
    "pass_receiver": "one-hot: the seat that receives my pass this deal (index 0: no pass)",
    "pass_count": "cards each player passes this deal",
    "in_deal": "seat r plays this deal (a tie-break deal among some players leaves others out)",
    "dealer": "one-hot: the dealer's seat",
    "trick_leader": "one-hot: who led the current trick",
    "led_suit": "one-hot: suit led to the current trick",
    "voids": "seat r has shown void in suit s (index 4r + s)",
    "points_taken": "points each seat has taken this deal (two cells each)",
    "tricks_played": "tricks completed this deal",
    "hearts_broken": "hearts have been broken",
    "match_scores": "match totals by seat (two cells each)",
    "deals_played": "deals counted in the match so far",
    "deals_left": "deals until the end of a fixed-length match (else 0)",
    "threshold_gap": "threshold minus the highest total in a threshold match (else 0)",
    "tie_break_deal": "this is a tie-break deal among the tied players",
    "players_in_deal": "rule: one-hot, players in this deal (2..7)",
    "trumps_hearts": "rule: hearts are trumps",
    "lower_wins": "rule: the lowest total wins",
    "clean_trick_bonus": "rule: points for a trick without a valued card",
    "moon": "rule: one-hot moon rule (off, shooter_minus, others_plus, others_plus_unless_win)",
    "hearts_when_broken": "rule: hearts may be led only once broken",
    "queen_breaks_hearts": "rule: Q♠ breaks hearts",
    "first_trick_no_points": "rule: no penalty cards on the first trick",
    "first_lead": "rule: one-hot first-lead rule (eldest_any, eldest_non_heart, lowest_club, lowest_club_any_club)",
}


def layout_table(num_players: int) -> str:
    """The layout as a markdown table (the README prints it): part, cells, indices, meaning."""
    rows = ["| part | cells | indices | meaning |", "|---|---|---|---|"]
    for name, sl in offsets(num_players).items():
        doc = _PART_DOCS.get(name.rstrip("0123456789"), "")
        rows.append(f"| `{name}` | {sl.stop - sl.start} | {sl.start}-{sl.stop - 1} | {doc} |")
    rows.append(f"| total | {size(num_players)} | | |")
    return "\n".join(rows)


if __name__ == "__main__":
    import sys

    print(layout_table(int(sys.argv[1]) if len(sys.argv) > 1 else 3))
