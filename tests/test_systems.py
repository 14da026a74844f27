"""The rule systems' registry: each option's one module, and what the rules object and the vector engine read
off the systems (the extension features, the action space, what the vector engine plays)."""

from __future__ import annotations

import ast
import dataclasses
import re

import numpy as np
import pytest

from bm_env.engine.actions import CHARGE_DONE, MOON_ADD, PASS_ON
from bm_env.engine.rules import OPTION_NAMES, Rules, make_rules
from bm_env.systems import SYSTEMS, RuleSystem, component, system_of
from bm_env.vector import UnsupportedRulesError, check_supported

from kit import ROOT

#: Every rules option, by the module of bm_env.systems that owns it.
OPTION_MODULE = {
    "num_players": "table", "deck_table": "table",
    "pass_count": "passing", "pass_count_over_four": "passing", "pass_cycle": "passing", "pass_order": "passing",
    "no_pass_cards": "passing", "optional_pass": "passing",
    "first_lead": "play", "hearts_lead": "play", "queen_breaks_hearts": "play",
    "lead_hearts_with_queen_only": "play", "first_trick_no_points": "play", "trumps": "play",
    "card_values": "scoring", "clean_trick_bonus": "scoring", "lower_wins": "scoring",
    "moon": "moon", "sun_points": "moon",
    "match_end": "match", "match_deals": "match", "match_threshold": "match", "match_floor": "match",
    "exact_reset": "match", "tie_break": "match",
    "decks": "two_decks", "kitty": "kitty", "kitty_to_hand": "kitty", "queen_when_safe": "queen_when_safe",
    "charging": "charging", "ten_clubs_multiplier": "ten_clubs", "booster_nines": "booster_nines", "teams": "teams",
    "domino": "domino",
}


def _module_of(system: RuleSystem) -> str:
    import bm_env.systems as package

    for name in vars(package):
        module = getattr(package, name)
        if getattr(module, "SYSTEM", None) is system:
            return name
    raise AssertionError(f"system {system.name} is registered by no module of bm_env.systems")


def test_each_option_lives_in_exactly_one_system_module():
    assert sorted(OPTION_MODULE) == sorted(OPTION_NAMES)
    owners = {}
    for system in SYSTEMS:
        for option in system.options:
            assert option not in owners, f"{option} is owned by {owners[option]} and {system.name}"
            owners[option] = _module_of(system)
    assert owners == OPTION_MODULE
    assert all(_module_of(system_of(option)) == module for option, module in OPTION_MODULE.items())
    with pytest.raises(KeyError, match="no rule system owns the option 'jokers'"):
        system_of("jokers")


def test_each_system_declares_the_fields_the_rules_object_has_and_checks():
    fields = {f.name: f for f in dataclasses.fields(Rules)}
    assert list(fields) == [name for system in SYSTEMS for name in system.options]  # in the registry's order
    defaults = Rules()
    for system in SYSTEMS:
        for option, declared in system.options.items():
            assert fields[option].default == declared.default == getattr(defaults, option)
            assert isinstance(declared.default, declared.type) and declared.source, option
            if declared.choices is None:
                continue
            assert declared.default in declared.choices and len(set(declared.choices)) == len(declared.choices)
            with pytest.raises(ValueError, match=rf"rules option {option}='bogus' is not allowed; allowed: "):
                make_rules("black_maria", **{option: "bogus"})


# One rules object per extension feature: the feature it turns on, and the highest action id it adds.
FEATURES = [
    ("cancellation", {}, ("two_decks", "kitty"), 51),
    ("black_maria", {"kitty": "first_point", "kitty_to_hand": True}, ("kitty", "kitty_to_hand"), 51),
    ("american_hearts", {"pass_cycle": ("left", "scatter"), "pass_count": 3, "num_players": 4}, ("scatter",), 51),
    ("american_hearts", {"optional_pass": True}, ("optional_pass",), PASS_ON),
    ("american_hearts", {"moon": "shooter_choice"}, ("moon_choice",), MOON_ADD),
    ("american_hearts", {"sun_points": 52}, ("sun",), 51),
    ("american_hearts", {"queen_when_safe": True}, ("queen_when_safe",), 51),
    ("american_hearts", {"charging": True}, ("charging",), CHARGE_DONE),
    ("american_hearts", {"ten_clubs_multiplier": True}, ("ten_clubs_multiplier",), 51),
    ("american_hearts", {"booster_nines": True}, ("booster_nines",), 51),
    ("american_hearts", {"teams": "individual"}, ("teams",), 51),
    ("american_hearts", {"optional_pass": True, "moon": "shooter_choice", "charging": True},
     ("optional_pass", "moon_choice", "charging"), PASS_ON),
]


