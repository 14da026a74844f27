"""copy.deepcopy and pickle of the AEC env (wrapped and raw), SingleAgentEnv and VectorEngine at any
point of a deal: the copy plays on exactly as the original does (observations, masks, rewards, infos,
the deals its generator draws later), and stepping one leaves the other as it was.

Each check copies, plays the copy on to the next deal and beyond, asserts that the original has not
changed, then plays the original with the same actions and compares every step, while a second copy
made beforehand must stay as it was.
"""

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from bm_env import black_maria_v0
from bm_env.engine.deal import PASS, PLAY
from bm_env.engine.rules import make_rules
from bm_env.learner import SingleAgentEnv
from bm_env.env.tracker import _cell_tables
from bm_env.vector import make_engine
from bm_env.vector.engine import PASSING, PLAYING

from kit import EXTENSIONS, SHIPPED_AGENT

#: One table of each preset family: classic (two), a kitty discarded to hand, charging, partnership, two decks.
FAMILIES = {
    "black_maria": ("black_maria", 3, {}),
    "american_hearts": ("american_hearts", 4, {}),
    "kitty": EXTENSIONS["kitty-5-to-hand"],
    "charging": ("turbo_hearts", 4, {}),
    "partnership": ("partnership_hearts", 4, {}),
    "cancellation": ("cancellation", 6, {}),
}
COPIERS = {"deepcopy": copy.deepcopy, "pickle": lambda x: pickle.loads(pickle.dumps(x))}
MAKERS = {"env": black_maria_v0.env, "raw_env": black_maria_v0.raw_env}
#: Decisions played after the next deal has begun (the cap keeps a broken stop condition from hanging).
AFTER_NEXT_DEAL, MAX_DECISIONS = 10, 2000


def plain(x):
    """``x`` as values ``==`` compares exactly: arrays as dtype, shape and items; containers item by item."""
    if isinstance(x, np.ndarray):
        return (x.dtype.str, x.shape, x.tolist() if x.dtype == object else x.tobytes())
    if isinstance(x, dict):
        return tuple((k, plain(v)) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return tuple(plain(v) for v in x)
    return x


def assert_same_frames(got: list[dict], want: list[dict], what: str) -> None:
    """The two runs saw the same at every step; a failure names the step and the parts that differ."""
    assert len(got) == len(want), f"{what}: {len(got)} steps against {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            pytest.fail(f"{what}: step {i} differs in {[k for k in w if g.get(k) != w[k]]}")


def family_args(family: str) -> dict:
    preset, n, options = FAMILIES[family]
    return dict(rules=preset, num_players=n, **options)


def check_copies(original, copier, play, frame) -> None:
    """Copy ``original``, play the copy (``play(obj) -> frames``), check the original is unchanged, then
    play the original the same way: the frames must agree, and a copy made in between must not move."""
    before = frame(original)
    first = copier(original)
    assert frame(first) == before, "the copy differs from the original"
    copy_frames = play(first)
    assert frame(original) == before, "stepping the copy changed the original"
    second = copier(original)
    assert_same_frames(play(original), copy_frames, "the original against its copy")
    assert frame(second) == before, "stepping the original changed a copy"
    assert_same_frames(play(second), copy_frames, "a copy of the original")


# ---------------------------------------------------------------------------- the AEC env


def env_frame(e) -> dict:
    """Everything the environment shows: each agent's observation and mask, the PettingZoo dicts, the
    perfect-information state."""
    u = e.unwrapped
    shown = {"state": plain(u.state()), "agents": tuple(e.agents),
             "generators": plain((u._rng.bit_generator.state, u.match.rng.bit_generator.state))}
    if e.agents:
        shown.update(
            selected=e.agent_selection, last=plain(e.last()),
            observations=plain({a: e.observe(a) for a in e.possible_agents}),
            rewards=plain(e.rewards), cumulative=plain(e._cumulative_rewards), terminations=plain(e.terminations),
            truncations=plain(e.truncations), infos=plain(e.infos),
        )
    return shown


def env_decision(e, rng: np.random.Generator) -> None:
    """One step of ``e``: a legal action drawn from ``rng``, None for a dead step, a reset without a seed
    once every agent has left (the next deal comes from the environment's own generator)."""
    if not e.agents:
        e.reset()
    elif e.terminations[e.agent_selection]:
        e.step(None)
    else:
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(legal[rng.integers(legal.size)]))


