"""The observation vector: one int8 layout shared by the environment and the vector engine.

The layout is a list of named parts ``(name, size)`` whose sizes sum to the vector's
length; it depends only on the match's player count ``n`` and, past the classic parts, on the
extension features in use, whose parts and encodings each rule system of :mod:`bm_env.systems`
holds. Everything is relative to the
observer: "seat r" below means the seat ``r`` places to the observer's left (r = 0 is the
observer). Card planes hold 52 cells indexed by card id. Numbers that can exceed the int8
range (points, scores) take two cells (:mod:`bm_env.systems.cells`), ``coarse = v >> 5`` and
``fine = v & 31``, so ``v = 32 * coarse + fine`` exactly for any ``|v| < 4096``.

:func:`encode` builds the vector from an :class:`~bm_env.engine.infostate.InfoState`, so it can
only contain what that player may know; :func:`decode` reads a vector back into named
fields (the tests check that it recovers the information state). Bump
:data:`LAYOUT_VERSION` whenever the layout changes: checkpoints record it.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..engine.cards import NUM_CARDS
from ..engine.infostate import InfoState
from ..engine.rules import FIRST_LEADS, MOONS, Rules
from ..systems import SYSTEMS
from ..systems.cells import join_number, put_number
from ..systems.passing import receiving_offsets

#: The layout's version: checkpoints record it, and loading refuses one trained on another layout.
LAYOUT_VERSION = 2
MAX_PLAYERS = 7
#: The moon rules of the base one-hot part; "shooter_choice" lives in the moon_choice feature part.
BASE_MOONS = MOONS[:4]
#: The phases the rule systems add (charging, the kitty's discards, the moon choice), one cell each in the
#: "extra_phase" part. By name: the order the systems are registered in does not move the cells.
EXTRA_PHASES = tuple(sorted({phase for system in SYSTEMS for phase in system.phases}))


def features(rules: Rules) -> tuple[str, ...]:
    """The optional layout features these rules use (empty for the classic presets)."""
    return rules.uses_extensions


@lru_cache(maxsize=None)
def layout(num_players: int, features: tuple[str, ...] = ()) -> tuple[tuple[str, int], ...]:
    """Named parts ``(name, size)`` of the observation for a match of ``num_players``.

    ``features`` (:func:`features` of the rules) appends the parts of the extension rule
    systems; without them the layout is the classic one, unchanged. With two decks the
    card planes hold counts (0, 1 or 2) instead of flags.
    """
    return tuple((name, size) for name, size, _ in _parts(num_players, features))


@lru_cache(maxsize=None)
def _parts(num_players: int, features: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    """The parts with their meanings ``(name, size, meaning)``: each part is documented where it is defined."""
    parts = _base_parts(num_players)
    return parts + _feature_parts(num_players, features) if features else parts


def size_for(rules: Rules) -> int:
    """Length of the observation vector of these rules."""
    return size(rules.num_players, features(rules))


def _feature_parts(n: int, feats: tuple[str, ...]) -> tuple[tuple[str, int, str], ...]:
    """The extra phases' part, then each rule system's parts (:mod:`bm_env.systems`), in the registry's order."""
    meaning = f"one-hot: the deal is in this phase of a rule system's own ({', '.join(EXTRA_PHASES)})"
    parts = (("extra_phase", len(EXTRA_PHASES), meaning),)
    return parts + tuple(part for system in SYSTEMS for part in system.parts(n, feats))


