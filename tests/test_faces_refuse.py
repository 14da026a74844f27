"""What the Python faces refuse: the env's arguments, reset options, actions and renders, the
single-agent wrapper, the rules options. One rule for values (``bm_env.engine.checks``): a
whole number is an int or a numpy integer (never a bool or a float), a flag is True or False,
NaN and infinities are never numbers a face takes; a refusal is a one-line ValueError (or
RuntimeError for a call before reset) and leaves everything as it was. The vector engine's
refusals are in ``test_vector.py``; random calls of every kind are in ``test_fuzz_faces.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import kit
from bm_env import black_maria_v0
from bm_env.engine.deal import IllegalActionError
from bm_env.engine.rules import OPTION_NAMES, RulesError, Rules, make_rules
from bm_env.env.aec import BlackMariaEnv
from bm_env.learner import SingleAgentEnv


def _refused(call, message: str) -> Exception:
    e = kit.refusal(call, seconds=10)
    assert e is not None, "the call was taken"
    assert isinstance(e, ValueError), repr(e)
    assert kit.re.search(message, str(e)), f"{str(e)!r} does not match {message!r}"
    return e


def _snapshot(env: BlackMariaEnv) -> tuple:
    """Everything a refused call must leave as it was: every seat's observation and mask, the global state, the generator."""
    rows = [(o["observation"].tobytes(), o["action_mask"].tobytes()) for o in map(env.observe, env.possible_agents)]
    return rows, env.state().tobytes(), env.agent_selection, str(env._rng.bit_generator.state)


# ---------------------------------------------------------------------------- reset options

HAND_OPTIONS = [
    # a negative mask reached cards_of, which never ended on one: the reset hung, memory growing
    ({"hands": [-1, 0, 0], "dealer": 0}, r"^options\['hands'\]\[0\] must be a bit mask of cards, a whole number in 0\.\.2\*\*52 - 1, got -1$"),
    ({"hands": [0, -(2**80), 0], "dealer": 0}, r"^options\['hands'\]\[1\] must be a bit mask of cards, .*got -1208925819614629174706176$"),
    ({"hands": [1 << 60, 0, 0], "dealer": 0}, r"^options\['hands'\]\[0\] must be a bit mask of cards"),
    ({"hands": [np.int64(-5), 0, 0], "dealer": 0}, r"^options\['hands'\]\[0\] must be a bit mask of cards, .*got (np\.int64\()?-5\)?$"),
    ({"hands": [[7.7, 8, 9], [], []], "dealer": 0}, r"^options\['hands'\]\[0\] must be .*: each card must be a card id in 0\.\.51, got 7\.7$"),
    ({"hands": [[True], [], []], "dealer": 0}, r"each card must be a card id in 0\.\.51, got True$"),
    ({"hands": [[None], [], []], "dealer": 0}, r"each card must be a card id in 0\.\.51, got None$"),
    ({"hands": [2.5, 0, 0], "dealer": 0}, r"^options\['hands'\]\[0\] must be a bit mask, card ids or card strings .*, got 2\.5$"),
    ({"hands": 5, "dealer": 0}, r"^options\['hands'\] must be a list of one hand per seat \(3 hands\), got 5$"),
    ({"hands": "QS KS AS", "dealer": 0}, r"^options\['hands'\] must be a list of one hand per seat \(3 hands\), got 'QS KS AS'$"),
    ({"hands": [0, 0], "dealer": 0}, r"^options\['hands'\] must be a list of one hand per seat \(3 hands\), got \[0, 0\]$"),
    ({"dealer": 1.0}, r"^options\['dealer'\] must be a seat in 0\.\.2, got 1\.0$"),
    ({"dealer": True}, r"^options\['dealer'\] must be a seat in 0\.\.2, got True$"),
    ({"rotate": 1.5, "dealer": 0}, r"^options\['rotate'\] must be a whole number \(seats to shift left\), got 1\.5$"),
    ({"pass_direction": ["right"]}, r"^options\['pass_direction'\]=\['right'\] is not allowed; allowed: \['right'\]$"),
]


@pytest.mark.parametrize("options, message", HAND_OPTIONS)
def test_reset_options_of_the_wrong_kind_are_refused_at_once(options, message):
    env = BlackMariaEnv()
    env.reset(seed=0)
    before = _snapshot(env)
    _refused(lambda: env.reset(seed=5, options=options), message)
    assert _snapshot(env) == before


@pytest.mark.parametrize("options", ["hands", 5, [], 0, ["hands"], ("dealer", 0)])
def test_options_must_be_a_dict_or_none(options):
    # "hands" ended in dict()'s TypeError; [] and 0 were taken as no options at all
    env = BlackMariaEnv()
    env.reset(seed=0)
    before = _snapshot(env)
    _refused(lambda: env.reset(options=options),
             r"^options must be a dict of reset options \['hands', 'dealer', 'pass_direction', 'rotate', 'kitty'\] "
             r"or None, got ")
    assert _snapshot(env) == before


