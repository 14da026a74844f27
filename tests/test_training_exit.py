"""Expert iteration in bm-train: the search's targets, the rebuilt information states, the loss, resume, config."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch

from bm_env import make_rules
from bm_env.agents.checkpoint import PolicyNet, masked_logits
from bm_env.agents.pimc import card_to_play
from bm_env.agents.search import Searched, SearchAgent
from bm_env.config import ConfigError
from bm_env.env import observation
from bm_env.training.config import load_train_config
from bm_env.training.exit import Labeller, search_targets
from bm_env.training.play_order import info_states
from bm_env.training.ppo import Batch, ValueNet, update
from bm_env.training.ray_rollouts import RolloutActor, join
from bm_env.training.rollout import SelfPlay
from bm_env.training.trainer import Trainer

from kit import DECISIONS_PER_UPDATE, one_torch_thread, tiny_config, trainer_weights  # noqa: F401 (a fixture)

NAN = float("nan")
RULES = make_rules("black_maria")


def _searched(values, choices) -> Searched:
    values = np.array(values, dtype=float)
    return Searched(values, np.zeros_like(values), np.array(choices), np.array(choices))


def test_soft_targets_are_the_softmax_of_the_legal_values_at_the_temperature():
    # Row 0: values -1 and -1 - ln 3 at temperature 1 weigh e^-1 : e^-1 / 3, so 3/4 and 1/4.
    # Row 1: 0, -2 ln 3 and 0 at temperature 2 weigh 1 : 1/3 : 1 over 7/3: 3/7, 1/7, 3/7.
    found = _searched([[-1.0, NAN, -1.0 - math.log(3), NAN], [0.0, -2 * math.log(3), NAN, 0.0]], [0, 0])
    one = search_targets(_searched(found.values[:1], [0]), "soft", 1.0)
    assert one[0] == pytest.approx([0.75, 0.0, 0.25, 0.0])
    two = search_targets(_searched(found.values[1:], [0]), "soft", 2.0)
    assert two[0] == pytest.approx([3 / 7, 1 / 7, 0.0, 3 / 7])
    both = search_targets(found, "soft", 1.0)
    assert both.dtype == np.float32 and both.sum(axis=1) == pytest.approx([1.0, 1.0])
    assert (both[np.isnan(found.values)] == 0).all()  # nothing on an illegal card


def test_choice_targets_are_the_one_hot_of_the_card_the_search_kept_not_the_best_mean():
    # Three cards over four worlds: card 2 has the best mean (+0.5 over card 0, own) but a spread that keeps
    # it within one standard error, so the search keeps its own card 0.
    worlds = np.array([[0.0, -5.0, 2.0], [0.0, -5.0, -1.0], [0.0, -5.0, 2.0], [0.0, -5.0, -1.0]])
    kept = card_to_play(worlds, 0, 1.0)
    assert kept == 0 and int(np.argmax(worlds.mean(axis=0))) == 2
    legal = np.array([3, 7, 9])  # the cards' action ids
    values = np.full((1, 12), NAN)
    values[0, legal] = worlds.mean(axis=0)
    targets = search_targets(_searched(values, [legal[kept]]), "choice", 1.0)
    expected = np.zeros(12, dtype=np.float32)
    expected[3] = 1.0
    assert np.array_equal(targets[0], expected)


def test_a_decision_the_search_did_not_value_has_no_soft_target():
    with pytest.raises(ValueError, match="decision 1 was not searched"):
        search_targets(_searched([[0.0, NAN], [NAN, NAN]], [0, 0]), "soft", 1.0)


def _rollouts(count: int, **kw):
    selfplay = SelfPlay(RULES, 8, 30, critic_state=False, seed=5, keep_deals=True, **kw)
    torch.manual_seed(0)
    actor = PolicyNet(observation.size_for(RULES), RULES.num_actions, [16])
    critic = ValueNet("separate", observation.size_for(RULES), [16])
    generator, rng = torch.Generator().manual_seed(1), np.random.default_rng(2)
    return actor, [selfplay.collect(actor, critic, [], generator, rng, 0.0, 1.0, 0.95, torch.device("cpu"))
                   for _ in range(count)]


def _check_rebuilt(rollout) -> int:
    """Every play decision's rebuilt information state encodes to the observation it was trained on, and its legal
    cards are the mask's; returns how many were checked."""
    rows = np.flatnonzero(rollout.deals["playing"])
    infos = info_states(RULES, {key: value[rows] for key, value in rollout.deals.items()})
    obs, masks = rollout.batch.obs.numpy(), rollout.batch.mask.numpy()
    for row, info in zip(rows, infos):
        assert np.array_equal(observation.encode(info), obs[row]), f"row {row}"
        assert sorted(info.legal) == list(np.flatnonzero(masks[row]))
    return rows.size