def _base_parts(num_players: int) -> tuple[tuple[str, int, str], ...]:
    """Card planes, then one-cell flags, then numbers: the vector engine writes the first two
    groups as bits that one ``np.unpackbits`` turns into cells, and the numbers after it in two
    contiguous runs (those that change within a deal, then the constant ones). The planes it
    gathers per seat alternate (played, trick card), so that each kind fills every other plane."""
    n = num_players
    parts: list[tuple[str, int, str]] = [
        ("hand", NUM_CARDS, "cards held (during passing, without the cards already picked to pass)"),
        ("received", NUM_CARDS, "cards passed to me; empty until every player has passed"),
    ]
    for r in range(n):
        parts += [(f"played_by_seat{r}", NUM_CARDS, "cards seat r has played this deal (the current trick included)"),
                  (f"trick_card_seat{r}", NUM_CARDS, "the card seat r has put on the current trick")]
    parts += [(f"passed_to_seat{r}", NUM_CARDS, "cards I passed to seat r") for r in range(1, n)]
    parts += [
        ("no_pass_cards", NUM_CARDS, "rule: cards that may not be passed"),
        ("phase", 2, "passing, playing (both 0 once the deal is over)"),
        ("pass_receiver", n, "one-hot: the seat that receives my pass this deal (index 0: no pass)"),
        ("in_deal", n, "seat r plays this deal (a tie-break deal among some players leaves others out)"),
        ("dealer", n, "one-hot: the dealer's seat"),
        ("trick_leader", n, "one-hot: who led the current trick"),
        ("led_suit", 4, "one-hot: suit led to the current trick"),
        ("voids", 4 * n, "seat r has shown void in suit s (index 4r + s)"),
        ("hearts_broken", 1, "hearts have been broken"),
        ("tie_break_deal", 1, "this is a tie-break deal among the tied players"),
        # The rules as features, so one network can learn across presets (2..n above 7 players: two decks).
        ("players_in_deal", max(MAX_PLAYERS, n) - 1, "rule: one-hot, players in this deal (2..7)"),
        ("trumps_hearts", 1, "rule: hearts are trumps"),
        ("lower_wins", 1, "rule: the lowest total wins"),
        ("moon", len(BASE_MOONS), "rule: one-hot moon rule (off, shooter_minus, others_plus, others_plus_unless_win)"),
        ("hearts_when_broken", 1, "rule: hearts may be led only once broken"),
        ("queen_breaks_hearts", 1, "rule: Q♠ breaks hearts"),
        ("first_trick_no_points", 1, "rule: no penalty cards on the first trick"),
        ("first_lead", len(FIRST_LEADS),
         "rule: one-hot first-lead rule (eldest_any, eldest_non_heart, lowest_club, lowest_club_any_club)"),
        # Numbers: first those that change within a deal ...
        ("pass_count", 1, "cards each player passes this deal"),
        ("tricks_played", 1, "tricks completed this deal"),
        ("points_taken", 2 * n, "points each seat has taken this deal as I know them (two cells each)"),
        # ... then those that change only between deals or never.
        ("match_scores", 2 * n, "match totals by seat (two cells each)"),
        ("deals_played", 2, "deals counted in the match so far"),
        ("deals_left", 2, "deals until the end of a fixed-length match (else 0)"),
        ("threshold_gap", 2, "threshold minus the highest total in a threshold match (else 0)"),
        ("card_values", NUM_CARDS, "rule: points each card scores for its taker"),
        ("clean_trick_bonus", 1, "rule: points for a trick without a valued card"),
    ]
    return tuple(parts)


@lru_cache(maxsize=None)
def offsets(num_players: int, features: tuple[str, ...] = ()) -> dict[str, slice]:
    """Slice of each named part in the vector."""
    out, start = {}, 0
    for name, size in layout(num_players, features):
        out[name] = slice(start, start + size)
        start += size
    return out


def size(num_players: int, features: tuple[str, ...] = ()) -> int:
    """Length of the vector for ``num_players`` with the optional layout ``features`` (:func:`size_for`
    asks the rules for them)."""
    return sum(s for _, s in layout(num_players, features))


def encode_rules(vec: np.ndarray, rules: Rules, players_in_deal: int) -> None:
    """Write the rule features (constant within a deal) into ``vec``."""
    feats = features(rules)
    o = offsets(rules.num_players, feats)
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
    if rules.moon in BASE_MOONS:
        vec[o["moon"].start + BASE_MOONS.index(rules.moon)] = 1
    vec[o["hearts_when_broken"].start] = rules.hearts_lead == "when_broken"
    vec[o["queen_breaks_hearts"].start] = rules.queen_breaks_hearts
    vec[o["first_trick_no_points"].start] = rules.first_trick_no_points
    vec[o["first_lead"]] = 0
    vec[o["first_lead"].start + FIRST_LEADS.index(rules.first_lead)] = 1
    for system in SYSTEMS if feats else ():
        system.encode_rules(vec, o, rules, feats)