@pytest.mark.parametrize("preset, options, features, last", FEATURES)
def test_the_features_and_the_action_space_are_read_off_the_systems(preset, options, features, last):
    rules = make_rules(preset, **options)
    assert rules.uses_extensions == features
    assert rules.num_actions == last + 1
    # the systems' answers, asked afresh, give the same (the rules object keeps them)
    assert tuple(f for s in SYSTEMS for f in s.features(rules)) == features


def test_a_system_the_vector_engine_does_not_play_is_refused_by_it_and_only_when_in_use(monkeypatch):
    import bm_env.vector.support as support

    unplayed = tuple(dataclasses.replace(s, vector=False) if s.name == "booster_nines" else s for s in SYSTEMS)
    monkeypatch.setattr(support, "SYSTEMS", unplayed)
    check_supported(make_rules("turbo_hearts"))  # the system's option at its default
    with pytest.raises(UnsupportedRulesError, match=r"does not implement rules option booster_nines=True; it plays "
                                                    r"the rule systems \['table', 'two_decks', "):
        check_supported(make_rules("booster_nines"))


def test_a_system_answers_nothing_until_it_says_otherwise():
    bare = RuleSystem(name="bare", options={"x": int})
    rules = make_rules("black_maria")
    assert bare.problem(rules) is None and bare.features(rules) == () and bare.decisions == {} and bare.vector


@pytest.mark.parametrize("preset, options, features, last", FEATURES)
def test_the_observation_appends_the_parts_of_the_systems_in_use_in_the_registrys_order(preset, options, features,
                                                                                           last):
    from bm_env.env.observation import layout

    rules = make_rules(preset, **options)
    n = rules.num_players
    extra = [name for name, _ in layout(n, features)][len(layout(n)):]
    declared = [name for system in SYSTEMS for name, _, _ in system.parts(n, features)]
    assert extra == ["extra_phase", *declared] and len(set(declared)) == len(declared)
    # only the systems in use have parts, and the classic layout has none of them
    for system in SYSTEMS:
        assert bool(system.parts(n, features)) == bool(system.features(rules)), system.name
        assert system.parts(n, ()) == ()


@pytest.mark.parametrize("preset, options, features, last", FEATURES)
def test_the_world_observation_refuses_the_systems_whose_cells_change_with_the_play(preset, options, features, last):
    """A search's world observation rewrites the play's cells only: rules with a system whose own cells move in
    play (the trick left on the table, the kitty, the charges, the boosts) are refused, naming those features."""
    from bm_env.engine.deal import Deal, deal_cards
    from bm_env.env.observation import encode_in_world, offsets, size_for

    assert {s.name for s in SYSTEMS if s.changes_in_play} == {"two_decks", "kitty", "charging", "booster_nines",
                                                              "domino"}
    rules = make_rules(preset, **options)
    moving = sorted(f for s in SYSTEMS if s.changes_in_play for f in s.features(rules))
    hands, kitty = deal_cards(rules, rules.num_players, 0, np.random.default_rng(0))
    deal = Deal(rules, hands, 0, "hold", kitty=kitty)
    if moving:
        with pytest.raises(ValueError, match=re.escape(f"these rules use {moving}")):
            encode_in_world(np.zeros(8, dtype=np.int8), deal, 0)
    else:  # written: the seat's hand
        hand = offsets(rules.num_players, features)["hand"]
        world = encode_in_world(np.zeros(size_for(rules), dtype=np.int8), deal, deal.seats[0])
        assert np.flatnonzero(world[hand]).tolist() == sorted(deal.hand_cards(0))


def test_the_classic_rules_register_no_deal_hooks_and_the_extensions_their_own():
    from bm_env.engine.phases import CHARGE, DISCARD, MOON
    from bm_env.systems import charging, deal_hooks, kitty, moon, queen_when_safe

    for preset in ("black_maria", "american_hearts", "petrone_black_mariah", "openspiel_hearts"):
        hooks = deal_hooks(make_rules(preset))
        assert all(getattr(hooks, point) == () for point in component.DEAL_HOOKS) and not hooks.phases
    turbo = deal_hooks(make_rules("turbo_hearts"))
    assert turbo.after_passing == (charging.start_charging,) and dict(turbo.phases) == {CHARGE: charging.step_charge}
    both = deal_hooks(make_rules("american_hearts", 3, charging=True, queen_when_safe=True, kitty="first_point",
                                 moon="shooter_choice"))
    # a restriction (a charged card held back) before a compulsion (the queen when safe)
    assert both.follow_filter + both.follow_compel == (charging.follow_filter, queen_when_safe.compel_queen)
    assert set(both.phases) == {CHARGE, DISCARD, MOON} and both.trick_won == (kitty.take_after_trick,)
    assert both.before_scoring == (moon.offer_choice,)


