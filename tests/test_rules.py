"""The rules object: presets, deck tables, round trips, the extension options, and every rejection with its message."""

from __future__ import annotations

import dataclasses
import json
import pickle

import pytest

from bm_env.engine.cards import parse_card
from bm_env.engine.rules import (
    DECK_TABLES,
    OPTION_NAMES,
    PRESETS,
    VALUE_TABLES,
    Rules,
    RulesError,
    direction_offset,
    make_rules,
    max_deal_points,
)

from kit import PRESET_COUNTS, cards

ALL = PRESET_COUNTS


# ---------------------------------------------------------------------------
# Presets and deck tables.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name, n", ALL)
def test_every_preset_builds_for_every_player_count(name, n):
    r = make_rules(name, n)
    assert r.num_players == n
    deck = r.deck_mask().bit_count()
    assert deck == 52 - len(r.removed_cards())
    assert r.hand_size() * n + r.kitty_size() == deck * r.decks  # an even deal (the rest a kitty)
    assert r.passes_for() <= r.hand_size()


def test_default_player_counts():
    assert {name: make_rules(name).num_players for name in PRESETS} == {
        name: preset.default_players for name, preset in PRESETS.items()
    }
    assert make_rules().num_players == 3 and make_rules() == make_rules("black_maria", 3)


@pytest.mark.parametrize("preset, n, removed, hand", [
    # the British rules: 3p no 2C (17 each); 4p full; 5p no black 2s; 6p no 2s; 7p (docs/rules.md) no 2C 2D 2S.
    ("black_maria", 3, "2C", 17),
    ("black_maria", 4, "", 13),
    ("black_maria", 5, "2C 2S", 10),
    ("black_maria", 6, "2C 2D 2H 2S", 8),
    ("black_maria", 7, "2C 2D 2S", 7),
    # the 3-7 player rules: 5p no 2C 2D; 7p all 2s but 2H.
    ("black_maria_26", 3, "2C", 17),
    ("black_maria_26", 5, "2C 2D", 10),
    ("black_maria_26", 6, "2C 2D 2H 2S", 8),
    ("black_maria_26", 7, "2C 2D 2S", 7),
    # Pagat, "other numbers of players", method 3: 3p no 2D; 5p no 2D 2C.
    ("american_hearts", 3, "2D", 17),
    ("american_hearts", 4, "", 13),
    ("american_hearts", 5, "2D 2C", 10),
    ("openspiel_hearts", 4, "", 13),
    ("petrone_black_mariah", 4, "", 13),
])
def test_deck_removal_tables(preset, n, removed, hand):
    r = make_rules(preset, n)
    assert r.removed_cards() == frozenset(cards(removed))
    assert r.hand_size() == hand


def test_seven_player_black_maria_26_keeps_the_two_of_hearts():
    r = make_rules("black_maria_26", 7)
    assert r.deck_mask() >> parse_card("2H") & 1
    assert sum(v for c, v in enumerate(r.card_values) if r.deck_mask() >> c & 1) == 26


def test_tie_break_deals_use_the_full_deck_for_two_players():
    for table in ("black_maria", "black_maria_26", "american_hearts", "full"):
        assert DECK_TABLES[table][2] == frozenset()
    r = make_rules("black_maria")
    assert r.hand_size(2) == 26 and r.removed_cards(2) == frozenset()


@pytest.mark.parametrize("n, deals", [(3, 9), (4, 12), (5, 15), (6, 18), (7, 21)])
def test_black_maria_match_length_is_three_deals_per_player(n, deals):
    assert make_rules("black_maria", n).match_deals == deals


def test_preset_specifics():
    assert make_rules("black_maria_26", 5).passes_for() == 2
    assert make_rules("black_maria_26", 4).passes_for() == 3
    assert make_rules("black_maria", 5).passes_for() == 3
    dl = make_rules("dirty_lady")
    assert dl.no_pass_cards == (parse_card("QS"),) and dl.pass_cycle == ("left",) and dl.moon == "shooter_minus"
    assert make_rules("american_hearts", 4).pass_cycle == ("left", "right", "across", "hold")
    assert make_rules("american_hearts", 3).pass_cycle == ("left", "right", "hold")
    om = make_rules("omnibus")
    assert om.card_values[parse_card("JD")] == -10
    pe = make_rules("petrone_black_mariah")
    assert (pe.trumps, pe.clean_trick_bonus, pe.lower_wins, pe.match_floor) == ("hearts", 3, False, -50)
    os_ = make_rules("openspiel_hearts")
    assert (os_.queen_breaks_hearts, os_.first_trick_no_points, os_.moon, os_.match_deals) == (True, True, "others_plus", 1)