def encode(info: InfoState) -> np.ndarray:
    """The observation vector of ``info.seat`` (int8), built from its information state only."""
    rules = info.rules
    n = rules.num_players
    feats = features(rules)
    o = offsets(n, feats)
    vec = np.zeros(size(n, feats), dtype=np.int8)
    me = info.seat

    def rel(s: int) -> int:
        return (s - me) % n

    # Card planes add up, so a card held (passed, played) twice reads 2 with two decks.
    for c in info.hand:
        vec[o["hand"].start + c] += 1
    for c, to in info.passed:
        if to != me:  # passed on by everyone and back to me: the cards are in my hand
            vec[o[f"passed_to_seat{rel(to)}"].start + c] += 1
    for c in info.received:
        vec[o["received"].start + c] += 1
    for s, c in info.plays:
        vec[o[f"played_by_seat{rel(s)}"].start + c] += 1
    for s, c in info.current_trick:
        vec[o[f"trick_card_seat{rel(s)}"].start + c] += 1
    encode_rules(vec, rules, len(info.seats))
    _encode_phase_and_pass(vec, o, info, rel)
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
        put_number(vec, o["points_taken"], r, info.points_taken[s])
        put_number(vec, o["match_scores"], r, info.match_scores[s])
    vec[o["tricks_played"].start] = len(info.tricks)
    vec[o["hearts_broken"].start] = info.hearts_broken
    put_number(vec, o["deals_played"], 0, info.deals_played)
    if rules.match_end == "deals":
        put_number(vec, o["deals_left"], 0, max(rules.match_deals - info.deals_played, 0))
    else:
        put_number(vec, o["threshold_gap"], 0, rules.match_threshold - max(info.match_scores))
    vec[o["tie_break_deal"].start] = len(info.seats) < n
    if feats:
        _encode_state_features(vec, o, info, feats, rel)
    return vec


@lru_cache(maxsize=None)
def _play_parts(num_players: int, features: tuple[str, ...]) -> tuple:
    """Where :func:`encode_in_world` writes: the span of the played and trick-card planes, each
    relative seat's two planes, and the starts of the other parts that change with the play."""
    o = offsets(num_players, features)
    n = num_players
    planes = slice(o["played_by_seat0"].start, o[f"trick_card_seat{n - 1}"].stop)
    played = tuple(o[f"played_by_seat{r}"].start for r in range(n))
    on_trick = tuple(o[f"trick_card_seat{r}"].start for r in range(n))
    return (o["hand"], planes, played, on_trick, o["trick_leader"], o["led_suit"], o["voids"],
            o["points_taken"], o["tricks_played"].start, o["hearts_broken"].start)


def encode_in_world(template: np.ndarray, deal, seat: int) -> np.ndarray:
    """The observation of match ``seat`` at its turn in ``deal``, a search's world played on.

    ``template`` is the seat's observation where the search began (:func:`encode` of its
    information state); the cells that change with the play (hand, cards played, the trick,
    voids, points taken, tricks played, hearts broken) are rewritten from ``deal``, the rest
    (the rules, the seat's pass, the match) kept. That is the vector :func:`encode` gives the
    seat's information state in the world, with the seat's pass, which a world deal (it starts
    at play) lacks, as it was where the search began: in a world holding the real hands, the
    real deal's observation (a test holds them equal). It is built without an information
    state: a guided search (:mod:`bm_env.agents.pimc`, ``guide_playouts``) asks it at every
    step of every playout, where building the information state took most of the search's time.
    """
    rules = deal.rules
    n = rules.num_players
    feats = features(rules)
    # The systems whose cells change with the play in ways this does not rewrite (those pimc refuses: it rebuilds
    # one-deck deals without kitty, charges or boosts).
    unwritten = sorted(f for system in SYSTEMS if system.changes_in_play for f in system.features(rules))
    if unwritten:
        raise ValueError(f"encode_in_world rewrites one-deck play without kitty, charges or boosts; these rules "
                         f"use {unwritten}")
    hand_part, planes, played, on_trick, leader_part, led_part, voids_part, points_part, tricks_at, broken_at = \
        _play_parts(n, feats)
    seats = deal.seats
    k = len(seats)
    rel = [(s - seat) % n for s in seats]  # by deal position
    vec = template.copy()
    vec[hand_part] = 0
    vec[planes] = 0
    start = hand_part.start
    for c in deal.hand_cards(seats.index(seat)):
        vec[start + c] = 1
    for leader, cards, _ in deal.tricks:
        for i, c in enumerate(cards):
            vec[played[rel[(leader + i) % k]] + c] = 1
    vec[leader_part] = 0
    vec[led_part] = 0
    if deal.trick:
        for i, c in enumerate(deal.trick):
            r = rel[(deal.leader + i) % k]
            vec[played[r] + c] = 1
            vec[on_trick[r] + c] = 1
        vec[leader_part.start + rel[deal.leader]] = 1
        vec[led_part.start + deal.led_suit] = 1
    vec[voids_part] = 0
    vec[points_part] = 0
    for i, (voids, points) in enumerate(zip(deal.voids, deal.captured)):
        r = rel[i]
        for suit in range(4):
            if voids >> suit & 1:
                vec[voids_part.start + 4 * r + suit] = 1
        put_number(vec, points_part, r, points)
    vec[tricks_at] = len(deal.tricks)
    vec[broken_at] = deal.hearts_broken
    return vec


