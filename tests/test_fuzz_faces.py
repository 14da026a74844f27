"""Random calls of every kind on the Python faces: ``black_maria_v0.env()``, ``SingleAgentEnv``, ``VectorEngine``
and ``make_vector_env``.

Each face is a hypothesis state machine that resets with generated options (valid deals and
masks of any int, lists of any length and element type, every preset and extension), steps
with generated actions (legal ones, and any Python or numpy value: ints out of range, floats,
NaN, strings, None, arrays, bools), observes and renders. Asserted after every call:

- it succeeds, or raises one of :data:`kit.REFUSALS` with a one-line message;
- it ends within :data:`BOUND` seconds (a hang fails instead of stalling the suite);
- a refused call leaves the face as it was: every seat's observation and mask, the global
  state and the generator compare equal to a snapshot taken before the call.

The fast suite runs a fixed small budget; ``pytest -m slow`` a larger one.
"""

from __future__ import annotations

import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

import kit
from bm_env import black_maria_v0
from bm_env.engine import checks
from bm_env.engine.deal import deal_cards
from bm_env.engine.rules import make_rules
from bm_env.env.aec import RESET_OPTIONS
from bm_env.learner import SingleAgentEnv
from bm_env.learner import make_vector_env
from bm_env.vector import make_engine, plays
from bm_env.vector.engine import MAX_BATCH

#: Seconds any one call may take (a reset of ten players under load is a few milliseconds).
BOUND = 10.0

#: Every preset at each player count, and each combination of extension options.
CONFIGS = [(p, n, {}) for p, n in kit.PRESET_COUNTS] + list(kit.EXTENSIONS.values())
#: Those the vector engine plays (it refuses Domino Hearts, by name: tests/test_deal_domino.py).
VECTOR_CONFIGS = [(p, n, o) for p, n, o in CONFIGS if plays(make_rules(p, n, **o))]

# ---------------------------------------------------------------------------- values

_NUMPY_INTS = st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
_numpy_int = st.tuples(_NUMPY_INTS, st.integers(0, 127)).map(lambda t: t[0](t[1]))
_numpy_signed = st.tuples(st.sampled_from([np.int8, np.int64]), st.integers(-128, 127)).map(lambda t: t[0](t[1]))

#: A value of any kind a careless or hostile caller might pass where one thing is wanted.
anything = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-3, 60), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([2.0, 7.7, float("nan"), float("inf"), -0.0]), st.text(max_size=6),
    st.sampled_from(["QS", "10h", "QS KS", "", "hands", "right", "player_0"]), st.binary(max_size=3),
    _numpy_int, _numpy_signed, st.sampled_from([np.float64(3.0), np.True_, np.array(3), np.array([1, 2]),
                                                np.zeros((2, 2)), np.array(["QS"])]),
    st.lists(st.integers(-2, 60), max_size=5), st.tuples(st.integers(), st.text(max_size=2)),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)

#: A bit mask of any int: negative, beyond 52 bits, huge.
any_mask = st.one_of(st.integers(), st.integers(-(2**60), 2**60), st.integers(0, 2**52 - 1), _numpy_int, _numpy_signed)
#: One hand as a caller might write it.
any_hand = st.one_of(any_mask, st.lists(st.one_of(st.integers(-2, 60), st.sampled_from(["QS", "2c", "XX", 7.7, None])),
                                        max_size=20), st.text(max_size=8), anything)


def option_value(key: str, n: int):
    """Values for one reset option: of the right kind (in and out of range) and of any kind."""
    right = {
        "hands": st.lists(any_hand, min_size=0, max_size=n + 1),
        "dealer": st.integers(-2, n + 1),
        "pass_direction": st.sampled_from(["left", "right", "across", "hold", "scatter", "2left", "up"]),
        "rotate": st.integers(-5, 5),
        "kitty": st.lists(st.integers(-1, 53), max_size=4),
    }.get(key, anything)
    return mostly(right, odds=2)


def reset_options(n: int):
    """Reset options: None, a value that is not a dict, or a dict of known (and misspelt) keys."""
    keys = st.sampled_from(list(RESET_OPTIONS) + ["hand", "seed", 3])
    given = st.lists(keys, unique=True, max_size=4).flatmap(
        lambda ks: st.fixed_dictionaries({k: option_value(k, n) for k in ks}))
    return mostly(st.one_of(st.none(), given), odds=3)


def mostly(good, bad=anything, odds: int = 4):
    """``good`` ``odds`` times in ``odds + 1``, else ``bad`` (a plain one_of would weigh each of ``bad``'s
    many branches as much as ``good``)."""
    return st.integers(0, odds).flatmap(lambda k: bad if k == 0 else good)