@pytest.mark.parametrize("table, total", [
    ("black_maria", 43), ("hearts", 26), ("dirty_lady", 36), ("slippery_anne", 13), ("omnibus", 33),
    ("omnibus_ten_diamonds", 33), ("spot", 124), ("spot_pip", 129), ("petrone", -30),
])
def test_value_table_totals(table, total):
    assert sum(VALUE_TABLES[table]) == total


def test_direction_offsets():
    assert [direction_offset(d, 4) for d in ("left", "right", "across", "hold")] == [1, 3, 2, 0]
    assert [direction_offset(d, 5) for d in ("left2", "right2", "left4")] == [2, 3, 4]
    assert direction_offset("right", 3) == 2  # to seat s-1
    assert direction_offset("right", 2) == 1 and direction_offset("across", 2) == 1
    # An odd tie-break table has nobody across, and a k-th pass wrapping onto the passer holds.
    assert direction_offset("across", 3) == 0 and direction_offset("left3", 3) == 0


# ---------------------------------------------------------------------------
# Overrides, copies and the dict form.
# ---------------------------------------------------------------------------


def test_overrides_and_friendly_forms():
    r = make_rules("black_maria", moon="shooter_minus", hearts_lead="any_time")
    assert (r.moon, r.hearts_lead) == ("shooter_minus", "any_time")
    r = make_rules("black_maria", card_values="hearts", no_pass_cards="QS", pass_cycle="left", exact_reset=[100, 50])
    assert r.card_values == VALUE_TABLES["hearts"] and r.no_pass_cards == (49,)
    assert r.pass_cycle == ("left",) and r.exact_reset == (100, 50)
    r = make_rules("black_maria", card_values={"QS": 13, "JD": -10})
    assert sum(r.card_values) == 3
    # num_players goes to the preset first: Black Maria's match length follows it.
    assert make_rules("black_maria", 4).match_deals == 12
    # A Rules object as the base keeps its options.
    base = make_rules("dirty_lady", 4)
    assert make_rules(base) == base
    assert make_rules(base, 5).num_players == 5 and make_rules(base, 5).card_values == base.card_values
    assert base.replace(moon="off").moon == "off" and base.moon == "shooter_minus"


@pytest.mark.parametrize("name, n", ALL)
def test_rules_round_trip_through_dict_and_json(name, n):
    r = make_rules(name, n)
    d = r.to_dict()
    assert set(d) == set(OPTION_NAMES)
    assert Rules.from_dict(d) == r
    assert Rules.from_dict(json.loads(json.dumps(d))) == r
    assert r.replace() == r