def test_kitty_cards_are_card_ids():
    env = BlackMariaEnv(rules="american_hearts", num_players=3, kitty="first_trick")
    env.reset(seed=0)
    hands = [list(np.flatnonzero(env.state()[52 * s:52 * (s + 1)])) for s in range(3)]
    kitty = env.unwrapped.match.deal.kitty
    _refused(lambda: env.reset(options={"hands": hands, "dealer": 0, "kitty": [float(kitty[0])]}),
             r"^options\['kitty'\] must be card ids or card strings such as \['QS'\]: each card must be a card id "
             r"in 0\.\.51, got \d+\.0$")
    env.reset(options={"hands": hands, "dealer": 0, "kitty": [np.int64(kitty[0])]})  # numpy integers are ids
    assert env.unwrapped.match.deal.kitty == kitty


def test_a_refused_deal_leaves_the_generator_where_it_was():
    # Hands of the right form that do not make the deck are refused by the deal itself, after the
    # seed was taken: the generator and the episode count stay as they were.
    env, twin = BlackMariaEnv(), BlackMariaEnv()
    env.reset(seed=1)
    twin.reset(seed=1)
    _refused(lambda: env.reset(seed=9, options={"hands": [1, 2, 4], "dealer": 0}), r"deck")
    env.reset()
    twin.reset()
    assert env.state().tobytes() == twin.state().tobytes()


def test_numpy_integers_are_whole_numbers_everywhere():
    env = BlackMariaEnv(num_players=np.int64(4), render_seat=np.int64(3), render_reveal=np.False_)
    assert env.rules.num_players == 4 and type(env.rules.num_players) is int
    env.reset(seed=np.uint8(3))
    state = env.state()
    hands = [np.uint64(sum(1 << int(c) for c in np.flatnonzero(state[52 * s:52 * (s + 1)]))) for s in range(4)]
    env.reset(options={"hands": hands, "dealer": np.int32(2), "rotate": np.int64(1)})
    assert env.unwrapped.match.deal.dealer == 3
    legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(np.int16(legal))


# ---------------------------------------------------------------------------- env arguments

@pytest.mark.parametrize("kwargs, message", [
    # any truthy value was taken: "no" revealed every hand
    (dict(render_reveal="no"), r"^render_reveal must be True or False, got 'no'$"),
    (dict(render_reveal=1), r"^render_reveal must be True or False, got 1$"),
    (dict(render_reveal=None), r"^render_reveal must be True or False, got None$"),
    (dict(reward_normalise="yes"), r"^reward_normalise must be True or False, got 'yes'$"),
    (dict(render_seat=1.0), r"^render_seat must be a seat in 0\.\.2, got 1\.0$"),
    (dict(render_seat=3), r"^render_seat must be a seat in 0\.\.2, got 3$"),
    (dict(episode=["deal"]), r"^episode=\['deal'\] is not allowed; allowed: \['deal', 'match'\]$"),
    (dict(render_mode=np.array(["ansi"])), r"^render_mode=array\(\['ansi'\], dtype='<U4'\) is not allowed"),
    (dict(num_players=4.0), r"^preset 'black_maria' is played by \[3, 4, 5, 6, 7\] players, not 4\.0$"),
    (dict(num_players=True), r"^preset 'black_maria' is played by \[3, 4, 5, 6, 7\] players, not True$"),
])
def test_env_arguments_are_checked_by_type_and_value(kwargs, message):
    _refused(lambda: black_maria_v0.env(**kwargs), message)


def test_single_agent_wrapper_takes_numpy_seats_and_refuses_a_bad_reset_untouched():
    env = SingleAgentEnv(learner=np.int64(1), rules="black_maria")
    assert env.learner == 1
    _refused(lambda: SingleAgentEnv(learner=1.0), r"^learner must be a seat in 0\.\.2, got 1\.0$")
    env.reset(seed=4)
    before = _snapshot(env.aec), env.np_random.bit_generator.state
    _refused(lambda: env.reset(seed=8, options="hands"), r"^options must be a dict")
    _refused(lambda: env.reset(options={"hands": [-1, 0, 0], "dealer": 0}), r"must be a bit mask of cards")
    _refused(lambda: env.reset(seed=-3), r"^seed must be a whole number of at least 0, or None; got -3$")
    assert (_snapshot(env.aec), env.np_random.bit_generator.state) == before
    _refused(lambda: env.step(2.0), r"^an action must be an int action id in 0\.\.51 \(a Python or numpy integer\), got 2\.0$")
    assert _snapshot(env.aec) == before[0]