#: Seeds: most often good ones, so that the rest of the call is reached.
seeds = mostly(st.one_of(st.none(), st.integers(0, 2**32)))

#: Batch sizes: a few games, or a value that must be refused (a large valid batch would only be slow).
batch_sizes = mostly(st.integers(1, 3), anything.filter(lambda v: not (checks.is_whole(v) and 4 <= v <= MAX_BATCH)))

# ---------------------------------------------------------------------------- the checks


def call(face, snapshot, fn):
    """``fn()`` under the bound; if it is refused, ``snapshot()`` must be as it was before. Returns whether it was taken."""
    before = snapshot()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns on a step once every agent is done
        refused = kit.refusal(fn, BOUND)
    if refused is not None:
        assert snapshot() == before, f"{type(refused).__name__}({refused}) changed {face}"
    return refused is None


def env_snapshot(env) -> tuple:
    """What a refused call must leave alone: every seat's observation and mask, state(), who acts, the generator."""
    raw = env.unwrapped
    if raw._deal is None:
        return (None, str(raw._rng and raw._rng.bit_generator.state))
    rows = tuple((o["observation"].tobytes(), o["action_mask"].tobytes()) for o in map(raw.observe, raw.possible_agents))
    return (rows, raw.state().tobytes(), raw.agent_selection, tuple(raw.agents), str(raw._rng.bit_generator.state),
            str(raw._cumulative_rewards), str(raw.infos))


def legal_or_any(data, mask: np.ndarray):
    """A legal action of ``mask`` (most often), or any value at all."""
    legal = np.flatnonzero(mask)
    if legal.size and data.draw(st.integers(0, 3), label="legal?"):
        return int(legal[data.draw(st.integers(0, legal.size - 1), label="which")])
    return data.draw(anything, label="action")


def given_deal(rules, rng):
    """A real deal of ``rules`` as reset options (hands by seat, dealer, kitty)."""
    n = rules.num_players
    dealer = int(rng.integers(n))
    hands, kitty = deal_cards(rules, n, dealer, rng)
    return {"hands": [h if isinstance(h, int) else list(h) for h in hands], "dealer": dealer, "kitty": list(kitty)}


FAST = settings(max_examples=30, stateful_step_count=12, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
SLOW = settings(FAST, max_examples=200, stateful_step_count=30)

# ---------------------------------------------------------------------------- env()


class EnvFaces(RuleBasedStateMachine):
    """``black_maria_v0.env()`` of any preset and options, driven by random calls."""

    @initialize(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**31),
                kwargs=st.dictionaries(st.sampled_from(["episode", "reward", "reward_normalise", "illegal_action",
                                                        "render_mode", "render_seat", "render_reveal"]),
                                       st.one_of(st.sampled_from(["deal", "match", "score", "zero_sum", "raise",
                                                                  "renege_penalty", "ansi", "rgb_array", None]),
                                                 st.booleans(), st.integers(-1, 4), anything), max_size=3))
    def start(self, config, seed, kwargs):
        preset, n, options = config
        made = {}
        if not call("env()", lambda: None, lambda: made.setdefault("env", black_maria_v0.env(
                rules=preset, num_players=n, **options, **kwargs))):
            made["env"] = black_maria_v0.env(rules=preset, num_players=n, **options, episode="match")
        self.env = made["env"]
        self.rules = self.env.unwrapped.rules
        self.rng = np.random.default_rng(seed)
        self.env.reset(seed=seed)

    def _call(self, fn):
        return call("the env", lambda: env_snapshot(self.env), fn)

    @rule(seed=seeds, data=st.data())
    def reset(self, seed, data):
        options = data.draw(reset_options(self.rules.num_players), label="options")
        self._call(lambda: self.env.reset(seed=seed, options=options))

    @rule(rotate=st.integers(-3, 3), drop=st.sampled_from([None, "dealer", "kitty", "hands"]), seed=seeds)
    def reset_given_deal(self, rotate, drop, seed):
        options = {**given_deal(self.rules, self.rng), "rotate": rotate}
        if drop:
            options.pop(drop)
        if options.get("kitty") == []:  # rules without a kitty take none
            options.pop("kitty")
        self._call(lambda: self.env.reset(seed=seed, options=options))

    @rule(data=st.data())
    def step(self, data):
        raw = self.env.unwrapped
        mask = raw.observe(raw.agent_selection)["action_mask"] if raw.agents else np.zeros(0)
        action = None if raw.agents and raw.terminations[raw.agent_selection] else legal_or_any(data, mask)
        if data.draw(st.integers(0, 5), label="any?") == 0:
            action = data.draw(anything, label="action")
        self._call(lambda: self.env.step(action))

    @rule(agent=st.one_of(st.sampled_from(["player_0", "player_1", "player_9"]), anything))
    def observe(self, agent):
        self._call(lambda: self.env.observe(agent))
        self._call(lambda: self.env.unwrapped.information_state(agent))

    @rule(seat=st.one_of(st.integers(-2, 11), anything), reveal=st.one_of(st.booleans(), anything))
    def render(self, seat, reveal):
        self._call(lambda: self.env.unwrapped.render_text(seat, reveal))
        self._call(lambda: self.env.unwrapped.render_svg(seat, reveal))
        if self.env.unwrapped.render_mode == "ansi":
            self._call(self.env.render)

    @rule()
    def state_and_last(self):
        self._call(self.env.unwrapped.state)
        self._call(self.env.last)