# ---------------------------------------------------------------------------
# Rejections: each names the problem and what is allowed.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("call, message", [
    (lambda: make_rules("black_mary"), r"unknown preset 'black_mary'; allowed presets: \['black_maria', "),
    (lambda: make_rules(3), r"unknown preset 3; allowed presets: "),
    (lambda: make_rules("black_maria", colour="red"), r"unknown rules option\(s\) \['colour'\]; allowed options: \['num_players', "),
    (lambda: Rules.from_dict({"num_players": 3, "trump": "hearts"}), r"unknown rules option\(s\) \['trump'\]"),
    (lambda: Rules.from_dict([("num_players", 3)]), r"rules must be given as a mapping of option names to values, got list"),
    # player counts
    (lambda: make_rules("american_hearts", 6), r"preset 'american_hearts' is played by \[3, 4, 5\] players, not 6"),
    (lambda: make_rules("openspiel_hearts", 3), r"preset 'openspiel_hearts' is played by \[4\] players, not 3"),
    (lambda: make_rules("black_maria", True), r"preset 'black_maria' is played by \[3, 4, 5, 6, 7\] players, not True"),
    (lambda: make_rules("black_maria", "3"), r"is played by \[3, 4, 5, 6, 7\] players, not '3'"),
    (lambda: Rules(num_players=8), r"num_players=8 is not allowed; allowed: 3 to 7"),
    (lambda: Rules(num_players=5, deck_table="full", tie_break="all_players"),
     r"deck table 'full' does not cover 5 players; it covers \[4\]"),
    (lambda: Rules(num_players=6, deck_table="american_hearts", tie_break="all_players"),
     r"deck table 'american_hearts' does not cover 6 players; it covers \[3, 4, 5\]"),
    (lambda: make_rules("petrone_black_mariah", tie_break="tied_players"),
     r"tie_break='tied_players' needs deals among fewer players, but deck table 'full' does not cover \[3\] players"),
    # passing
    (lambda: make_rules("black_maria", 3, pass_cycle=["left", "across"]),
     r"pass_cycle has 'across' but 3 players have nobody across; across needs an even player count"),
    (lambda: make_rules("american_hearts", 5, pass_cycle=("across",)), r"3 players|5 players have nobody across"),
    (lambda: make_rules("black_maria", pass_cycle=["up"]), r"unknown pass direction 'up'; allowed: left, right, across, hold"),
    (lambda: make_rules("black_maria", pass_cycle=["left1"]), r"unknown pass direction 'left1'; allowed: .*left2\.\.left9"),
    (lambda: make_rules("black_maria", pass_cycle=["left3"]),
     r"pass direction 'left3' needs more than 3 players; with 3 players k is at most 2"),
    (lambda: make_rules("black_maria", pass_cycle=[]), r"pass_cycle must name at least one direction"),
    (lambda: make_rules("black_maria", pass_cycle=["left", 2]), r"pass_cycle entries must be strings"),
    (lambda: make_rules("black_maria", 7, pass_count=8), r"a pass of 8 cards is larger than a hand of 7 cards with 7 players"),
    (lambda: make_rules("black_maria_26", 5, pass_count_over_four=11),
     r"a pass of 11 cards is larger than a hand of 10 cards with 5 players"),
    (lambda: make_rules("black_maria", pass_count=-1), r"pass_count=-1 must not be negative"),
    (lambda: make_rules("black_maria", no_pass_cards=[60]), r"no_pass_cards must hold cards \(ids 0\.\.51 or strings like 'QS'\), got 60"),
    (lambda: make_rules("black_maria", no_pass_cards={"QS"}), r"no_pass_cards must be a list of cards such as \['QS'\]"),
    # A bad card name is a RulesError like any other bad option (callers catch RulesError).
    (lambda: make_rules("black_maria", no_pass_cards=["QX"]), r"^no_pass_cards: cannot read 'QX' as a card; accepted: "),
    (lambda: make_rules("black_maria", card_values={"1S": 5}), r"^card_values: cannot read '1S' as a card; accepted: "),
    # types
    (lambda: make_rules("black_maria", pass_count="3"), r"rules option pass_count must be int, got str '3'"),
    (lambda: make_rules("black_maria", lower_wins=1), r"rules option lower_wins must be bool, got int 1"),
    (lambda: make_rules("black_maria", match_deals=True), r"rules option match_deals must be int, got bool True"),
    (lambda: make_rules("black_maria", match_floor="-50"), r"rules option match_floor must be int or NoneType, got str '-50'"),
    (lambda: make_rules("black_maria", queen_breaks_hearts="yes"), r"rules option queen_breaks_hearts must be bool"),
    # enumerated values
    (lambda: make_rules("black_maria", moon="sun"),
     r"rules option moon='sun' is not allowed; allowed: \['off', 'shooter_minus', 'others_plus', 'others_plus_unless_win', 'shooter_choice'\]"),
    (lambda: make_rules("black_maria", first_lead="dealer"), r"rules option first_lead='dealer' is not allowed; allowed: \['eldest_any', "),
    (lambda: make_rules("black_maria", deck_table="pinochle"), r"rules option deck_table='pinochle' is not allowed"),
    (lambda: make_rules("black_maria", trumps="spades"), r"rules option trumps='spades' is not allowed; allowed: \['none', 'hearts'\]"),
    (lambda: make_rules("black_maria", match_end="never"), r"rules option match_end='never' is not allowed"),
    (lambda: make_rules("black_maria", tie_break="coin"), r"rules option tie_break='coin' is not allowed"),
    # values and combinations
    (lambda: make_rules("black_maria", card_values="bridge"), r"unknown card value table 'bridge'; allowed: \["),
    (lambda: make_rules("black_maria", card_values=[1] * 51), r"card_values must be 52 ints, one per card id; got 51 values"),
    (lambda: make_rules("black_maria", card_values={"QS": 1.5}), r"card_values must be whole numbers; got QS=1.5"),
    (lambda: make_rules("black_maria", card_values={99: 1}), r"card_values key 99 is not a card"),
    (lambda: make_rules("black_maria", card_values=13), r"card_values must be a table name"),
    (lambda: make_rules("black_maria", match_deals=0), r"match_deals=0 must be at least 1"),
    (lambda: make_rules("black_maria", exact_reset=(100,)), r"exact_reset must be a pair \(score, reset_to\) such as \(100, 50\)"),
    (lambda: make_rules("petrone_black_mariah", moon="shooter_minus"),
     r"a moon rule needs penalty cards \(cards of positive value\) to capture"),
    (lambda: make_rules("black_maria").removed_cards(8), r"deck table 'black_maria' does not cover 8 players; it covers \[2, 3, 4, 5, 6, 7\]"),
])
def test_rejections_name_the_problem(call, message):
    with pytest.raises(RulesError, match=message):
        call()


