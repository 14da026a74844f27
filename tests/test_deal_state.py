"""The deal's declared state: every attribute is declared once, a clone shares nothing it could
change, and the read face hands out values a caller cannot change the deal through.

``Deal._FIXED_FIELDS``, ``_STATE_VALUES`` and ``_STATE_LISTS`` are the one list of what a deal
holds; ``clone_deal`` copies the lists it names. These tests hold every preset's deals to that
declaration at every decision: the declaration is also the class's ``__slots__``, so a field
assigned without being declared fails at once, and one declared but left unset fails here.
The declared values are plain attributes, read-only by contract: no module outside the
engine assigns one.
"""

from __future__ import annotations

import ast
import importlib
import random
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from bm_env.engine.cards import cards_of
from bm_env.engine import deal as deal_module
from bm_env.engine.deal import Deal, clone_deal, deal_cards
from bm_env.engine.rules import PRESETS, make_rules
from bm_env.systems import SYSTEMS

FIXED, VALUES, LISTS = Deal._FIXED_FIELDS, Deal._STATE_VALUES, Deal._STATE_LISTS
#: The lists the deal declares itself, apart from those of the rule systems (RuleSystem.deal_lists).
CORE_LISTS = [name for name in LISTS if not any(name in system.deal_lists for system in SYSTEMS)]
DECLARED = set(FIXED) | set(VALUES) | set(LISTS)
QUERIES = sorted(name for name, v in vars(Deal).items() if isinstance(v, property))
PUBLIC = sorted(name for name in (*FIXED, *VALUES) if not name.startswith("_"))
ROOT = Path(__file__).resolve().parent.parent


def fields_set(deal: Deal) -> set[str]:
    """The declared fields that hold a value on ``deal``."""
    return {name for name in Deal.__slots__ if hasattr(deal, name)}


def deals_of(preset: str, count: int, seed: int = 0):
    """``count`` deals of ``preset`` from the start, every pass direction of its cycle in turn."""
    rules = make_rules(preset)
    rng = np.random.default_rng(seed)
    n = rules.num_players
    for i in range(count):
        hands, kitty = deal_cards(rules, n, i % n, rng)
        direction = rules.pass_cycle[i % len(rules.pass_cycle)]
        yield Deal(rules, hands, i % n, direction, kitty=kitty)


def play_out(deal: Deal, chooser: random.Random, check=None) -> None:
    """Random legal actions to the end, ``check(deal)`` before each."""
    while not deal.is_over:
        if check is not None:
            check(deal)
        legal = cards_of(deal.legal)
        deal.step(legal[chooser.randrange(len(legal))])
    if check is not None:
        check(deal)


def state_of(deal: Deal) -> dict:
    """Every changing field, copied (its lists hold immutable items: one level deep is a deep copy)."""
    out = {name: getattr(deal, name) for name in VALUES}
    out.update({name: list(getattr(deal, name)) for name in LISTS})
    return out