def test_a_system_naming_an_unknown_deal_hook_is_refused_when_registered():
    with pytest.raises(ValueError, match=r"rule system bad: unknown deal hook\(s\) \['on_trik'\]; the hooks: "):
        RuleSystem(name="bad", options={}, deal_hooks={"on_trik": print})


def test_a_pickled_deal_finds_its_rules_hooks_again():
    import pickle

    from bm_env.engine.deal import Deal, deal_hands

    rules = make_rules("turbo_hearts")
    deal = Deal(rules, deal_hands(rules, 4, 0, np.random.default_rng(1)), 0, "left")
    again = pickle.loads(pickle.dumps(deal))
    assert again._hooks is deal._hooks and again.legal == deal.legal


def test_the_deal_and_the_bounds_are_read_off_the_systems_in_use():
    from bm_env.env.rewards import deal_scale
    from bm_env.systems import Bounds, Dealing, bounds, dealing

    assert dealing(make_rules("black_maria")) == Dealing() and bounds(make_rules("black_maria")) == Bounds()
    # Cancellation, 6 players: two full decks (104 cards), 17 to a hand, 2 in the kitty
    cancellation = make_rules("cancellation", 6)
    assert dealing(cancellation) == Dealing(copies=2, full_deck=True)
    assert (cancellation.hand_size(), cancellation.kitty_size(), cancellation.removed_cards()) == (17, 2, frozenset())
    # 3-player American Hearts with a kitty: no 2♦ removed, 17 each and one left over
    kitty3 = make_rules("american_hearts", 3, kitty="first_trick")
    assert (kitty3.hand_size(), kitty3.kitty_size(), kitty3.deck_mask().bit_count()) == (17, 1, 52)
    # Turbo Hearts: a charged card doubles, the 10♣ (chargeable) quadruples the deal score. By hand: hearts 13 and
    # Q♠ 13 are 26 positive, J♦ 10 negative; doubled 52 and 20; (52 + 20) x 4 = 288
    turbo = make_rules("turbo_hearts")
    assert bounds(turbo) == Bounds(card_factor=2, score_factor=4) and deal_scale(turbo) == 288
    assert bounds(make_rules("turbo_hearts", charging=False)).score_factor == 2  # the 10♣ cannot be charged
    # the sun's 52 above the moon's 26, and individual partnerships adding two players' scores: (52 + 0) x 2
    sun = make_rules("american_hearts", sun_points=52, teams="individual")
    assert bounds(sun) == Bounds(shot_points=52, unit_size=2) and deal_scale(sun) == 104


@pytest.mark.parametrize("options, refusal", [
    ({"decks": 2, "kitty": "none"}, "decks=2 deals the two decks as far as they go; it needs a kitty rule"),
    ({"charging": True}, "charging is not supported with two decks (no source combines them)"),
    ({"booster_nines": True}, "booster_nines is not supported with two decks"),
])
def test_a_system_in_use_refuses_the_systems_it_needs_or_excludes(options, refusal):
    system = SYSTEMS[[s.name for s in SYSTEMS].index("two_decks")]
    assert set(system.requires) == {"kitty"} and set(system.excludes) == {"charging", "booster_nines", "teams"}
    with pytest.raises(ValueError, match=re.escape(refusal)):
        make_rules("cancellation", **options)
    if "decks" not in options:  # the same option with one deck is played
        assert make_rules("american_hearts", **options).uses_extensions == tuple(options)


def test_an_option_added_later_may_be_absent_from_a_rules_dict_and_its_default_leaves_its_system_out_of_use():
    added = [(system, name) for system in SYSTEMS for name, option in system.options.items() if option.added]
    assert [name for _, name in added] == ["domino"]
    for system, name in added:
        assert system.features(Rules()) == ()  # a game without the option is a game without the system
    old = make_rules("turbo_hearts").to_dict()
    del old["domino"]
    assert Rules.from_dict(old) == make_rules("turbo_hearts")
    del old["charging"]  # an option records always held is still required
    with pytest.raises(ValueError, match=r"rules are missing option\(s\) \['charging'\]"):
        Rules.from_dict(old)