# ---------------------------------------------------------------------------- SingleAgentEnv


class SingleAgentFaces(RuleBasedStateMachine):
    """``SingleAgentEnv`` of any preset (random opponents), driven by random calls."""

    @initialize(config=st.sampled_from(VECTOR_CONFIGS), learner=st.one_of(st.integers(-1, 4), anything),
                illegal=st.sampled_from(["raise", "renege_penalty"]), seed=st.integers(0, 2**31))
    def start(self, config, learner, illegal, seed):
        preset, n, options = config
        made = {}
        if not call("SingleAgentEnv()", lambda: None, lambda: made.setdefault("env", SingleAgentEnv(
                learner=learner, illegal_action=illegal, rules=preset, num_players=n, **options))):
            made["env"] = SingleAgentEnv(learner=0, illegal_action=illegal, rules=preset, num_players=n, **options)
        self.env = made["env"]
        self.rules = self.env.aec.rules
        self.rng = np.random.default_rng(seed)
        self.env.reset(seed=seed)

    def _snapshot(self):
        generator = self.env._np_random
        return (env_snapshot(self.env.aec), self.env.action_masks().tobytes(),
                str(generator and generator.bit_generator.state))

    def _call(self, fn):
        return call("the wrapper", self._snapshot, fn)

    @rule(seed=seeds, data=st.data())
    def reset(self, seed, data):
        options = data.draw(reset_options(self.rules.num_players), label="options")
        self._call(lambda: self.env.reset(seed=seed, options=options))

    @rule(seed=seeds)
    def reset_given_deal(self, seed):
        options = given_deal(self.rules, self.rng)
        if not options["kitty"]:
            options.pop("kitty")
        self._call(lambda: self.env.reset(seed=seed, options=options))

    @rule(data=st.data())
    def step(self, data):
        action = legal_or_any(data, self.env.action_masks())
        self._call(lambda: self.env.step(action))

    @rule()
    def masks_and_render(self):
        self._call(self.env.action_masks)
        self._call(self.env.render)


# ---------------------------------------------------------------------------- VectorEngine

