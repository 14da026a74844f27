"""Plays the vector engine and the reference engine side by side (shared by the vector tests)."""

from __future__ import annotations

import numpy as np

from bm_env import observation
from bm_env.deal import Deal, deal_hands, pass_direction_for
from bm_env.infostate import information_state
from bm_env.rewards import deal_rewards
from bm_env.vector import VectorEngine


def reference_obs(deal: Deal, seat: int) -> np.ndarray:
    n = deal.num_players
    return observation.encode(information_state(deal, seat, [0] * n, 0))


def play_side_by_side(rules, batch: int, deals: int, seed: int, reward: str = "score", normalise: bool = False,
                      check_obs_every: int = 1) -> dict:
    """Step both engines with the same random legal actions until ``deals`` deals have ended.

    Asserts identical acting players, masks, observations (every ``check_obs_every``-th
    step), rewards, final scores and final observations. Returns counts for the caller.
    """
    n = rules.num_players
    rng = np.random.default_rng(seed)
    dealers = rng.integers(n, size=batch)
    hands = [deal_hands(rules, n, int(d), rng) for d in dealers]
    directions = [pass_direction_for(rules, 0, rng) for _ in range(batch)]
    refs = [Deal(rules, h, int(d), p) for h, d, p in zip(hands, dealers, directions)]
    eng = VectorEngine(rules, batch, reward=reward, normalise=normalise, seed=seed, final_observations=True)
    obs, mask, to_act = eng.reset(hands=np.array(hands, dtype=np.uint64), dealers=dealers,
                                  pass_directions=directions)
    ended, steps = 0, 0
    moons = 0
    while ended < deals:
        for i, ref in enumerate(refs):
            assert to_act[i] == ref.to_act, f"game {i} step {steps}: to_act"
            assert np.array_equal(mask[i], ref.legal_mask()), f"game {i} step {steps}: mask"
            if steps % check_obs_every == 0:
                want = reference_obs(ref, ref.to_act)
                got = obs[i]
                if not np.array_equal(got, want):
                    bad = np.flatnonzero(got != want)
                    names = {name for name, sl in observation.offsets(n).items() for b in bad if sl.start <= b < sl.stop}
                    raise AssertionError(f"game {i} step {steps}: observation differs in {sorted(names)}")
        actions = eng.random_actions(rng)
        last = to_act.copy()
        obs, mask, to_act, rewards, done, final = eng.step(actions)
        steps += 1
        state = eng.state()
        for i, ref in enumerate(refs):
            ref.step(int(actions[i]))
            assert done[i] == ref.is_over, f"game {i} step {steps}: done"
            if not done[i]:
                assert not rewards[i].any() and not final[i].any()
                continue
            ended += 1
            assert tuple(final[i]) == ref.scores, f"game {i}: scores {final[i]} vs {ref.scores}"
            want = np.float32(deal_rewards(rules, ref.scores, reward, normalise))
            assert np.array_equal(rewards[i], want), f"game {i}: rewards {rewards[i]} vs {want}"
            assert np.array_equal(eng.final_obs[i], reference_obs(ref, int(last[i]))), f"game {i}: final obs"
            moons += max(ref.penalty_taken) == ref.penalty_total
            refs[i] = Deal(rules, [int(h) for h in state["hands"][i]], int(state["dealer"][i]),
                           str(state["pass_direction"][i]))
            assert state["dealer"][i] == (ref.dealer + 1) % n
    return {"steps": steps, "deals": ended, "moons": moons}