def test_the_declaration_names_each_field_once_and_is_all_a_deal_can_hold():
    names = list(FIXED) + list(VALUES) + list(LISTS)
    assert len(names) == len(set(names))
    deal = next(deals_of("black_maria", 1))
    assert set(Deal.__slots__) == DECLARED and not hasattr(deal, "__dict__")
    with pytest.raises(AttributeError):
        deal.undeclared = 1
    assert not DECLARED & set(QUERIES), "a query and a field of the same name"
    # The lists are private (a caller could change them), each read through a query of its name
    # (where passed cards went, through passed_to and received_from).
    assert all(name.startswith("_") for name in LISTS)
    assert {name[1:] for name in CORE_LISTS} - set(QUERIES) == {"pass_receiver"}
    # a rule system's lists, through the queries of its module (domino.drew(deal, p)...)
    for system in SYSTEMS:
        module = importlib.import_module(f"bm_env.systems.{system.name}")
        assert all(callable(getattr(module, name[1:], None)) for name in system.deal_lists), system.name


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_attribute_is_declared_at_every_decision(preset):
    chooser = random.Random(1)
    for deal in deals_of(preset, 3):
        fixed = {name: getattr(deal, name) for name in FIXED}

        def check(d):
            assert fields_set(d) == DECLARED, f"missing {DECLARED - fields_set(d)}"
            for name in FIXED:
                assert getattr(d, name) == fixed[name], f"{name} is declared fixed but changed"
            for name in (*FIXED, *VALUES):
                hash(getattr(d, name))  # immutable: a clone may share it
            for name in LISTS:
                value = getattr(d, name)
                assert type(value) is list, name
                for item in value:
                    hash(item)  # immutable items: copying the list copies the state

        play_out(deal, chooser, check)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_clone_is_independent_in_every_declared_field(preset):
    chooser = random.Random(2)
    for deal in deals_of(preset, 2, seed=5):
        steps = 0
        while not deal.is_over:
            if steps % 5 == 0:
                before = state_of(deal)
                clone = clone_deal(deal)
                assert state_of(clone) == before
                for name in LISTS:
                    assert getattr(clone, name) is not getattr(deal, name), f"{name} is shared by the clone"
                play_out(clone, random.Random(steps))
                assert state_of(deal) == before, "playing the clone changed the original"
                after = state_of(clone)
                probe = clone_deal(deal)
                play_out(probe, random.Random(steps + 1))
                assert state_of(clone) == after, "playing another copy changed a finished clone"
            legal = cards_of(deal.legal)
            deal.step(legal[chooser.randrange(len(legal))])
            steps += 1


@pytest.mark.parametrize("preset", ["black_maria", "cancellation", "turbo_hearts", "booster_nines"])
def test_the_read_face_hands_out_immutable_values(preset):
    chooser = random.Random(3)
    for deal in deals_of(preset, 2, seed=9):

        def check(d):
            for name in QUERIES + PUBLIC:
                hash(getattr(d, name))  # ints, strings, None and tuples of them
            for p in range(d.num_players):
                hash(d.passed_to(p))
                hash(d.received_from(p))

        play_out(deal, chooser, check)
    with pytest.raises(AttributeError):
        deal.hands = ()


def _assigned_fields(path: Path) -> list[str]:
    """``file:line target`` for each assignment to a deal field's name on anything but ``self``."""
    names = DECLARED | set(QUERIES)
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        todo = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []
        while todo:
            target = todo.pop()
            if isinstance(target, (ast.Tuple, ast.List)):
                todo.extend(target.elts)
                continue
            while isinstance(target, (ast.Subscript, ast.Starred)):
                target = target.value  # deal.hands[0] = ... changes the deal too
            if (isinstance(target, ast.Attribute) and target.attr in names
                    and not (isinstance(target.value, ast.Name) and target.value.id == "self")):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(target)}")
    return out


def test_no_module_outside_the_engine_assigns_a_deal_field():
    """The declared values are read as plain attributes (a property per read would cost the env
    about a tenth of its time); only the deal's own steps assign them. A hit here that is not a
    deal is a name clash: rename the attribute, or read the field instead of assigning it."""
    # The engine: the deal's module, the engine modules it imports, and the rule systems' modules, whose hooks
    # it calls (passing, charging...), but not their faces on the later layers (a tracker, a vector kernel).
    engine = {Path(deal_module.__file__).resolve()} | {
        Path(m.__file__).resolve() for m in vars(deal_module).values()
        if isinstance(m, ModuleType) and m.__name__.startswith("bm_env.engine.")} | {
        p.resolve() for p in (ROOT / "bm_env" / "systems").rglob("*.py") if p.stem not in ("tracker", "vector")}
    assert len(engine) > 10
    files = [p for folder in ("bm_env", "scripts", "examples")
             for p in sorted((ROOT / folder).rglob("*.py")) if p.resolve() not in engine]
    hits = [hit for p in files for hit in _assigned_fields(p)]
    assert not hits, "assignments to deal fields outside the engine:\n" + "\n".join(hits)


def test_a_renege_is_declared_state_too():
    deal = next(deals_of("black_maria", 1))
    deal = Deal(deal.rules, deal.dealt, deal.dealer, deal.pass_direction, on_illegal="renege_penalty")
    illegal = next(c for c in range(52) if not deal.legal >> c & 1)
    deal.step(illegal)
    assert deal.is_over and deal.renege is not None and fields_set(deal) == DECLARED