def play_env(e, seed: int) -> list[dict]:
    """Play ``e`` into its next deal and :data:`AFTER_NEXT_DEAL` decisions more; the frame after each step."""
    rng = np.random.default_rng(seed)
    u = e.unwrapped
    deal, left, frames = u.match.deal, None, []
    while left != 0:
        assert len(frames) < MAX_DECISIONS, "no next deal"
        env_decision(e, rng)
        frames.append(env_frame(e))
        if left is None and u.match.deal is not deal:
            left = AFTER_NEXT_DEAL
        elif left is not None:
            left -= 1
    return frames


#: Where a deal is copied: during the passing with a card picked, in a trick with a card on it, at its
#: end with every agent still to take its dead step, and (whole matches) just after a deal has ended.
POINTS = {
    "mid-pass": lambda u: u.match.deal.phase == PASS and any(u.match.deal.pass_picks),
    "mid-trick": lambda u: u.match.deal.phase == PLAY and len(u.match.deal.trick) > 0,
    "end": lambda u: bool(u.agents) and all(u.terminations.values()),
    "between-deals": lambda u: bool(u.agents) and not u.terminations[u.agent_selection]
                               and any(u.infos[a] for a in u.agents),
}


def advance(e, until, seed: int) -> None:
    """Step ``e`` with random legal actions until ``until(e.unwrapped)`` holds."""
    rng = np.random.default_rng(seed)
    for _ in range(MAX_DECISIONS):
        if until(e.unwrapped):
            return
        env_decision(e, rng)
    raise AssertionError("the copy point never came")


@pytest.mark.parametrize("copier", COPIERS)
@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("point", ["mid-pass", "mid-trick", "end"])
@pytest.mark.parametrize("family", FAMILIES)
def test_env_copies_play_on_as_the_original(family, point, maker, copier):
    e = MAKERS[maker](**family_args(family))
    e.reset(seed=11)
    advance(e, POINTS[point], seed=1)
    check_copies(e, COPIERS[copier], lambda x: play_env(x, seed=2), env_frame)


@pytest.mark.parametrize("copier", COPIERS)
@pytest.mark.parametrize("family", ["black_maria", "partnership"])
def test_a_match_copied_between_deals_plays_on_as_the_original(family, copier):
    e = black_maria_v0.env(episode="match", **family_args(family))
    e.reset(seed=5)
    advance(e, POINTS["between-deals"], seed=1)
    assert e.unwrapped.match.deals_played == 1
    check_copies(e, COPIERS[copier], lambda x: play_env(x, seed=2), env_frame)


@pytest.mark.parametrize("copier", COPIERS)
def test_copies_made_before_the_first_reset_start_as_the_original(copier):
    e, single, eng = black_maria_v0.env(), SingleAgentEnv(opponents="random"), make_engine(make_rules("turbo_hearts"), 3)
    c, single_copy, eng_copy = (COPIERS[copier](x) for x in (e, single, eng))
    with pytest.raises(AttributeError, match="before reset"):
        _ = c.agent_selection
    for x in (e, c):
        x.reset(seed=3)
    assert env_frame(c) == env_frame(e)
    assert plain(single_copy.reset(seed=3)) == plain(single.reset(seed=3))
    assert plain(eng_copy.reset(seed=3)) == plain(eng.reset(seed=3))
    assert engine_frame(eng_copy) == engine_frame(eng)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_tracker_tables_copies_share_never_change_in_play(family):
    """A copied tracker takes everything but its state from a fresh tracker of the same rules
    (:func:`bm_env.env.tracker._cell_tables`): that is right only if play never writes it."""
    e = black_maria_v0.raw_env(episode="match", **family_args(family))
    e.reset(seed=0)
    tracker = e._tracker
    shared = _cell_tables(type(tracker), e.rules)
    assert set(shared) | set(tracker._STATE) | set(tracker._VIEWS) == set(vars(tracker))
    fresh = {name: plain(v) for name, v in shared.items()}
    rng = np.random.default_rng(0)
    for i in range(300):
        env_decision(e, rng)
        if i % 5 == 0:
            changed = [name for name, v in fresh.items() if plain(vars(tracker)[name]) != v]
            assert not changed, f"decision {i} changed {changed}: they belong in the tracker's _STATE"
    assert copy.deepcopy(tracker)._follow_cells is shared["_follow_cells"]