class VectorFaces(RuleBasedStateMachine):
    """``VectorEngine`` of any preset, driven by random calls."""

    @initialize(config=st.sampled_from(VECTOR_CONFIGS), batch=batch_sizes,
                normalise=st.one_of(st.booleans(), anything), reward=st.sampled_from(["score", "zero_sum", "x", None]),
                seed=seeds, final=st.one_of(st.booleans(), anything))
    def start(self, config, batch, normalise, reward, seed, final):
        preset, n, options = config
        self.rules = make_rules(preset, n, **options)
        made = {}
        if not call("make_engine()", lambda: None, lambda: made.setdefault("eng", make_engine(
                self.rules, batch, reward=reward, normalise=normalise, seed=seed, final_observations=final))):
            made["eng"] = make_engine(self.rules, 2, seed=0, final_observations=True)
        self.eng = made["eng"]
        self.rng = np.random.default_rng(0)
        self.eng.reset(seed=0)

    def _snapshot(self):
        state = self.eng.state()
        return (tuple((k, v.tobytes()) for k, v in sorted(state.items())), str(self.eng._rng.bit_generator.state),
                self.eng._started)

    def _call(self, fn):
        return call("the engine", self._snapshot, fn)

    @rule(seed=seeds, data=st.data())
    def reset(self, seed, data):
        N, n = self.eng.num_envs, self.eng.n
        kwargs = data.draw(st.fixed_dictionaries({}, optional={
            "hands": st.one_of(anything, st.lists(st.lists(any_mask, min_size=n, max_size=n), min_size=N, max_size=N)),
            "dealers": st.one_of(anything, st.lists(st.integers(-1, n), min_size=N, max_size=N)),
            "pass_directions": st.one_of(anything, st.lists(st.sampled_from(["left", "right", "hold", "up"]),
                                                            min_size=N, max_size=N)),
            "kitty": anything,
        }), label="reset kwargs")
        self._call(lambda: self.eng.reset(seed=seed, **kwargs))

    @rule(seed=seeds, data=st.data())
    def reset_given_deals(self, seed, data):
        deals = [given_deal(self.rules, self.rng) for _ in range(self.eng.num_envs)]
        arrays = [kit.given_arrays(self.rules, d["hands"], d["kitty"]) for d in deals]
        kwargs = {"hands": np.stack([a[0] for a in arrays]), "dealers": [d["dealer"] for d in deals]}
        if self.rules.kitty != "none":
            kwargs["kitty"] = np.stack([a[1] for a in arrays])
        if data.draw(st.booleans(), label="spoil a mask?"):
            g = data.draw(st.integers(0, self.eng.num_envs - 1), label="game")
            kwargs["hands"] = kwargs["hands"].astype(object)
            kwargs["hands"].reshape(self.eng.num_envs, -1)[g, 0] = data.draw(any_mask, label="mask")
        self._call(lambda: self.eng.reset(seed=seed, **kwargs))

    @rule(data=st.data())
    def step(self, data):
        eng = self.eng
        if eng._started and data.draw(st.integers(0, 3), label="legal?"):
            actions = eng.random_actions(self.rng)
        else:
            actions = data.draw(st.one_of(anything, st.lists(st.one_of(st.integers(-1, 70), anything),
                                                             min_size=eng.num_envs, max_size=eng.num_envs)),
                                label="actions")
        self._call(lambda: eng.step(actions))

    @rule(value=anything)
    def states(self, value):
        self._call(self.eng.state)
        if self.eng._started:
            saved = self.eng.get_state()
            self._call(lambda: self.eng.set_state(saved))
        self._call(lambda: self.eng.set_state(value))


# ---------------------------------------------------------------------------- make_vector_env


class VectorEnvFaces(RuleBasedStateMachine):
    """``make_vector_env`` (the Gymnasium VectorEnv, random opponents) of the classic presets, driven by random calls."""

    @initialize(config=st.sampled_from([(p, n, {}) for p, n in kit.CLASSIC_COUNTS]),
                num_envs=batch_sizes, learner=st.one_of(st.integers(-1, 4), anything),
                seed=seeds)
    def start(self, config, num_envs, learner, seed):
        preset, n, _ = config
        made = {}
        if not call("make_vector_env()", lambda: None, lambda: made.setdefault("env", make_vector_env(
                preset, num_envs=num_envs, learner=learner, seed=seed, num_players=n))):
            made["env"] = make_vector_env(preset, num_envs=2, seed=0, num_players=n)
        self.env = made["env"]
        self.rng = np.random.default_rng(0)
        self.env.reset(seed=0)

    def _snapshot(self):
        state = self.env.engine.state()
        return (tuple((k, v.tobytes()) for k, v in sorted(state.items())), self.env.action_masks().tobytes(),
                str(self.env._rng.bit_generator.state))

    def _call(self, fn):
        return call("the vector env", self._snapshot, fn)

    @rule(seed=seeds, options=mostly(st.none(), odds=2))
    def reset(self, seed, options):
        self._call(lambda: self.env.reset(seed=seed, options=options))

    @rule(data=st.data())
    def step(self, data):
        masks = self.env.action_masks()
        if data.draw(st.integers(0, 3), label="legal?"):
            actions = np.array([int(self.rng.choice(np.flatnonzero(m))) for m in masks])
        else:
            actions = data.draw(st.one_of(anything, st.lists(st.one_of(st.integers(-1, 70), anything),
                                                             min_size=len(masks), max_size=len(masks))),
                                label="actions")
        self._call(lambda: self.env.step(actions))


# ---------------------------------------------------------------------------- the runs

MACHINES = {"env": EnvFaces, "single_agent": SingleAgentFaces, "vector": VectorFaces, "vector_env": VectorEnvFaces}


@pytest.mark.parametrize("face", MACHINES)
def test_random_calls_are_taken_or_refused_cleanly(face):
    MACHINES[face].TestCase.settings = FAST
    MACHINES[face].TestCase().runTest()


@pytest.mark.slow
@pytest.mark.parametrize("face", MACHINES)
def test_random_calls_are_taken_or_refused_cleanly_at_length(face):
    MACHINES[face].TestCase.settings = SLOW
    MACHINES[face].TestCase().runTest()