def _encode_phase_and_pass(vec: np.ndarray, o: dict[str, slice], info: InfoState, rel) -> None:
    """The phase flags and this deal's pass: who receives my cards (index 0: no pass) and how many."""
    me = info.seat
    if info.phase == "pass":
        vec[o["phase"].start] = 1
    elif info.phase == "play":
        vec[o["phase"].start + 1] = 1
    k = len(info.seats)
    pos = info.seats.index(me) if me in info.seats else 0
    if not info.pass_count:
        vec[o["pass_receiver"].start] = 1
    else:
        for offset in receiving_offsets(info.pass_direction, k):
            vec[o["pass_receiver"].start + rel(info.seats[(pos + offset) % k])] = 1
    vec[o["pass_count"].start] = info.pass_count


def _encode_state_features(vec: np.ndarray, o: dict[str, slice], info: InfoState, feats, rel) -> None:
    if info.phase in EXTRA_PHASES:
        vec[o["extra_phase"].start + EXTRA_PHASES.index(info.phase)] = 1
    for system in SYSTEMS:
        system.encode_state(vec, o, info, feats, rel)


def decode(vec: np.ndarray, num_players: int, rules: Rules | None = None) -> dict[str, object]:
    """Read a vector back into named fields: card planes as sorted card tuples, numbers joined.

    Give ``rules`` for rules with extension features (their layout has more parts); a card
    held twice (two decks) appears twice in its tuple.
    """
    feats = features(rules) if rules is not None else ()
    o = offsets(num_players, feats)
    out: dict[str, object] = {}
    numbers = {"points_taken", "match_scores", "deals_played", "deals_left", "threshold_gap", "sun_points"}
    for name, _ in layout(num_players, feats):
        part = vec[o[name]]
        if len(part) == NUM_CARDS and name != "card_values":
            out[name] = tuple(int(c) for c in np.flatnonzero(part) for _ in range(int(part[c])))
        elif name in numbers:
            vals = tuple(join_number(part[2 * i], part[2 * i + 1]) for i in range(len(part) // 2))
            out[name] = vals if len(vals) > 1 else vals[0]
        else:
            out[name] = tuple(int(x) for x in part)
    return out


def layout_table(num_players: int, rules: Rules | None = None) -> str:
    """The layout as a markdown table (docs/observation.md prints it, checked by tests/test_readme.py): part, cells, indices, meaning.

    With ``rules`` the parts of its extension features are included (e.g. ``make_rules("turbo_hearts")``).
    """
    feats = features(rules) if rules is not None else ()
    rows = ["| part | cells | indices | meaning |", "|---|---|---|---|"]
    o = offsets(num_players, feats)
    for name, width, meaning in _parts(num_players, feats):
        rows.append(f"| `{name}` | {width} | {o[name].start}-{o[name].stop - 1} | {meaning} |")
    rows.append(f"| total | {size(num_players, feats)} | | |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    """``python -m bm_env.env.observation [PLAYERS | PRESET [PLAYERS]]``: print a layout table."""
    import sys

    from ..engine.rules import PRESETS, RulesError, make_rules

    args = sys.argv[1:] if argv is None else argv
    usage = (f"usage: python -m bm_env.env.observation [PLAYERS | PRESET [PLAYERS]]; PLAYERS 3..{MAX_PLAYERS}, "
             f"PRESET one of {', '.join(PRESETS)}")
    if len(args) > 2 or (args and args[0].isdigit() and len(args) > 1):
        print(usage, file=sys.stderr)
        return 2
    if not args or args[0].isdigit():
        n = int(args[0]) if args else 3
        if not 3 <= n <= MAX_PLAYERS:
            print(f"bm_env.env.observation: {n} players: the layout is for 3 to {MAX_PLAYERS} players\n{usage}",
                  file=sys.stderr)
            return 2
        print(layout_table(n))
        return 0
    try:
        if len(args) > 1 and not args[1].isdigit():
            raise RulesError(f"player count {args[1]!r} is not a whole number")
        preset_rules = make_rules(args[0], int(args[1]) if len(args) > 1 else None)
    except RulesError as e:
        print(f"bm_env.env.observation: {e}\n{usage}", file=sys.stderr)
        return 2
    print(layout_table(preset_rules.num_players, preset_rules))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