def test_rules_errors_are_value_errors():
    assert issubclass(RulesError, ValueError)


def test_rules_are_frozen():
    r = make_rules()
    with pytest.raises(AttributeError):
        r.num_players = 4  # type: ignore[misc]


def test_equal_rules_come_back_as_one_object():
    """The per-rules caches find their key by identity (see _MADE in rules.py)."""
    a = make_rules("american_hearts", 4)
    assert make_rules("american_hearts") is a
    assert make_rules(a) is a
    assert make_rules("american_hearts", 4, moon="shooter_minus") is a  # the preset's own value
    other = make_rules("american_hearts", 4, moon="others_plus")
    assert other is not a and other != a
    assert make_rules("american_hearts", 5) is not a


def test_unpickled_rules_are_the_made_object_and_rehash():
    """A pickle (an evaluation worker's rules) comes back as make_rules's own object; a new
    process's copy recomputes its hash rather than carrying the sender's."""
    a = make_rules("openspiel_hearts")
    hash(a)
    data = pickle.dumps(a)
    assert b"_hash" not in data
    assert pickle.loads(data) is a
    built = dataclasses.replace(a)  # equal, not made by make_rules
    assert built is not a
    assert pickle.loads(pickle.dumps(built)) is a


# ---------------------------------------------------------------------------
# The extension options (Rules.uses_extensions): presets, action space, validation.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("overrides, actions", [
    ({}, 52), ({"charging": True}, 57), ({"moon": "shooter_choice"}, 59), ({"optional_pass": True}, 60),
    ({"kitty": "first_trick"}, 52), ({"queen_when_safe": True, "sun_points": 52}, 52),
])
def test_action_space_grows_only_with_the_decisions_used(overrides, actions):
    assert make_rules("american_hearts", **overrides).num_actions == actions


def test_classic_presets_are_unchanged():
    for name in ("black_maria", "black_maria_26", "black_maria_100", "black_maria_spot", "dirty_lady",
                 "slippery_anne", "omnibus", "american_hearts", "openspiel_hearts", "spot_hearts",
                 "petrone_black_mariah"):
        for n in PRESETS[name].player_counts:
            r = make_rules(name, n)
            assert r.uses_extensions == () and r.num_actions == 52 and r.decks == 1 and r.kitty == "none"


@pytest.mark.parametrize("preset", ["cancellation", "turbo_hearts", "booster_nines", "partnership_hearts"])
def test_new_presets_round_trip_through_a_dict(preset):
    r = make_rules(preset)
    assert Rules.from_dict(r.to_dict()) == r
    assert set(r.to_dict()) == set(OPTION_NAMES)