@settings(max_examples=25, deadline=None)
@given(family=st.sampled_from(sorted(FAMILIES)), decisions=st.integers(0, 250), maker=st.sampled_from(sorted(MAKERS)),
       copier=st.sampled_from(sorted(COPIERS)), episode=st.sampled_from(["deal", "match"]))
def test_env_copied_after_any_number_of_decisions_plays_on_as_the_original(family, decisions, maker, copier, episode):
    e = MAKERS[maker](episode=episode, **family_args(family))
    e.reset(seed=decisions)
    rng = np.random.default_rng(decisions)
    for _ in range(decisions):
        env_decision(e, rng)
    check_copies(e, COPIERS[copier], lambda x: play_env(x, seed=3), env_frame)


@pytest.mark.parametrize("copier", COPIERS)
def test_a_copy_has_its_own_generators_shared_within_it_as_in_the_original(copier):
    """The environment and its match draw from one generator, as do the vector engine and its deal
    source (whose next block the tests above never reach): so do a copy's, apart from the original's."""
    e = black_maria_v0.raw_env(episode="match")
    e.reset(seed=0)
    eng = make_engine(make_rules("black_maria"), 4, seed=0)
    eng.reset()
    c, eng_copy = COPIERS[copier](e), COPIERS[copier](eng)
    assert c.match.rng is c._rng and c._rng is not e._rng
    assert eng_copy._source.rng is eng_copy._rng and eng_copy._rng is not eng._rng


# ---------------------------------------------------------------------------- SingleAgentEnv


def single_frame(e) -> dict:
    """The learner's mask, the perfect-information state, and every generator: the wrapper's and the opponents'."""
    agents = [a for _, a in sorted(e._opponents.items()) if hasattr(a, "rng")]
    return {"mask": plain(e.action_masks()), "state": plain(e.aec.state()),
            "generators": plain([g.bit_generator.state for g in [e.np_random] + [a.rng for a in agents]])}


def play_single(e, seed: int) -> list[dict]:
    """Step ``e`` with random legal actions, resetting (no seed) at the episode's end, into the next
    episode and :data:`AFTER_NEXT_DEAL` decisions more; what each step returned, and the frame."""
    rng = np.random.default_rng(seed)
    left, frames = None, []
    terminated = not e.action_masks().any()
    while left != 0:
        assert len(frames) < MAX_DECISIONS, "no next episode"
        if terminated:
            out = e.reset()
            terminated, left = False, AFTER_NEXT_DEAL
        else:
            legal = np.flatnonzero(e.action_masks())
            out = e.step(int(legal[rng.integers(legal.size)]))
            terminated = out[2]
            if left is not None:
                left -= 1
        frames.append({"returned": plain(out), **single_frame(e)})
    return frames


#: The other seats' players: the wrapper's own random choice, and agents with and without generators.
OPPONENTS = {
    "wrapper": None, "random": "random", "heuristic": "heuristic", "heuristic_v1": "heuristic_v1",
    "policy": f"policy:{SHIPPED_AGENT}", "sampling-policy": f"policy:{SHIPPED_AGENT},greedy=false",
    "search": "pimc:worlds=1,rollout=random", "mixed": ["heuristic", f"policy:{SHIPPED_AGENT},greedy=false"],
}