# ------------------------------------------------------------------ no module reads another's options

#: By system: the options that put it in use, the values of its options that name one of its variants, and the
#: names that spell one. Only the system's own module (or package) may read them.
FLAGS = {
    "two_decks": ({"decks"}, set(), set()),
    "kitty": ({"kitty", "kitty_to_hand"}, {"first_trick", "first_point"}, set()),
    "passing": ({"optional_pass"}, {"scatter"}, {"SCATTER"}),
    "moon": ({"sun_points"}, {"shooter_choice"}, set()),
    "queen_when_safe": ({"queen_when_safe"}, set(), set()),
    "charging": ({"charging"}, set(), set()),
    "ten_clubs": ({"ten_clubs_multiplier"}, set(), set()),
    "booster_nines": ({"booster_nines"}, set(), set()),
    "teams": ({"teams"}, {"joint", "individual"}, set()),
    "domino": ({"domino"}, set(), set()),
}


def _owner(path) -> str | None:
    """The rule system a module of bm_env belongs to (its module or package), or None."""
    parts = path.relative_to(ROOT / "bm_env").parts
    return parts[1].removesuffix(".py") if parts[0] == "systems" and len(parts) > 1 else None


def _reads(tree: ast.AST) -> list[tuple[int, str, str]]:
    """``(line, system, what)`` for every read of a system's option off a rules object (``rules.x``, ``r.x``,
    ``deal.rules.x``...), every comparison with one of its variants' values, every use of its names."""
    option_of = {o: s for s, (options, _, _) in FLAGS.items() for o in options}
    value_of = {v: s for s, (_, values, _) in FLAGS.items() for v in values}
    name_of = {n: s for s, (_, _, names) in FLAGS.items() for n in names}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in option_of and (
                isinstance(node.value, ast.Name) and node.value.id in ("rules", "r")
                or isinstance(node.value, ast.Attribute) and node.value.attr in ("rules", "_rules")):
            out.append((node.lineno, option_of[node.attr], ast.unparse(node)))
        elif isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                for v in (side, *getattr(side, "elts", ())):
                    if isinstance(v, ast.Constant) and v.value in value_of:
                        out.append((node.lineno, value_of[v.value], ast.unparse(node)))
        elif isinstance(node, ast.Name) and node.id in name_of:
            out.append((node.lineno, name_of[node.id], node.id))
        elif isinstance(node, ast.alias) and node.name in name_of:
            out.append((getattr(node, "lineno", 0), name_of[node.name], f"import {node.name}"))
    return out


def test_the_flags_are_the_systems_options_that_put_them_in_use():
    for name, (options, _, _) in FLAGS.items():
        system = next(s for s in SYSTEMS if s.name == name)
        assert options <= set(system.options), name
    with_features = {s.name for s in SYSTEMS if s.features is not RuleSystem.features}
    assert set(FLAGS) == with_features


def test_no_module_outside_a_rule_system_reads_its_options():
    found = []
    for path in sorted((ROOT / "bm_env").rglob("*.py")):
        owner = _owner(path)
        for line, system, what in _reads(ast.parse(path.read_text(encoding="utf-8"))):
            if system != owner:
                found.append(f"{path.relative_to(ROOT)}:{line}: {what} ({system}'s)")
    assert not found, "modules that test a rule system's options outside it; ask the system:\n" + "\n".join(found)


def test_the_scan_sees_each_kind_of_read():
    probe = ast.parse("from x import SCATTER\n"
                      "def f(deal, rules, r, self):\n"
                      "    return (deal.rules.kitty_to_hand, rules.decks, r.domino, self.rules.teams == 'joint',\n"
                      "            d in ('left', 'scatter'), rules.moon == 'shooter_choice', SCATTER, rules.pass_count)\n")
    found = sorted((system, what) for _, system, what in _reads(probe))
    assert found == [("domino", "r.domino"), ("kitty", "deal.rules.kitty_to_hand"),
                     ("moon", "rules.moon == 'shooter_choice'"), ("passing", "SCATTER"),
                     ("passing", "d in ('left', 'scatter')"), ("passing", "import SCATTER"), ("teams", "self.rules.teams"),
                     ("teams", "self.rules.teams == 'joint'"), ("two_decks", "rules.decks")]  # rules.pass_count: classic