# ---------------------------------------------------------------------------- actions

@pytest.mark.parametrize("action", [2.0, float("nan"), math.inf, "QS", b"1", [1], np.array([1]), np.float32(1), True, np.True_])
def test_an_action_must_be_an_int_action_id(action):
    # 2.0 was said to be "outside the action space"; the message now says what an action is
    env = black_maria_v0.env()
    env.reset(seed=0)
    before = _snapshot(env.unwrapped)
    e = _refused(lambda: env.step(action), r"^an action must be an int action id in 0\.\.51 \(a Python or numpy integer\), got ")
    assert isinstance(e, IllegalActionError)
    assert _snapshot(env.unwrapped) == before


# ---------------------------------------------------------------------------- renders, state, before reset

@pytest.mark.parametrize("call, message", [
    # seat 5 at a 3-player table drew a spectator's view; render_svg(5) ended in an IndexError
    (lambda e: e.render_text(5), r"^seat must be a seat in 0\.\.2, got 5$"),
    (lambda e: e.render_text(-1), r"^seat must be a seat in 0\.\.2, got -1$"),
    (lambda e: e.render_text(1.0), r"^seat must be a seat in 0\.\.2, got 1\.0$"),
    (lambda e: e.render_svg(3), r"^seat must be a seat in 0\.\.2, got 3$"),
    (lambda e: e.render_text(0, reveal="no"), r"^reveal must be True or False, got 'no'$"),
    (lambda e: e.render_svg(0, reveal=None), r"^reveal must be True or False, got None$"),
])
def test_renders_refuse_seats_that_are_not_at_the_table(call, message):
    env = BlackMariaEnv()
    env.reset(seed=0)
    _refused(lambda: call(env), message)
    assert "player_1 (you)" in env.render_text(np.int64(1))


@pytest.mark.parametrize("name, call", [
    ("state()", lambda e: e.state()),
    ("observe()", lambda e: e.observe("player_0")),
    ("step()", lambda e: e.step(0)),
    ("last()", lambda e: e.last()),
    ("information_state()", lambda e: e.information_state("player_0")),
    ("render_text()", lambda e: e.render_text(0)),
    ("render_svg()", lambda e: e.render_svg(0)),
])
def test_calls_before_reset_say_so(name, call):
    # state() before reset was an AttributeError about a private field
    e = kit.refusal(lambda: call(BlackMariaEnv()))
    assert isinstance(e, RuntimeError) and str(e) == f"call reset() before {name}: the environment has no deal yet"


# ---------------------------------------------------------------------------- rules options

INT_OPTIONS = [name for name in OPTION_NAMES if isinstance(getattr(Rules(), name), int)
               and not isinstance(getattr(Rules(), name), bool)] + ["sun_points", "match_floor", "pass_count_over_four"]


@pytest.mark.parametrize("name", INT_OPTIONS)
@pytest.mark.parametrize("value", [float("nan"), math.inf, -math.inf, 3.0])
def test_no_rules_option_takes_a_float_nan_or_infinity(name, value):
    # num_players goes to the preset first, which names the counts it is played by
    expected = r"^preset 'black_maria' is played by .* players, not " if name == "num_players" else rf"^rules option {name} must be int"
    with pytest.raises(RulesError, match=expected):
        make_rules("black_maria", **{name: value})


def test_rules_options_take_numpy_scalars_as_python_values():
    r = make_rules("american_hearts", np.int64(4), match_threshold=np.int32(50), queen_breaks_hearts=np.True_,
                   card_values={"QS": np.int64(13)}, exact_reset=(np.int64(100), np.int64(50)))
    assert r == make_rules("american_hearts", 4, match_threshold=50, queen_breaks_hearts=True, card_values={"QS": 13},
                           exact_reset=(100, 50))
    with pytest.raises(RulesError, match=r"card_values must be whole numbers; got QS=(np\.float64\()?nan\)?$"):
        make_rules("black_maria", card_values={"QS": np.float64("nan")})


def test_the_text_faces_read_whole_numbers_by_the_same_rule():
    # bm_env.config.number (command lines, configs, agent specs) takes its whole numbers from the engine's checks
    from bm_env.config import NumberError, number

    assert number(np.int64(3), int, 1) == 3 and type(number(np.uint8(3), int, 1)) is int
    assert number(np.float32(0.5), float, 0) == 0.5
    for value in (True, np.True_, 2.0, np.float64(2.0), "2.5"):
        with pytest.raises(NumberError):
            number(value, int, 0)
    with pytest.raises(NumberError, match=r"^must be a number of at least 0, got np\.float64\(nan\)$|got nan$"):
        number(np.float64("nan"), float, 0)
