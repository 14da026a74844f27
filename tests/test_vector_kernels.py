"""The vector engine's rule systems are components: each extension system's batched code is its kernel, in
``bm_env/systems/<name>/vector.py`` (that no module of ``bm_env/vector`` tests a system's option is
tests/test_systems.py's).

The engine finds the kernels of the systems in use by convention (:func:`bm_env.vector.kernel.kernels_for`);
the step-by-step agreement with the reference engine is ``test_vector_extended.py``'s.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from bm_env.engine.rules import make_rules
from bm_env.systems import SYSTEMS
from bm_env.vector import VectorEngine, make_engine
from bm_env.vector.extended import ExtendedEngine
from bm_env.vector.kernel import HOOKS, Hooks, Kernel, kernel_of, kernels_for, systems_with_kernels

from kit import EXTENSIONS, VECTOR_EXTENSIONS, extension_rules

#: The extension systems: the ones that are packages, beside their faces on the later layers.
EXTENSION_SYSTEMS = [s for s in SYSTEMS if hasattr(importlib.import_module(f"bm_env.systems.{s.name}"), "__path__")]


def test_the_extension_cases_put_every_extension_system_in_use():
    in_use = {s.name for case in EXTENSIONS for s in SYSTEMS if s.features(extension_rules(case))}
    assert {s.name for s in EXTENSION_SYSTEMS} <= in_use
    assert {s.name for s in EXTENSION_SYSTEMS if s.vector} == {
        "two_decks", "kitty", "passing", "moon", "queen_when_safe", "charging", "ten_clubs", "booster_nines", "teams"}


@pytest.mark.parametrize("system", [s for s in EXTENSION_SYSTEMS if s.vector], ids=lambda s: s.name)
def test_each_extension_system_the_vector_engine_plays_has_its_kernel(system):
    module = importlib.import_module(f"bm_env.systems.{system.name}.vector")
    assert kernel_of(system) is module.kernel
    for case in VECTOR_EXTENSIONS:
        rules = extension_rules(case)
        if system.features(rules):
            k = module.kernel(rules)
            assert isinstance(k, Kernel) and k.name == system.name
            assert set(k.hooks) <= set(HOOKS), f"{case}: unknown hooks {set(k.hooks) - set(HOOKS)}"


@pytest.mark.parametrize("case", sorted(VECTOR_EXTENSIONS))
def test_the_engine_plays_the_kernels_of_the_systems_in_use_and_holds_their_state(case):
    rules = extension_rules(case)
    engine = make_engine(rules, 2, seed=0)
    kernels = engine.kernels
    assert type(engine) is ExtendedEngine
    assert [k.name for k in kernels] == [s.name for s in SYSTEMS if s.features(rules)]
    engine.reset()
    saved = engine.get_state()["arrays"]
    for k in kernels:
        assert engine.kernel(k.name) is k
        for name in k.state_arrays:
            assert isinstance(getattr(k, name), np.ndarray) and getattr(engine, name) is getattr(k, name)
            assert np.array_equal(getattr(k, name), saved[name]), f"{k.name}: {name}"


@pytest.mark.parametrize("preset", ["black_maria", "american_hearts", "petrone_black_mariah"])
def test_the_classic_rules_have_no_kernels(preset):
    rules = make_rules(preset)
    assert systems_with_kernels(rules) == () and kernels_for(rules) == ()
    assert type(make_engine(rules, 1)) is VectorEngine and make_engine(rules, 1).kernel("charging") is None


def test_a_kernel_with_an_unknown_hook_is_refused_naming_the_hooks():
    k = Kernel()
    k.name, k.hooks = "bare", {"on_trick": print}
    with pytest.raises(ValueError, match=r"bare kernel: unknown hook\(s\) \['on_trick'\]; the hooks: \['allocate'"):
        Hooks((k,))


def test_a_computation_of_the_engine_replaced_twice_is_refused():
    one, other = Kernel(), Kernel()
    one.hooks = other.hooks = {"trick_winner": print}
    with pytest.raises(ValueError, match="hook trick_winner replaces the engine's own: 2 kernels supply it"):
        Hooks((one, other))