def test_rebuilt_information_states_encode_to_the_rollouts_observations():
    # Two rollouts: the second's batch starts with decisions carried over from the first, whose deals had begun there.
    _, (first, second) = _rollouts(2)
    assert _check_rebuilt(first) > 100 and _check_rebuilt(second) > 100
    assert not first.deals["playing"].all()  # the pass picks are rows too, only never rebuilt
    with pytest.raises(ValueError, match="is a pass decision"):
        info_states(RULES, {key: value[~first.deals["playing"]] for key, value in first.deals.items()})


LABELLING = {"share": 0.1, "worlds": 2, "kind": "soft", "temperature": 1.0}


def _actor_rollouts(labelling):
    """Two rollout actors' rollouts (the --ray path without Ray: the actors are plain objects here)."""
    actor = PolicyNet(observation.size_for(RULES), RULES.num_actions, [16])
    critic = ValueNet("separate", observation.size_for(RULES), [16])
    weights = {"actor": actor.state_dict(), "critic": critic.state_dict(), "pool": []}
    return [RolloutActor(RULES, 4, 20, False, seed, actor, critic, 0, 0.0, None, 0.0, "fp32", labelling)
            .collect(weights, 0.0, 1.0, 0.95) for seed in (1, 2)]


def test_rollout_actors_label_their_own_games_and_the_labels_join_with_the_batches():
    parts = _actor_rollouts(LABELLING)
    assert all(p.deals is None and len(p.labels.rows) > 0 for p in parts)  # labelled there: no records to send
    joined = join(parts, torch.device("cpu"))
    first = len(parts[0].batch)
    assert np.array_equal(joined.labels.rows, np.concatenate([parts[0].labels.rows, parts[1].labels.rows + first]))
    assert np.array_equal(joined.labels.targets, np.concatenate([p.labels.targets for p in parts]))
    masks = joined.batch.mask.numpy()[joined.labels.rows]
    assert joined.labels.targets.sum(axis=1) == pytest.approx(np.ones(len(joined.labels.rows)))
    assert (joined.labels.targets[~masks] == 0).all()  # each target row sits on its own decision's legal cards
    counts = [len(p.labels.rows) for p in parts]
    assert joined.labels.agreement == pytest.approx(
        (parts[0].labels.agreement * counts[0] + parts[1].labels.agreement * counts[1]) / sum(counts))
    assert joined.labels.seconds == max(p.labels.seconds for p in parts) > 0


