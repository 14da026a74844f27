"""The rule systems' faces in the incremental observation (bm_env/env/faces.py, bm_env/systems/*/tracker.py).

Each system's face follows its cells (that no module outside a system reads its options is
tests/test_systems.py's). Every system with state cells has a face of its own, and the fallback
that re-encodes a system without one keeps the rows equal to the reference encoder: played in
place of each face, with the classic parts that face changes named, it passes the same checks.
"""

from __future__ import annotations

import numpy as np
import pytest

from bm_env.black_maria_v0 import raw_env
from bm_env.env import faces
from bm_env.env.faces import Reencoded, TrackerFace, face_class
from bm_env.systems import SYSTEMS
from bm_env.systems.component import RuleSystem

from kit import EXTENSIONS, assert_rows_match, random_walk


def _writes_state(system: RuleSystem) -> bool:
    return system.encode_state is not RuleSystem.encode_state


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_every_system_with_state_cells_follows_them_with_a_face_of_its_own(system):
    face = face_class(system)
    if _writes_state(system):
        assert face is not None and face is not Reencoded, \
            f"{system.name} has no bm_env/systems/{system.name}/tracker.py: the slow fallback would re-encode it"
        assert issubclass(face, TrackerFace)
    else:  # its cells are rules, in every row's template
        assert face is None


def test_a_system_without_a_tracker_module_falls_back_to_the_encoder_where_it_has_state_cells():
    with_state = RuleSystem(name="no_such_system", options={}, encode_state=lambda *args: None)
    assert face_class(with_state) is Reencoded
    assert face_class(RuleSystem(name="no_such_system", options={})) is None


#: For each system with a face, a case that exercises it, and the classic parts its face changes.
FALLBACK_CASES = {
    "two_decks": ("cancellation-6", ()),
    "kitty": ("kitty-5-to-hand", ("hand", "points_taken")),
    "passing": ("scatter-3-pass-on", tuple(f"passed_to_seat{r}" for r in range(1, 3))),
    "moon": ("pass-on-every-moon", ()),
    "charging": ("turbo", ()),
    "booster_nines": ("booster", ()),
    "teams": ("partnership", ()),
    "domino": ("domino-3", ("hand",)),
}


def test_the_fallback_cases_cover_every_face():
    assert set(FALLBACK_CASES) == {s.name for s in SYSTEMS if face_class(s) not in (None, Reencoded)}


@pytest.mark.parametrize("name", sorted(FALLBACK_CASES))
def test_the_fallback_in_place_of_a_face_keeps_the_rows_equal_to_the_encoder(name, monkeypatch):
    case, also = FALLBACK_CASES[name]
    own = face_class(next(s for s in SYSTEMS if s.name == name))
    fallback = type("Fallback", (Reencoded,), {"also": also, "holds_copies": own.holds_copies})
    monkeypatch.setattr(faces, "face_class", lambda s: fallback if s.name == name else face_class(s))
    preset, n, kw = EXTENSIONS[case]
    e = raw_env(rules=preset, num_players=n, episode="match", **kw)
    assert any(isinstance(f, fallback) for followers in e._tracker._on_decided.values() for f in followers)
    random_walk(e, np.random.default_rng(len(name)), 120, seed=5)


def test_a_renege_after_the_kitty_is_taken_shows_its_face_down_points():
    """The deal is scored at once, so every row counts the points of the kitty its taker holds face down."""
    reneged_with_face_down_points = 0
    for seed in range(6):
        e = raw_env(rules="american_hearts", num_players=5, kitty="first_trick", illegal_action="renege_penalty")
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        deal = e.match.deal
        while not deal.face_down_points and not e.terminations[e.agent_selection]:
            e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
        if e.terminations[e.agent_selection]:
            continue
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0]))
        assert deal.renege is not None
        reneged_with_face_down_points += 1
        assert_rows_match(e, "after a renege")
    assert reneged_with_face_down_points