@pytest.mark.parametrize("overrides, words", [
    ({"decks": 3}, "decks=3 is not allowed; allowed: 1, or 2"),
    ({"kitty": "first_trick", "kitty_to_hand": "yes"}, "kitty_to_hand must be bool"),
    ({"teams": "trio"}, "teams='trio' is not allowed; allowed: \\['none', 'joint', 'individual'\\]"),
    ({"moon": "off", "sun_points": 52}, "needs a moon rule"),
    ({"sun_points": -1}, "sun_points=-1 must be positive"),
    ({"optional_pass": True, "pass_count": 0}, "optional_pass needs a pass"),
    ({"pass_cycle": ("left", "scatter"), "num_players": 3}, "pass_count 3 is not a positive multiple of 2"),
    ({"booster_nines": True, "trumps": "hearts"}, "booster_nines is defined without trumps"),
])
def test_bad_options_are_refused_with_what_is_allowed(overrides, words):
    with pytest.raises(RulesError, match=words):
        make_rules("american_hearts", **overrides)


def test_player_counts_depend_on_the_decks():
    with pytest.raises(RulesError, match="num_players=8 is not allowed; allowed: 3 to 7 .*10 with decks=2"):
        make_rules("black_maria", 7).replace(num_players=8)


def test_two_decks_refuse_what_no_source_combines():
    with pytest.raises(RulesError, match="charging is not supported with two decks"):
        make_rules("cancellation", charging=True)
    with pytest.raises(RulesError, match="num_players=11 is not allowed; allowed: 3 to 10"):
        make_rules("cancellation", num_players=10).replace(num_players=11)


def test_teams_need_four_players_and_no_tie_break_among_tied_players():
    with pytest.raises(RulesError, match="4 players in two partnerships across; got num_players=3"):
        make_rules("american_hearts", 3, teams="joint")
    with pytest.raises(RulesError, match="teams need tie_break"):
        make_rules("partnership_hearts", tie_break="tied_players")


# ---------------------------------------------------------------------------
# Numbers the observation cannot hold, and dicts missing options.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("options, message", [
    # the observation holds a card's value and the clean-trick bonus in one int8 cell
    (dict(card_values={"QS": 200}), r"^card_values QS=200 outside -128\.\.127: the observation holds a card's value "
                                    r"in one int8 cell$"),
    (dict(card_values={"QS": -129, "KS": 130}), r"^card_values QS=-129, KS=130 outside -128\.\.127"),
    (dict(clean_trick_bonus=128), r"^clean_trick_bonus=128 is outside -128\.\.127"),
    (dict(card_values={"QS": "13", "KS": 1.5}), r"^card_values must be whole numbers; got QS='13', KS=1\.5$"),
    # points and totals take two cells: -4095..4095
    (dict(match_deals=100), r"^100 deals of up to 43 points make totals of 4300: the observation holds points and "
                            r"totals from -4095 to 4095$"),
    (dict(match_end="threshold_reached", match_threshold=4060),
     r"^match_threshold=4060 plus a deal of up to 43 points make totals of 4103"),
    (dict(match_end="threshold_reached", match_floor=-4090), r"^match_floor=-4090 less a deal of up to 43 points"),
    (dict(exact_reset=[5000, 50]), r"^exact_reset=5000: the observation holds points and totals from -4095 to 4095$"),
    # thresholds that can end a match
    (dict(match_end="threshold_reached", match_threshold=-5),
     r"^match_threshold=-5 must be positive: a threshold_reached match ends when the highest total reaches it"),
    (dict(match_end="threshold_passed", match_threshold=0), r"^match_threshold=0 must be positive"),
    (dict(match_floor=0), r"^match_floor=0 must be negative: someone at or below it ends the match"),
])
def test_numbers_the_observation_cannot_hold_or_the_match_cannot_use_are_refused(options, message):
    with pytest.raises(RulesError, match=message):
        make_rules("black_maria", **options)


def test_every_preset_fits_the_observation():
    for name, preset in PRESETS.items():
        for n in preset.player_counts:
            r = make_rules(name, n)
            assert 0 < max_deal_points(r) and (r.match_deals if r.match_end == "deals" else 1) * max_deal_points(r) <= 4095


def test_from_dict_needs_every_option():
    with pytest.raises(RulesError, match=r"^rules are missing option\(s\) \['num_players', 'deck_table', .*\]; a rules "
                                         r"dict \(Rules.to_dict\(\)\) holds every option"):
        Rules.from_dict({})
    d = make_rules("black_maria").to_dict()
    del d["moon"]
    with pytest.raises(RulesError, match=r"missing option\(s\) \['moon'\]"):
        Rules.from_dict(d)