def test_an_actor_labels_its_rollout_as_the_drivers_labeller_would():
    actor = PolicyNet(observation.size_for(RULES), RULES.num_actions, [16])
    critic = ValueNet("separate", observation.size_for(RULES), [16])
    weights = {"actor": actor.state_dict(), "critic": critic.state_dict(), "pool": []}
    labelling, twin = (RolloutActor(RULES, 4, 20, False, 3, actor, critic, 0, 0.0, None, 0.0, "fp32", LABELLING)
                       for _ in range(2))
    twin.labeller = None  # collects the same games and keeps their records, for a labeller here to read
    labelled, plain = labelling.collect(weights, 0.0, 1.0, 0.95), twin.collect(weights, 0.0, 1.0, 0.95)
    assert torch.equal(labelled.batch.obs, plain.batch.obs) and plain.deals is not None
    here = Labeller(RULES, actor, **LABELLING).label(plain, actor, twin.rng)
    assert np.array_equal(labelled.labels.rows, here.rows) and np.array_equal(labelled.labels.targets, here.targets)


def test_unlabelled_rollouts_of_actors_join_without_labels():
    parts = _actor_rollouts(None)
    assert all(p.labels is None and p.deals is None for p in parts)
    joined = join(parts, torch.device("cpu"))
    assert joined.labels is None and len(joined.batch) == sum(len(p.batch) for p in parts)


def test_the_labeller_searches_its_share_of_the_play_decisions_with_the_current_policy():
    actor, (rollout,) = _rollouts(1)
    labeller = Labeller(RULES, actor, 0.1, 2, "soft", 1.0)
    pool = labeller.candidates(rollout)
    masks = rollout.batch.mask.numpy()
    assert rollout.deals["playing"][pool].all() and (masks[pool].sum(axis=1) > 1).all()
    labels = labeller.label(rollout, actor, np.random.default_rng(0))
    assert len(labels.rows) == round(0.1 * pool.size) and np.isin(labels.rows, pool).all()
    assert labels.targets.sum(axis=1) == pytest.approx(np.ones(len(labels.rows)))
    assert (labels.targets[~masks[labels.rows]] == 0).all()
    assert 0.0 <= labels.agreement <= 1.0
    # The search is guided by the actor as it is at each labelling, its first layer (the one the search keeps a copy
    # of) included: after the actor's weights change, the search's greedy cards are the changed actor's.
    obs = rollout.batch.obs.numpy()
    with torch.no_grad():
        for p in actor.parameters():
            p.copy_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel())))
        wanted = masked_logits(actor(rollout.batch.obs.float()), rollout.batch.mask).argmax(dim=1).numpy()
    stale = labeller.search.greedy(obs, masks)
    labeller.label(rollout, actor, np.random.default_rng(1))
    assert (stale != wanted).any() and np.array_equal(labeller.search.greedy(obs, masks), wanted)


def test_a_search_guide_network_must_fit_the_rules():
    with pytest.raises(ValueError, match="the guide network reads 10 cells"):
        SearchAgent(PolicyNet(10, RULES.num_actions, [4]), RULES)


def _batch(size: int, actions: int, generator: torch.Generator) -> Batch:
    obs = torch.randint(0, 2, (size, 12), generator=generator, dtype=torch.int8)
    mask = torch.rand(size, actions, generator=generator) < 0.6
    mask[:, 0] = True
    zeros = torch.zeros(size)
    return Batch(obs=obs, hidden=None, mask=mask, actions=torch.zeros(size, dtype=torch.int64), logp=zeros.clone(),
                 values=zeros.clone(), advantages=zeros.clone(), returns=zeros.clone())


def test_the_exit_loss_is_the_cross_entropy_to_the_targets_on_the_labelled_rows():
    g = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    actor, critic = PolicyNet(12, 6, [8]), ValueNet("separate", 12, [8])
    batch = _batch(40, 6, g)
    targets = torch.zeros(40, 6)
    labelled = torch.arange(0, 40, 4)
    for r in labelled.tolist():  # half on the first legal action, half on the last
        legal = batch.mask[r].nonzero().flatten()
        targets[r, legal[0]] += 0.5
        targets[r, legal[-1]] += 0.5
    batch.exit_targets = targets
    with torch.no_grad():
        logp = torch.log_softmax(masked_logits(actor(batch.obs.float()), batch.mask), dim=1)
        expected = -(targets[labelled] * logp[labelled]).sum(dim=1).mean().item()
    optimizer = torch.optim.SGD([*actor.parameters(), *critic.parameters()], lr=0.0)
    stats = update(actor, critic, optimizer, batch, 1, 40, 0.2, 0.0, 0.5, 1.0, None, g, exit_coef=1.0)
    assert stats["exit_loss"] == pytest.approx(expected, rel=1e-6)


