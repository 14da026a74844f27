"""The observation vector: one int8 layout shared by the environment and the vector engine.

The layout is a list of named parts ``(name, size)`` whose sizes sum to the vector's
length; it depends only on the match's player count ``n``. Everything is relative to the
observer: "seat r" below means the seat ``r`` places to the observer's left (r = 0 is the
observer). Card planes hold 52 cells indexed by card id. Numbers that can exceed the int8
range (points, scores) take two cells, ``coarse = v >> 5`` and ``fine = v & 31``, so
``v = 32 * coarse + fine`` exactly for any ``|v| < 4096``.

:func:`encode` builds the vector from an :class:`~bm_env.engine.infostate.InfoState`, so it can
only contain what that player may know; :func:`decode` reads a vector back into named
fields (the tests check that it recovers the information state). Bump
:data:`LAYOUT_VERSION` whenever the layout changes: checkpoints record it.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..engine.actions import CHARGEABLE
from ..engine.cards import NUM_CARDS
from ..engine.infostate import InfoState
from ..engine.rules import FIRST_LEADS, KITTIES, MOONS, SCATTER, TEAMS, Rules, direction_offset

#: The layout's version: checkpoints record it, and loading refuses one trained on another layout.
LAYOUT_VERSION = 2
MAX_PLAYERS = 7
NUMBER_SHIFT = 5
#: The moon rules of the base one-hot part; "shooter_choice" lives in the moon_choice feature part.
BASE_MOONS = MOONS[:4]
#: Extra phases, one cell each in the "extra_phase" part.
EXTRA_PHASES = ("charge", "discard", "moon")


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
    parts: list[tuple[str, int, str]] = [("extra_phase", len(EXTRA_PHASES), "one-hot: charging, kitty discard, moon choice")]
    if "two_decks" in feats:
        parts += [("two_decks", 1, "rule: two decks (card planes count copies: 0, 1 or 2)"),
                  ("pending_trick_cards", NUM_CARDS, "cards of cancelled tricks left on the table for the next winner")]
    if "kitty" in feats:
        parts += [("kitty_rule", len(KITTIES) - 1, "rule: one-hot kitty to the first trick / first point"),
                  ("kitty_to_hand", 1, "rule: the kitty taker adds it to their hand and discards as many"),
                  ("kitty_size", 1, "cards in the kitty"),
                  ("kitty_taker", n, "one-hot: seat that took the kitty"),
                  ("kitty_cards", NUM_CARDS, "the kitty's cards (seen by its taker only)"),
                  ("kitty_discarded", NUM_CARDS, "cards I discarded face down after taking the kitty")]
    if "scatter" in feats:
        parts += [("scatter_deal", 1, "this deal's pass is a scatter (one card to each other player)")]
    if "optional_pass" in feats:
        parts += [("passed_on", n, "seat r passed on, unseen, the cards passed to them")]
    if "moon_choice" in feats or "sun" in feats:
        parts += [("moon_choice", 1, "rule: the shooter chooses how the moon scores"),
                  ("sun_points", 2, "rule: total of shooting the sun (two cells; 0 = off)"),
                  ("moon_shooter", n, "one-hot: seat that shot the moon (or sun) this deal")]
    if "queen_when_safe" in feats:
        parts += [("queen_when_safe", 1, "rule: Q♠ must be played as soon as it is safe")]
    if "charging" in feats:
        parts += [("charged", len(CHARGEABLE) * n, "seat r charged A♥, Q♠, J♦, 10♣ (index 4r + j)")]
    if "ten_clubs_multiplier" in feats:
        parts += [("ten_clubs_multiplier", 1, "rule: the taker of 10♣ doubles their deal score (x4 if charged)")]
    if "booster_nines" in feats:
        parts += [("booster_nines", 1, "rule: a nine of the led suit adds a round to the trick"),
                  ("boosts_owed", 1, "rounds still to be added to the current trick")]
    if "teams" in feats:
        parts += [("team_mode", len(TEAMS) - 1, "rule: one-hot joint or individual partnership scoring"),
                  ("partner", n, "one-hot: my partner's seat")]
    return tuple(parts)


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


def split_number(v: int) -> tuple[int, int]:
    """The two cells of a number that can exceed the int8 range: ``(v >> 5, v & 31)`` (module docstring)."""
    return v >> NUMBER_SHIFT, v & ((1 << NUMBER_SHIFT) - 1)


def join_number(coarse: int, fine: int) -> int:
    """The number two cells hold: the inverse of :func:`split_number`."""
    return (int(coarse) << NUMBER_SHIFT) + int(fine)


def _put_number(vec: np.ndarray, sl: slice, index: int, v: int) -> None:
    coarse, fine = split_number(v)
    vec[sl.start + 2 * index] = coarse
    vec[sl.start + 2 * index + 1] = fine


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
    if feats:
        _encode_rule_features(vec, o, rules, feats)


def _encode_rule_features(vec: np.ndarray, o: dict[str, slice], rules: Rules, feats: tuple[str, ...]) -> None:
    def flag(name: str, value) -> None:
        vec[o[name].start] = int(bool(value))

    if "two_decks" in feats:
        flag("two_decks", True)
    if "kitty" in feats:
        vec[o["kitty_rule"]] = 0
        vec[o["kitty_rule"].start + KITTIES.index(rules.kitty) - 1] = 1
        flag("kitty_to_hand", rules.kitty_to_hand)
    if "moon_choice" in feats or "sun" in feats:
        flag("moon_choice", rules.moon_choice)
        _put_number(vec, o["sun_points"], 0, rules.sun_points or 0)
    if "queen_when_safe" in feats:
        flag("queen_when_safe", True)
    if "ten_clubs_multiplier" in feats:
        flag("ten_clubs_multiplier", True)
    if "booster_nines" in feats:
        flag("booster_nines", True)
    if "teams" in feats:
        vec[o["team_mode"]] = 0
        vec[o["team_mode"].start + TEAMS.index(rules.teams) - 1] = 1


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
    if feats:
        _encode_state_features(vec, o, info, feats, rel)
    return vec


#: Feature parts whose cells change with the play in ways :func:`encode_in_world` does not rewrite
#: (the rule systems pimc refuses: it rebuilds one-deck deals without kitty, charges or boosts).
_NOT_IN_WORLDS = frozenset({"two_decks", "kitty", "charging", "booster_nines"})


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
    if _NOT_IN_WORLDS.intersection(feats):
        raise ValueError(f"encode_in_world rewrites one-deck play without kitty, charges or boosts; these rules "
                         f"use {sorted(_NOT_IN_WORLDS.intersection(feats))}")
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
        _put_number(vec, points_part, r, points)
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
    elif info.pass_direction == SCATTER:
        for r in range(1, k):
            vec[o["pass_receiver"].start + rel(info.seats[(pos + r) % k])] = 1
    else:
        receiver = info.seats[(pos + direction_offset(info.pass_direction, k)) % k]
        vec[o["pass_receiver"].start + rel(receiver)] = 1
    vec[o["pass_count"].start] = info.pass_count


def _encode_state_features(vec: np.ndarray, o: dict[str, slice], info: InfoState, feats, rel) -> None:
    if info.phase in EXTRA_PHASES:
        vec[o["extra_phase"].start + EXTRA_PHASES.index(info.phase)] = 1
    if "two_decks" in feats:
        for c in info.pending:
            vec[o["pending_trick_cards"].start + c] += 1
    if "kitty" in feats:
        vec[o["kitty_size"].start] = info.kitty_size
        if info.kitty_taker is not None:
            vec[o["kitty_taker"].start + rel(info.kitty_taker)] = 1
        for c in info.kitty:
            vec[o["kitty_cards"].start + c] += 1
        for c in info.discarded:
            vec[o["kitty_discarded"].start + c] += 1
    if "scatter" in feats:
        vec[o["scatter_deal"].start] = info.pass_direction == SCATTER and info.pass_count > 0
    if "optional_pass" in feats:
        for s in info.passed_on:
            vec[o["passed_on"].start + rel(s)] = 1
    if ("moon_choice" in feats or "sun" in feats) and info.moon_shooter is not None:
        vec[o["moon_shooter"].start + rel(info.moon_shooter)] = 1
    if "charging" in feats:
        for s, cards in enumerate(info.charged):
            for c in cards:
                vec[o["charged"].start + len(CHARGEABLE) * rel(s) + CHARGEABLE.index(c)] = 1
    if "booster_nines" in feats:
        vec[o["boosts_owed"].start] = info.boosts_owed
    if "teams" in feats and info.partner is not None:
        vec[o["partner"].start + rel(info.partner)] = 1


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