@pytest.mark.parametrize("copier", COPIERS)
@pytest.mark.parametrize("point", ["mid-pass", "mid-trick"])
@pytest.mark.parametrize("opponents", OPPONENTS)
def test_single_agent_env_copies_play_on_as_the_original(opponents, point, copier):
    e = SingleAgentEnv(opponents=OPPONENTS[opponents])
    e.reset(seed=7)
    rng = np.random.default_rng(1)
    while not POINTS[point](e.aec):
        e.step(int(rng.choice(np.flatnonzero(e.action_masks()))))
    check_copies(e, COPIERS[copier], lambda x: play_single(x, seed=2), single_frame)


@pytest.mark.parametrize("copier", COPIERS)
@pytest.mark.parametrize("family", FAMILIES)
def test_single_agent_env_copies_at_the_end_of_an_episode_play_on_as_the_original(family, copier):
    e = SingleAgentEnv(learner=1, opponents="heuristic" if family != "cancellation" else None, **family_args(family))
    e.reset(seed=7)
    rng = np.random.default_rng(1)
    while e.action_masks().any():
        e.step(int(rng.choice(np.flatnonzero(e.action_masks()))))
    check_copies(e, COPIERS[copier], lambda x: play_single(x, seed=2), single_frame)


# ---------------------------------------------------------------------------- VectorEngine

BATCH = 5  # odd: the mask packing's last game alone


def engine_frame(eng) -> dict:
    """Every array that decides how the games go on, the generator's state and the final observations."""
    return {"state": plain(eng.get_state()), "final": plain(eng.final_obs)}


def play_engine(eng, seed: int) -> list[dict]:
    """Step ``eng`` with random legal actions until every game is in its next deal, and
    :data:`AFTER_NEXT_DEAL` steps more; everything each step returned, and the frame."""
    rng = np.random.default_rng(seed)
    start = eng.deal_number.copy()
    left, frames = None, []
    while left != 0:
        assert len(frames) < MAX_DECISIONS, "no next deal"
        frames.append({"returned": plain(eng.step(eng.random_actions(rng))), **engine_frame(eng)})
        if left is None and (eng.deal_number > start).all():
            left = AFTER_NEXT_DEAL
        elif left is not None:
            left -= 1
    return frames


#: Where the batch is copied: passing with a card picked, game 0 in a trick, a step that ended a deal (just
#: after reset: the property test's zero steps).
ENGINE_POINTS = {
    "mid-pass": lambda eng, out: out is not None and (eng.phase == PASSING).any(),
    "mid-trick": lambda eng, out: eng.phase[0] == PLAYING and eng.in_trick[0] > 0,
    "end": lambda eng, out: out is not None and out[4].any(),
}


@pytest.mark.parametrize("copier", COPIERS)
@pytest.mark.parametrize("point", ENGINE_POINTS)
@pytest.mark.parametrize("family", FAMILIES)
def test_vector_engine_copies_play_on_as_the_original(family, point, copier):
    preset, n, options = FAMILIES[family]
    eng = make_engine(make_rules(preset, n, **options), BATCH, seed=4, final_observations=True)
    assert (type(eng).__name__ == "ExtendedEngine") == bool(eng.rules.uses_extensions)
    eng.reset()
    rng = np.random.default_rng(1)
    out = None
    for _ in range(MAX_DECISIONS):
        if ENGINE_POINTS[point](eng, out):
            break
        out = eng.step(eng.random_actions(rng))
    else:
        raise AssertionError("the copy point never came")
    check_copies(eng, COPIERS[copier], lambda x: play_engine(x, seed=2), engine_frame)


@settings(max_examples=12, deadline=None)
@given(family=st.sampled_from(sorted(FAMILIES)), steps=st.integers(0, 200), copier=st.sampled_from(sorted(COPIERS)))
def test_vector_engine_copied_after_any_number_of_steps_plays_on_as_the_original(family, steps, copier):
    preset, n, options = FAMILIES[family]
    eng = make_engine(make_rules(preset, n, **options), BATCH, seed=steps)
    eng.reset()
    rng = np.random.default_rng(steps)
    for _ in range(steps):
        eng.step(eng.random_actions(rng))
    check_copies(eng, COPIERS[copier], lambda x: play_engine(x, seed=3), engine_frame)