def test_the_exit_term_pulls_the_policy_to_the_targets():
    # Zero advantages and no entropy bonus: the exit term is the only pull on the policy.
    g = torch.Generator().manual_seed(1)
    torch.manual_seed(1)
    actor, critic = PolicyNet(12, 6, [16]), ValueNet("separate", 12, [8])
    batch = _batch(64, 6, g)
    target = batch.mask.long().argmax(dim=1)  # the first legal action of each row
    batch.exit_targets = torch.nn.functional.one_hot(target, 6).float()
    optimizer = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=1e-2)

    def agreement() -> float:
        with torch.no_grad():
            return (masked_logits(actor(batch.obs.float()), batch.mask).argmax(dim=1) == target).float().mean().item()

    before = agreement()
    for _ in range(30):
        stats = update(actor, critic, optimizer, batch, 1, 64, 0.2, 0.0, 0.5, 1.0, None, g, exit_coef=1.0)
    assert before < 0.9 and agreement() == 1.0 and stats["exit_loss"] < 0.1


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="torch sees no CUDA device"))])
def test_a_run_with_expert_iteration_resumes_to_the_weights_of_an_uninterrupted_one(tmp_path, device):
    exit_on = dict(exit_share=0.1, exit_worlds=2, device=device)
    whole = Trainer(tiny_config(total_decisions=2 * DECISIONS_PER_UPDATE, **exit_on), str(tmp_path / "a"), quiet=True)
    whole.run()
    part = Trainer(tiny_config(total_decisions=DECISIONS_PER_UPDATE, **exit_on), str(tmp_path / "b"), quiet=True)
    part.run()
    resumed = Trainer.resume(str(tmp_path / "b"), {"total_decisions": 2 * DECISIONS_PER_UPDATE}, quiet=True)
    assert resumed.update_index == 1 and resumed.labeller is not None
    resumed.run()
    a, b = trainer_weights(whole), trainer_weights(resumed)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    # The labels changed what was learned: the run without them ends elsewhere.
    plain = Trainer(tiny_config(total_decisions=2 * DECISIONS_PER_UPDATE, device=device), str(tmp_path / "c"),
                    quiet=True)
    plain.run()
    assert not torch.equal(trainer_weights(plain)["actor.body.0.weight"], a["actor.body.0.weight"])


@pytest.mark.parametrize("override, words", [
    ("exit_share=.nan", "key 'exit_share' must be a number from 0 to 1, got nan"),
    ("exit_share=1.5", "key 'exit_share' must be a number from 0 to 1, got 1.5"),
    ("exit_coef=.inf", "key 'exit_coef' must be a number of at least 0, got inf"),
    ("exit_temperature=0", "key 'exit_temperature' must be a number above 0, got 0"),
    ("exit_temperature=.nan", "key 'exit_temperature' must be a number above 0, got nan"),
    ("exit_worlds=0", "key 'exit_worlds' must be a whole number from 1 to 1024, got 0"),
    ("exit_targets=hard", "key 'exit_targets' must be 'soft' or 'choice', got 'hard'"),
])
def test_the_exit_keys_are_checked(override, words):
    with pytest.raises(ConfigError, match=re.escape(words)):
        load_train_config(None, [override])


def test_expert_iteration_on_rules_the_search_does_not_play_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="key 'exit_share': search plays the classic rules only"):
        Trainer(tiny_config(preset="turbo_hearts", exit_share=0.1), str(tmp_path),
                quiet=True)
